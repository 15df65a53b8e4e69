"""tnp's unary ufuncs (``sqrt``, ``sin``, ``abs``, ``isnan`` ...) on torchflow tensors.

Each is a plain ``def`` over one of two helpers: ``_float_unary`` for functions
NumPy computes in floating point (integer and bool inputs are cast to the default
float type first, float64 or float32 under ``prefer_float32``, as TF 2.4's tnp
does) and ``_unary`` for those that keep the dtype. ``np_math`` holds the binary
ufuncs and re-exports these.
"""

from __future__ import annotations

from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy.np_arrays import asarray, to_float
from torchflow._src.ops import numpy_math_ops as _e
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"


def _float_unary(kf, x) -> Tensor:
    """``kf(x)`` in floating point: the engine kernel of a float-valued ufunc."""
    if type(x) is not Tensor:  # a Tensor needs no conversion: skip the call
        x = asarray(x)
    if x._dtype._kind not in "fc":
        x = to_float(x)
    return kf(x)


def _unary(kf, x) -> Tensor:
    """``kf(x)`` on ``x`` as an array (the ufuncs that keep the dtype)."""
    if type(x) is not Tensor:
        x = asarray(x)
    return kf(x)


# --- floating-point results ------------------------------------------------------
@public(_MOD)
def sqrt(x):
    """Non-negative square root, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.

    >>> import torchflow.experimental.numpy as tnp
    >>> tnp.sqrt([1, 4, 9]).numpy()
    array([1., 2., 3.])
    """
    return _float_unary(_e.sqrt, x)


@public(_MOD)
def exp(x):
    """``e`` raised to the power ``x``, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.exp, x)


@public(_MOD)
def exp2(x):
    """``2`` raised to the power ``x``, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.exp2, x)


@public(_MOD)
def expm1(x):
    """``exp(x) - 1``, elementwise (accurate for small ``x``).

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.expm1, x)


@public(_MOD)
def log(x):
    """Natural logarithm, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.log, x)


@public(_MOD)
def log2(x):
    """Base-2 logarithm, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.log2, x)


@public(_MOD)
def log10(x):
    """Base-10 logarithm, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.log10, x)


@public(_MOD)
def log1p(x):
    """``log(1 + x)``, elementwise (accurate for small ``x``).

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.log1p, x)


@public(_MOD)
def sin(x):
    """Sine of ``x`` in radians, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.sin, x)


@public(_MOD)
def cos(x):
    """Cosine of ``x`` in radians, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.cos, x)


@public(_MOD)
def tan(x):
    """Tangent of ``x`` in radians, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.tan, x)


@public(_MOD)
def arcsin(x):
    """Inverse sine, elementwise: radians in ``[-pi/2, pi/2]``.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.arcsin, x)


@public(_MOD)
def arccos(x):
    """Inverse cosine, elementwise: radians in ``[0, pi]``.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.arccos, x)


@public(_MOD)
def arctan(x):
    """Inverse tangent, elementwise: radians in ``[-pi/2, pi/2]``.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.arctan, x)


@public(_MOD)
def sinh(x):
    """Hyperbolic sine, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.sinh, x)


@public(_MOD)
def cosh(x):
    """Hyperbolic cosine, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.cosh, x)


@public(_MOD)
def tanh(x):
    """Hyperbolic tangent, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.tanh, x)


@public(_MOD)
def arcsinh(x):
    """Inverse hyperbolic sine, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.arcsinh, x)


@public(_MOD)
def arccosh(x):
    """Inverse hyperbolic cosine, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.arccosh, x)


@public(_MOD)
def arctanh(x):
    """Inverse hyperbolic tangent, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.arctanh, x)


@public(_MOD)
def deg2rad(x):
    """Converts angles from degrees to radians, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.deg2rad, x)


@public(_MOD)
def rad2deg(x):
    """Converts angles from radians to degrees, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.rad2deg, x)


@public(_MOD)
def sinc(x):
    """Normalized sinc, elementwise: ``sin(pi * x) / (pi * x)``, 1 at 0.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.sinc, x)


@public(_MOD)
def cbrt(x):
    """Cube root, elementwise (negative for negative ``x``).

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.cbrt, x)


@public(_MOD)
def ceil(x):
    """The smallest integer not less than ``x``, elementwise, as a float.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.ceil, x)


@public(_MOD)
def floor(x):
    """The largest integer not greater than ``x``, elementwise, as a float.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.floor, x)


@public(_MOD)
def fix(x):
    """Rounds toward zero, elementwise, as a float.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.trunc, x)


@public(_MOD)
def reciprocal(x):
    """``1 / x``, elementwise.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.reciprocal, x)


@public(_MOD)
def fabs(x):
    """Absolute value, elementwise, as a float.

    Args:
      x: An array-like. Integer and bool inputs are cast to the default float
        type first (float64, or float32 under ``prefer_float32``).

    Returns:
      A floating-point Tensor of ``x``'s shape.
    """
    return _float_unary(_e.abs, x)


# --- dtype kept (bool results for the is* tests) ------------------------------------
@public(_MOD)
def abs(x):  # noqa: A001 - NumPy's name
    """Absolute value, elementwise (the magnitude, a real Tensor, for complex
    ``x``).

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s shape: ``x``'s dtype, or the real dtype of a complex
      ``x``.

    >>> import torchflow.experimental.numpy as tnp
    >>> tnp.abs([-1, 2]).numpy()
    array([1, 2])
    """
    return _unary(_e.abs, x)


@public(_MOD)
def absolute(x):
    """Absolute value, elementwise; the same as ``abs``.

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s shape: ``x``'s dtype, or the real dtype of a complex
      ``x``.
    """
    return _unary(_e.abs, x)


@public(_MOD)
def negative(x):
    """``-x``, elementwise.

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s dtype and shape.
    """
    return _unary(_e.negative, x)


@public(_MOD)
def positive(x):
    """``+x``, elementwise: the values of ``x``.

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s dtype and shape.
    """
    return _unary(_e.positive, x)


@public(_MOD)
def square(x):
    """``x * x``, elementwise.

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s dtype and shape.
    """
    return _unary(_e.square, x)


@public(_MOD)
def sign(x):
    """The sign of ``x``, elementwise: -1, 0 or 1.

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s dtype and shape.
    """
    return _unary(_e.sign, x)


@public(_MOD)
def conj(x):
    """Complex conjugate, elementwise (``x``'s values for a real ``x``).

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s dtype and shape.
    """
    return _unary(_e.conj, x)


@public(_MOD)
def conjugate(x):
    """Complex conjugate, elementwise; the same as ``conj``.

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s dtype and shape.
    """
    return _unary(_e.conj, x)


@public(_MOD)
def bitwise_not(x):
    """Bitwise NOT of integers, logical NOT of bools, elementwise.

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s dtype and shape.
    """
    return _unary(_e.bitwise_not, x)


@public(_MOD)
def invert(x):
    """Bitwise NOT, elementwise; the same as ``bitwise_not``.

    Args:
      x: An array-like.

    Returns:
      A Tensor of ``x``'s dtype and shape.
    """
    return _unary(_e.bitwise_not, x)


@public(_MOD)
def signbit(x):
    """True where the sign bit of ``x`` is set (negative values and ``-0.0``).

    Args:
      x: An array-like.

    Returns:
      A bool Tensor of ``x``'s shape.
    """
    return _unary(_e.signbit, x)


@public(_MOD)
def isnan(x):
    """True where ``x`` is NaN, elementwise.

    Args:
      x: An array-like.

    Returns:
      A bool Tensor of ``x``'s shape.
    """
    return _unary(_e.isnan, x)


@public(_MOD)
def isinf(x):
    """True where ``x`` is positive or negative infinity, elementwise.

    Args:
      x: An array-like.

    Returns:
      A bool Tensor of ``x``'s shape.
    """
    return _unary(_e.isinf, x)


@public(_MOD)
def isfinite(x):
    """True where ``x`` is neither infinite nor NaN, elementwise.

    Args:
      x: An array-like.

    Returns:
      A bool Tensor of ``x``'s shape.
    """
    return _unary(_e.isfinite, x)


@public(_MOD)
def isposinf(x):
    """True where ``x`` is positive infinity, elementwise.

    Args:
      x: An array-like.

    Returns:
      A bool Tensor of ``x``'s shape.
    """
    return _unary(_e.isposinf, x)


@public(_MOD)
def isneginf(x):
    """True where ``x`` is negative infinity, elementwise.

    Args:
      x: An array-like.

    Returns:
      A bool Tensor of ``x``'s shape.
    """
    return _unary(_e.isneginf, x)
