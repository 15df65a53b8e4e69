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
from torchflow._src.ops import numpy_ops as _k

_MOD = "torchflow.experimental.numpy"
_BOOL = dtypes.bool


def _named(f, name, doc):
    f.__name__ = f.__qualname__ = name
    f.__module__ = _MOD
    f.__doc__ = doc
    return f


def _unary(name, kernel=None, to_float_first=False, out_bool=False):
    kf = _k.unary_kernel(kernel or name)

    def f(x):
        x = asarray(x)
        if to_float_first:
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


def _binary(name, kernel=None, to_float_first=False, bool_kernel=None):
    kernel = kernel or name
    kf = _k.binary_kernel(kernel)
    ks = _k.scalar_kernel(kernel)
    kb = _k.binary_kernel(bool_kernel) if bool_kernel else None

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
                return ks(x1, x2)
        a, b = promote(x1, x2)
        if to_float_first:
            a, b = to_float(a), to_float(b)
        elif a._dtype is _BOOL and kb is not None:
            return kb(a, b)
        return kf(a, b)

    return _named(f, name, f"NumPy ``{name}`` elementwise with NumPy type promotion.\n\n"
                  f"Args:\n  x1: array-like.\n  x2: array-like (broadcast against x1).\n\n"
                  f"Returns:\n  A Tensor.")


def _bool_binary(name, kernel):
    kf = _k.binary_kernel(kernel)
    ks = _k.scalar_kernel(kernel)

    def f(x1, x2):
        if type(x1) is Tensor and type(x2) in _PYNUM and _keeps_dtype(x1._dtype, x2):
            return ks(x1, x2)
        a, b = promote(x1, x2)
        return kf(a, b)

    return _named(f, name, f"NumPy ``{name}``: elementwise comparison, bool result.")


def _logical(name, kernel):
    kf = _k.binary_kernel(kernel)

    def f(x1, x2):
        return kf(asarray(x1, np.bool_), asarray(x2, np.bool_))

    return _named(f, name, f"NumPy ``{name}`` on the truth values of ``x1`` and ``x2``.")


# --- unary, floating-point results --------------------------------------------
sqrt = _unary("sqrt", to_float_first=True)
exp = _unary("exp", to_float_first=True)
exp2 = _unary("exp2", to_float_first=True)
expm1 = _unary("expm1", to_float_first=True)
log = _unary("log", to_float_first=True)
log2 = _unary("log2", to_float_first=True)
log10 = _unary("log10", to_float_first=True)
log1p = _unary("log1p", to_float_first=True)
sin = _unary("sin", to_float_first=True)
cos = _unary("cos", to_float_first=True)
tan = _unary("tan", to_float_first=True)
arcsin = _unary("arcsin", to_float_first=True)
arccos = _unary("arccos", to_float_first=True)
arctan = _unary("arctan", to_float_first=True)
sinh = _unary("sinh", to_float_first=True)
cosh = _unary("cosh", to_float_first=True)
tanh = _unary("tanh", to_float_first=True)
arcsinh = _unary("arcsinh", to_float_first=True)
arccosh = _unary("arccosh", to_float_first=True)
arctanh = _unary("arctanh", to_float_first=True)
deg2rad = _unary("deg2rad", to_float_first=True)
rad2deg = _unary("rad2deg", to_float_first=True)
sinc = _unary("sinc", to_float_first=True)
cbrt = _unary("cbrt", to_float_first=True)
ceil = _unary("ceil", to_float_first=True)
floor = _unary("floor", to_float_first=True)
fix = _unary("fix", "trunc", to_float_first=True)
reciprocal = _unary("reciprocal", to_float_first=True)
fabs = _unary("fabs", "abs", to_float_first=True)

# --- unary, dtype kept ----------------------------------------------------------
abs = _unary("abs")  # noqa: A001
absolute = _unary("absolute", "abs")
negative = _unary("negative")
positive = _unary("positive")
square = _unary("square")
sign = _unary("sign")
conj = _unary("conj")
conjugate = _unary("conjugate", "conj")
bitwise_not = _unary("bitwise_not")
invert = _unary("invert", "bitwise_not")
signbit = _unary("signbit", out_bool=True)
isnan = _unary("isnan", out_bool=True)
isinf = _unary("isinf", out_bool=True)
isfinite = _unary("isfinite", out_bool=True)
isposinf = _unary("isposinf", out_bool=True)
isneginf = _unary("isneginf", out_bool=True)
_conj_k = _k.unary_kernel("conj")
_real_k = _k.unary_kernel("real")
_imag_k = _k.unary_kernel("imag")


def real(val):
    """Real part of ``val`` (the value itself for real dtypes)."""
    val = asarray(val)
    return _real_k(val) if val._dtype.is_complex else val


def imag(val):
    """Imaginary part of ``val`` (zeros for real dtypes)."""
    val = asarray(val)
    if val._dtype.is_complex:
        return _imag_k(val)
    return _k.run("multiply", val, 0) if val._dtype is not _BOOL else logical_and(val, False)


def angle(z, deg=False):
    """Angle of complex ``z`` in radians (degrees with ``deg=True``)."""
    z = to_float(asarray(z))
    r = _k.run("angle", z)
    return rad2deg(r) if deg else r


def logical_not(x):
    """Elementwise NOT of the truth value of ``x``."""
    return _k.run("logical_not", asarray(x, np.bool_))


def around(a, decimals=0):
    """Rounds half to even to ``decimals`` digits (integer dtypes unchanged for decimals >= 0)."""
    a = asarray(a)
    if not (a._dtype.is_floating or a._dtype.is_complex):
        if decimals >= 0:
            return a
        a = to_float(a)
    return _k.run("round", a, decimals)


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
    return _k.run("minimum", _k.run("maximum", a, lo), hi)


# --- binary ----------------------------------------------------------------------
add = _binary("add", bool_kernel="logical_or")
subtract = _binary("subtract")
multiply = _binary("multiply", bool_kernel="logical_and")
maximum = _binary("maximum", bool_kernel="logical_or")
minimum = _binary("minimum", bool_kernel="logical_and")
power = _binary("power", "pow")
mod = _binary("mod", "remainder")
remainder = _binary("remainder")
fmod = _binary("fmod")
floor_divide = _binary("floor_divide")
arctan2 = _binary("arctan2", "atan2", to_float_first=True)
hypot = _binary("hypot", to_float_first=True)
logaddexp = _binary("logaddexp", to_float_first=True)
logaddexp2 = _binary("logaddexp2", to_float_first=True)
nextafter = _binary("nextafter", to_float_first=True)
copysign = _binary("copysign", to_float_first=True)
heaviside = _binary("heaviside", to_float_first=True)
gcd = _binary("gcd")
lcm = _binary("lcm")
bitwise_and = _binary("bitwise_and")
bitwise_or = _binary("bitwise_or")
bitwise_xor = _binary("bitwise_xor")
bitwise_left_shift = _binary("bitwise_left_shift")
bitwise_right_shift = _binary("bitwise_right_shift")
left_shift = _binary("left_shift", "bitwise_left_shift")
right_shift = _binary("right_shift", "bitwise_right_shift")
equal = _bool_binary("equal", "eq")
not_equal = _bool_binary("not_equal", "ne")
less = _bool_binary("less", "lt")
less_equal = _bool_binary("less_equal", "le")
greater = _bool_binary("greater", "gt")
greater_equal = _bool_binary("greater_equal", "ge")
logical_and = _logical("logical_and", "logical_and")
logical_or = _logical("logical_or", "logical_or")
logical_xor = _logical("logical_xor", "logical_xor")

_INT_TO_FLOAT32 = frozenset((dtypes.int8, dtypes.int16, dtypes.uint8, dtypes.uint16))
_truediv = _k.binary_kernel("true_divide")


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
    return _truediv(a, b)


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
    return _k.run("isclose", a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when ``isclose`` holds everywhere (a bool Tensor, as in tnp)."""
    return _k.run("all", isclose(a, b, rtol, atol, equal_nan), None, False)


def array_equal(a1, a2):
    """True when ``a1`` and ``a2`` have the same shape and elements."""
    a1, a2 = asarray(a1), asarray(a2)
    if tuple(a1._t.shape) != tuple(a2._t.shape):
        return asarray(False)
    return _k.run("all", equal(a1, a2), None, False)


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
