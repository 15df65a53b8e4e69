"""Elementwise trigonometric and hyperbolic ``tf.math`` ops (``tanh`` is in ``unary_math_ops``).

Plain ``def``s over ``_math_common.unary_op``: floating-point and complex inputs,
the input dtype kept.
"""

from __future__ import annotations

import torch

from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import Tensor
from torchflow._src.util.api import public

_FC = mc.FLOATS_COMPLEX
_unary_op = mc.unary_op


@public("torchflow.math")
def sin(x, name=None) -> Tensor:
    """Computes the sine elementwise (TF's ``Sin``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.sin(tf.constant([0.])).numpy()
    array([0.], dtype=float32)
    """
    return _unary_op("Sin", torch.sin, _FC, x)


@public("torchflow.math")
def cos(x, name=None) -> Tensor:
    """Computes the cosine elementwise (TF's ``Cos``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.

    >>> import torchflow as tf
    >>> tf.cos(tf.constant([0.])).numpy()
    array([1.], dtype=float32)
    """
    return _unary_op("Cos", torch.cos, _FC, x)


@public("torchflow.math")
def tan(x, name=None) -> Tensor:
    """Computes the tangent elementwise (TF's ``Tan``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Tan", torch.tan, _FC, x)


@public("torchflow.math")
def asin(x, name=None) -> Tensor:
    """Computes the inverse sine elementwise (TF's ``Asin``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Asin", torch.asin, _FC, x)


@public("torchflow.math")
def acos(x, name=None) -> Tensor:
    """Computes the inverse cosine elementwise (TF's ``Acos``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Acos", torch.acos, _FC, x)


@public("torchflow.math")
def atan(x, name=None) -> Tensor:
    """Computes the inverse tangent elementwise (TF's ``Atan``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Atan", torch.atan, _FC, x)


@public("torchflow.math")
def sinh(x, name=None) -> Tensor:
    """Computes the hyperbolic sine elementwise (TF's ``Sinh``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Sinh", torch.sinh, _FC, x)


@public("torchflow.math")
def cosh(x, name=None) -> Tensor:
    """Computes the hyperbolic cosine elementwise (TF's ``Cosh``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Cosh", torch.cosh, _FC, x)


@public("torchflow.math")
def asinh(x, name=None) -> Tensor:
    """Computes the inverse hyperbolic sine elementwise (TF's ``Asinh``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Asinh", torch.asinh, _FC, x)


@public("torchflow.math")
def acosh(x, name=None) -> Tensor:
    """Computes the inverse hyperbolic cosine elementwise (TF's ``Acosh``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Acosh", torch.acosh, _FC, x)


@public("torchflow.math")
def atanh(x, name=None) -> Tensor:
    """Computes the inverse hyperbolic tangent elementwise (TF's ``Atanh``).

    Args:
      x: A floating-point or complex Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not floating point or complex.
    """
    return _unary_op("Atanh", torch.atanh, _FC, x)
