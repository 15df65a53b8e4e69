"""Elementwise unary special functions of ``tf.math``: error and gamma functions,
``ndtri``, the ``I`` Bessel functions, ``lbeta``.

Plain ``def``s over ``_math_common.unary_op`` like ``unary_math_ops``. Functions
that torch lacks for 16-bit floats on the CPU run in float32 and are cast back,
which stays differentiable.
"""

from __future__ import annotations

import torch

from torchflow._src.ops import _math_common as mc
from torchflow._src.ops import special_gradients as sg
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
from torchflow._src.ops.unary_math_ops import _in_f32
from torchflow._src.util.api import public

_F = mc.FLOATS
_unary_op = mc.unary_op
_ndtri = _in_f32(torch.special.ndtri)
_erfcinv = _in_f32(lambda t: -torch.special.ndtri(t / 2) * (0.5 ** 0.5))
_bessel_i0 = _in_f32(torch.special.i0)
_bessel_i0e = _in_f32(torch.special.i0e)
_bessel_i1 = _in_f32(torch.special.i1)
_bessel_i1e = _in_f32(torch.special.i1e)


@public("torchflow.math")
def erf(x, name=None) -> Tensor:
    """Computes the Gauss error function elementwise (TF's ``Erf``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("Erf", torch.erf, _F, x)


@public("torchflow.math")
def erfc(x, name=None) -> Tensor:
    """Computes ``1 - erf(x)`` elementwise (TF's ``Erfc``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("Erfc", torch.erfc, _F, x)


@public("torchflow.math")
def erfinv(x, name=None) -> Tensor:
    """Computes the inverse error function elementwise (TF's ``Erfinv``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("Erfinv", torch.erfinv, _F, x)


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
    return _unary_op("Ndtri", _erfcinv, _F, x)


@public("torchflow.math")
def ndtri(x, name=None) -> Tensor:
    """Computes the inverse of the standard normal CDF elementwise (TF's ``Ndtri``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("Ndtri", _ndtri, _F, x)


@public("torchflow.math")
def lgamma(x, name=None) -> Tensor:
    """Computes ``log(abs(Gamma(x)))`` elementwise (TF's ``Lgamma``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("Lgamma", sg.lgamma, _F, x)


@public("torchflow.math")
def digamma(x, name=None) -> Tensor:
    """Computes the derivative of ``lgamma`` (the psi function) elementwise (TF's ``Digamma``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("Digamma", sg.digamma, _F, x)


@public("torchflow.math")
def bessel_i0(x, name=None) -> Tensor:
    """Computes the modified Bessel function of the first kind of order 0 (TF's ``BesselI0``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("BesselI0", _bessel_i0, _F, x)


@public("torchflow.math")
def bessel_i0e(x, name=None) -> Tensor:
    """Computes the exponentially scaled modified Bessel function of order 0 (TF's ``BesselI0e``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("BesselI0e", _bessel_i0e, _F, x)


@public("torchflow.math")
def bessel_i1(x, name=None) -> Tensor:
    """Computes the modified Bessel function of the first kind of order 1 (TF's ``BesselI1``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("BesselI1", _bessel_i1, _F, x)


@public("torchflow.math")
def bessel_i1e(x, name=None) -> Tensor:
    """Computes the exponentially scaled modified Bessel function of order 1 (TF's ``BesselI1e``).

    Args:
      x: A floating-point Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point.
    """
    return _unary_op("BesselI1e", _bessel_i1e, _F, x)


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
    if x._dtype._name not in _F:
        raise mc.bad_type("Lgamma", x._dtype, _F)
    t = x._t
    if t.ndim == 0:
        t = t.reshape(1)
    return wrap(torch.lgamma(t).sum(-1) - torch.lgamma(t.sum(-1)), x._dtype)
