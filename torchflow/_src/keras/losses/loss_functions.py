"""The Keras loss functions: per-sample losses, reduced over the last axis."""

from __future__ import annotations

import math

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras import backend
from torchflow._src.ops.array_ops import reshape, squeeze, transpose
from torchflow._src.ops.clip_ops import clip_by_value
from torchflow._src.ops.comparison_ops import equal, less_equal, logical_or
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.gather_ops import where
from torchflow._src.ops.loss_ops import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from torchflow._src.ops.math_ops import maximum
from torchflow._src.ops.reduction_ops import (
    l2_normalize,
    reduce_all,
    reduce_max,
    reduce_mean,
    reduce_sum,
)
from torchflow._src.ops.unary_math_ops import abs as _abs
from torchflow._src.ops.unary_math_ops import log, softplus, square
from torchflow._src.util.api import public

_PUB = "torchflow.keras.losses"


def _prep(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.dtype is not y_pred.dtype:
        y_true = cast(y_true, y_pred.dtype)
    return y_true, y_pred


def _backend_bce(target, output, from_logits):
    if from_logits:
        return sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = backend.epsilon()
    output = clip_by_value(output, eps, 1.0 - eps)
    bce = target * log(output + eps)
    bce = bce + (1.0 - target) * log(1.0 - output + eps)
    return -bce


def _backend_cce(target, output, from_logits, axis=-1):
    if from_logits:
        return softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = output / reduce_sum(output, axis, keepdims=True)
    eps = backend.epsilon()
    output = clip_by_value(output, eps, 1.0 - eps)
    return -reduce_sum(target * log(output), axis)


def _backend_scce(target, output, from_logits, axis=-1):
    if not from_logits:
        eps = backend.epsilon()
        output = log(clip_by_value(output, eps, 1.0 - eps))
    rank = len(output.shape)
    if axis not in (-1, rank - 1):
        axis = axis % rank
        perm = [i for i in range(rank) if i != axis] + [axis]
        output = transpose(output, perm)
    target = convert_to_tensor(target)
    if target.dtype.name not in ("int32", "int64"):
        # TF's Keras casts the labels to int64: uint8 labels (keras.datasets'),
        # other integer widths and float labels all work.
        target = cast(target, "int64")
    if len(target.shape) == rank:
        target = squeeze(target, [-1])
    out_shape = tuple(output.shape)
    if rank > 2:
        res = sparse_softmax_cross_entropy_with_logits(
            labels=reshape(target, [-1]), logits=reshape(output, [-1, out_shape[-1]]))
        return reshape(res, out_shape[:-1])
    return sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


@public(_PUB)
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    """Binary cross-entropy, averaged over the last axis.

    Args:
      y_true: Binary (0/1) labels, shape ``[batch_size, d0, .. dN]``.
      y_pred: Predicted probabilities (or logits) of ``y_true``'s shape.
      from_logits: bool, default False: whether ``y_pred`` holds logits rather than
        probabilities.
      label_smoothing: float in ``[0, 1]``, default 0: how far the labels are pulled towards
        uniform.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_mean(_backend_bce(y_true, y_pred, from_logits), -1)


@public(_PUB)
def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    """Categorical cross-entropy between one-hot ``y_true`` and ``y_pred``.

    Args:
      y_true: One-hot labels, shape ``[batch_size, d0, .. dN]``.
      y_pred: Predicted class probabilities (or logits) of ``y_true``'s shape.
      from_logits: bool, default False: whether ``y_pred`` holds logits rather than
        probabilities.
      label_smoothing: float in ``[0, 1]``, default 0: how far the labels are pulled towards
        uniform.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``.
    """
    y_true, y_pred = _prep(y_true, y_pred)
    if label_smoothing:
        n = y_true.shape[-1]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / float(n)
    return _backend_cce(y_true, y_pred, from_logits)


@public(_PUB)
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """Categorical cross-entropy with integer labels.

    Args:
      y_true: Integer class indices (any integer or float dtype), shape
        ``y_pred.shape[:-1]`` (or with a trailing 1).
      y_pred: Predicted class probabilities (or logits), shape ``[batch_size, d0, .. dN,
        num_classes]``.
      from_logits: bool, default False: whether ``y_pred`` holds logits rather than
        probabilities.
      axis: int, default -1: the class dimension.

    Returns:
      A float tensor of shape ``y_pred.shape[:-1]``.
    """
    y_pred = convert_to_tensor(y_pred)
    return _backend_scce(y_true, y_pred, from_logits, axis)


@public(_PUB)
def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``.

    Args:
      y_true: Ground-truth values, shape ``[batch_size, d0, .. dN]``; cast to ``y_pred``'s
        dtype.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    return reduce_mean(square(y_pred - y_true), -1)


@public(_PUB)
def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``.

    Args:
      y_true: Ground-truth values, shape ``[batch_size, d0, .. dN]``; cast to ``y_pred``'s
        dtype.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    return reduce_mean(_abs(y_pred - y_true), -1)


@public(_PUB)
def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)``.

    Args:
      y_true: Ground-truth values, shape ``[batch_size, d0, .. dN]``; cast to ``y_pred``'s
        dtype.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    diff = _abs((y_true - y_pred) / maximum(_abs(y_true), backend.epsilon()))
    return 100.0 * reduce_mean(diff, -1)


@public(_PUB)
def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(y_pred + 1) - log(y_true + 1)), axis=-1)`` (clipped at epsilon).

    Args:
      y_true: Ground-truth values, shape ``[batch_size, d0, .. dN]``; cast to ``y_pred``'s
        dtype.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    eps = backend.epsilon()
    a = log(maximum(y_pred, eps) + 1.0)
    b = log(maximum(y_true, eps) + 1.0)
    return reduce_mean(square(a - b), -1)


def _maybe_convert_labels(y_true):
    """Maps {0, 1} labels to {-1, 1} (hinge losses)."""
    is_binary = reduce_all(logical_or(equal(y_true, 0.0), equal(y_true, 1.0)))
    if bool(is_binary.numpy()):
        return 2.0 * y_true - 1.0
    return y_true


@public(_PUB)
def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)`` ({0,1} labels become {-1,1}).

    Args:
      y_true: Labels in {-1, 1} (or {0, 1}, converted), shape ``[batch_size, d0, .. dN]``.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return reduce_mean(maximum(1.0 - y_true * y_pred, 0.0), -1)


@public(_PUB)
def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``.

    Args:
      y_true: Labels in {-1, 1} (or {0, 1}, converted), shape ``[batch_size, d0, .. dN]``.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return reduce_mean(square(maximum(1.0 - y_true * y_pred, 0.0)), -1)


@public(_PUB)
def categorical_hinge(y_true, y_pred):
    """``maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)``.

    Args:
      y_true: One-hot (or {-1, 1}) labels, shape ``[batch_size, d0, .. dN]``.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    pos = reduce_sum(y_true * y_pred, -1)
    neg = reduce_max((1.0 - y_true) * y_pred, -1)
    return maximum(neg - pos + 1.0, 0.0)


@public(_PUB)
def huber(y_true, y_pred, delta=1.0):
    """Quadratic for ``|error| <= delta``, linear beyond, averaged over the last axis.

    Args:
      y_true: Ground-truth values, shape ``[batch_size, d0, .. dN]``; cast to ``y_pred``'s
        dtype.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.
      delta: float, default 1.0: where the loss turns from quadratic to linear.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    delta = float(delta)
    err = y_pred - y_true
    a = _abs(err)
    quad = 0.5 * square(err)
    lin = delta * a - 0.5 * delta * delta
    return reduce_mean(where(less_equal(a, delta), quad, lin), -1)


@public(_PUB)
def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed stably.

    Args:
      y_true: Ground-truth values, shape ``[batch_size, d0, .. dN]``; cast to ``y_pred``'s
        dtype.
      y_pred: Predicted values, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    x = y_pred - y_true
    return reduce_mean(x + softplus(-2.0 * x) - math.log(2.0), -1)


@public(_PUB)
def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)`` with both clipped to [epsilon, 1].

    Args:
      y_true: Target probability distributions, shape ``[batch_size, d0, .. dN]``.
      y_pred: Predicted distributions of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    eps = backend.epsilon()
    y_true = clip_by_value(y_true, eps, 1.0)
    y_pred = clip_by_value(y_pred, eps, 1.0)
    return reduce_sum(y_true * log(y_true / y_pred), -1)


@public(_PUB)
def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``.

    Args:
      y_true: Ground-truth values, shape ``[batch_size, d0, .. dN]``; cast to ``y_pred``'s
        dtype.
      y_pred: Predicted rates, a float tensor of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``[batch_size, d0, .. dN-1]``: one loss per sample (the last
      axis is reduced).
    """
    y_true, y_pred = _prep(y_true, y_pred)
    return reduce_mean(y_pred - y_true * log(y_pred + backend.epsilon()), -1)


@public(_PUB)
def cosine_similarity(y_true, y_pred, axis=-1):
    """Negative cosine similarity along ``axis`` (-1 means identical directions).

    Unlike the other losses, TF does not cast ``y_true`` to ``y_pred``'s dtype
    here: both must be floating point (integer labels raise ``TypeError`` from
    ``l2_normalize``) and of one dtype.

    Args:
      y_true: Tensor of true targets.
      y_pred: Tensor of predicted targets.
      axis: The axis along which the cosine similarity is computed.

    Returns:
      The negative cosine similarity, reduced over ``axis``.

    Raises:
      TypeError: For integer ``y_true`` or ``y_pred``.
      InvalidArgumentError: If the two dtypes differ.
    """
    y_true = convert_to_tensor(y_true)
    y_pred = convert_to_tensor(y_pred)
    y_true = l2_normalize(y_true, axis=axis)
    y_pred = l2_normalize(y_pred, axis=axis)
    return -reduce_sum(y_true * y_pred, axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
bce = BCE = binary_crossentropy
