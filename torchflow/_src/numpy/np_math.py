"""tnp elementwise math and logic (NumPy ufuncs) on torchflow tensors.

Each function converts its inputs with NumPy promotion (``np_arrays.promote``),
then runs one engine kernel. Functions that NumPy computes in floating point
(``sin``, ``sqrt``, ``true_divide`` ...) first cast integer/bool inputs to the
default float type (float64, float32 under ``prefer_float32``), as TF 2.4 does.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_dtypes as _d
from torchflow._src.numpy.np_arrays import asarray, promote, to_float
from torchflow._src.ops import numpy_math_ops as _e
from torchflow._src.ops import numpy_ops as _k

_MOD = "torchflow.experimental.numpy"
_BOOL = dtypes.bool


def _named(f, name, doc):
    f.__name__ = f.__qualname__ = name
    f.__module__ = _MOD
    f.__doc__ = doc
    return f


def _unary(name, kf, to_float_first=False, out_bool=False):
    def f(x):
        if type(x) is not Tensor:  # a Tensor needs no conversion: skip the call
            x = asarray(x)
        if to_float_first and x._dtype._kind not in "fc":
            x = to_float(x)
        return kf(x)

    kind = "floating point; integer inputs become the default float" if to_float_first else (
        "same dtype")
    return _named(f, name, f"NumPy ``{name}`` elementwise ({'bool result' if out_bool else kind}).\n\n"
                  f"Args:\n  x: array-like.\n\nReturns:\n  A Tensor.")


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


def _binary(name, kf, to_float_first=False, kb=None):

    def f(x1, x2):
        if type(x1) is Tensor:
            if type(x2) is Tensor and x1._dtype is x2._dtype:
                a, b = x1, x2
                if to_float_first:
                    a, b = to_float(a), to_float(b)
                elif a._dtype is _BOOL and kb is not None:
                    return kb(a, b)
                return kf(a, b)
            if type(x2) in _PYNUM and _keeps_dtype(x1._dtype, x2) and (
                    not to_float_first or x1._dtype._kind == "f"):
                return kf(x1, x2)
        a, b = promote(x1, x2)
        if to_float_first:
            a, b = to_float(a), to_float(b)
        elif a._dtype is _BOOL and kb is not None:
            return kb(a, b)
        return kf(a, b)

    return _named(f, name, f"NumPy ``{name}`` elementwise with NumPy type promotion.\n\n"
                  f"Args:\n  x1: array-like.\n  x2: array-like (broadcast against x1).\n\n"
                  f"Returns:\n  A Tensor.")


def _bool_binary(name, kf):
    def f(x1, x2):
        if type(x1) is Tensor and type(x2) in _PYNUM and _keeps_dtype(x1._dtype, x2):
            return kf(x1, x2)
        a, b = promote(x1, x2)
        return kf(a, b)

    return _named(f, name, f"NumPy ``{name}``: elementwise comparison, bool result.")


def _logical(name, kf):
    def f(x1, x2):
        return kf(asarray(x1, np.bool_), asarray(x2, np.bool_))

    return _named(f, name, f"NumPy ``{name}`` on the truth values of ``x1`` and ``x2``.")


# --- unary, floating-point results --------------------------------------------
sqrt = _unary("sqrt", _e.sqrt, to_float_first=True)
exp = _unary("exp", _e.exp, to_float_first=True)
exp2 = _unary("exp2", _e.exp2, to_float_first=True)
expm1 = _unary("expm1", _e.expm1, to_float_first=True)
log = _unary("log", _e.log, to_float_first=True)
log2 = _unary("log2", _e.log2, to_float_first=True)
log10 = _unary("log10", _e.log10, to_float_first=True)
log1p = _unary("log1p", _e.log1p, to_float_first=True)
sin = _unary("sin", _e.sin, to_float_first=True)
cos = _unary("cos", _e.cos, to_float_first=True)
tan = _unary("tan", _e.tan, to_float_first=True)
arcsin = _unary("arcsin", _e.arcsin, to_float_first=True)
arccos = _unary("arccos", _e.arccos, to_float_first=True)
arctan = _unary("arctan", _e.arctan, to_float_first=True)
sinh = _unary("sinh", _e.sinh, to_float_first=True)
cosh = _unary("cosh", _e.cosh, to_float_first=True)
tanh = _unary("tanh", _e.tanh, to_float_first=True)
arcsinh = _unary("arcsinh", _e.arcsinh, to_float_first=True)
arccosh = _unary("arccosh", _e.arccosh, to_float_first=True)
arctanh = _unary("arctanh", _e.arctanh, to_float_first=True)
deg2rad = _unary("deg2rad", _e.deg2rad, to_float_first=True)
rad2deg = _unary("rad2deg", _e.rad2deg, to_float_first=True)
sinc = _unary("sinc", _e.sinc, to_float_first=True)
cbrt = _unary("cbrt", _e.cbrt, to_float_first=True)
ceil = _unary("ceil", _e.ceil, to_float_first=True)
floor = _unary("floor", _e.floor, to_float_first=True)
fix = _unary("fix", _e.trunc, to_float_first=True)
reciprocal = _unary("reciprocal", _e.reciprocal, to_float_first=True)
fabs = _unary("fabs", _e.abs, to_float_first=True)

# --- unary, dtype kept ----------------------------------------------------------
abs = _unary("abs", _e.abs)  # noqa: A001
absolute = _unary("absolute", _e.abs)
negative = _unary("negative", _e.negative)
positive = _unary("positive", _e.positive)
square = _unary("square", _e.square)
sign = _unary("sign", _e.sign)
conj = _unary("conj", _e.conj)
conjugate = _unary("conjugate", _e.conj)
bitwise_not = _unary("bitwise_not", _e.bitwise_not)
invert = _unary("invert", _e.bitwise_not)
signbit = _unary("signbit", _e.signbit, out_bool=True)
isnan = _unary("isnan", _e.isnan, out_bool=True)
isinf = _unary("isinf", _e.isinf, out_bool=True)
isfinite = _unary("isfinite", _e.isfinite, out_bool=True)
isposinf = _unary("isposinf", _e.isposinf, out_bool=True)
isneginf = _unary("isneginf", _e.isneginf, out_bool=True)


def real(val):
    """Real part of ``val`` (the value itself for real dtypes)."""
    val = asarray(val)
    return _e.real(val) if val._dtype.is_complex else val


def imag(val):
    """Imaginary part of ``val`` (zeros for real dtypes)."""
    val = asarray(val)
    if val._dtype.is_complex:
        return _e.imag(val)
    return _e.multiply(val, 0) if val._dtype is not _BOOL else logical_and(val, False)


def angle(z, deg=False):
    """Angle of complex ``z`` in radians (degrees with ``deg=True``)."""
    z = to_float(asarray(z))
    r = _e.angle(z)
    return rad2deg(r) if deg else r


def logical_not(x):
    """Elementwise NOT of the truth value of ``x``."""
    return _e.logical_not(asarray(x, np.bool_))


def around(a, decimals=0):
    """Rounds half to even to ``decimals`` digits (integer dtypes unchanged for decimals >= 0)."""
    a = asarray(a)
    if not (a._dtype.is_floating or a._dtype.is_complex):
        if decimals >= 0:
            return a
        a = to_float(a)
    return _k.round(a, decimals)


round = _named(lambda a, decimals=0: around(a, decimals), "round",  # noqa: A001
               "Same as ``around``.")


def clip(a, a_min, a_max):
    """Limits ``a`` to ``[a_min, a_max]`` (NumPy promotion over the three inputs).

    Raises:
      ValueError: both bounds are None.
    """
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, lo, hi = promote(a, a_min, a_max)
    return _e.minimum(_e.maximum(a, lo), hi)


# --- binary ----------------------------------------------------------------------
add = _binary("add", _e.add, kb=_e.logical_or)
subtract = _binary("subtract", _e.subtract)
multiply = _binary("multiply", _e.multiply, kb=_e.logical_and)
maximum = _binary("maximum", _e.maximum, kb=_e.logical_or)
minimum = _binary("minimum", _e.minimum, kb=_e.logical_and)
power = _binary("power", _e.power)
mod = _binary("mod", _e.remainder)
remainder = _binary("remainder", _e.remainder)
fmod = _binary("fmod", _e.fmod)
floor_divide = _binary("floor_divide", _e.floor_divide)
arctan2 = _binary("arctan2", _e.arctan2, to_float_first=True)
hypot = _binary("hypot", _e.hypot, to_float_first=True)
logaddexp = _binary("logaddexp", _e.logaddexp, to_float_first=True)
logaddexp2 = _binary("logaddexp2", _e.logaddexp2, to_float_first=True)
nextafter = _binary("nextafter", _e.nextafter, to_float_first=True)
copysign = _binary("copysign", _e.copysign, to_float_first=True)
heaviside = _binary("heaviside", _e.heaviside, to_float_first=True)
gcd = _binary("gcd", _e.gcd)
lcm = _binary("lcm", _e.lcm)
bitwise_and = _binary("bitwise_and", _e.bitwise_and)
bitwise_or = _binary("bitwise_or", _e.bitwise_or)
bitwise_xor = _binary("bitwise_xor", _e.bitwise_xor)
bitwise_left_shift = _binary("bitwise_left_shift", _e.left_shift)
bitwise_right_shift = _binary("bitwise_right_shift", _e.right_shift)
left_shift = _binary("left_shift", _e.left_shift)
right_shift = _binary("right_shift", _e.right_shift)
equal = _bool_binary("equal", _e.equal)
not_equal = _bool_binary("not_equal", _e.not_equal)
less = _bool_binary("less", _e.less)
less_equal = _bool_binary("less_equal", _e.less_equal)
greater = _bool_binary("greater", _e.greater)
greater_equal = _bool_binary("greater_equal", _e.greater_equal)
logical_and = _logical("logical_and", _e.logical_and)
logical_or = _logical("logical_or", _e.logical_or)
logical_xor = _logical("logical_xor", _e.logical_xor)

_INT_TO_FLOAT32 = frozenset((dtypes.int8, dtypes.int16, dtypes.uint8, dtypes.uint16))


def true_divide(x1, x2):
    """``x1 / x2`` in floating point (TF 2.4's rule: int8/16 and uint8/16 divide in
    float32, wider integers in float64, bool in the default float type)."""
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


divide = _named(lambda x1, x2: true_divide(x1, x2), "divide", "Same as ``true_divide``.")


def divmod(x1, x2):  # noqa: A001
    """``(floor_divide(x1, x2), mod(x1, x2))``."""
    return floor_divide(x1, x2), mod(x1, x2)


def float_power(x1, x2):
    """``x1 ** x2`` computed in at least float64 (the default float type)."""
    a, b = promote(x1, x2)
    d = _d.to_tf(_d.canonicalize(np.result_type(a._dtype.as_numpy_dtype, np.float64)))
    return power(_k.cast(a, d), _k.cast(b, d))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (NumPy's definition)."""
    a, b = promote(a, b)
    if not (a._dtype.is_floating or a._dtype.is_complex):
        a, b = to_float(a), to_float(b)
    return _k.isclose(a, b, rtol, atol, equal_nan)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when ``isclose`` holds everywhere (a bool Tensor, as in tnp)."""
    return _k.all(isclose(a, b, rtol, atol, equal_nan), None, False)


def array_equal(a1, a2):
    """True when ``a1`` and ``a2`` have the same shape and elements."""
    a1, a2 = asarray(a1), asarray(a2)
    if _k.shape_tuple(a1) != _k.shape_tuple(a2):
        return asarray(False)
    return _k.all(equal(a1, a2), None, False)


def iscomplex(x):
    """Elementwise: nonzero imaginary part."""
    return not_equal(imag(x), 0)


def isreal(x):
    """Elementwise: zero imaginary part."""
    return equal(imag(x), 0)


def iscomplexobj(x) -> bool:
    """True for complex dtypes."""
    return bool(asarray(x)._dtype.is_complex)


def isrealobj(x) -> bool:
    """True for non-complex dtypes."""
    return not iscomplexobj(x)


for _f in (real, imag, angle, logical_not, around, clip, true_divide, divmod, float_power,
           isclose, allclose, array_equal, iscomplex, isreal, iscomplexobj, isrealobj):
    _f.__module__ = _MOD

UFUNC_NAMES = tuple(
    "sqrt exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan sinh cosh tanh "
    "arcsinh arccosh arctanh deg2rad rad2deg sinc cbrt "
    "ceil floor fix reciprocal fabs abs absolute negative positive square sign conj conjugate "
    "bitwise_not invert signbit isnan isinf isfinite isposinf isneginf real imag angle "
    "logical_not around round clip add subtract multiply maximum minimum power mod remainder "
    "fmod floor_divide arctan2 hypot logaddexp logaddexp2 nextafter copysign heaviside gcd lcm "
    "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift left_shift "
    "right_shift equal not_equal less less_equal greater greater_equal logical_and logical_or "
    "logical_xor true_divide divide divmod float_power isclose allclose array_equal iscomplex "
    "isreal iscomplexobj isrealobj".split())
