"""Elementwise unary ``tf.math`` ops (exp, sqrt, sigmoid, trigonometry, real/imag, is_nan, ...).

Each op is a plain ``def`` over ``_math_common.unary_op``, accepts exactly the
dtypes of its TF kernel and keeps the input dtype (complex ``abs``/``real``/
``imag``/``angle`` return the real dtype). The trigonometric functions are in
``trig_ops``, the error and gamma functions and the ``I`` Bessel functions in
``special_unary_ops``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops import gradient_kernels
from torchflow._src.ops._dispatch import COMPOSITE, Tensor, tensor_arg, wrap
from torchflow._src.util.api import public

_HALF = (torch.float16, torch.bfloat16)
_FC = mc.FLOATS_COMPLEX
_F = mc.FLOATS
_BOOL = dtypes.bool
_unary_op = mc.unary_op


def _in_f32(fn):
    """``fn`` run in float32 for 16-bit floats that lack a torch CPU kernel (cast back)."""

    def g(t):
        if t.dtype in _HALF:
            return fn(t.float()).to(t.dtype)
        return fn(t)

    return g


def _softsign(t):
    return t / (1 + torch.abs(t))


def _sign(t):
    if t.is_complex():
        return torch.sgn(t)
    if t.is_floating_point():
        return torch.where(torch.isnan(t), t, torch.sign(t))  # TF keeps NaN; torch gives 0
    return torch.sign(t)


def _square(t):
    if t.dtype in (torch.uint16, torch.uint32, torch.uint64):
        return mc.narrow(torch.square(t.to(torch.int64)), dtypes.from_torch(t.dtype))
    return t * t


def _round(t):
    return t if not t.is_floating_point() else torch.round(t)


@public("torchflow.math")
def exp(x, name=None) -> Tensor:
    """Computes ``e ** x`` elementwise (TF's ``Exp``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.exp(tf.constant([0.])).numpy()
    array([1.], dtype=float32)
    """
    return _unary_op("Exp", torch.exp, _FC, x)


@public("torchflow.math")
def expm1(x, name=None) -> Tensor:
    """Computes ``exp(x) - 1`` elementwise (TF's ``Expm1``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.math.expm1(tf.constant([0.])).numpy()
    array([0.], dtype=float32)
    """
    return _unary_op("Expm1", torch.expm1, _FC, x)


@public("torchflow.math")
def log(x, name=None) -> Tensor:
    """Computes the natural logarithm elementwise (TF's ``Log``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.math.log(tf.constant([1.])).numpy()
    array([0.], dtype=float32)
    """
    return _unary_op("Log", torch.log, _FC, x)


@public("torchflow.math")
def log1p(x, name=None) -> Tensor:
    """Computes ``log(1 + x)`` elementwise (TF's ``Log1p``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Log1p", torch.log1p, _FC, x)


@public("torchflow.math")
def sqrt(x, name=None) -> Tensor:
    """Computes the square root elementwise (TF's ``Sqrt``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.sqrt(tf.constant([4.])).numpy()
    array([2.], dtype=float32)
    """
    return _unary_op("Sqrt", gradient_kernels.sqrt, _FC, x)


@public("torchflow.math")
def rsqrt(x, name=None) -> Tensor:
    """Computes ``1 / sqrt(x)`` elementwise (TF's ``Rsqrt``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.math.rsqrt(tf.constant([4.])).numpy()
    array([0.5], dtype=float32)
    """
    return _unary_op("Rsqrt", gradient_kernels.rsqrt, _FC, x)


@public("torchflow.math")
def tanh(x, name=None) -> Tensor:
    """Computes the hyperbolic tangent elementwise (TF's ``Tanh``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.tanh(tf.constant([0.])).numpy()
    array([0.], dtype=float32)
    """
    return _unary_op("Tanh", torch.tanh, _FC, x)


@public("torchflow.math")
def sigmoid(x, name=None) -> Tensor:
    """Computes ``1 / (1 + exp(-x))`` elementwise (TF's ``Sigmoid``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.sigmoid(tf.constant([0.])).numpy()
    array([0.5], dtype=float32)
    """
    return _unary_op("Sigmoid", torch.sigmoid, _FC, x)


@public("torchflow.math")
def ceil(x, name=None) -> Tensor:
    """Rounds up to the nearest integer value elementwise (TF's ``Ceil``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.

    >>> import torchflow as tf
    >>> tf.math.ceil(tf.constant([1.2, -1.2])).numpy()
    array([ 2., -1.], dtype=float32)
    """
    return _unary_op("Ceil", torch.ceil, _F, x)


@public("torchflow.math")
def floor(x, name=None) -> Tensor:
    """Rounds down to the nearest integer value elementwise (TF's ``Floor``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.

    >>> import torchflow as tf
    >>> tf.floor(tf.constant([1.2, -1.2])).numpy()
    array([ 1., -2.], dtype=float32)
    """
    return _unary_op("Floor", torch.floor, _F, x)


@public("torchflow.math")
def rint(x, name=None) -> Tensor:
    """Rounds to the nearest integer elementwise, halves to even (TF's ``Rint``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.

    >>> import torchflow as tf
    >>> tf.math.rint(tf.constant([0.5, 1.5])).numpy()
    array([0., 2.], dtype=float32)
    """
    return _unary_op("Rint", torch.round, _F, x)


@public("torchflow.math")
def softplus(x, name=None) -> Tensor:
    """Computes ``log(exp(x) + 1)`` elementwise (TF's ``Softplus``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("Softplus", F.softplus, _F, x)


@public("torchflow.math")
def softsign(x, name=None) -> Tensor:
    """Computes ``x / (abs(x) + 1)`` elementwise (TF's ``Softsign``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("Softsign", _softsign, _F, x)


@public("torchflow.math")
def log_sigmoid(x, name=None) -> Tensor:
    """Computes ``log(1 / (1 + exp(-x)))`` elementwise (TF's ``LogSigmoid``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("LogSigmoid", F.logsigmoid, _F, x)


@public("torchflow.math")
def negative(x, name=None) -> Tensor:
    """Computes ``-x`` elementwise (TF's ``Neg``).

    Args:
      x: A floating-point, signed integer or complex Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is unsigned, bool or string.

    >>> import torchflow as tf
    >>> tf.negative(tf.constant([1, -2])).numpy()
    array([-1,  2], dtype=int32)
    """
    return _unary_op("Neg", torch.neg, mc.SIGNED_NUM, x)


@public("torchflow.math")
def sign(x, name=None) -> Tensor:
    """Returns -1, 0 or 1 by the sign of ``x`` elementwise (``x / |x|`` for complex) (TF's ``Sign``).

    Args:
      x: A floating-point, signed integer or complex Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is unsigned, bool or string.

    >>> import torchflow as tf
    >>> tf.sign(tf.constant([-3., 0., 2.])).numpy()
    array([-1.,  0.,  1.], dtype=float32)
    """
    return _unary_op("Sign", _sign, mc.SIGNED_NUM, x)


@public("torchflow.math")
def square(x, name=None) -> Tensor:
    """Computes ``x * x`` elementwise (TF's ``Square``).

    Args:
      x: A numeric Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is bool or string.

    >>> import torchflow as tf
    >>> tf.square(tf.constant([3])).numpy()
    array([9], dtype=int32)
    """
    return _unary_op("Square", _square, mc.ALL_NUM, x)


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
    return wrap(gradient_kernels.reciprocal(x._t), d)


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
        if type(x) in COMPOSITE:  # tf.SparseTensor / tf.RaggedTensor: abs of the values
            h = COMPOSITE[type(x)]
            return h.unary_op("Abs", abs, x) if hasattr(h, "unary_op") else h.unary(abs, x)
        x = tensor_arg(x)
    d = x._dtype
    if d._name not in _ABS_TYPES:
        if d._kind == "c":
            return wrap(torch.abs(x._t))
        raise mc.bad_type("Abs", d, _ABS_TYPES)
    return wrap(torch.abs(x._t), d)


@public("torchflow.math")
def is_nan(x, name=None) -> Tensor:
    """Returns which elements of ``x`` are NaN (TF's ``IsNan``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A bool Tensor of ``x``'s shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.

    >>> import torchflow as tf
    >>> tf.math.is_nan(tf.constant([1., float('nan')])).numpy()
    array([False,  True])
    """
    return _unary_op("IsNan", torch.isnan, _F, x, out=_BOOL)


@public("torchflow.math")
def is_inf(x, name=None) -> Tensor:
    """Returns which elements of ``x`` are +-inf (TF's ``IsInf``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A bool Tensor of ``x``'s shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("IsInf", torch.isinf, _F, x, out=_BOOL)


@public("torchflow.math")
def is_finite(x, name=None) -> Tensor:
    """Returns which elements of ``x`` are finite (TF's ``IsFinite``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A bool Tensor of ``x``'s shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("IsFinite", torch.isfinite, _F, x, out=_BOOL)


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
