"""``tf.nn`` activations, ``bias_add`` and ``dropout``."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError, dims
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops import random_ops
from torchflow._src.ops._dispatch import COMPOSITE, Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public

_FLOATS = nc.FLOATS
_FLOATS_C = nc.FLOATS_COMPLEX
_REALS = nc.REALS


def _unary(op: str, fn, features, allowed=_FLOATS) -> Tensor:
    x = features if type(features) is Tensor and features._dtype._enum in allowed.enums else \
        nc.typed_arg(op, features, allowed)
    try:
        return wrap(fn(x._t), x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None


@public("torchflow.nn")
def relu(features, name=None) -> Tensor:
    """Computes rectified linear: ``max(features, 0)``.

    Args:
      features: A real Tensor (float or integer).
      name: Unused (eager).

    Returns:
      A Tensor of ``features``' dtype.

    >>> import torchflow as tf
    >>> tf.nn.relu(tf.constant([-1., 2.])).numpy()
    array([0., 2.], dtype=float32)
    """
    return _unary("Relu", torch.relu, features, _REALS)


def _relu6(t):
    return torch.clamp(t, 0, 6)


@public("torchflow.nn")
def relu6(features, name=None) -> Tensor:
    """Computes Rectified Linear 6: ``min(max(features, 0), 6)``.

    Args:
      features: A real-valued tensor.
      name: Unused (eager).

    Returns:
      A tensor of ``features``' dtype and shape.
    """
    return _unary("Relu6", _relu6, features, _REALS)


@public("torchflow.nn")
def elu(features, name=None) -> Tensor:
    """Computes the exponential linear unit: ``exp(x) - 1`` if ``x < 0`` else ``x``.

    Args:
      features: A float tensor (float16/bfloat16/float32/float64).
      name: Unused (eager).

    Returns:
      A tensor of ``features``' dtype and shape.
    """
    return _unary("Elu", F.elu, features)


@public("torchflow.nn")
def selu(features, name=None) -> Tensor:
    """Computes the scaled exponential linear unit (``scale * elu(x, alpha)``).

    Args:
      features: A float tensor (float16/bfloat16/float32/float64).
      name: Unused (eager).

    Returns:
      A tensor of ``features``' dtype and shape.
    """
    return _unary("Selu", F.selu, features)


def _gelu_exact(t):
    return F.gelu(t)


def _gelu_tanh(t):
    return F.gelu(t, approximate="tanh")


@public("torchflow.nn")
def gelu(features, approximate=False, name=None) -> Tensor:
    """Computes the Gaussian error linear unit ``x * P(X <= x)``, ``X ~ N(0, 1)``.

    Args:
      features: A float Tensor.
      approximate: Whether to use the tanh approximation.
      name: Unused (eager).

    Returns:
      A Tensor of ``features``' dtype.

    Raises:
      ValueError: If ``features`` is not a floating point tensor.
    """
    x = tensor_arg(features)
    if x._dtype._kind != "f":
        raise ValueError(f"`features.dtype` must be a floating point tensor."
                         f"Received:features.dtype={x._dtype!r}")
    return _unary("Gelu", _gelu_tanh if approximate else _gelu_exact, x)


@public("torchflow.nn")
def leaky_relu(features, alpha=0.2, name=None) -> Tensor:
    """Computes the leaky ReLU: ``x`` if ``x > 0`` else ``alpha * x``.

    Integer inputs are cast to float32 first, as in TF.

    Args:
      features: A real Tensor.
      alpha: Slope of the activation for ``x < 0``.
      name: Unused (eager).

    Returns:
      A float Tensor.
    """
    x = tensor_arg(features)
    if x._dtype.is_integer:
        x = wrap(x._t.to(torch.float32), dtypes.float32)
    # TF's LeakyRelu kernel holds alpha as a 32-bit float attr, for every dtype.
    a = float(np.float32(alpha))
    return _unary("LeakyRelu", lambda t: F.leaky_relu(t, a), x)


@public("torchflow.nn")
def sigmoid(x, name=None) -> Tensor:
    """Computes ``1 / (1 + exp(-x))`` elementwise.

    Args:
      x: A float or complex tensor.
      name: Unused (eager).

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return _unary("Sigmoid", torch.sigmoid, x, _FLOATS_C)


@public("torchflow.nn")
def tanh(x, name=None) -> Tensor:
    """Computes the hyperbolic tangent of ``x`` elementwise.

    Args:
      x: A float or complex tensor.
      name: Unused (eager).

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return _unary("Tanh", torch.tanh, x, _FLOATS_C)


def _softplus(t):
    # Threshold past which softplus(x) == x to within the dtype's precision.
    return F.softplus(t, threshold=40.0 if t.dtype == torch.float64 else 20.0)


@public("torchflow.nn")
def softplus(features, name=None) -> Tensor:
    """Computes ``log(exp(features) + 1)`` elementwise.

    Args:
      features: A float tensor (float16/bfloat16/float32/float64).
      name: Unused (eager).

    Returns:
      A tensor of ``features``' dtype and shape.
    """
    return _unary("Softplus", _softplus, features)


@public("torchflow.nn")
def softsign(features, name=None) -> Tensor:
    """Computes ``features / (abs(features) + 1)`` elementwise.

    Args:
      features: A float tensor (float16/bfloat16/float32/float64).
      name: Unused (eager).

    Returns:
      A tensor of ``features``' dtype and shape.
    """
    return _unary("Softsign", F.softsign, features)


@public("torchflow.nn")
def silu(features, beta=1.0) -> Tensor:
    """Computes the SiLU or Swish activation: ``x * sigmoid(beta * x)``.

    Args:
      features: A float Tensor.
      beta: A scalar, the sigmoid's scale.

    Returns:
      A Tensor of ``features``' dtype.
    """
    if isinstance(beta, (int, float)) and beta == 1.0:
        return _unary("Sigmoid", F.silu, features, _FLOATS_C)
    x = nc.typed_arg("Sigmoid", features, _FLOATS_C)
    b = nc.same_dtype("Mul", x, beta)._t
    return _unary("Sigmoid", lambda t: t * torch.sigmoid(b * t), x, _FLOATS_C)


@public("torchflow.nn")
def swish(features, beta=1.0) -> Tensor:
    """Computes the Swish activation ``x * sigmoid(beta * x)`` (same as ``silu``).

    Args:
      features: A float tensor (float16/bfloat16/float32/float64).
      beta: float, default 1.0: the scale inside the sigmoid.

    Returns:
      A tensor of ``features``' dtype and shape.
    """
    return silu(features, beta)


def _axis_softmax(op: str, fn, logits, axis) -> Tensor:
    x = nc.typed_arg(op, logits, _FLOATS)
    t = x._t
    if t.ndim == 0:
        raise InvalidArgumentError(
            None, None, f"logits must have >= 1 dimension, got [] [Op:{op}]")
    a = -1 if axis is None else int(axis)
    if not -t.ndim <= a < t.ndim:
        raise InvalidArgumentError(
            None, None,
            f"`dim` must be in the range [{-t.ndim}, {t.ndim}) where {t.ndim} is the number "
            f"of dimensions in the input. Received: dim={a}")
    try:
        return wrap(fn(t, a), x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None


@public("torchflow.nn")
def softmax(logits, axis=None, name=None) -> Tensor:
    """Computes softmax activations along ``axis`` (default: the last).

    Args:
      logits: A non-empty float Tensor.
      axis: The dimension softmax is computed on (default -1).
      name: Unused (eager).

    Returns:
      A Tensor of ``logits``' dtype and shape.

    Raises:
      InvalidArgumentError: if ``logits`` is a scalar or ``axis`` is out of range.

    >>> import torchflow as tf
    >>> tf.nn.softmax(tf.constant([0., 0.])).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    return _axis_softmax("Softmax", torch.softmax, logits, axis)


@public("torchflow.nn")
def log_softmax(logits, axis=None, name=None) -> Tensor:
    """Computes ``logits - log(reduce_sum(exp(logits), axis))`` along ``axis``.

    Args:
      logits: A float tensor (half/float32/float64).
      axis: int or None (default -1, the last dimension).
      name: Unused (eager).

    Returns:
      A tensor of ``logits``' dtype and shape.

    Raises:
      InvalidArgumentError: If ``axis`` is out of range.
    """
    return _axis_softmax("LogSoftmax", torch.log_softmax, logits, axis)


@public("torchflow.nn")
def crelu(features, axis=-1, name=None) -> Tensor:
    """Concatenated ReLU: ``concat([relu(x), relu(-x)], axis)``.

    Args:
      features: A float tensor (float16/bfloat16/float32/float64).
      axis: int, default -1: the dimension the two halves are concatenated along.
      name: Unused (eager).

    Returns:
      A tensor of ``features``' dtype, twice as large along ``axis``.
    """
    x = nc.typed_arg("Relu", features, _FLOATS)
    try:
        return wrap(torch.cat([torch.relu(x._t), torch.relu(-x._t)], int(axis)), x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("ConcatV2", e) from None


@public("torchflow.nn")
def bias_add(value, bias, data_format=None, name=None) -> Tensor:
    """Adds the 1-D ``bias`` to ``value`` along its channel dimension.

    Args:
      value: A Tensor of rank >= 2.
      bias: A 1-D Tensor of ``value``'s dtype, one entry per channel.
      data_format: ``None``/``"N...C"`` (channels last) or ``"NC..."``.
      name: Unused (eager).

    Returns:
      A Tensor of ``value``'s dtype and shape.

    Raises:
      InvalidArgumentError: on a rank < 2 value, a wrong bias size or dtype.
    """
    x = tensor_arg(value)
    b = nc.same_dtype("BiasAdd", x, bias)
    xt, bt = x._t, b._t
    if xt.ndim < 2:
        raise InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {list(xt.shape)} [Op:BiasAdd]")
    if bt.ndim != 1:
        raise InvalidArgumentError(
            None, None, f"Biases must be 1D: {list(bt.shape)} [Op:BiasAdd]")
    cf = isinstance(data_format, str) and data_format.startswith("NC")
    c = xt.shape[1] if cf else xt.shape[-1]
    if bt.shape[0] != c:
        raise InvalidArgumentError(
            None, None,
            f"Must provide as many biases as the {'channel' if cf else 'last'} dimension of "
            f"the input tensor: {dims(bt.shape)} vs. {dims(xt.shape)} [Op:BiasAdd]")
    if cf:
        bt = bt.reshape((c,) + (1,) * (xt.ndim - 2))
    try:
        return wrap(xt + bt, x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("BiasAdd", e) from None


@public("torchflow.nn")
def dropout(x, rate, noise_shape=None, seed=None, name=None) -> Tensor:
    """Sets elements to zero with probability ``rate`` and scales the rest by
    ``1 / (1 - rate)``.

    Args:
      x: A float Tensor.
      rate: A scalar in ``[0, 1)``, the probability that each element is dropped.
      noise_shape: Optional shape (broadcastable to ``x``'s) of the keep/drop mask;
        ``None`` entries take ``x``'s size.
      seed: Optional op seed (see ``tf.random.set_seed``).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s shape and dtype.

    Raises:
      ValueError: if ``x`` is not floating point or ``rate`` is outside [0, 1).
    """
    if type(x) in COMPOSITE:  # tf.RaggedTensor: dropout of the values
        return COMPOSITE[type(x)].values_op(dropout, x, rate, noise_shape, seed)
    x = tensor_arg(x)
    if not x._dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={x._dtype!r}")
    if isinstance(rate, Tensor):
        r = float(rate.numpy())
    else:
        r = float(rate)
    if not 0 <= r < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={rate}")
    t = x._t
    if r == 0 and not isinstance(rate, Tensor):
        return x
    if noise_shape is None:
        shape = t.shape
    else:
        ns = noise_shape.numpy().tolist() if isinstance(noise_shape, Tensor) else \
            list(noise_shape)
        if len(ns) != t.ndim:
            raise ValueError(f"tf.nn.dropout: noise_shape {ns} must have the rank of x "
                             f"({t.ndim}).")
        node = graph_trace.shape_value(t, torch.int64)  # in a trace: sizes read per call
        sizes = node.tolist() if node is not None else list(t.shape)
        shape = [sizes[i] if d is None else int(d) for i, d in enumerate(ns)]
    gen = random_ops.stream("RandomUniform", x._dtype, seed, t.device)
    try:
        if noise_shape is None:
            # torch.rand's numbers, drawn into a tensor like t: a tf.function's recording
            # then holds no size of t.
            u = torch.empty_like(t, memory_format=torch.contiguous_format).uniform_(
                generator=gen)
        else:
            u = torch.rand(shape, dtype=t.dtype, device=t.device, generator=gen)
        return wrap((t * (1.0 / (1.0 - r))) * (u >= r), x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("Dropout", e) from None
