"""Elementwise binary arithmetic of ``tf.math`` (add, divide, pow, maximum, ...).

TF semantics: no implicit promotion between tensors (``InvalidArgumentError``),
Python scalars take the tensor's dtype (``TypeError`` when they do not fit),
``truediv`` of integers returns float32 (8/16-bit) or float64 (32/64-bit), and
each op accepts exactly the dtypes of its TF kernel. Unsigned 16/32/64-bit inputs
are computed in int64 and narrowed back (see ``_math_common``).
"""

from __future__ import annotations

import builtins

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import (
    Tensor,
    binary,
    dtype_error,
    tensor_arg,
    wrap,
)
from torchflow._src.util.api import public

_ADD_TYPES = mc.ALL_NUM
_STRING = dtypes.string


def _retry_wide(op, fn, a, b, d, e, ordered=False):
    """Second chance for narrow unsigned dtypes torch has no kernel for."""
    if ordered and d._name in mc.NARROW:
        try:
            return wrap(mc.from_order_key(fn(mc.order_key(a, d), mc.order_key(b, d)), d), d)
        except Exception as e2:  # noqa: BLE001 - translated to a TF error
            raise mc.op_failure(op, e2, a, b) from None
    if d._name in mc.NARROW:
        try:
            r = fn(mc.widen(a), mc.widen(b))
        except Exception as e2:  # noqa: BLE001 - translated to a TF error
            raise mc.op_failure(op, e2, a, b) from None
        return wrap(mc.narrow(r, d) if r.dtype != torch.bool else r, d if r.dtype != torch.bool
                    else dtypes.bool)
    raise mc.op_failure(op, e, a, b) from None


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

    >>> import torchflow as tf
    >>> tf.add(tf.constant([1, 2]), 3).numpy()
    array([4, 5], dtype=int32)
    """
    if type(x) is Tensor and type(y) is Tensor:
        d = x._dtype
        if y._dtype is d and d._name in _ADD_TYPES:
            try:
                return wrap(torch.add(x._t, y._t), d)
            except Exception:  # noqa: BLE001 - the general path below raises TF's error
                pass
    a, b, d = binary("AddV2", x, y)
    if d._name not in _ADD_TYPES:
        if d is _STRING:
            return _string_add(a, b)
        raise mc.bad_type("AddV2", d, _ADD_TYPES)
    try:
        return wrap(torch.add(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        return _retry_wide("AddV2", torch.add, a, b, d, e)


def rsub_scalar(x, s) -> Tensor:
    """``s - x`` for a Python scalar ``s`` without making a tensor of it (``__rsub__``)."""
    a, b, d = binary("Sub", x, s)
    if d._name not in mc.ALL_NUM:
        raise mc.bad_type("Sub", d, mc.ALL_NUM)
    try:
        return wrap(torch.rsub(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        return _retry_wide("Sub", torch.rsub, a, b, d, e)


def _string_add(a, b):
    try:
        return wrap(a + b, _STRING)
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"Incompatible shapes: {list(a.shape)} vs. {list(b.shape)} [Op:Add]"
        ) from None


def _make_binary(pub: str, op: str, allowed: mc.TypeSet, fn, summary: str, example=None,
                 ordered=False):
    def impl(x, y, name=None):
        if type(x) is Tensor and type(y) is Tensor:  # hot path: same-dtype tensors
            d = x._dtype
            if y._dtype is d and d._name in allowed:
                try:
                    return wrap(fn(x._t, y._t), d)
                except Exception:  # noqa: BLE001 - the general path below raises TF's error
                    pass
        a, b, d = binary(op, x, y)
        if d._name not in allowed:
            raise mc.bad_type(op, d, allowed)
        try:
            return wrap(fn(a, b), d)
        except Exception as e:  # noqa: BLE001 - translated to a TF error
            return _retry_wide(op, fn, a, b, d, e, ordered)

    impl.__name__ = impl.__qualname__ = pub
    impl.__doc__ = _binary_doc(summary, op, example)
    return public("torchflow.math")(impl)


def _binary_doc(summary, op, example=None):
    ex = f"\n\n    >>> import torchflow as tf\n    {example}" if example else ""
    return f"""{summary} (TF's ``{op}``), broadcasting.

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ, the shapes do not broadcast or
        the op does not support the dtype.
      TypeError: If a Python value does not fit the tensor's dtype.{ex}
    """


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


def _trunc_div(a, b):
    return torch.div(a, b, rounding_mode="trunc")


def _atan2(a, b):
    return torch.atan2(a, mc.as_torch_scalar(b, a))


def _nextafter(a, b):
    return torch.nextafter(a, mc.as_torch_scalar(b, a))


def _xlogy(a, b):
    if a.is_complex():
        return torch.where(a == 0, torch.zeros_like(a), a * torch.log(mc.as_torch_scalar(b, a)))
    return torch.xlogy(a, b)


def _xlog1py(a, b):
    if a.is_complex():
        return torch.where(a == 0, torch.zeros_like(a), a * torch.log1p(mc.as_torch_scalar(b, a)))
    return torch.special.xlog1py(a, b)


def _xdivy(a, b):
    return torch.where(a == 0, torch.zeros_like(a), a / b)


def _mul_no_nan(a, b):
    b = mc.as_torch_scalar(b, a)
    return torch.where(b == 0, torch.zeros((), dtype=a.dtype, device=a.device), a * b)


def _f32(fn):
    """Runs ``fn`` in float32 for 16-bit floats that lack a torch CPU kernel."""

    def g(a, b):
        if a.dtype in (torch.float16, torch.bfloat16):
            dt = a.dtype
            return fn(a.float(), b.float() if isinstance(b, torch.Tensor) else b).to(dt)
        return fn(a, b)

    return g


subtract = _make_binary("subtract", "Sub", mc.ALL_NUM, torch.sub, "Returns ``x - y`` elementwise",
                        ">>> tf.subtract(tf.constant([3, 4]), 1).numpy()\n    array([2, 3], dtype=int32)")
multiply = _make_binary("multiply", "Mul", mc.ALL_NUM, torch.mul, "Returns ``x * y`` elementwise",
                        ">>> tf.multiply(tf.constant([3, 4]), 2).numpy()\n    array([6, 8], dtype=int32)")
maximum = _make_binary("maximum", "Maximum", mc.ALL_REAL, _maximum,
                       "Returns the elementwise maximum of ``x`` and ``y``", ordered=True)
minimum = _make_binary("minimum", "Minimum", mc.ALL_REAL, _minimum,
                       "Returns the elementwise minimum of ``x`` and ``y``", ordered=True)
squared_difference = _make_binary(
    "squared_difference", "SquaredDifference", mc.TypeSet(mc.FLOAT, "int32", "int64", mc.COMPLEX),
    _squared_difference, "Returns ``(x - y) * conj(x - y)`` elementwise")
floormod = _make_binary("floormod", "FloorMod", mc.ALL_REAL, lambda a, b: _floormod(a, b),
                        "Returns the remainder of floor division; the result has ``y``'s sign",
                        ">>> tf.math.floormod(tf.constant([-3, 3]), 2).numpy()\n"
                        "    array([1, 1], dtype=int32)")
mod = floormod
truncatemod = _make_binary("truncatemod", "TruncateMod", mc.TypeSet("int32", "int64", mc.FLOAT),
                           torch.fmod, "Returns the remainder of truncated division (C's ``%``)")
truncatemod.__module__ = "torchflow"
xlogy = _make_binary("xlogy", "Xlogy", mc.FLOATS_COMPLEX, _xlogy,
                     "Returns 0 if ``x == 0``, else ``x * log(y)``")
xlog1py = _make_binary("xlog1py", "Xlog1py", mc.FLOATS_COMPLEX, _xlog1py,
                       "Returns 0 if ``x == 0``, else ``x * log1p(y)``")
xdivy = _make_binary("xdivy", "Xdivy", mc.FLOATS_COMPLEX, _xdivy,
                     "Returns 0 if ``x == 0``, else ``x / y``")
multiply_no_nan = _make_binary("multiply_no_nan", "MulNoNan", mc.FLOATS_COMPLEX, _mul_no_nan,
                               "Returns 0 where ``y == 0`` (even if ``x`` is NaN), else ``x * y``")
_atan2_impl = _make_binary("atan2", "Atan2", mc.FLOATS, _atan2, "")
_nextafter_impl = _make_binary("nextafter", "NextAfter", mc.TypeSet("float64", "float32"),
                               _nextafter, "")
_igamma_impl = _make_binary("igamma", "Igamma", mc.FLOATS, _f32(torch.special.gammainc), "")
_igammac_impl = _make_binary("igammac", "Igammac", mc.FLOATS, _f32(torch.special.gammaincc), "")
_zeta_impl = _make_binary("zeta", "Zeta", mc.TypeSet("float32", "float64"),
                          lambda a, b: torch.special.zeta(a, mc.as_torch_scalar(b, a)), "")


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
    """
    return _atan2_impl(y, x)


@public("torchflow.math")
def nextafter(x1, x2, name=None) -> Tensor:
    """Returns the next representable value of ``x1`` in the direction of ``x2``.

    Args:
      x1: A float32 or float64 Tensor.
      x2: A Tensor of the same dtype as ``x1``.
      name: Unused (eager).

    Returns:
      A Tensor of ``x1``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not float32/float64.
    """
    return _nextafter_impl(x1, x2)


@public("torchflow.math")
def igamma(a, x, name=None) -> Tensor:
    """Returns the regularized lower incomplete gamma function ``P(a, x)``.

    Args:
      a: A floating-point Tensor.
      x: A Tensor of the same dtype as ``a``.
      name: Unused (eager).

    Returns:
      A Tensor of ``a``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not floating point.
    """
    return _igamma_impl(a, x)


@public("torchflow.math")
def igammac(a, x, name=None) -> Tensor:
    """Returns the regularized upper incomplete gamma function ``Q(a, x)``.

    Args:
      a: A floating-point Tensor.
      x: A Tensor of the same dtype as ``a``.
      name: Unused (eager).

    Returns:
      A Tensor of ``a``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not floating point.
    """
    return _igammac_impl(a, x)


@public("torchflow.math")
def zeta(x, q, name=None) -> Tensor:
    """Returns the Hurwitz zeta function ``sum_n (q + n) ** -x``.

    Args:
      x: A float32 or float64 Tensor.
      q: A Tensor of the same dtype as ``x``.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not float32/float64.
    """
    return _zeta_impl(x, q)

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


_FLOORDIV_TYPES = mc.ALL_REAL


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
    a, b, d = binary("FloorDiv", x, y)
    if d._name not in _FLOORDIV_TYPES:
        if d._kind == "c":
            raise mc.no_kernel("FloorDiv", d)
        raise mc.bad_type("FloorDiv", d, mc.ALL_NUM)
    try:
        return wrap(_floordiv(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        return _retry_wide("FloorDiv", _floordiv, a, b, d, e)


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
    """
    a, b, d = binary("TruncateDiv", x, y)
    if d._name not in mc.ALL_REAL:
        if d._kind == "c":
            raise mc.no_kernel("TruncateDiv", d)
        raise mc.bad_type("TruncateDiv", d, mc.ALL_NUM)
    try:
        return wrap(_trunc_div(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        return _retry_wide("TruncateDiv", _trunc_div, a, b, d, e)


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
    a, b, d = binary("RealDiv", x, y)
    if d._kind not in "fc":
        a, b, d = _truediv_cast(a, b, d, "__truediv__")
    try:
        return wrap(torch.div(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure("RealDiv", e, a, b) from None


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
    return truediv(x, y)


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
    """
    a, b, d = binary("RealDiv", x, y)
    if d._kind not in "fc":
        if d._kind in "iu":
            raise mc.no_kernel("RealDiv", d)
        raise mc.bad_type("RealDiv", d, mc.ALL_NUM)
    try:
        return wrap(torch.div(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure("RealDiv", e, a, b) from None


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
    """
    a, b, d = binary("DivNoNan", x, y)
    if d._kind not in "fc":
        a, b, d = _truediv_cast(a, b, d, "divide_no_nan")
    try:
        b = mc.as_torch_scalar(b, a)
        zero = torch.zeros((), dtype=a.dtype, device=a.device)
        return wrap(torch.where(b == 0, zero, a / torch.where(b == 0, torch.ones_like(b), b)), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure("DivNoNan", e, a, b) from None


_POW_TYPES = mc.TypeSet(mc.FLOAT, mc.SINT, mc.COMPLEX)


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
    a, b, d = binary("Pow", x, y)
    if d._name not in _POW_TYPES:
        raise mc.bad_type("Pow", d, _POW_TYPES)
    if d._kind == "i":
        neg = bool((b < 0).any()) if isinstance(b, torch.Tensor) else b < 0
        if neg:
            raise InvalidArgumentError(
                None, None, "Integers to negative integer powers are not allowed [Op:Pow]"
            )
    try:
        return wrap(torch.pow(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure("Pow", e, a, b) from None


@public("torchflow.math")
def polygamma(a, x, name=None) -> Tensor:
    """Returns the polygamma function ``psi^(a)(x)`` (TF's ``Polygamma``).

    Args:
      a: A float32/float64 Tensor of non-negative integer orders.
      x: A Tensor of the same dtype as ``a``.
      name: Unused (eager).

    Returns:
      A Tensor of ``a``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not float32/float64.
    """
    n, t, d = binary("Polygamma", a, x)
    allowed = mc.TypeSet("float32", "float64")
    if d._name not in allowed:
        raise mc.bad_type("Polygamma", d, allowed)
    try:
        n = mc.as_torch_scalar(n, t)
        # psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x) for n >= 1; psi^(0) is digamma.
        sign = torch.where(torch.remainder(n, 2) == 0, -1.0, 1.0).to(t.dtype)
        higher = sign * torch.exp(torch.lgamma(n + 1)) * torch.special.zeta(n + 1, t)
        out = torch.where(n == 0, torch.digamma(t), higher)
        valid = (n >= 0) & (n == torch.floor(n))
        return wrap(torch.where(valid, out, torch.full_like(out, float("nan"))), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure("Polygamma", e, n, t) from None


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
        from torchflow._src.core.tensor_shape import as_shape

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
