"""Elementwise binary special functions of ``tf.math`` (xlogy, igamma, zeta, ...).

Plain ``def``s over ``_math_common.binary_op`` like the arithmetic in
``math_ops``: TF's no-promotion rule, Python scalars take the tensor's dtype, and
each op accepts exactly the dtypes of its TF kernel.
"""

from __future__ import annotations

import torch

from torchflow._src.ops import _math_common as mc
from torchflow._src.ops import special_gradients as sg
from torchflow._src.ops._dispatch import Tensor
from torchflow._src.util.api import public

_binary_op = mc.binary_op
_F32_F64 = mc.TypeSet("float32", "float64")
_NEXTAFTER_TYPES = mc.TypeSet("float64", "float32")


def _nextafter(a, b):
    return torch.nextafter(a, mc.as_torch_scalar(b, a))


def _xlogy(a, b):
    if a.is_complex():
        return torch.where(a == 0, torch.zeros_like(a), a * torch.log(mc.as_torch_scalar(b, a)))
    return sg.xlogy(a, b)


def _xlog1py(a, b):
    if a.is_complex():
        return torch.where(a == 0, torch.zeros_like(a), a * torch.log1p(mc.as_torch_scalar(b, a)))
    return sg.xlog1py(a, b)


def _xdivy(a, b):
    if a.is_complex():
        return torch.where(a == 0, torch.zeros_like(a), a / b)
    return sg.xdivy(a, b)


def _mul_no_nan(a, b):
    b = mc.as_torch_scalar(b, a)
    return torch.where(b == 0, torch.zeros((), dtype=a.dtype, device=a.device), a * b)


def _f32(fn, a, b):
    """``fn`` in float32 for 16-bit floats that lack a torch CPU kernel."""
    if a.dtype in (torch.float16, torch.bfloat16):
        dt = a.dtype
        return fn(a.float(), b.float() if isinstance(b, torch.Tensor) else b).to(dt)
    return fn(a, b)


def _igamma(a, b):
    return _f32(sg.igamma, a, b)


def _igammac(a, b):
    return _f32(lambda x, y: sg.igamma(x, y, upper=True), a, b)


def _zeta(a, b):
    return sg.zeta(a, b)


def _polygamma(n, t):
    return sg.polygamma(n, t)


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
    return _binary_op("NextAfter", _nextafter, _NEXTAFTER_TYPES, x1, x2)


@public("torchflow.math")
def xlogy(x, y, name=None) -> Tensor:
    """Returns 0 where ``x == 0``, else ``x * log(y)`` (TF's ``Xlogy``).

    Args:
      x: A floating-point or complex Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not floating point or
        complex, or the shapes do not broadcast.

    >>> import torchflow as tf
    >>> tf.math.xlogy(tf.constant([0., 2.]), tf.constant([0., 1.])).numpy()
    array([0., 0.], dtype=float32)
    """
    return _binary_op("Xlogy", _xlogy, mc.FLOATS_COMPLEX, x, y)


@public("torchflow.math")
def xlog1py(x, y, name=None) -> Tensor:
    """Returns 0 where ``x == 0``, else ``x * log1p(y)`` (TF's ``Xlog1py``).

    Args:
      x: A floating-point or complex Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not floating point or
        complex, or the shapes do not broadcast.
    """
    return _binary_op("Xlog1py", _xlog1py, mc.FLOATS_COMPLEX, x, y)


@public("torchflow.math")
def xdivy(x, y, name=None) -> Tensor:
    """Returns 0 where ``x == 0``, else ``x / y`` (TF's ``Xdivy``).

    Args:
      x: A floating-point or complex Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not floating point or
        complex, or the shapes do not broadcast.

    >>> import torchflow as tf
    >>> tf.math.xdivy(tf.constant([0., 3.]), tf.constant([0., 2.])).numpy()
    array([0. , 1.5], dtype=float32)
    """
    return _binary_op("Xdivy", _xdivy, mc.FLOATS_COMPLEX, x, y)


@public("torchflow.math")
def multiply_no_nan(x, y, name=None) -> Tensor:
    """Returns 0 where ``y == 0`` (even if ``x`` is NaN or infinite), else ``x * y``.

    Args:
      x: A floating-point or complex Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not floating point or
        complex, or the shapes do not broadcast.

    >>> import torchflow as tf
    >>> tf.math.multiply_no_nan(tf.constant([float("nan"), 2.]), tf.constant([0., 3.])).numpy()
    array([0., 6.], dtype=float32)
    """
    return _binary_op("MulNoNan", _mul_no_nan, mc.FLOATS_COMPLEX, x, y)


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
    return _binary_op("Igamma", _igamma, mc.FLOATS, a, x)


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
    return _binary_op("Igammac", _igammac, mc.FLOATS, a, x)


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
    return _binary_op("Zeta", _zeta, _F32_F64, x, q)


@public("torchflow.math")
def polygamma(a, x, name=None) -> Tensor:
    """Returns the polygamma function ``psi^(a)(x)`` (TF's ``Polygamma``).

    Args:
      a: A float32/float64 Tensor of non-negative integer orders.
      x: A Tensor of the same dtype as ``a``.
      name: Unused (eager).

    Returns:
      A Tensor of ``a``'s dtype (NaN where ``a`` is not a non-negative integer).

    Raises:
      InvalidArgumentError: If the dtypes differ or are not float32/float64.
    """
    return _binary_op("Polygamma", _polygamma, _F32_F64, a, x)
