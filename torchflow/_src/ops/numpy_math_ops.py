"""Engine kernels of ``tf.experimental.numpy``'s elementwise functions (NumPy ufuncs).

One named, typed function per kernel; ``_src/numpy/np_math`` chooses the dtype
(NumPy promotion, casts done) and calls these. Unary kernels take a Tensor;
binary kernels take a Tensor and a Tensor of the same dtype or a Python number
that keeps that dtype. The result dtype is the torch kernel's (bool for
comparisons). Torch failures become TF errors naming ``tnp.<kernel>``. The
kernels are torch functions, so they are differentiable under ``GradientTape``.
"""

from __future__ import annotations

from typing import Callable, Union

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import translate
from torchflow._src.core.tensor import Tensor, wrap

Operand = Union[Tensor, bool, int, float, complex]
_BY_TORCH = dtypes._BY_TORCH


def _unary(op: str, fn: Callable, x: Tensor) -> Tensor:
    """``fn`` on ``x``'s torch tensor; the result's dtype is the kernel's."""
    try:
        r = fn(x._t)
    except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
        raise translate(op, e) from None
    return wrap(r, _BY_TORCH[r.dtype])


def _binary(op: str, fn: Callable, x: Tensor, y: Operand) -> Tensor:
    """``fn(x, y)`` on torch tensors, or with ``y`` a Python number known to keep
    ``x``'s dtype (as a 0-d tensor for kernels without a scalar overload)."""
    t = x._t
    try:
        if type(y) is Tensor:
            r = fn(t, y._t)
        else:
            try:
                r = fn(t, y)
            except TypeError:  # kernels without a scalar overload (maximum, atan2 ...)
                r = fn(t, torch.tensor(y, dtype=t.dtype, device=t.device))
    except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
        raise translate(op, e) from None
    return wrap(r, _BY_TORCH[r.dtype])


def _cbrt(t):
    return torch.sign(t) * torch.abs(t).pow(1.0 / 3)


def _heaviside(a, b):
    return torch.where(a == 0, b, (a > 0).to(a.dtype))


# --- unary ----------------------------------------------------------------------------------
def abs(x: Tensor) -> Tensor:  # noqa: A001 - NumPy's name
    """Absolute value (complex: magnitude), elementwise."""
    return _unary("tnp.abs", torch.abs, x)


def negative(x: Tensor) -> Tensor:
    """``-x``, elementwise."""
    return _unary("tnp.negative", torch.negative, x)


def positive(x: Tensor) -> Tensor:
    """``+x``, elementwise."""
    return _unary("tnp.positive", torch.positive, x)


def square(x: Tensor) -> Tensor:
    """``x * x``, elementwise."""
    return _unary("tnp.square", torch.square, x)


def sign(x: Tensor) -> Tensor:
    """The sign, -1, 0 or 1, elementwise."""
    return _unary("tnp.sign", torch.sign, x)


def sqrt(x: Tensor) -> Tensor:
    """Square root, elementwise."""
    return _unary("tnp.sqrt", torch.sqrt, x)


def cbrt(x: Tensor) -> Tensor:
    """Real cube root, elementwise."""
    return _unary("tnp.cbrt", _cbrt, x)


def reciprocal(x: Tensor) -> Tensor:
    """``1 / x``, elementwise."""
    return _unary("tnp.reciprocal", torch.reciprocal, x)


def exp(x: Tensor) -> Tensor:
    """``e ** x``, elementwise."""
    return _unary("tnp.exp", torch.exp, x)


def exp2(x: Tensor) -> Tensor:
    """``2 ** x``, elementwise."""
    return _unary("tnp.exp2", torch.exp2, x)


def expm1(x: Tensor) -> Tensor:
    """``exp(x) - 1``, elementwise."""
    return _unary("tnp.expm1", torch.expm1, x)


def log(x: Tensor) -> Tensor:
    """Natural logarithm, elementwise."""
    return _unary("tnp.log", torch.log, x)


def log2(x: Tensor) -> Tensor:
    """Base-2 logarithm, elementwise."""
    return _unary("tnp.log2", torch.log2, x)


def log10(x: Tensor) -> Tensor:
    """Base-10 logarithm, elementwise."""
    return _unary("tnp.log10", torch.log10, x)


def log1p(x: Tensor) -> Tensor:
    """``log(1 + x)``, elementwise."""
    return _unary("tnp.log1p", torch.log1p, x)


def sin(x: Tensor) -> Tensor:
    """Sine, elementwise."""
    return _unary("tnp.sin", torch.sin, x)


def cos(x: Tensor) -> Tensor:
    """Cosine, elementwise."""
    return _unary("tnp.cos", torch.cos, x)


def tan(x: Tensor) -> Tensor:
    """Tangent, elementwise."""
    return _unary("tnp.tan", torch.tan, x)


def arcsin(x: Tensor) -> Tensor:
    """Inverse sine, elementwise."""
    return _unary("tnp.arcsin", torch.arcsin, x)


def arccos(x: Tensor) -> Tensor:
    """Inverse cosine, elementwise."""
    return _unary("tnp.arccos", torch.arccos, x)


def arctan(x: Tensor) -> Tensor:
    """Inverse tangent, elementwise."""
    return _unary("tnp.arctan", torch.arctan, x)


def sinh(x: Tensor) -> Tensor:
    """Hyperbolic sine, elementwise."""
    return _unary("tnp.sinh", torch.sinh, x)


def cosh(x: Tensor) -> Tensor:
    """Hyperbolic cosine, elementwise."""
    return _unary("tnp.cosh", torch.cosh, x)


def tanh(x: Tensor) -> Tensor:
    """Hyperbolic tangent, elementwise."""
    return _unary("tnp.tanh", torch.tanh, x)


def arcsinh(x: Tensor) -> Tensor:
    """Inverse hyperbolic sine, elementwise."""
    return _unary("tnp.arcsinh", torch.arcsinh, x)


def arccosh(x: Tensor) -> Tensor:
    """Inverse hyperbolic cosine, elementwise."""
    return _unary("tnp.arccosh", torch.arccosh, x)


def arctanh(x: Tensor) -> Tensor:
    """Inverse hyperbolic tangent, elementwise."""
    return _unary("tnp.arctanh", torch.arctanh, x)


def deg2rad(x: Tensor) -> Tensor:
    """Degrees to radians, elementwise."""
    return _unary("tnp.deg2rad", torch.deg2rad, x)


def rad2deg(x: Tensor) -> Tensor:
    """Radians to degrees, elementwise."""
    return _unary("tnp.rad2deg", torch.rad2deg, x)


def sinc(x: Tensor) -> Tensor:
    """Normalized sinc, ``sin(pi x) / (pi x)``, elementwise."""
    return _unary("tnp.sinc", torch.sinc, x)


def ceil(x: Tensor) -> Tensor:
    """Ceiling, elementwise."""
    return _unary("tnp.ceil", torch.ceil, x)


def floor(x: Tensor) -> Tensor:
    """Floor, elementwise."""
    return _unary("tnp.floor", torch.floor, x)


def trunc(x: Tensor) -> Tensor:
    """Rounds towards zero, elementwise."""
    return _unary("tnp.trunc", torch.trunc, x)


def conj(x: Tensor) -> Tensor:
    """Complex conjugate, elementwise."""
    return _unary("tnp.conj", torch.conj, x)


def real(x: Tensor) -> Tensor:
    """Real part of a complex tensor, elementwise."""
    return _unary("tnp.real", torch.real, x)


def imag(x: Tensor) -> Tensor:
    """Imaginary part of a complex tensor, elementwise."""
    return _unary("tnp.imag", torch.imag, x)


def angle(x: Tensor) -> Tensor:
    """Argument (phase); pi for negative reals, else 0, elementwise."""
    return _unary("tnp.angle", torch.angle, x)


def bitwise_not(x: Tensor) -> Tensor:
    """Bitwise NOT (logical NOT for bool), elementwise."""
    return _unary("tnp.bitwise_not", torch.bitwise_not, x)


def logical_not(x: Tensor) -> Tensor:
    """Logical NOT of the truth values, elementwise."""
    return _unary("tnp.logical_not", torch.logical_not, x)


def signbit(x: Tensor) -> Tensor:
    """True where the sign bit is set, elementwise."""
    return _unary("tnp.signbit", torch.signbit, x)


def isnan(x: Tensor) -> Tensor:
    """True where NaN, elementwise."""
    return _unary("tnp.isnan", torch.isnan, x)


def isinf(x: Tensor) -> Tensor:
    """True where +-inf, elementwise."""
    return _unary("tnp.isinf", torch.isinf, x)


def isfinite(x: Tensor) -> Tensor:
    """True where finite, elementwise."""
    return _unary("tnp.isfinite", torch.isfinite, x)


def isposinf(x: Tensor) -> Tensor:
    """True where +inf, elementwise."""
    return _unary("tnp.isposinf", torch.isposinf, x)


def isneginf(x: Tensor) -> Tensor:
    """True where -inf, elementwise."""
    return _unary("tnp.isneginf", torch.isneginf, x)


# --- binary ---------------------------------------------------------------------------------
def add(x: Tensor, y: Operand) -> Tensor:
    """``x + y``, elementwise."""
    return _binary("tnp.add", torch.add, x, y)


def subtract(x: Tensor, y: Operand) -> Tensor:
    """``x - y``, elementwise."""
    return _binary("tnp.subtract", torch.subtract, x, y)


def multiply(x: Tensor, y: Operand) -> Tensor:
    """``x * y``, elementwise."""
    return _binary("tnp.multiply", torch.multiply, x, y)


def true_divide(x: Tensor, y: Operand) -> Tensor:
    """``x / y``, elementwise."""
    return _binary("tnp.true_divide", torch.true_divide, x, y)


def floor_divide(x: Tensor, y: Operand) -> Tensor:
    """``x // y``, elementwise."""
    return _binary("tnp.floor_divide", torch.floor_divide, x, y)


def remainder(x: Tensor, y: Operand) -> Tensor:
    """Remainder with ``y``'s sign (NumPy's ``mod``), elementwise."""
    return _binary("tnp.remainder", torch.remainder, x, y)


def fmod(x: Tensor, y: Operand) -> Tensor:
    """Remainder with ``x``'s sign (C's ``fmod``), elementwise."""
    return _binary("tnp.fmod", torch.fmod, x, y)


def power(x: Tensor, y: Operand) -> Tensor:
    """``x ** y``, elementwise."""
    return _binary("tnp.power", torch.pow, x, y)


def maximum(x: Tensor, y: Operand) -> Tensor:
    """Elementwise maximum (NaN propagates), elementwise."""
    return _binary("tnp.maximum", torch.maximum, x, y)


def minimum(x: Tensor, y: Operand) -> Tensor:
    """Elementwise minimum (NaN propagates), elementwise."""
    return _binary("tnp.minimum", torch.minimum, x, y)


def arctan2(x: Tensor, y: Operand) -> Tensor:
    """``atan(x / y)`` with the quadrant from both signs, elementwise."""
    return _binary("tnp.arctan2", torch.atan2, x, y)


def hypot(x: Tensor, y: Operand) -> Tensor:
    """``sqrt(x**2 + y**2)``, elementwise."""
    return _binary("tnp.hypot", torch.hypot, x, y)


def logaddexp(x: Tensor, y: Operand) -> Tensor:
    """``log(exp(x) + exp(y))``, elementwise."""
    return _binary("tnp.logaddexp", torch.logaddexp, x, y)


def logaddexp2(x: Tensor, y: Operand) -> Tensor:
    """``log2(2**x + 2**y)``, elementwise."""
    return _binary("tnp.logaddexp2", torch.logaddexp2, x, y)


def nextafter(x: Tensor, y: Operand) -> Tensor:
    """Next representable value after ``x`` towards ``y``, elementwise."""
    return _binary("tnp.nextafter", torch.nextafter, x, y)


def copysign(x: Tensor, y: Operand) -> Tensor:
    """``x``'s magnitude with ``y``'s sign, elementwise."""
    return _binary("tnp.copysign", torch.copysign, x, y)


def heaviside(x: Tensor, y: Operand) -> Tensor:
    """Heaviside step of ``x``, ``y`` where ``x == 0``, elementwise."""
    return _binary("tnp.heaviside", _heaviside, x, y)


def gcd(x: Tensor, y: Operand) -> Tensor:
    """Greatest common divisor, elementwise."""
    return _binary("tnp.gcd", torch.gcd, x, y)


def lcm(x: Tensor, y: Operand) -> Tensor:
    """Least common multiple, elementwise."""
    return _binary("tnp.lcm", torch.lcm, x, y)


def bitwise_and(x: Tensor, y: Operand) -> Tensor:
    """Bitwise AND, elementwise."""
    return _binary("tnp.bitwise_and", torch.bitwise_and, x, y)


def bitwise_or(x: Tensor, y: Operand) -> Tensor:
    """Bitwise OR, elementwise."""
    return _binary("tnp.bitwise_or", torch.bitwise_or, x, y)


def bitwise_xor(x: Tensor, y: Operand) -> Tensor:
    """Bitwise XOR, elementwise."""
    return _binary("tnp.bitwise_xor", torch.bitwise_xor, x, y)


def left_shift(x: Tensor, y: Operand) -> Tensor:
    """``x << y``, elementwise."""
    return _binary("tnp.left_shift", torch.bitwise_left_shift, x, y)


def right_shift(x: Tensor, y: Operand) -> Tensor:
    """``x >> y``, elementwise."""
    return _binary("tnp.right_shift", torch.bitwise_right_shift, x, y)


def logical_and(x: Tensor, y: Operand) -> Tensor:
    """Logical AND of the truth values, elementwise."""
    return _binary("tnp.logical_and", torch.logical_and, x, y)


def logical_or(x: Tensor, y: Operand) -> Tensor:
    """Logical OR of the truth values, elementwise."""
    return _binary("tnp.logical_or", torch.logical_or, x, y)


def logical_xor(x: Tensor, y: Operand) -> Tensor:
    """Logical XOR of the truth values, elementwise."""
    return _binary("tnp.logical_xor", torch.logical_xor, x, y)


def equal(x: Tensor, y: Operand) -> Tensor:
    """``x == y`` (bool), elementwise."""
    return _binary("tnp.equal", torch.eq, x, y)


def not_equal(x: Tensor, y: Operand) -> Tensor:
    """``x != y`` (bool), elementwise."""
    return _binary("tnp.not_equal", torch.ne, x, y)


def less(x: Tensor, y: Operand) -> Tensor:
    """``x < y`` (bool), elementwise."""
    return _binary("tnp.less", torch.lt, x, y)


def less_equal(x: Tensor, y: Operand) -> Tensor:
    """``x <= y`` (bool), elementwise."""
    return _binary("tnp.less_equal", torch.le, x, y)


def greater(x: Tensor, y: Operand) -> Tensor:
    """``x > y`` (bool), elementwise."""
    return _binary("tnp.greater", torch.gt, x, y)


def greater_equal(x: Tensor, y: Operand) -> Tensor:
    """``x >= y`` (bool), elementwise."""
    return _binary("tnp.greater_equal", torch.ge, x, y)
