"""``tf.Tensor``: an immutable eager value wrapping one ``torch.Tensor``.

A string tensor holds a NumPy object array of ``bytes`` in ``_t`` instead.
Operators (``+``, ``[]``, ``==`` ...) are installed by ``ops/tensor_operators.py``
so that this engine layer does not depend on the op layer.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import context, dtypes, errors
from torchflow._src.core.tensor_shape import TensorShape, from_tuple
from torchflow._src.util.api import public

_BY_TORCH = dtypes._BY_TORCH
# Set by graph_trace: refuses ``bool()`` of a traced tensor where TF does.
_graph_bool_check = None
# Set by graph_reads: graph_trace (whose ``_ACTIVE`` says some thread traces) and the
# check of TF's rules for reading a graph tensor into Python (``.numpy()`` ...).
_graph_reads = None
_check_read = None


# ``fn(tensor, shape)``, called first by ``Tensor.set_shape``; True accepts the shape
# unchecked. Set by core/function_spec.py: tf.data's spec traces note declared shapes.
_set_shape_hook = None


@public("torchflow")
class Tensor:
    """A multidimensional array of elements of one ``dtype``, with a ``shape``.

    Tensors are immutable. Create them with ``tf.constant`` or
    ``tf.convert_to_tensor``, or as the result of ops.
    ``tf.experimental.numpy.ndarray`` is this class.

    >>> import torchflow as tf
    >>> t = tf.constant([[1., 2.], [3., 4.]])
    >>> t.shape
    TensorShape([2, 2])

    Args:
      *args: Not accepted: tensors are not constructed directly (TF 2.4's
        ``Tensor(op, value_index, dtype)`` builds graph tensors, which torchflow's
        ``tf.function`` makes itself).
      **kwargs: Not accepted either.

    Raises:
      TypeError: on any direct construction.
    """

    __slots__ = ("_t", "_dtype", "_keras_mask", "__weakref__")

    # Tensor `==` is elementwise in TF 2.x, which makes tensors unhashable.
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "tf.Tensor objects cannot be constructed directly; use tf.constant or "
            "tf.convert_to_tensor."
        )

    # --- metadata ----------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return from_tuple(self._t.shape)

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape) -> None:
        hook = _set_shape_hook
        if hook is not None and hook(self, shape):
            return
        if not self.shape.is_compatible_with(shape):
            raise ValueError(
                f"Tensor's shape {self.shape} is not compatible with supplied shape "
                f"{TensorShape(shape)}"
            )

    @property
    def ndim(self) -> int:
        return self._t.ndim

    @property
    def device(self) -> str:
        t = self._t
        if isinstance(t, np.ndarray):
            return "/job:localhost/replica:0/task:0/device:CPU:0"
        return context.tf_device_name(t.device)

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    # --- values ------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """Returns the value as a NumPy array (may share memory on the CPU).

        As in TF, a scalar gives a NumPy scalar (``bytes`` for a string).

        Raises:
          AttributeError: In user code inside a ``tf.function`` (a graph tensor has no
            value), as TF's ``'Tensor' object has no attribute 'numpy'``.
        """
        g = _graph_reads
        if g is not None and g._ACTIVE is not None:
            _check_read(self, "numpy")  # pyright: ignore[reportOptionalCall] - set with _graph_reads
        a = to_numpy(self._t, self._dtype)
        return a[()] if a.ndim == 0 else a

    def __array__(self, dtype=None, copy=None):
        g = _graph_reads
        if g is not None and g._ACTIVE is not None:
            _check_read(self, "array")  # pyright: ignore[reportOptionalCall] - set with _graph_reads
        a = to_numpy(self._t, self._dtype)
        if dtype is not None and a.dtype != np.dtype(dtype):
            return a.astype(dtype)
        if copy:
            return a.copy()
        return a

    def _scalar(self, what: str):
        if self._t.ndim != 0 and self.shape.num_elements() != 1:
            raise TypeError(f"only size-1 tensors can be converted to Python {what}")
        v = self.numpy()
        return v.reshape(()).item() if isinstance(v, np.ndarray) else v

    def __bool__(self) -> bool:
        if _graph_bool_check is not None:
            _graph_bool_check(self)
        if self._t.ndim != 0 and self.shape.num_elements() == 0:
            return False  # NumPy's (deprecated) answer, which TF returns
        if self._t.ndim != 0 and self.shape.num_elements() != 1:
            raise ValueError(
                "The truth value of an array with more than one element is ambiguous. "
                "Use a.any() or a.all()"
            )
        return bool(self._scalar("bool"))

    def __int__(self) -> int:
        g = _graph_reads
        if g is not None and g._ACTIVE is not None:
            _check_read(self, "int")  # pyright: ignore[reportOptionalCall] - set with _graph_reads
        return int(self._scalar("int"))

    def __float__(self) -> float:
        g = _graph_reads
        if g is not None and g._ACTIVE is not None:
            _check_read(self, "float")  # pyright: ignore[reportOptionalCall] - set with _graph_reads
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        g = _graph_reads
        if g is not None and g._ACTIVE is not None:
            _check_read(self, "complex")  # pyright: ignore[reportOptionalCall] - set with _graph_reads
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        g = _graph_reads
        if g is not None and g._ACTIVE is not None:
            _check_read(self, "index")  # pyright: ignore[reportOptionalCall] - set with _graph_reads
        if not self._dtype.is_integer or self._t.ndim != 0:
            raise TypeError(
                f"Only integers, slices, ellipsis, tf.newaxis and scalar tf.int32/tf.int64 "
                f"tensors are valid indices, got {self!r}"
            )
        return int(self._t.item())

    def __format__(self, format_spec: str) -> str:
        # TF formats the NumPy value: f"{loss:.3f}" works on scalars; a non-scalar
        # takes only the empty spec (NumPy's TypeError otherwise).
        return self.numpy().__format__(format_spec)

    def __round__(self, ndigits=None) -> "Tensor":
        """``round(t)`` / ``round(t, n)``: a Tensor of the same dtype rounded half to
        even, as TF's ``Tensor.__round__`` (``tnp.around``) returns."""
        return _round(self, 0 if ndigits is None else ndigits)

    def __len__(self) -> int:
        if self._t.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._t.shape[0]

    def __iter__(self):
        # Not a generator itself: iter(scalar) raises at once, as in TF.
        if self._t.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return _rows(self._t, self._dtype)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return wrap(self._t.clone() if isinstance(self._t, torch.Tensor) else self._t.copy(),
                    self._dtype)

    def __reduce__(self):
        # cycle: convert builds Tensors, so it imports tensor at its top.
        from torchflow._src.core.convert import constant

        return constant, (self.numpy(), self._dtype)

    # --- identity ----------------------------------------------------------
    def ref(self) -> "Reference":
        """A hashable reference to this tensor; ``ref.deref()`` returns it."""
        return Reference(self)

    def experimental_ref(self) -> "Reference":
        return self.ref()

    # --- printing ----------------------------------------------------------
    def __repr__(self) -> str:
        return (
            f"<tf.Tensor: shape={self.shape}, dtype={self._dtype.name}, "
            f"numpy={_numpy_repr(self)}>"
        )

    def __str__(self) -> str:
        return f"tf.Tensor({_numpy_str(self)}, shape={self.shape}, dtype={self._dtype.name})"

    # Operators and __getitem__ are installed by ops/tensor_operators.py.
    __array_priority__ = 100


def _rows(t, d):
    if isinstance(t, np.ndarray):  # string tensors: keep 0-d arrays, not bytes
        for i in range(t.shape[0]):
            yield wrap(t[i, ...], d)
        return
    for i in range(t.shape[0]):
        yield wrap(t[i], d)


def _round(x: Tensor, ndigits) -> Tensor:
    ndigits = int(ndigits)
    t = x._t
    if isinstance(t, np.ndarray) or x._dtype.is_bool or x._dtype.is_complex:
        raise TypeError(f"type Tensor of dtype {x._dtype.name} doesn't define __round__ "
                        f"method")
    if t.is_floating_point():
        if ndigits == 0:
            return wrap(torch.round(t), x._dtype)
        # NumPy's around scales in the value's own dtype (float32 2.35 -> 2.4).
        return wrap(torch.round(t, decimals=ndigits), x._dtype)
    if ndigits >= 0:
        return x
    factor = 10 ** -ndigits
    return wrap((torch.round(t.double() / factor) * factor).to(t.dtype), x._dtype)


def _numpy_repr(t: Tensor) -> str:
    # TF 2.4 printed NumPy 1.x scalars: numpy=0.1, not np.float32(0.1).
    with np.printoptions(legacy="1.25"):
        text = repr(t.numpy())
    return "\n" + text if "\n" in text else text


def _numpy_str(t: Tensor) -> str:
    text = str(t.numpy())
    return "\n" + text if "\n" in text else text


class Reference:
    """A hashable wrapper around a tensor or variable (what ``Tensor.ref()`` returns)."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        return self._wrapped

    def __eq__(self, other):
        return isinstance(other, Reference) and self._wrapped is other._wrapped

    def __hash__(self):
        return id(self._wrapped)

    def __repr__(self):
        return f"<Reference wrapping {self._wrapped!r}>"


_new = object.__new__
# Set by result_hooks while tf.debugging's check-numerics or device-placement
# logging is on; the one test every op result pays while they are off.
_result_hook = None


def wrap(t, dtype: dtypes.DType | None = None) -> Tensor:
    """Wraps a torch tensor (or a NumPy bytes array with ``dtype=string``)."""
    r = _new(Tensor)
    r._t = t
    r._dtype = _BY_TORCH[t.dtype] if dtype is None else dtype
    if _result_hook is not None:
        _result_hook(r)
    return r


def to_numpy(t, dtype: dtypes.DType) -> np.ndarray:
    """NumPy value of a torch tensor (zero-copy on the CPU where the dtype allows)."""
    if isinstance(t, np.ndarray):
        return t
    if t.requires_grad:
        t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if dtype is dtypes.bfloat16:
        np_bf16 = dtypes.bfloat16.as_numpy_dtype
        a = t.float().numpy()
        return a.astype(np_bf16) if np_bf16 is not None else a
    t = t.resolve_conj() if t.is_complex() else t
    return t.numpy()


def is_tensor_like(x) -> bool:
    """True for tf.Tensor and objects that convert to one through ``_tf_value``."""
    return isinstance(x, Tensor) or hasattr(x, "_tf_value")


@public("torchflow")
def is_tensor(x) -> bool:
    """Returns True if ``x`` is a torchflow tensor-like object (Tensor, Variable,
    KerasTensor, distributed value), as ``tf.is_tensor`` does.

    Args:
      x: Any Python object.

    Returns:
      A Python bool.
    """
    return isinstance(x, Tensor) or getattr(x, "_is_tf_tensor_like", False) or hasattr(
        x, "_tf_value"
    )


@public("torchflow")
def executing_eagerly() -> bool:
    """True outside a traced ``tf.function`` body (torchflow runs bodies eagerly
    unless ``jit_compile``; see DESIGN.md)."""
    return context.thread_state().function_depth == 0 or context.GLOBAL.run_functions_eagerly


__all__ = ["Tensor", "wrap", "to_numpy", "is_tensor", "errors"]
