"""Thresholded confusion-matrix counting shared by the confusion metrics."""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.keras.losses._utils import squeeze_or_expand_dimensions
from torchflow._src.ops.array_ops import reshape
from torchflow._src.ops.comparison_ops import greater, less, logical_and, logical_not
from torchflow._src.ops.creation_ops import cast, one_hot
from torchflow._src.ops.ranking_ops import top_k as _top_k
from torchflow._src.ops.reduction_ops import reduce_any, reduce_sum
from torchflow._src.ops.shape_ops import broadcast_to

NEG_INF = -1e10


def parse_init_thresholds(thresholds, default_threshold=0.5):
    if thresholds is None:
        return [default_threshold]
    t = [float(x) for x in (thresholds if isinstance(thresholds, (list, tuple)) else
                            [thresholds])]
    for x in t:
        if not 0.0 <= x <= 1.0 and x != NEG_INF:
            raise ValueError(f"Threshold values must be in [0, 1]. Invalid values: {t}")
    return t


def filter_top_k(x, k):
    """Keeps the ``k`` largest entries of the last axis; the others become -1e10."""
    _, idx = _top_k(x, k, sorted=False)
    mask = reduce_sum(one_hot(idx, int(x.shape[-1]), dtype=x.dtype), axis=-2)
    return x * mask + NEG_INF * (1.0 - mask)


def update_confusion_matrix_variables(variables, y_true, y_pred, thresholds, top_k=None,
                                      class_id=None, sample_weight=None, multi_label=False,
                                      label_weights=None):
    """Adds the weighted tp/fp/tn/fn counts per threshold to ``variables`` (a dict)."""
    y_true = cast(convert_to_tensor(y_true), "float32")
    y_pred = cast(convert_to_tensor(y_pred), "float32")
    if bool(reduce_any(less(y_pred, 0.0)).numpy()):
        raise InvalidArgumentError(None, None, "predictions must be >= 0")
    if bool(reduce_any(greater(y_pred, 1.0)).numpy()):
        raise InvalidArgumentError(None, None, "predictions must be <= 1")
    y_pred, y_true, sample_weight = squeeze_or_expand_dimensions(y_pred, y_true, sample_weight)
    if sample_weight is not None:
        sample_weight = cast(sample_weight, "float32")
    if top_k is not None:
        y_pred = filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = y_true[..., class_id]
        y_pred = y_pred[..., class_id]
        if sample_weight is not None and len(sample_weight.shape) == len(y_true.shape) + 1:
            sample_weight = sample_weight[..., 0] if sample_weight.shape[-1] == 1 else \
                sample_weight[..., class_id]
    n_t = len(thresholds)
    th = convert_to_tensor(thresholds, dtype="float32")
    if multi_label:
        n_labels = int(y_pred.shape[-1])
        preds = reshape(y_pred, [1, -1, n_labels])
        labels = reshape(y_true, [1, -1, n_labels])
        th = reshape(th, [n_t, 1, 1])
    else:
        preds = reshape(y_pred, [1, -1])
        labels = reshape(y_true, [1, -1])
        th = reshape(th, [n_t, 1])
    pred_pos = greater(preds, th)
    label_pos = cast(labels, "bool")
    full = pred_pos.shape
    weights = None
    if sample_weight is not None:
        sw = broadcast_to(sample_weight, y_pred.shape)
        weights = reshape(sw, [1] + list(preds.shape[1:]))
    if label_weights is not None and not multi_label:
        lw = broadcast_to(convert_to_tensor(label_weights, dtype="float32"), y_pred.shape)
        lw = reshape(lw, [1] + list(preds.shape[1:]))
        weights = lw if weights is None else weights * lw
    label_pos = broadcast_to(label_pos, full)
    pred_neg = logical_not(pred_pos)
    label_neg = logical_not(label_pos)
    conds = {"tp": (label_pos, pred_pos), "fp": (label_neg, pred_pos),
             "fn": (label_pos, pred_neg), "tn": (label_neg, pred_neg)}
    for key, var in variables.items():
        a, b = conds[key]
        hit = cast(logical_and(a, b), "float32")
        if weights is not None:
            hit = hit * weights
        var.assign_add(cast(reduce_sum(hit, axis=1), var.dtype))
