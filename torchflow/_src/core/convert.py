"""``tf.constant`` and ``tf.convert_to_tensor``: Python/NumPy values to tensors.

TF's inference rules: Python floats become float32, Python ints int32 (int64
when a value does not fit), bools bool, complex complex128, str/bytes string.
NumPy arrays keep their dtype. Lists holding tensors are stacked (so gradients
flow through them).
"""

from __future__ import annotations

import numbers

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core import tensor_conversion_registry as _conversion_registry
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import as_shape
from torchflow._src.util.api import public

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _to_bytes(x):
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, np.bytes_):
        return bytes(x)
    if isinstance(x, np.str_):
        return str(x).encode("utf-8")
    raise TypeError(f"Failed to convert elements of {x!r} to Tensor of dtype string.")


def string_array(value) -> np.ndarray:
    """A NumPy object array of ``bytes`` from nested str/bytes values."""
    a = np.asarray(value, dtype=object)
    out = np.empty(a.shape, dtype=object)
    flat_in = a.reshape(-1)
    flat_out = out.reshape(-1)
    for i in range(flat_in.size):
        flat_out[i] = _to_bytes(flat_in[i])
    return out


def _contains_tensor(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, Tensor) or hasattr(v, "_tf_value") or _contains_tensor(v)
                   for v in value)
    return False


def _scalar_error(value, dtype):
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")


def check_python_scalar(value, dtype: dtypes.DType):
    """Raises TypeError if a Python scalar cannot become ``dtype`` without loss."""
    kind = dtype._kind
    if isinstance(value, bool):
        if kind != "b":
            raise _scalar_error(value, dtype)
        return
    if isinstance(value, numbers.Integral):
        if kind in "iu":
            info = np.iinfo(dtype.as_numpy_dtype)
            if not info.min <= int(value) <= info.max:
                raise _scalar_error(value, dtype)
        elif kind not in "fc":
            raise _scalar_error(value, dtype)
        return
    if isinstance(value, numbers.Real):
        if kind not in "fc":
            raise _scalar_error(value, dtype)
        return
    if isinstance(value, numbers.Complex):
        if kind != "c":
            raise _scalar_error(value, dtype)
        return
    if isinstance(value, (str, bytes)):
        if kind != "s":
            raise _scalar_error(value, dtype)


_OUT_OF_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."


def _infer_np(value):
    """NumPy array + inferred DType for a Python (nested) value."""
    try:
        arr = np.asarray(value)
    except UnicodeDecodeError:  # bytes that are not ASCII beside str: TF takes both
        arr = np.asarray(value, dtype=object)
    k = arr.dtype.kind
    if k == "f":
        return arr, dtypes.float32
    if k in "iu":
        if arr.size == 0 or (arr.min() >= _INT32_MIN and arr.max() <= _INT32_MAX):
            return arr, dtypes.int32
        if arr.dtype == np.uint64 and arr.max() > np.iinfo(np.int64).max:
            return arr, None  # beyond int64: only an explicit uint64 dtype can hold it
        return arr, dtypes.int64
    if k == "b":
        return arr, dtypes.bool
    if k == "c":
        return arr, dtypes.complex128
    if k == "O" and arr.size and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr.reshape(-1)):
        raise ValueError(_OUT_OF_RANGE)  # NumPy keeps ints beyond int64/uint64 as objects
    if k in "USO":
        return string_array(value), dtypes.string
    raise TypeError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                    f"({type(value)}) to a Tensor.")


def _np_to_torch(arr: np.ndarray, dtype: dtypes.DType, device) -> torch.Tensor:
    if dtype is dtypes.bfloat16:
        a = np.ascontiguousarray(arr, dtype=np.float32).reshape(arr.shape)
        t = torch.from_numpy(a).to(torch.bfloat16)
    else:
        a = np.ascontiguousarray(arr, dtype=dtype.as_numpy_dtype)
        if not a.flags.writeable or np.may_share_memory(a, arr):
            a = a.copy()  # tensors are immutable: never alias the caller's buffer
        # ascontiguousarray returns at least 1-d: restore 0-d shapes.
        t = torch.from_numpy(a.reshape(arr.shape))
    if device.type != "cpu":
        t = t.to(device)
    return t


def _cast_ok(src: dtypes.DType, dst: dtypes.DType, value) -> None:
    if src is dst:
        return
    if dst is dtypes.string or src is dtypes.string:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dst.name}")


def to_tensor(value, dtype=None, *, allow_cast_np: bool = True, name=None) -> Tensor:  # noqa: C901 (one flat dispatch on the hot path)
    """Core conversion shared by ``constant`` and ``convert_to_tensor``."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        return value
    conv = getattr(value, "_tf_value", None)
    if conv is not None:
        return conv(dtype)
    device = context.default_device()
    if isinstance(value, torch.Tensor):
        t = value.detach()
        return wrap(t.to(device) if t.device != device else t)
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype.kind in "USO":
            return wrap(string_array(arr), dtypes.string)
        src = dtypes.as_dtype(arr.dtype)
        tgt = dtype or src
        _cast_ok(src, tgt, value)
        return wrap(_np_to_torch(arr, tgt, device), tgt)
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        parts = [to_tensor(v, dtype) for v in value]
        if parts:
            d0 = parts[0]._dtype
            for p in parts:
                if p._dtype is not d0:
                    raise TypeError(
                        f"Tensors in list passed to 'values' of 'Pack' Op have types "
                        f"[{', '.join(p._dtype.name for p in parts)}] that don't all match."
                    )
        if parts[0]._dtype is dtypes.string:
            return wrap(np.stack([p._t for p in parts]), dtypes.string)
        return wrap(torch.stack([p._t for p in parts]), parts[0]._dtype)
    if isinstance(value, (bool, int, float, complex, str, bytes)) and dtype is not None:
        check_python_scalar(value, dtype)
        if dtype is dtypes.string:
            return wrap(string_array(value), dtypes.string)
        if dtype._torch is not None and dtype not in (dtypes.uint16, dtypes.uint32, dtypes.uint64):
            return wrap(torch.tensor(value, dtype=dtype._torch, device=device), dtype)
    if isinstance(value, dtypes.DType):
        raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                         f"({type(value)}) to a Tensor.")
    if _conversion_registry._REGISTRY and not isinstance(value, (list, tuple)):
        out = _conversion_registry.convert_registered(value, dtype, name)
        if out is not None:
            return out
    if not isinstance(value, (list, tuple)) and hasattr(value, "__array__"):
        # Array-likes (a pandas Series) keep their NumPy dtype, as in TF: int64 stays int64.
        return to_tensor(np.asarray(value), dtype, allow_cast_np=allow_cast_np, name=name)
    try:
        arr, inferred = _infer_np(value)
    except (ValueError, TypeError) as e:
        if str(e) == _OUT_OF_RANGE:
            raise
        if "inhomogeneous" in str(e) or "sequence" in str(e):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
        # TF's converter reports unsupported Python types as ValueError.
        raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                         f"({type(value)}) to a Tensor.") from None
    if inferred is None:
        if dtype is not dtypes.uint64:
            raise ValueError(_OUT_OF_RANGE)
        inferred = dtypes.uint64
    if inferred is dtypes.string:
        if dtype is not None and dtype is not dtypes.string:
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
        return wrap(arr, dtypes.string)
    if dtype is not None and dtype is not inferred:
        _check_list_values(arr, inferred, dtype, value)
        inferred = dtype
    return wrap(_np_to_torch(arr, inferred, device), inferred)


def _check_list_values(arr, src, dst, value):
    if arr.size == 0 and dst is not dtypes.string:
        return  # an empty list has no values to lose: tf.constant([], tf.int32) is valid
    if dst is dtypes.string:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dst.name}")
    if src.is_floating and (dst.is_integer or dst.is_bool):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dst.name}")
    if src.is_complex and not dst.is_complex:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dst.name}")
    if src.is_integer and dst.is_bool:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dst.name}")
    if src.is_integer and dst.is_integer and arr.size:
        info = np.iinfo(dst.as_numpy_dtype)
        if arr.min() < info.min or arr.max() > info.max:
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dst.name}")


@public("torchflow")
def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """Converts ``value`` to a ``Tensor``.

    Args:
      value: A Tensor, Variable, NumPy array, Python scalar or nested list.
      dtype: Optional element type; the value must already be of it (Tensors)
        or convertible to it without loss (Python values).
      dtype_hint: A dtype to use when ``dtype`` is None and the value's own type
        does not decide (Python values); ignored when it does not fit.
      name: Unused (eager).

    Returns:
      A ``Tensor``.

    Raises:
      TypeError: If a Python value cannot become ``dtype``.
      ValueError: If a Tensor has a dtype other than ``dtype``.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    t = to_tensor(value, dtype)
    if dtype is not None and t._dtype is not dtype:
        if isinstance(value, (np.ndarray, np.generic)):
            return t
        raise ValueError(
            f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
            f"{t._dtype.name}: {t!r}"
        )
    if dtype is None and dtype_hint is not None and not isinstance(value, (Tensor, np.ndarray)) \
            and not hasattr(value, "_tf_value"):
        try:
            return to_tensor(value, dtypes.as_dtype(dtype_hint))
        except (TypeError, ValueError):
            return t
    return t


_state = context.thread_state()


def _graph_constant(t: Tensor) -> Tensor:
    """``t`` as a constant of a function calling ``tf.gradients``: differentiable, as
    every tensor of a TF graph is (``tf.gradients(a + b, a)`` with ``a = tf.constant``)."""
    x = t._t
    if isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex()) and \
            not x.requires_grad and torch.is_grad_enabled():
        return wrap(x.detach().requires_grad_(True), t._dtype)
    return t


@public("torchflow")
def constant(value, dtype=None, shape=None, name="Const") -> Tensor:
    """Creates a constant tensor from a tensor-like object.

    Args:
      value: A constant value (or list) of output type ``dtype``.
      dtype: The element type of the resulting tensor; if None it is inferred
        (Python float -> float32, int -> int32).
      shape: Optional dimensions. A scalar ``value`` is broadcast (filled) to it;
        otherwise the value is reshaped to it.
      name: Unused (eager).

    Returns:
      A constant ``Tensor``.

    Raises:
      TypeError: If ``value`` cannot become ``dtype``.
      TypeError: If ``shape`` does not fit the number of elements in ``value``.

    >>> import torchflow as tf
    >>> tf.constant([1, 2, 3]).dtype
    tf.int32
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor) or hasattr(value, "_tf_value"):
        t = to_tensor(value)
        if dtype is not None and t._dtype is not dtype:
            # TF 2.4 (convert_to_eager_tensor) refuses to retype an existing tensor.
            raise TypeError(f"Expected tensor {t.numpy()} with dtype {dtype!r}, but got dtype "
                            f"{t._dtype!r}.")
    else:
        t = to_tensor(value, dtype)
    if shape is None:
        return _graph_constant(t) if _state.symbolic_gradients else t
    shape = as_shape(shape).as_list()
    n = 1
    for d in shape:
        if d is None:  # TF converts the shape to a tensor, which None cannot be
            raise ValueError("Attempt to convert a value (None) with an unsupported type "
                             "(<class 'NoneType'>) to a Tensor.")
        n *= d
    size = int(np.prod(t._t.shape)) if t._t.ndim else 1
    if size == n:
        return wrap(t._t.reshape(shape), t._dtype)
    if size == 1:
        if t._dtype is dtypes.string:
            return wrap(np.full(shape, t._t.reshape(-1)[0], dtype=object), dtypes.string)
        return wrap(t._t.reshape(()).expand(shape).clone(), t._dtype)
    raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {t!r} "
                    f"(converted from {value!r}) has {size} elements, but got `shape` "
                    f"{tuple(shape)} with {n} elements).")
