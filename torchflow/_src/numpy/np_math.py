"""tnp elementwise math and logic (NumPy ufuncs) on torchflow tensors.

Each function converts its inputs with NumPy promotion (``np_arrays.promote``),
then runs one engine kernel. Functions that NumPy computes in floating point
(``arctan2``, ``hypot``, ``true_divide`` ...) first cast integer/bool inputs to the
default float type (float64, float32 under ``prefer_float32``), as TF 2.4 does.

Every ufunc is a plain ``def`` over one helper per kind: ``_binary`` (the dtype
follows promotion; bools may take a logical kernel), ``_float_binary``,
``_compare`` and ``_logical``. The unary ufuncs are in ``np_math_unary``.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_dtypes as _d
from torchflow._src.numpy.np_arrays import asarray, promote, to_float
from torchflow._src.numpy.np_math_unary import rad2deg
from torchflow._src.ops import numpy_math_ops as _e
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"
_BOOL = dtypes.bool


def _keeps_dtype(d, s) -> bool:
    """True when NumPy 2 promotion of a ``d`` tensor with Python scalar ``s`` gives ``d``
    (a weak scalar of a kind that fits); the operator fast path."""
    k = d._kind
    if k == "f" or k == "c":
        if _d.CONFIG.prefer_float32 and type(s) is float and d._size < 4:
            return False  # the float counts as a (strong) float32 then
        return type(s) is not complex or k == "c"
    if type(s) is int:
        if k == "i":
            return -128 <= s <= 127
        if k == "u":
            return 0 <= s <= 255
    return False


_PYNUM = (int, float)


def _binary(kf, x1, x2, kb=None) -> Tensor:
    """``kf(x1, x2)`` after NumPy promotion; ``kb`` instead for two bools when given.

    Same-dtype tensors, and a tensor with a Python number that keeps its dtype,
    skip the promotion.
    """
    if type(x1) is Tensor:
        if type(x2) is Tensor and x1._dtype is x2._dtype:
            if x1._dtype is _BOOL and kb is not None:
                return kb(x1, x2)
            return kf(x1, x2)
        if type(x2) in _PYNUM and _keeps_dtype(x1._dtype, x2):
            return kf(x1, x2)
    a, b = promote(x1, x2)
    if a._dtype is _BOOL and kb is not None:
        return kb(a, b)
    return kf(a, b)


def _float_binary(kf, x1, x2) -> Tensor:
    """``kf(x1, x2)`` after NumPy promotion, in floating point (integers and bools cast to
    the default float type)."""
    if type(x1) is Tensor:
        if type(x2) is Tensor and x1._dtype is x2._dtype:
            return kf(to_float(x1), to_float(x2))
        if type(x2) in _PYNUM and _keeps_dtype(x1._dtype, x2) and x1._dtype._kind == "f":
            return kf(x1, x2)
    a, b = promote(x1, x2)
    return kf(to_float(a), to_float(b))


def _compare(kf, x1, x2) -> Tensor:
    """The comparison ``kf`` after NumPy promotion: a bool Tensor."""
    if type(x1) is Tensor and type(x2) in _PYNUM and _keeps_dtype(x1._dtype, x2):
        return kf(x1, x2)
    a, b = promote(x1, x2)
    return kf(a, b)


def _logical(kf, x1, x2) -> Tensor:
    """The logical ``kf`` on the truth values of ``x1`` and ``x2``."""
    return kf(asarray(x1, np.bool_), asarray(x2, np.bool_))


# --- unary functions that are not plain ufuncs ------------------------------------
@public(_MOD)
def real(val):
    """TensorFlow variant of NumPy's ``real``: the real part of ``val``.

    Args:
      val: An array-like.

    Returns:
      A Tensor: the real part (of the matching float dtype) for complex input, ``val``
      itself for real dtypes.
    """
    val = asarray(val)
    return _e.real(val) if val._dtype.is_complex else val


@public(_MOD)
def imag(val):
    """TensorFlow variant of NumPy's ``imag``: the imaginary part of ``val``.

    Args:
      val: An array-like.

    Returns:
      A Tensor: the imaginary part for complex input, zeros of ``val``'s dtype otherwise.
    """
    val = asarray(val)
    if val._dtype.is_complex:
        return _e.imag(val)
    return _e.multiply(val, 0) if val._dtype is not _BOOL else logical_and(val, False)


@public(_MOD)
def angle(z, deg=False):
    """TensorFlow variant of NumPy's ``angle``: the counterclockwise angle of complex ``z``.

    Args:
      z: An array-like; real input is treated as complex with zero imaginary part.
      deg: If True, the angle is in degrees, else in radians (default).

    Returns:
      A floating Tensor of ``z``'s shape.
    """
    z = to_float(asarray(z))
    r = _e.angle(z)
    return rad2deg(r) if deg else r


@public(_MOD)
def logical_not(x):
    """TensorFlow variant of NumPy's ``logical_not``: NOT of each element's truth value.

    Args:
      x: An array-like; nonzero elements count as true.

    Returns:
      A bool Tensor of ``x``'s shape.
    """
    return _e.logical_not(asarray(x, np.bool_))


@public(_MOD)
def around(a, decimals=0):
    """TensorFlow variant of NumPy's ``around``: rounds half to even to ``decimals`` digits.

    Args:
      a: An array-like.
      decimals: The number of decimal places (negative rounds to tens, hundreds, ...).
        Integer and bool inputs are returned unchanged when ``decimals >= 0``.

    Returns:
      A Tensor of ``a``'s dtype (floating for integers with negative ``decimals``).

    Unsupported arguments: ``out``.
    """
    a = asarray(a)
    if not (a._dtype.is_floating or a._dtype.is_complex):
        if decimals >= 0:
            return a
        a = to_float(a)
    return _k.round(a, decimals)


@public(_MOD)
def round(a, decimals=0):  # noqa: A001 - NumPy's name
    """TensorFlow variant of NumPy's ``round``; the same as ``around``.

    Args:
      a: An array-like.
      decimals: The number of decimal places; rounding is half to even.

    Returns:
      A Tensor of ``a``'s dtype.

    Unsupported arguments: ``out``.
    """
    return around(a, decimals)


@public(_MOD)
def clip(a, a_min, a_max):
    """TensorFlow variant of NumPy's ``clip``: limits ``a`` to ``[a_min, a_max]``.

    Args:
      a: An array-like.
      a_min: The lower bound, broadcast against ``a``; None for no lower bound.
      a_max: The upper bound, broadcast against ``a``; None for no upper bound.

    Returns:
      A Tensor of the dtype NumPy promotion gives the three inputs.

    Raises:
      ValueError: both bounds are None.

    Unsupported arguments: ``out``, ``**kwargs``.
    """
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, lo, hi = promote(a, a_min, a_max)
    return _e.minimum(_e.maximum(a, lo), hi)


# --- binary ---------------------------------------------------------------------
@public(_MOD)
def add(x1, x2):
    """``x1 + x2``, elementwise (logical OR for bools).

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.

    >>> import torchflow.experimental.numpy as tnp
    >>> tnp.add([1, 2], 0.5).numpy()
    array([1.5, 2.5])
    """
    return _binary(_e.add, x1, x2, _e.logical_or)


@public(_MOD)
def subtract(x1, x2):
    """``x1 - x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.subtract, x1, x2)


@public(_MOD)
def multiply(x1, x2):
    """``x1 * x2``, elementwise (logical AND for bools).

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.multiply, x1, x2, _e.logical_and)


@public(_MOD)
def maximum(x1, x2):
    """The larger of ``x1`` and ``x2``, elementwise (NaN if either is NaN).

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.maximum, x1, x2, _e.logical_or)


@public(_MOD)
def minimum(x1, x2):
    """The smaller of ``x1`` and ``x2``, elementwise (NaN if either is NaN).

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.minimum, x1, x2, _e.logical_and)


@public(_MOD)
def power(x1, x2):
    """``x1`` raised to the power ``x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.power, x1, x2)


@public(_MOD)
def mod(x1, x2):
    """Remainder of floor division, elementwise: has the sign of ``x2``.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.remainder, x1, x2)


@public(_MOD)
def remainder(x1, x2):
    """Remainder of floor division, elementwise; the same as ``mod``.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.remainder, x1, x2)


@public(_MOD)
def fmod(x1, x2):
    """C-style remainder of truncated division, elementwise: has the sign of
    ``x1``.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.fmod, x1, x2)


@public(_MOD)
def floor_divide(x1, x2):
    """``x1 // x2``: the floor of ``x1 / x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.floor_divide, x1, x2)


@public(_MOD)
def gcd(x1, x2):
    """Greatest common divisor of integers, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.gcd, x1, x2)


@public(_MOD)
def lcm(x1, x2):
    """Least common multiple of integers, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.lcm, x1, x2)


@public(_MOD)
def bitwise_and(x1, x2):
    """Bitwise AND of integers or bools, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.bitwise_and, x1, x2)


@public(_MOD)
def bitwise_or(x1, x2):
    """Bitwise OR of integers or bools, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.bitwise_or, x1, x2)


@public(_MOD)
def bitwise_xor(x1, x2):
    """Bitwise XOR of integers or bools, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.bitwise_xor, x1, x2)


@public(_MOD)
def bitwise_left_shift(x1, x2):
    """Shifts the bits of integer ``x1`` left by ``x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.left_shift, x1, x2)


@public(_MOD)
def bitwise_right_shift(x1, x2):
    """Shifts the bits of integer ``x1`` right by ``x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.right_shift, x1, x2)


@public(_MOD)
def left_shift(x1, x2):
    """Shifts the bits of integer ``x1`` left by ``x2``; the same as
    ``bitwise_left_shift``.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.left_shift, x1, x2)


@public(_MOD)
def right_shift(x1, x2):
    """Shifts the bits of integer ``x1`` right by ``x2``; the same as
    ``bitwise_right_shift``.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A Tensor of the promoted dtype and the broadcast shape.
    """
    return _binary(_e.right_shift, x1, x2)


@public(_MOD)
def arctan2(x1, x2):
    """The angle of the point ``(x2, x1)`` in radians, in ``[-pi, pi]``,
    elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits). Integer and
        bool inputs are then cast to the default float type.

    Returns:
      A floating-point Tensor of the broadcast shape.
    """
    return _float_binary(_e.arctan2, x1, x2)


@public(_MOD)
def hypot(x1, x2):
    """``sqrt(x1**2 + x2**2)``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits). Integer and
        bool inputs are then cast to the default float type.

    Returns:
      A floating-point Tensor of the broadcast shape.
    """
    return _float_binary(_e.hypot, x1, x2)


@public(_MOD)
def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))``, elementwise, without overflow.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits). Integer and
        bool inputs are then cast to the default float type.

    Returns:
      A floating-point Tensor of the broadcast shape.
    """
    return _float_binary(_e.logaddexp, x1, x2)


@public(_MOD)
def logaddexp2(x1, x2):
    """``log2(2**x1 + 2**x2)``, elementwise, without overflow.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits). Integer and
        bool inputs are then cast to the default float type.

    Returns:
      A floating-point Tensor of the broadcast shape.
    """
    return _float_binary(_e.logaddexp2, x1, x2)


@public(_MOD)
def nextafter(x1, x2):
    """The next floating-point value after ``x1`` towards ``x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits). Integer and
        bool inputs are then cast to the default float type.

    Returns:
      A floating-point Tensor of the broadcast shape.
    """
    return _float_binary(_e.nextafter, x1, x2)


@public(_MOD)
def copysign(x1, x2):
    """The magnitude of ``x1`` with the sign of ``x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits). Integer and
        bool inputs are then cast to the default float type.

    Returns:
      A floating-point Tensor of the broadcast shape.
    """
    return _float_binary(_e.copysign, x1, x2)


@public(_MOD)
def heaviside(x1, x2):
    """Heaviside step function, elementwise: 0 where ``x1 < 0``, ``x2`` where
    ``x1 == 0``, 1 where ``x1 > 0``.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits). Integer and
        bool inputs are then cast to the default float type.

    Returns:
      A floating-point Tensor of the broadcast shape.
    """
    return _float_binary(_e.heaviside, x1, x2)


@public(_MOD)
def equal(x1, x2):
    """``x1 == x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A bool Tensor of the broadcast shape.
    """
    return _compare(_e.equal, x1, x2)


@public(_MOD)
def not_equal(x1, x2):
    """``x1 != x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A bool Tensor of the broadcast shape.
    """
    return _compare(_e.not_equal, x1, x2)


@public(_MOD)
def less(x1, x2):
    """``x1 < x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A bool Tensor of the broadcast shape.

    >>> import torchflow.experimental.numpy as tnp
    >>> tnp.less([1, 2], 2).numpy()
    array([ True, False])
    """
    return _compare(_e.less, x1, x2)


@public(_MOD)
def less_equal(x1, x2):
    """``x1 <= x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A bool Tensor of the broadcast shape.
    """
    return _compare(_e.less_equal, x1, x2)


@public(_MOD)
def greater(x1, x2):
    """``x1 > x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A bool Tensor of the broadcast shape.
    """
    return _compare(_e.greater, x1, x2)


@public(_MOD)
def greater_equal(x1, x2):
    """``x1 >= x2``, elementwise.

    Args:
      x1: An array-like.
      x2: An array-like, broadcast against ``x1``. The two are promoted to one
        dtype by NumPy's rules (a Python number keeps a tensor's dtype when it fits).

    Returns:
      A bool Tensor of the broadcast shape.
    """
    return _compare(_e.greater_equal, x1, x2)


@public(_MOD)
def logical_and(x1, x2):
    """Logical AND of the truth values of ``x1`` and ``x2``, elementwise.

    Args:
      x1: An array-like (nonzero is true).
      x2: An array-like (nonzero is true), broadcast against ``x1``.

    Returns:
      A bool Tensor of the broadcast shape.
    """
    return _logical(_e.logical_and, x1, x2)


@public(_MOD)
def logical_or(x1, x2):
    """Logical OR of the truth values of ``x1`` and ``x2``, elementwise.

    Args:
      x1: An array-like (nonzero is true).
      x2: An array-like (nonzero is true), broadcast against ``x1``.

    Returns:
      A bool Tensor of the broadcast shape.
    """
    return _logical(_e.logical_or, x1, x2)


@public(_MOD)
def logical_xor(x1, x2):
    """Logical XOR of the truth values of ``x1`` and ``x2``, elementwise.

    Args:
      x1: An array-like (nonzero is true).
      x2: An array-like (nonzero is true), broadcast against ``x1``.

    Returns:
      A bool Tensor of the broadcast shape.
    """
    return _logical(_e.logical_xor, x1, x2)


_INT_TO_FLOAT32 = frozenset((dtypes.int8, dtypes.int16, dtypes.uint8, dtypes.uint16))


@public(_MOD)
def true_divide(x1, x2):
    """TensorFlow variant of NumPy's ``true_divide``: ``x1 / x2`` in floating point.

    Integers are divided as TF 2.4 does: int8/int16/uint8/uint16 in float32, wider
    integers in float64, bools in the default float type.

    Args:
      x1: An array-like, the dividend.
      x2: An array-like, the divisor, broadcast against ``x1``.

    Returns:
      A floating (or complex) Tensor of the broadcast shape.
    """
    if type(x1) is Tensor and type(x2) is Tensor and x1._dtype is x2._dtype:
        a, b = x1, x2
    else:
        a, b = promote(x1, x2)
    d = a._dtype
    if not (d.is_floating or d.is_complex):
        if d is _BOOL:
            f = _d.to_tf(_d.default_float_type())
        elif d in _INT_TO_FLOAT32:
            f = dtypes.float32
        else:
            f = dtypes.float64
        a, b = _k.cast(a, f), _k.cast(b, f)
    return _e.true_divide(a, b)


@public(_MOD)
def divide(x1, x2):
    """TensorFlow variant of NumPy's ``divide``; the same as ``true_divide``.

    Args:
      x1: An array-like, the dividend.
      x2: An array-like, the divisor, broadcast against ``x1``.

    Returns:
      A floating (or complex) Tensor of the broadcast shape.
    """
    return true_divide(x1, x2)


@public(_MOD)
def divmod(x1, x2):  # noqa: A001
    """TensorFlow variant of NumPy's ``divmod``: floor quotient and remainder together.

    Args:
      x1: An array-like, the dividend.
      x2: An array-like, the divisor, broadcast against ``x1``.

    Returns:
      The tuple ``(floor_divide(x1, x2), mod(x1, x2))``.
    """
    return floor_divide(x1, x2), mod(x1, x2)


@public(_MOD)
def float_power(x1, x2):
    """TensorFlow variant of NumPy's ``float_power``: ``x1 ** x2`` in at least float64.

    Args:
      x1: An array-like, the bases.
      x2: An array-like, the exponents, broadcast against ``x1``.

    Returns:
      A float64 (or complex128) Tensor of the broadcast shape.
    """
    a, b = promote(x1, x2)
    d = _d.to_tf(_d.canonicalize(np.result_type(a._dtype.as_numpy_dtype, np.float64)))
    return power(_k.cast(a, d), _k.cast(b, d))


@public(_MOD)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """TensorFlow variant of NumPy's ``isclose``: ``|a - b| <= atol + rtol * |b|`` elementwise.

    Args:
      a: An array-like.
      b: An array-like, broadcast against ``a``.
      rtol: The relative tolerance (default 1e-05).
      atol: The absolute tolerance (default 1e-08).
      equal_nan: If True, two NaNs compare equal.

    Returns:
      A bool Tensor of the broadcast shape.
    """
    a, b = promote(a, b)
    if not (a._dtype.is_floating or a._dtype.is_complex):
        a, b = to_float(a), to_float(b)
    return _k.isclose(a, b, rtol, atol, equal_nan)


@public(_MOD)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """TensorFlow variant of NumPy's ``allclose``: whether ``isclose`` holds everywhere.

    Args:
      a: An array-like.
      b: An array-like, broadcast against ``a``.
      rtol: The relative tolerance (default 1e-05).
      atol: The absolute tolerance (default 1e-08).
      equal_nan: If True, two NaNs compare equal.

    Returns:
      A scalar bool Tensor (not a Python bool, as in tnp).
    """
    return _k.all(isclose(a, b, rtol, atol, equal_nan), None, False)


@public(_MOD)
def array_equal(a1, a2):
    """TensorFlow variant of NumPy's ``array_equal``: same shape and same elements.

    Args:
      a1: An array-like.
      a2: An array-like.

    Returns:
      A scalar bool Tensor; False when the shapes differ.
    """
    a1, a2 = asarray(a1), asarray(a2)
    if _k.shape_tuple(a1) != _k.shape_tuple(a2):
        return asarray(False)
    return _k.all(equal(a1, a2), None, False)


@public(_MOD)
def iscomplex(x):
    """TensorFlow variant of NumPy's ``iscomplex``: which elements have a nonzero imaginary part.

    Args:
      x: An array-like.

    Returns:
      A bool Tensor of ``x``'s shape (all False for real dtypes).
    """
    return not_equal(imag(x), 0)


@public(_MOD)
def isreal(x):
    """TensorFlow variant of NumPy's ``isreal``: which elements have a zero imaginary part.

    Args:
      x: An array-like.

    Returns:
      A bool Tensor of ``x``'s shape (all True for real dtypes).
    """
    return equal(imag(x), 0)


@public(_MOD)
def iscomplexobj(x) -> bool:
    """TensorFlow variant of NumPy's ``iscomplexobj``: whether ``x``'s dtype is complex.

    Args:
      x: An array-like.

    Returns:
      A Python bool, from the dtype only (not the values).
    """
    return bool(asarray(x)._dtype.is_complex)


@public(_MOD)
def isrealobj(x) -> bool:
    """TensorFlow variant of NumPy's ``isrealobj``: whether ``x``'s dtype is not complex.

    Args:
      x: An array-like.

    Returns:
      A Python bool, from the dtype only (not the values).
    """
    return not iscomplexobj(x)
