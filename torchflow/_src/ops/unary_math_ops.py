"""Elementwise unary ``tf.math`` ops (exp, sqrt, sigmoid, erf, real/imag, is_nan, ...).

Each op accepts exactly the dtypes of its TF kernel and keeps the input dtype
(complex ``abs``/``real``/``imag``/``angle`` return the real dtype). Special
functions that torch lacks for 16-bit floats on the CPU run in float32 and are
cast back, which stays differentiable.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public

_HALF = (torch.float16, torch.bfloat16)


def _in_f32(fn):
    def g(t):
        if t.dtype in _HALF:
            return fn(t.float()).to(t.dtype)
        return fn(t)

    return g


def _unary_doc(summary, op, example=None):
    ex = f"\n\n    >>> import torchflow as tf\n    {example}" if example else ""
    return f"""{summary} (TF's ``{op}``).

    Args:
      x: A Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If the op does not support ``x``'s dtype.{ex}
    """


def _make_unary(pub, op, allowed, fn, summary, example=None, module="torchflow.math"):
    def impl(x, name=None):
        if type(x) is not Tensor:
            x = tensor_arg(x)
        d = x._dtype
        if d._name not in allowed:
            raise mc.bad_type(op, d, allowed)
        try:
            return wrap(fn(x._t), d)
        except Exception as e:  # noqa: BLE001 - translated to a TF error
            raise translate(op, e) from None

    impl.__name__ = impl.__qualname__ = pub
    impl.__doc__ = _unary_doc(summary, op, example)
    return public(module)(impl)


_FC = mc.FLOATS_COMPLEX
_F = mc.FLOATS

exp = _make_unary("exp", "Exp", _FC, torch.exp, "Computes ``e ** x`` elementwise",
                  ">>> tf.exp(tf.constant([0.])).numpy()\n    array([1.], dtype=float32)")
expm1 = _make_unary("expm1", "Expm1", _FC, torch.expm1, "Computes ``exp(x) - 1`` elementwise")
log = _make_unary("log", "Log", _FC, torch.log, "Computes the natural logarithm elementwise")
log1p = _make_unary("log1p", "Log1p", _FC, torch.log1p, "Computes ``log(1 + x)`` elementwise")
sqrt = _make_unary("sqrt", "Sqrt", _FC, torch.sqrt, "Computes the square root elementwise",
                   ">>> tf.sqrt(tf.constant([4.])).numpy()\n    array([2.], dtype=float32)")
rsqrt = _make_unary("rsqrt", "Rsqrt", _FC, torch.rsqrt, "Computes ``1 / sqrt(x)`` elementwise")
sin = _make_unary("sin", "Sin", _FC, torch.sin, "Computes the sine elementwise")
cos = _make_unary("cos", "Cos", _FC, torch.cos, "Computes the cosine elementwise")
tan = _make_unary("tan", "Tan", _FC, torch.tan, "Computes the tangent elementwise")
asin = _make_unary("asin", "Asin", _FC, torch.asin, "Computes the inverse sine elementwise")
acos = _make_unary("acos", "Acos", _FC, torch.acos, "Computes the inverse cosine elementwise")
atan = _make_unary("atan", "Atan", _FC, torch.atan, "Computes the inverse tangent elementwise")
sinh = _make_unary("sinh", "Sinh", _FC, torch.sinh, "Computes the hyperbolic sine elementwise")
cosh = _make_unary("cosh", "Cosh", _FC, torch.cosh, "Computes the hyperbolic cosine elementwise")
tanh = _make_unary("tanh", "Tanh", _FC, torch.tanh, "Computes the hyperbolic tangent elementwise")
asinh = _make_unary("asinh", "Asinh", _FC, torch.asinh, "Computes the inverse hyperbolic sine")
acosh = _make_unary("acosh", "Acosh", _FC, torch.acosh, "Computes the inverse hyperbolic cosine")
atanh = _make_unary("atanh", "Atanh", _FC, torch.atanh, "Computes the inverse hyperbolic tangent")
sigmoid = _make_unary("sigmoid", "Sigmoid", _FC, torch.sigmoid,
                      "Computes ``1 / (1 + exp(-x))`` elementwise")
erf = _make_unary("erf", "Erf", _F, torch.erf, "Computes the Gauss error function elementwise")
erfc = _make_unary("erfc", "Erfc", _F, torch.erfc, "Computes ``1 - erf(x)`` elementwise")
erfinv = _make_unary("erfinv", "Erfinv", _F, torch.erfinv, "Computes the inverse error function")
_erfcinv = _make_unary("erfcinv", "Ndtri", _F,
                       _in_f32(lambda t: -torch.special.ndtri(t / 2) * (0.5 ** 0.5)),
                       "Computes the inverse of ``erfc`` elementwise")


@public("torchflow.math")
def erfcinv(x, name=None) -> Tensor:
    """Computes the inverse of ``erfc`` elementwise: ``-ndtri(x / 2) / sqrt(2)``.

    Args:
      x: A floating-point Tensor with values in [0, 2].
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      TypeError: For integer or bool inputs (TF multiplies by 0.5 first).
      InvalidArgumentError: For complex inputs.
    """
    x = tensor_arg(x)
    if x._dtype._kind in "iub":
        raise TypeError(f"Cannot convert 0.5 to EagerTensor of dtype {x._dtype.name}")
    return _erfcinv(x)
ndtri = _make_unary("ndtri", "Ndtri", _F, _in_f32(torch.special.ndtri),
                    "Computes the inverse of the standard normal CDF")
lgamma = _make_unary("lgamma", "Lgamma", _F, torch.lgamma,
                     "Computes ``log(abs(Gamma(x)))`` elementwise")
digamma = _make_unary("digamma", "Digamma", _F, torch.digamma,
                      "Computes the derivative of ``lgamma`` elementwise")
bessel_i0 = _make_unary("bessel_i0", "BesselI0", _F, _in_f32(torch.special.i0),
                        "Computes the modified Bessel function of order 0")
bessel_i0e = _make_unary("bessel_i0e", "BesselI0e", _F, _in_f32(torch.special.i0e),
                         "Computes the exponentially scaled modified Bessel function of order 0")
bessel_i1 = _make_unary("bessel_i1", "BesselI1", _F, _in_f32(torch.special.i1),
                        "Computes the modified Bessel function of order 1")
bessel_i1e = _make_unary("bessel_i1e", "BesselI1e", _F, _in_f32(torch.special.i1e),
                         "Computes the exponentially scaled modified Bessel function of order 1")
ceil = _make_unary("ceil", "Ceil", _F, torch.ceil, "Rounds up to the nearest integer value")
floor = _make_unary("floor", "Floor", _F, torch.floor, "Rounds down to the nearest integer value")
rint = _make_unary("rint", "Rint", _F, torch.round, "Rounds to the nearest integer, halves to even")
softplus = _make_unary("softplus", "Softplus", _F, lambda t: F.softplus(t),
                       "Computes ``log(exp(x) + 1)`` elementwise")
softsign = _make_unary("softsign", "Softsign", _F, lambda t: t / (1 + torch.abs(t)),
                       "Computes ``x / (abs(x) + 1)`` elementwise")
log_sigmoid = _make_unary("log_sigmoid", "LogSigmoid", _F, F.logsigmoid,
                          "Computes ``log(1 / (1 + exp(-x)))`` elementwise")
negative = _make_unary("negative", "Neg", mc.SIGNED_NUM, torch.neg, "Computes ``-x`` elementwise",
                       ">>> tf.negative(tf.constant([1, -2])).numpy()\n"
                       "    array([-1,  2], dtype=int32)")
def _sign(t):
    if t.is_complex():
        return torch.sgn(t)
    if t.is_floating_point():
        return torch.where(torch.isnan(t), t, torch.sign(t))  # TF keeps NaN; torch gives 0
    return torch.sign(t)


sign = _make_unary("sign", "Sign", mc.SIGNED_NUM, _sign,
                   "Returns -1, 0 or 1 by the sign of ``x`` (``x/|x|`` for complex)")


def _square(t):
    if t.dtype in (torch.uint16, torch.uint32, torch.uint64):
        return mc.narrow(torch.square(t.to(torch.int64)), dtypes.from_torch(t.dtype))
    return t * t


square = _make_unary("square", "Square", mc.ALL_NUM, _square, "Computes ``x * x`` elementwise",
                     ">>> tf.square(tf.constant([3])).numpy()\n    array([9], dtype=int32)")


def _round(t):
    return t if not t.is_floating_point() else torch.round(t)


_ROUND_TYPES = mc.TypeSet(mc.FLOAT, mc.SINT, mc.COMPLEX)


@public("torchflow.math")
def round(x, name=None) -> Tensor:  # noqa: A001 - TF's name
    """Rounds to the nearest integer, halves to even (banker's rounding).

    Args:
      x: A floating-point or integer Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtype is not supported.
      NotFoundError: For complex inputs (TF has no kernel).

    >>> import torchflow as tf
    >>> tf.round(tf.constant([0.5, 1.5, 2.4])).numpy()
    array([0., 2., 2.], dtype=float32)
    """
    x = tensor_arg(x)
    d = x._dtype
    if d._kind in "iu":
        return x
    if d._name not in _ROUND_TYPES:
        raise mc.bad_type("Round", d, _ROUND_TYPES)
    if d._kind == "c":
        raise mc.no_kernel("Round", d)
    return wrap(_round(x._t), d)


@public("torchflow.math")
def reciprocal(x, name=None) -> Tensor:
    """Computes ``1 / x`` elementwise (TF's ``Reciprocal``).

    Args:
      x: A floating-point or complex Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtype is not supported.
      NotFoundError: For integer inputs (TF has no CPU kernel).
    """
    x = tensor_arg(x)
    d = x._dtype
    if d._kind not in "fc":
        if d._kind == "i":
            raise mc.no_kernel("Reciprocal", d)
        raise mc.bad_type("Reciprocal", d, mc.SIGNED_NUM)
    return wrap(torch.reciprocal(x._t), d)


@public("torchflow.math")
def reciprocal_no_nan(x, name=None) -> Tensor:
    """Computes ``1 / x``, returning 0 where ``x == 0``.

    Args:
      x: A floating-point or complex Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtype is not floating point or complex.
    """
    x = tensor_arg(x)
    d = x._dtype
    if d._kind not in "fc":
        if d._kind == "b":
            raise TypeError(f"Cannot convert 1 to EagerTensor of dtype {d.name}")
        raise mc.bad_type("DivNoNan", d, mc.FLOATS_COMPLEX)
    t = x._t
    zero = t == 0
    return wrap(torch.where(zero, torch.zeros_like(t), 1 / torch.where(zero, torch.ones_like(t), t)),
                d)


_ABS_TYPES = mc.TypeSet(mc.FLOAT, mc.SINT)


@public("torchflow.math")
def abs(x, name=None) -> Tensor:  # noqa: A001 - TF's name
    """Computes the absolute value elementwise; complex inputs give their magnitude.

    Args:
      x: A floating-point, signed integer or complex Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype (the real dtype for complex inputs).

    Raises:
      InvalidArgumentError: If the dtype is not supported.

    >>> import torchflow as tf
    >>> tf.abs(tf.constant([-1, 2])).numpy()
    array([1, 2], dtype=int32)
    """
    if type(x) is not Tensor:
        x = tensor_arg(x)
    d = x._dtype
    if d._name not in _ABS_TYPES:
        if d._kind == "c":
            return wrap(torch.abs(x._t))
        raise mc.bad_type("Abs", d, _ABS_TYPES)
    return wrap(torch.abs(x._t), d)


def _nonfloat_check(op, d):
    if d._kind not in "f":
        raise mc.bad_type(op, d, mc.FLOATS)


def _make_is(pub, op, fn, summary):
    def impl(x, name=None):
        x = tensor_arg(x)
        _nonfloat_check(op, x._dtype)
        return wrap(fn(x._t), dtypes.bool)

    impl.__name__ = impl.__qualname__ = pub
    impl.__doc__ = f"""{summary} (TF's ``{op}``).

    Args:
      x: A floating-point Tensor.
      name: Unused (eager).

    Returns:
      A bool Tensor of ``x``'s shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return public("torchflow.math")(impl)


is_nan = _make_is("is_nan", "IsNan", torch.isnan, "Returns which elements of ``x`` are NaN")
is_inf = _make_is("is_inf", "IsInf", torch.isinf, "Returns which elements of ``x`` are +-inf")
is_finite = _make_is("is_finite", "IsFinite", torch.isfinite,
                     "Returns which elements of ``x`` are finite")


@public("torchflow.math")
def real(input, name=None) -> Tensor:
    """Returns the real part of a complex tensor (real tensors are returned as is).

    Args:
      input: A Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of the real dtype.
    """
    x = tensor_arg(input)
    if x._dtype._kind == "c":
        return wrap(torch.real(x._t).clone())
    if x._dtype._kind not in "fiu":
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x._dtype}")
    return x


@public("torchflow.math")
def imag(input, name=None) -> Tensor:
    """Returns the imaginary part of a complex tensor (zeros for real tensors).

    Args:
      input: A Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of the real dtype.
    """
    x = tensor_arg(input)
    if x._dtype._kind == "c":
        return wrap(torch.imag(x._t).clone())
    return wrap(torch.zeros_like(x._t), x._dtype)


@public("torchflow.math")
def angle(input, name=None) -> Tensor:
    """Returns the argument (phase) of complex elements; pi for negative reals, else 0.

    Args:
      input: A Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of the real dtype.
    """
    x = tensor_arg(input)
    t = x._t
    if x._dtype._kind == "c":
        return wrap(torch.angle(t))
    if x._dtype._kind != "f":
        v = 0 if x._dtype._kind == "b" else math.pi
        raise TypeError(f"Cannot convert {v} to EagerTensor of dtype {x._dtype.name}")
    return wrap(torch.where(t < 0, torch.full_like(t, math.pi), torch.zeros_like(t)), x._dtype)


@public("torchflow.math")
def conj(x, name=None) -> Tensor:
    """Returns the complex conjugate (real tensors are returned as is).

    Args:
      x: A Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      TypeError: For string inputs.
    """
    x = tensor_arg(x)
    if x._dtype._kind == "c":
        return wrap(torch.conj_physical(x._t), x._dtype)
    if x._dtype._kind in "fiu":
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x._dtype!r}")


@public("torchflow.math")
def lbeta(x, name=None) -> Tensor:
    """Computes ``log(|Beta(x)|)`` reducing along the last dimension.

    Args:
      x: A floating-point Tensor of rank >= 1.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype with the last dimension removed.
    """
    x = tensor_arg(x)
    _nonfloat_check("Lgamma", x._dtype)
    t = x._t
    if t.ndim == 0:
        t = t.reshape(1)
    return wrap(torch.lgamma(t).sum(-1) - torch.lgamma(t.sum(-1)), x._dtype)


@public("torchflow.math")
def zero_fraction(value, name=None) -> Tensor:
    """Returns the fraction of zeros in ``value`` as a float32 scalar.

    Args:
      value: A numeric Tensor.
      name: Unused (eager).

    Returns:
      A float32 scalar Tensor.
    """
    x = tensor_arg(value)
    t = x._t
    n = t.numel()
    if n == 0:
        return wrap(torch.tensor(float("nan"), device=t.device), dtypes.float32)
    return wrap((t == 0).sum().to(torch.float32) / n, dtypes.float32)
