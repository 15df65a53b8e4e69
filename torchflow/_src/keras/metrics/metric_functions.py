"""Per-sample metric functions (``tf.keras.metrics.binary_accuracy`` ...)."""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras import backend
from torchflow._src.keras.losses._utils import remove_squeezable_dimensions
from torchflow._src.ops.array_ops import squeeze
from torchflow._src.ops.comparison_ops import equal, greater
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.ranking_ops import in_top_k
from torchflow._src.ops.reduction_ops import argmax, reduce_mean
from torchflow._src.util.api import public

_PUB = "torchflow.keras.metrics"


def _floatx(t):
    return cast(t, backend.floatx())


@public(_PUB)
def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred`` elementwise, else 0.0."""
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    y_true, y_pred = remove_squeezable_dimensions(y_true, y_pred)
    if y_true.dtype is not y_pred.dtype:
        y_pred = cast(y_pred, y_true.dtype)
    return _floatx(equal(y_true, y_pred))


@public(_PUB)
def binary_accuracy(y_true, y_pred, threshold=0.5):
    """Mean over the last axis of ``y_true == (y_pred > threshold)``.

    Args:
      y_true: Ground-truth values.
      y_pred: Predicted probabilities of ``y_true``'s shape.
      threshold: float, default 0.5: predictions above it count as 1.

    Returns:
      A float tensor of shape ``y_pred.shape[:-1]``.
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.dtype is not y_pred.dtype:
        y_true = cast(y_true, y_pred.dtype)
    y_pred = cast(greater(y_pred, cast(threshold, y_pred.dtype)), y_pred.dtype)
    return reduce_mean(_floatx(equal(y_true, y_pred)), -1)


@public(_PUB)
def categorical_accuracy(y_true, y_pred):
    """1.0 where the arg-max of ``y_true`` equals the arg-max of ``y_pred``.

    Args:
      y_true: One-hot labels ``[..., num_classes]``.
      y_pred: Class scores of ``y_true``'s shape.

    Returns:
      A float tensor of shape ``y_pred.shape[:-1]``: 1.0 or 0.0 per sample.
    """
    return _floatx(equal(argmax(y_true, -1), argmax(y_pred, -1)))


@public(_PUB)
def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals the arg-max of ``y_pred``.

    Args:
      y_true: Integer labels (any integer or float dtype), shape ``y_pred.shape[:-1]`` or
        with a trailing 1.
      y_pred: Class scores ``[..., num_classes]``.

    Returns:
      A float tensor of shape ``y_pred.shape[:-1]``: 1.0 or 0.0 per sample.
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, [-1])
    y_pred = argmax(y_pred, -1)
    if y_pred.dtype is not y_true.dtype:
        y_pred = cast(y_pred, y_true.dtype)
    return _floatx(equal(y_true, y_pred))


@public(_PUB)
def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot target is among the ``k`` largest predictions.

    Args:
      y_true: One-hot labels ``[batch, num_classes]``.
      y_pred: Class scores of ``y_true``'s shape.
      k: int, default 5.

    Returns:
      A float32 tensor ``[batch]``.
    """
    y_pred = convert_to_tensor(y_pred)
    return _floatx(in_top_k(argmax(y_true, -1), y_pred, k))


@public(_PUB)
def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer target is among the ``k`` largest predictions.

    Args:
      y_true: Integer labels ``[batch]`` (or ``[batch, 1]``).
      y_pred: Class scores ``[batch, num_classes]``.
      k: int, default 5.

    Returns:
      A float32 tensor ``[batch]``.
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and len(y_true.shape) > 0 and \
            y_true.shape[-1] == 1:
        y_true = squeeze(y_true, [-1])
    return _floatx(in_top_k(cast(y_true, "int32"), y_pred, k))
