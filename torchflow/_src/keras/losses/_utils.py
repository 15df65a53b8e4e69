"""Shape alignment and weighted reduction shared by losses and metrics."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops.array_ops import expand_dims, squeeze
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.reduction_ops import reduce_mean, reduce_sum
from torchflow._src.util.api import public


@public("torchflow.keras.losses")
class Reduction:
    """Types of loss reduction (``tf.keras.losses.Reduction``).

    ``NONE`` keeps the per-sample losses; ``SUM`` adds them; ``SUM_OVER_BATCH_SIZE``
    divides the sum by the number of elements; ``AUTO`` (the default) means
    ``SUM_OVER_BATCH_SIZE``.
    """

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


_VALID = frozenset(Reduction.all())


def _rank(t) -> int:
    return t.ndim if type(t) is Tensor else len(t.shape)


def remove_squeezable_dimensions(labels, predictions):
    """Squeezes the last axis of whichever side has one extra size-1 axis."""
    diff = _rank(predictions) - _rank(labels)
    if diff == 1 and predictions.shape[-1] == 1:
        predictions = squeeze(predictions, [-1])
    elif diff == -1 and labels.shape[-1] == 1:
        labels = squeeze(labels, [-1])
    return labels, predictions


def squeeze_or_expand_dimensions(y_pred, y_true=None, sample_weight=None):
    """Aligns ``y_true`` and ``sample_weight`` ranks with ``y_pred`` as Keras does."""
    if y_true is not None:
        y_true, y_pred = remove_squeezable_dimensions(y_true, y_pred)
    if sample_weight is None:
        return y_pred, y_true, None
    sample_weight = convert_to_tensor(sample_weight)
    diff = _rank(sample_weight) - _rank(y_pred)
    if diff == 1 and sample_weight.shape[-1] == 1:
        sample_weight = squeeze(sample_weight, [-1])
    elif diff == -1:
        sample_weight = expand_dims(sample_weight, -1)
    return y_pred, y_true, sample_weight


def _num_elements(t):
    n = 1
    for d in t.shape:
        n *= int(d)
    return n


def reduce_weighted_loss(weighted, reduction):
    if reduction == Reduction.NONE:
        return weighted
    total = reduce_sum(weighted)
    if reduction == Reduction.SUM:
        return total
    n = _num_elements(weighted)
    # divide_no_nan(total, n) with n known on the host: one scalar division.
    return total / float(n) if n else total * 0.0


def compute_weighted_loss(losses, sample_weight=None, reduction=Reduction.SUM_OVER_BATCH_SIZE):
    """Weights ``losses`` by ``sample_weight`` (broadcast) and reduces them."""
    if reduction not in _VALID:
        Reduction.validate(reduction)
    if reduction == Reduction.AUTO:
        reduction = Reduction.SUM_OVER_BATCH_SIZE
    if not isinstance(losses, Tensor):
        losses = convert_to_tensor(losses)
    in_dtype = losses.dtype
    # Half-precision sums lose too much; reduce in float32 as TF does.
    work = in_dtype if in_dtype in (dtypes.float32, dtypes.float64) else dtypes.float32
    if in_dtype is not work:
        losses = cast(losses, work)
    if sample_weight is not None:
        sample_weight = cast(convert_to_tensor(sample_weight), work)
        losses, _, sample_weight = squeeze_or_expand_dimensions(losses, None, sample_weight)
        losses = losses * sample_weight
    if reduction == Reduction.SUM_OVER_BATCH_SIZE and _num_elements(losses):
        # the sum divided by the count in one op (torch's mean; bit for bit on the CPU)
        loss = reduce_mean(losses)
    else:
        loss = reduce_weighted_loss(losses, reduction)
    return loss if in_dtype is work else cast(loss, in_dtype)
