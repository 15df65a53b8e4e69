"""Elementwise binary arithmetic of ``tf.math`` (add, divide, pow, maximum, ...).

TF semantics: no implicit promotion between tensors (``InvalidArgumentError``),
Python scalars take the tensor's dtype (``TypeError`` when they do not fit),
``truediv`` of integers returns float32 (8/16-bit) or float64 (32/64-bit), and
each op accepts exactly the dtypes of its TF kernel. Unsigned 16/32/64-bit inputs
are computed in int64 and narrowed back (see ``_math_common``).

Every op is a plain ``def`` over ``_math_common.binary_op``, which holds the
same-dtype fast path and the dtype checks.
"""

from __future__ import annotations

import builtins

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError, dims
from torchflow._src.core.tensor_shape import as_shape
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops import special_gradients
from torchflow._src.ops._dispatch import COMPOSITE, Tensor, dtype_error, tensor_arg, wrap
from torchflow._src.util.api import public

_binary_op = mc.binary_op
_ADD_TYPES = mc.ALL_NUM
_STRING = dtypes.string
_SQUARED_DIFFERENCE_TYPES = mc.TypeSet(mc.FLOAT, "int32", "int64", mc.COMPLEX)
_TRUNCATEMOD_TYPES = mc.TypeSet("int32", "int64", mc.FLOAT)
_POW_TYPES = mc.TypeSet(mc.FLOAT, mc.SINT, mc.COMPLEX)
_ORDERED_REAL = mc.TypeSet(mc.FLOAT, mc.INT, ordered=True)  # uint64 compared by order keys
_REAL_OF_NUM = mc.TypeSet(mc.FLOAT, mc.INT, listed=mc.ALL_NUM)  # complex: no kernel
_FC_OF_NUM = mc.TypeSet(mc.FLOAT, mc.COMPLEX, listed=mc.ALL_NUM)  # integers: no CPU kernel


# --- torch functions behind the ops (``b`` may be a Python number) -------------------------
def _string_add(a, b, d):
    if d is not _STRING:
        raise mc.bad_type("AddV2", d, _ADD_TYPES)
    try:
        r = a + b
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"Incompatible shapes: {dims(a.shape)} vs. {dims(b.shape)} [Op:Add]"
        ) from None
    # 0-d object arrays add to a bare bytes object: keep the result an array (the test
    # first: np.asarray costs ~0.2 us even on an array)
    return wrap(r if type(r) is np.ndarray else np.array(r, dtype=object), _STRING)


def _maximum(a, b):
    if isinstance(b, torch.Tensor):
        return torch.maximum(a, b)
    return torch.clamp_min(a, b)


def _minimum(a, b):
    if isinstance(b, torch.Tensor):
        return torch.minimum(a, b)
    return torch.clamp_max(a, b)


def _squared_difference(a, b):
    diff = a - b
    if diff.is_complex():
        return diff * torch.conj_physical(diff)
    return diff * diff


def _floordiv(a, b):
    if a.is_floating_point():
        return torch.floor(torch.div(a, b))  # TF: floor(x / y); torch's differs (1 // 0.1)
    return torch.floor_divide(a, b)


def _floormod(a, b):
    if a.is_floating_point():
        # TF's float FloorMod: fmod, moved to y's sign (exact, unlike x - floor(x/y)*y).
        m = torch.fmod(a, b)
        return torch.where((m != 0) & ((m < 0) != (b < 0)), m + b, m)
    return torch.remainder(a, b)


def _trunc_div(a, b):
    return torch.div(a, b, rounding_mode="trunc")


def _atan2(a, b):
    return special_gradients.atan2(a, b)











def _pow(a, b):
    if not (a.is_floating_point() or a.is_complex()):
        neg = bool((b < 0).any()) if isinstance(b, torch.Tensor) else b < 0
        if neg:
            raise InvalidArgumentError(
                None, None, "Integers to negative integer powers are not allowed [Op:Pow]"
            )
    return torch.pow(a, b)



def _div_no_nan(a, b):
    b = mc.as_torch_scalar(b, a)
    zero = torch.zeros((), dtype=a.dtype, device=a.device)
    return torch.where(b == 0, zero, a / torch.where(b == 0, torch.ones_like(b), b))


_TRUEDIV_FLOAT = {
    "int8": dtypes.float32, "int16": dtypes.float32, "uint8": dtypes.float32,
    "uint16": dtypes.float32, "int32": dtypes.float64, "int64": dtypes.float64,
    "uint32": dtypes.float64, "uint64": dtypes.float64,
}  # fmt: skip


def _truediv_cast(a, b, d, opname):
    cast = _TRUEDIV_FLOAT.get(d._name)
    if cast is None:
        raise TypeError(
            f"Invalid dtype {d!r} in {opname}. Expected one of {{tf.uint8, tf.int8, tf.uint16, "
            f"tf.int16, tf.uint32, tf.int32, tf.uint64, tf.int64, tf.bfloat16, tf.float16, "
            f"tf.float32, tf.float64, tf.complex64, tf.complex128}}."
        )
    td = cast._torch
    a = a.to(td)
    b = b.to(td) if isinstance(b, torch.Tensor) else float(b)
    return a, b, cast


def _int_truediv(a, b, d):
    a, b, d = _truediv_cast(a, b, d, "__truediv__")
    try:
        return wrap(torch.div(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure("RealDiv", e, a, b) from None


def _int_div_no_nan(a, b, d):
    a, b, d = _truediv_cast(a, b, d, "divide_no_nan")
    try:
        return wrap(_div_no_nan(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure("DivNoNan", e, a, b) from None


# --- the ops ----------------------------------------------------------------------------
@public("torchflow.math")
def add(x, y, name=None) -> Tensor:
    """Returns ``x + y`` elementwise, broadcasting (TF's ``AddV2``).

    Strings are concatenated (TF's ``Add``).

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or the shapes do not broadcast.
      TypeError: If a Python value does not fit the tensor's dtype.

    >>> import torchflow as tf
    >>> tf.add(tf.constant([1, 2]), 3).numpy()
    array([4, 5], dtype=int32)
    """
    return _binary_op("AddV2", torch.add, _ADD_TYPES, x, y, _string_add)


@public("torchflow.math")
def subtract(x, y, name=None) -> Tensor:
    """Returns ``x - y`` elementwise, broadcasting (TF's ``Sub``).

    Args:
      x: A numeric Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ, are not numeric, or the shapes
        do not broadcast.
      TypeError: If a Python value does not fit the tensor's dtype.

    >>> import torchflow as tf
    >>> tf.subtract(tf.constant([3, 4]), 1).numpy()
    array([2, 3], dtype=int32)
    """
    return _binary_op("Sub", torch.sub, mc.ALL_NUM, x, y)


def rsub_scalar(x, s) -> Tensor:
    """``s - x`` for a Python scalar ``s`` without making a tensor of it (``__rsub__``)."""
    return _binary_op("Sub", torch.rsub, mc.ALL_NUM, x, s)


@public("torchflow.math")
def multiply(x, y, name=None) -> Tensor:
    """Returns ``x * y`` elementwise, broadcasting (TF's ``Mul``).

    Args:
      x: A numeric Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ, are not numeric, or the shapes
        do not broadcast.
      TypeError: If a Python value does not fit the tensor's dtype.

    >>> import torchflow as tf
    >>> tf.multiply(tf.constant([3, 4]), 2).numpy()
    array([6, 8], dtype=int32)
    """
    return _binary_op("Mul", torch.mul, mc.ALL_NUM, x, y)


@public("torchflow.math")
def maximum(x, y, name=None) -> Tensor:
    """Returns the elementwise maximum of ``x`` and ``y``, broadcasting (TF's ``Maximum``).

    Args:
      x: A real (floating-point or integer) Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ, are complex, bool or string, or
        the shapes do not broadcast.
      TypeError: If a Python value does not fit the tensor's dtype.

    >>> import torchflow as tf
    >>> tf.maximum(tf.constant([1, 5]), 3).numpy()
    array([3, 5], dtype=int32)
    """
    return _binary_op("Maximum", _maximum, _ORDERED_REAL, x, y)


@public("torchflow.math")
def minimum(x, y, name=None) -> Tensor:
    """Returns the elementwise minimum of ``x`` and ``y``, broadcasting (TF's ``Minimum``).

    Args:
      x: A real (floating-point or integer) Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ, are complex, bool or string, or
        the shapes do not broadcast.
      TypeError: If a Python value does not fit the tensor's dtype.

    >>> import torchflow as tf
    >>> tf.minimum(tf.constant([1, 5]), 3).numpy()
    array([1, 3], dtype=int32)
    """
    return _binary_op("Minimum", _minimum, _ORDERED_REAL, x, y)


@public("torchflow.math")
def squared_difference(x, y, name=None) -> Tensor:
    """Returns ``(x - y) * conj(x - y)`` elementwise (TF's ``SquaredDifference``).

    Args:
      x: A floating-point, int32, int64 or complex Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not supported, or the
        shapes do not broadcast.
      TypeError: If a Python value does not fit the tensor's dtype.

    >>> import torchflow as tf
    >>> tf.math.squared_difference(tf.constant([1, 4]), 2).numpy()
    array([1, 4], dtype=int32)
    """
    return _binary_op("SquaredDifference", _squared_difference, _SQUARED_DIFFERENCE_TYPES, x, y)


@public("torchflow.math")
def floordiv(x, y, name=None) -> Tensor:
    """Returns ``floor(x / y)`` elementwise (TF's ``FloorDiv``), broadcasting.

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: On different dtypes, shapes that do not broadcast or
        integer division by zero.
      NotFoundError: For complex inputs (TF has no kernel).

    >>> import torchflow as tf
    >>> tf.math.floordiv(tf.constant([-3, 3]), 2).numpy()
    array([-2,  1], dtype=int32)
    """
    return _binary_op("FloorDiv", _floordiv, _REAL_OF_NUM, x, y)


@public("torchflow.math")
def floormod(x, y, name=None) -> Tensor:
    """Returns the remainder of floor division; the result has ``y``'s sign (TF's ``FloorMod``).

    ``floordiv(x, y) * y + floormod(x, y) == x``.

    Args:
      x: A real (floating-point or integer) Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: On different or unsupported dtypes, shapes that do
        not broadcast, or integer division by zero.
      TypeError: If a Python value does not fit the tensor's dtype.

    >>> import torchflow as tf
    >>> tf.math.floormod(tf.constant([-3, 3]), 2).numpy()
    array([1, 1], dtype=int32)
    """
    return _binary_op("FloorMod", _floormod, mc.ALL_REAL, x, y)


mod = floormod


@public("torchflow")
def truncatemod(x, y, name=None) -> Tensor:
    """Returns the remainder of truncated division, C's ``%`` (TF's ``TruncateMod``).

    The result has ``x``'s sign.

    Args:
      x: An int32, int64 or floating-point Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: On different or unsupported dtypes, shapes that do
        not broadcast, or integer division by zero.

    >>> import torchflow as tf
    >>> tf.truncatemod(tf.constant([-3, 3]), 2).numpy()
    array([-1,  1], dtype=int32)
    """
    return _binary_op("TruncateMod", torch.fmod, _TRUNCATEMOD_TYPES, x, y)


@public("torchflow")
def truncatediv(x, y, name=None) -> Tensor:
    """Returns ``x / y`` rounded towards zero (TF's ``TruncateDiv``), broadcasting.

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: On different dtypes, shapes that do not broadcast or
        integer division by zero.
      NotFoundError: For complex inputs (TF has no kernel).

    >>> import torchflow as tf
    >>> tf.truncatediv(tf.constant([-3, 3]), 2).numpy()
    array([-1,  1], dtype=int32)
    """
    return _binary_op("TruncateDiv", _trunc_div, _REAL_OF_NUM, x, y)


@public("torchflow.math")
def truediv(x, y, name=None) -> Tensor:
    """Divides ``x / y`` elementwise, casting integers to floating point first.

    int8, int16, uint8 and uint16 become float32; int32, int64, uint32 and
    uint64 become float64 (TF's rule). Floating and complex inputs keep their dtype.

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A floating-point or complex Tensor.

    Raises:
      InvalidArgumentError: If the dtypes differ or the shapes do not broadcast.
      TypeError: For bool or string inputs.

    >>> import torchflow as tf
    >>> tf.math.truediv(tf.constant([1, 2]), 2).dtype
    tf.float64
    """
    return _binary_op("RealDiv", torch.div, mc.FLOATS_COMPLEX, x, y, _int_truediv)


@public("torchflow.math")
def divide(x, y, name=None) -> Tensor:
    """Computes Python-style division ``x / y`` (same rules as ``tf.math.truediv``).

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A floating-point or complex Tensor.

    Raises:
      InvalidArgumentError: If the dtypes differ or the shapes do not broadcast.
      TypeError: For bool or string inputs.

    >>> import torchflow as tf
    >>> tf.math.divide(tf.constant([1., 3.]), 2.).numpy()
    array([0.5, 1.5], dtype=float32)
    """
    return _binary_op("RealDiv", torch.div, mc.FLOATS_COMPLEX, x, y, _int_truediv)


@public("torchflow")
def realdiv(x, y, name=None) -> Tensor:
    """Returns ``x / y`` for floating-point and complex tensors (TF's ``RealDiv``).

    Args:
      x: A floating-point or complex Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or the shapes do not broadcast.
      NotFoundError: For integer inputs (TF has no CPU kernel).

    >>> import torchflow as tf
    >>> tf.realdiv(tf.constant([1., 3.]), 2.).numpy()
    array([0.5, 1.5], dtype=float32)
    """
    return _binary_op("RealDiv", torch.div, _FC_OF_NUM, x, y)


@public("torchflow.math")
def divide_no_nan(x, y, name=None) -> Tensor:
    """Returns 0 where ``y == 0``, else ``x / y`` (TF's ``DivNoNan``).

    Integer inputs are cast to floating point first, as ``truediv`` does.

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A floating-point or complex Tensor.

    Raises:
      InvalidArgumentError: If the dtypes differ or the shapes do not broadcast.
      TypeError: For bool or string inputs.

    >>> import torchflow as tf
    >>> tf.math.divide_no_nan(tf.constant([3., 4.]), tf.constant([0., 2.])).numpy()
    array([0., 2.], dtype=float32)
    """
    return _binary_op("DivNoNan", _div_no_nan, mc.FLOATS_COMPLEX, x, y, _int_div_no_nan)


@public("torchflow.math")
def pow(x, y, name=None) -> Tensor:  # noqa: A001 - TF's name
    """Returns ``x ** y`` elementwise (TF's ``Pow``), broadcasting.

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: On different dtypes, shapes that do not broadcast, or
        a negative integer exponent.

    >>> import torchflow as tf
    >>> tf.pow(tf.constant([2, 3]), 2).numpy()
    array([4, 9], dtype=int32)
    """
    return _binary_op("Pow", _pow, _POW_TYPES, x, y)


@public("torchflow.math")
def atan2(y, x, name=None) -> Tensor:
    """Returns ``atan(y / x)`` elementwise, using the signs of both to pick the quadrant.

    Args:
      y: A floating-point Tensor.
      x: A Tensor of the same dtype as ``y``.
      name: Unused (eager).

    Returns:
      A Tensor of ``y``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ, are not floating point, or the
        shapes do not broadcast.

    >>> import torchflow as tf
    >>> tf.math.atan2(tf.constant([1.]), tf.constant([0.])).numpy()
    array([1.5707964], dtype=float32)
    """
    return _binary_op("Atan2", _atan2, mc.FLOATS, y, x)











@public("torchflow")
def complex(real, imag, name=None) -> Tensor:  # noqa: A001 - TF's name
    """Builds a complex tensor from real and imaginary parts.

    Args:
      real: A float32 or float64 Tensor.
      imag: A Tensor of the same dtype as ``real``.
      name: Unused (eager).

    Returns:
      A complex64 (from float32) or complex128 (from float64) Tensor.

    Raises:
      TypeError: If the dtypes differ or are not float32/float64.

    >>> import torchflow as tf
    >>> tf.complex(tf.constant([1.]), tf.constant([2.])).numpy()
    array([1.+2.j], dtype=complex64)
    """
    r = tensor_arg(real)
    i = tensor_arg(imag)
    if r._dtype is not i._dtype or r._dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(
            f"The `real` and `imag` components have incorrect types: {r._dtype.name} "
            f"{i._dtype.name}. They must be consistent, and one of [tf.float32, tf.float64]"
        )
    try:
        a, b = torch.broadcast_tensors(r._t, i._t)
        return wrap(torch.complex(a, b))
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure("Complex", e, r._t, i._t) from None


def _inputs_list(inputs, what="inputs"):
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError(
            f"{what} must be an iterable of at least one Tensor/IndexedSlices with the same "
            f"dtype and shape."
        )
    ts = [tensor_arg(t) for t in inputs]
    d = ts[0]._dtype
    shape0 = ts[0]._t.shape
    for k, t in enumerate(ts[1:], 1):
        if t._dtype is not d:
            raise dtype_error("AddN", k, d, t._dtype)
        if t._t.shape != shape0:
            raise InvalidArgumentError(
                None,
                None,
                f"Inputs to operation AddN of type AddN must have the same size and shape.  "
                f"Input 0: {list(shape0)} != input {k}: {list(t._t.shape)} [Op:AddN]",
            )
    if d._name not in mc.ALL_NUM:
        raise mc.bad_type("AddN", d, mc.ALL_NUM)
    return ts, d


@public("torchflow.math")
def add_n(inputs, name=None) -> Tensor:
    """Adds all input tensors elementwise.

    Args:
      inputs: A list of Tensors of the same dtype and shape.
      name: Unused (eager).

    Returns:
      A Tensor of the inputs' dtype and shape.

    Raises:
      ValueError: If ``inputs`` is not a non-empty list.
      InvalidArgumentError: If the dtypes or shapes differ.

    >>> import torchflow as tf
    >>> tf.math.add_n([tf.constant([1, 2]), tf.constant([3, 4])]).numpy()
    array([4, 6], dtype=int32)
    """
    if isinstance(inputs, (list, tuple)) and any(type(v) in COMPOSITE for v in inputs):
        return COMPOSITE[next(type(v) for v in inputs if type(v) in COMPOSITE)].add_n(
            list(inputs), add_n)  # tf.RaggedTensor
    ts, d = _inputs_list(inputs)
    if len(ts) == 1:
        return ts[0]
    wide = d._name in mc.NARROW
    acc = mc.widen(ts[0]._t) if wide else ts[0]._t
    for t in ts[1:]:
        acc = torch.add(acc, mc.widen(t._t) if wide else t._t)
    return wrap(mc.narrow(acc, d) if wide else acc, d)


@public("torchflow.math")
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None) -> Tensor:
    """Adds all input tensors elementwise (deprecated in TF; same as ``add_n``).

    Args:
      inputs: A list of Tensors of the same dtype and shape.
      shape: Optional expected shape of the inputs.
      tensor_dtype: Optional expected dtype of the inputs.
      name: Unused (eager).

    Returns:
      A Tensor of the inputs' dtype and shape.

    Raises:
      ValueError: If ``inputs`` is empty or does not match ``shape``/``tensor_dtype``.
      InvalidArgumentError: If the dtypes or shapes differ.
    """
    ts, d = _inputs_list(inputs)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) is not d:
        raise TypeError(f"tensor_dtype is {tensor_dtype}, but input is of type {d}")
    if shape is not None:
        if not as_shape(shape).is_compatible_with(ts[0].shape):
            raise ValueError(f"Shape {as_shape(shape)} is incompatible with {ts[0].shape}")
    return add_n(ts)


@public("torchflow.math")
def scalar_mul(scalar, x, name=None) -> Tensor:
    """Multiplies a scalar times a Tensor.

    Args:
      scalar: A 0-D value (Python number or Tensor) of ``x``'s dtype.
      x: A Tensor.
      name: Unused (eager).

    Returns:
      ``scalar * x``, of ``x``'s dtype.

    Raises:
      ValueError: If ``scalar`` is not 0-D.
      TypeError: If ``scalar`` does not fit ``x``'s dtype.
    """
    x = tensor_arg(x)
    s = tensor_arg(scalar, x._dtype)
    if s._t.ndim != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {tuple(s._t.shape)}.")
    return multiply(s, x)


@public("torchflow.math")
def polyval(coeffs, x, name=None) -> Tensor:
    """Evaluates the polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` (Horner's rule).

    Args:
      coeffs: A Python list of coefficients (Tensors or numbers), highest power first.
      x: A Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape (broadcast with the coefficients).

    Raises:
      ValueError: If ``coeffs`` is not a list.

    >>> import torchflow as tf
    >>> float(tf.math.polyval([1., 2.], tf.constant(3.)))
    5.0
    """
    if not isinstance(coeffs, builtins.list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = tensor_arg(x)
    if not coeffs:
        return wrap(torch.zeros_like(x._t), x._dtype)
    p = tensor_arg(coeffs[0], x._dtype)
    for c in coeffs[1:]:
        p = add(tensor_arg(c, x._dtype), multiply(p, x))
    return p
