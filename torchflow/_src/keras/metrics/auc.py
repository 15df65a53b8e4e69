"""``tf.keras.metrics.AUC``: area under the ROC or PR curve from thresholded counts."""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras import backend
from torchflow._src.keras.metrics.base_metric import Metric
from torchflow._src.keras.metrics.confusion_utils import update_confusion_matrix_variables
from torchflow._src.ops.comparison_ops import greater, logical_and
from torchflow._src.ops.creation_ops import ones_like
from torchflow._src.ops.gather_ops import where
from torchflow._src.ops.math_ops import divide_no_nan, maximum, minimum
from torchflow._src.ops.reduction_ops import reduce_mean, reduce_sum
from torchflow._src.ops.unary_math_ops import log, sigmoid
from torchflow._src.util.api import public

_CURVES = {"roc": "ROC", "pr": "PR"}
_SUMS = ("interpolation", "minoring", "majoring")


@public("torchflow.keras.metrics")
class AUC(Metric):
    """Approximate AUC (Riemann sum over ``num_thresholds`` thresholds).

    Args:
      num_thresholds: Number of thresholds (> 1). curve: ``'ROC'`` or ``'PR'``.
      summation_method: ``'interpolation'`` (PR uses Davis & Goadrich's
        interpolation), ``'minoring'`` or ``'majoring'``.
      name, dtype: See ``Metric``. thresholds: Explicit inner thresholds.
      multi_label: Keep per-label counts and average the per-label AUCs.
      num_labels: Number of labels (multi_label; else taken from the first batch).
      label_weights: Per-label weights.

    Raises:
      ValueError: For a bad curve, summation method or ``num_thresholds``.
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        super().__init__(name=name, dtype=dtype)
        c = getattr(curve, "value", curve)
        if str(c).lower() not in _CURVES:
            raise ValueError(f'Invalid AUC curve value "{curve}".')
        self.curve = _CURVES[str(c).lower()]
        sm = str(getattr(summation_method, "value", summation_method)).lower()
        if sm not in _SUMS:
            raise ValueError(f'Invalid AUC summation method value "{summation_method}".')
        self.summation_method = sm
        eps = backend.epsilon()
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            inner = sorted(float(t) for t in thresholds)
        else:
            if num_thresholds <= 1:
                raise ValueError("`num_thresholds` must be > 1.")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._thresholds = [0.0 - eps] + inner + [1.0 + eps]
        self.multi_label = multi_label
        self._from_logits = from_logits
        self.label_weights = None if label_weights is None else convert_to_tensor(
            label_weights, dtype="float32")
        self._built = False
        self._num_labels = num_labels
        if multi_label and num_labels is not None:
            self._build(num_labels)
        elif not multi_label:
            self._build(None)

    @property
    def thresholds(self):
        return list(self._thresholds)

    def _build(self, num_labels):
        shape = (self.num_thresholds,) if num_labels is None else (self.num_thresholds,
                                                                  num_labels)
        self._num_labels = num_labels
        self.true_positives = self.add_weight("true_positives", shape=shape)
        self.true_negatives = self.add_weight("true_negatives", shape=shape)
        self.false_positives = self.add_weight("false_positives", shape=shape)
        self.false_negatives = self.add_weight("false_negatives", shape=shape)
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = convert_to_tensor(y_pred)
        if not self._built:
            self._build(int(y_pred.shape[-1]))
        if self._from_logits:
            y_pred = sigmoid(y_pred)
        update_confusion_matrix_variables(
            {"tp": self.true_positives, "tn": self.true_negatives,
             "fp": self.false_positives, "fn": self.false_negatives},
            y_true, y_pred, self._thresholds, sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights)

    def _by_label(self, terms):
        if not self.multi_label:
            return reduce_sum(terms)
        by_label = reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return reduce_mean(by_label)
        return divide_no_nan(reduce_sum(by_label * self.label_weights),
                             reduce_sum(self.label_weights))

    def interpolate_pr_auc(self):
        tp, fp, fn = (self.true_positives.read_value(), self.false_positives.read_value(),
                      self.false_negatives.read_value())
        n = self.num_thresholds
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        slope = divide_no_nan(dtp, maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        ratio = where(logical_and(greater(p[: n - 1], 0.0), greater(p[1:], 0.0)),
                      divide_no_nan(p[: n - 1], maximum(p[1:], 0.0)), ones_like(p[1:]))
        inc = divide_no_nan(slope * (dtp + intercept * log(ratio)),
                            maximum(tp[1:] + fn[1:], 0.0))
        return self._by_label(inc)

    def result(self):
        if not self._built:
            return convert_to_tensor(0.0)
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        tp, tn, fp, fn = (self.true_positives.read_value(), self.true_negatives.read_value(),
                          self.false_positives.read_value(), self.false_negatives.read_value())
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, divide_no_nan(tp, tp + fp)
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = minimum(y[: n - 1], y[1:])
        else:
            heights = maximum(y[: n - 1], y[1:])
        return self._by_label((x[: n - 1] - x[1:]) * heights)

    def reset_states(self):
        if self._built:
            super().reset_states()

    def get_config(self):
        lw = self.label_weights
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method,
                  "thresholds": self.thresholds[1:-1], "multi_label": self.multi_label,
                  "label_weights": None if lw is None else lw.numpy().tolist()}
        config.update(super().get_config())
        return config
