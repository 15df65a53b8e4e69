"""Confusion-matrix metrics: counts, Precision, Recall and the ``X at Y`` metrics."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.metrics.base_metric import Metric
from torchflow._src.keras.metrics.confusion_utils import (
    NEG_INF,
    parse_init_thresholds,
    update_confusion_matrix_variables,
)
from torchflow._src.ops.comparison_ops import greater_equal
from torchflow._src.ops.gather_ops import where
from torchflow._src.ops.math_ops import divide_no_nan
from torchflow._src.ops.reduction_ops import reduce_any, reduce_max
from torchflow._src.util.api import public

_PUB = "torchflow.keras.metrics"


class _ConditionCount(Metric):
    _KEY = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = parse_init_thresholds(thresholds, default_threshold=0.5)
        self.accumulator = self.add_weight("accumulator", shape=(len(self.thresholds),),
                                           initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix_variables({self._KEY: self.accumulator}, y_true, y_pred,
                                          self.thresholds, sample_weight=sample_weight)

    def result(self):
        v = self.accumulator.read_value()
        return v[0] if len(self.thresholds) == 1 else v

    def get_config(self):
        config = {"thresholds": self.init_thresholds}
        config.update(super().get_config())
        return config


def _count(cls_name, key, doc):
    cls = type(cls_name, (_ConditionCount,), {"_KEY": key, "__doc__": doc})
    return public(_PUB)(cls)


TruePositives = _count("TruePositives", "tp", 
    """Weighted count of true positives over the batches seen, at each threshold.

    ``result()`` is a float scalar for one threshold, else one value per threshold.

    Args:
      thresholds: None (default 0.5), a float or a list of floats in ``[0, 1]``: a
        prediction above a threshold counts as positive.
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: For a threshold outside ``[0, 1]``.
    """)
TrueNegatives = _count("TrueNegatives", "tn", 
    """Weighted count of true negatives over the batches seen, at each threshold.

    ``result()`` is a float scalar for one threshold, else one value per threshold.

    Args:
      thresholds: None (default 0.5), a float or a list of floats in ``[0, 1]``: a
        prediction above a threshold counts as positive.
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: For a threshold outside ``[0, 1]``.
    """)
FalsePositives = _count("FalsePositives", "fp", 
    """Weighted count of false positives over the batches seen, at each threshold.

    ``result()`` is a float scalar for one threshold, else one value per threshold.

    Args:
      thresholds: None (default 0.5), a float or a list of floats in ``[0, 1]``: a
        prediction above a threshold counts as positive.
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: For a threshold outside ``[0, 1]``.
    """)
FalseNegatives = _count("FalseNegatives", "fn", 
    """Weighted count of false negatives over the batches seen, at each threshold.

    ``result()`` is a float scalar for one threshold, else one value per threshold.

    Args:
      thresholds: None (default 0.5), a float or a list of floats in ``[0, 1]``: a
        prediction above a threshold counts as positive.
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: For a threshold outside ``[0, 1]``.
    """)


class _PR(Metric):
    _SECOND = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = NEG_INF if top_k is not None else 0.5
        self.thresholds = parse_init_thresholds(thresholds, default_threshold=default)
        n = len(self.thresholds)
        self.true_positives = self.add_weight("true_positives", shape=(n,))
        attr = "false_positives" if self._SECOND == "fp" else "false_negatives"
        setattr(self, attr, self.add_weight(attr, shape=(n,)))
        self._second = getattr(self, attr)

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix_variables(
            {"tp": self.true_positives, self._SECOND: self._second}, y_true, y_pred,
            self.thresholds, top_k=self.top_k, class_id=self.class_id,
            sample_weight=sample_weight)

    def result(self):
        tp = self.true_positives.read_value()
        r = divide_no_nan(tp, tp + self._second.read_value())
        return r[0] if len(self.thresholds) == 1 else r

    def get_config(self):
        config = {"thresholds": self.init_thresholds, "top_k": self.top_k,
                  "class_id": self.class_id}
        config.update(super().get_config())
        return config


@public(_PUB)
class Precision(_PR):
    """``tp / (tp + fp)`` per threshold (``top_k``/``class_id`` select what counts).

    Args:
      thresholds: None (default 0.5), a float or a list of floats in ``[0, 1]``: a
        prediction above a threshold counts as positive.
      top_k: None (default) or an int: only the ``top_k`` highest predictions of each
        example can count as positive.
      class_id: None (default) or an int: restrict the metric to one class (last axis).
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: For a threshold outside ``[0, 1]``.

    >>> import torchflow as tf
    >>> m = tf.keras.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> round(float(m.result()), 4)
    0.6667
    """

    _SECOND = "fp"


@public(_PUB)
class Recall(_PR):
    """``tp / (tp + fn)`` per threshold: the fraction of actual positives predicted positive.

    Args:
      thresholds: None (default 0.5), a float or a list of floats in ``[0, 1]``: a
        prediction above a threshold counts as positive.
      top_k: None (default) or an int: only the ``top_k`` highest predictions of each
        example can count as positive.
      class_id: None (default) or an int: restrict the metric to one class (last axis).
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: For a threshold outside ``[0, 1]``.
    """

    _SECOND = "fn"


class _AtBase(Metric):
    _VALUE_NAME = None

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError("`num_thresholds` must be > 0.")
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"`{self._VALUE_NAME}` must be in the range [0, 1].")
        self.value = value
        self.class_id = class_id
        self.num_thresholds = num_thresholds
        if num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            eps = backend.epsilon()
            mid = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0 - eps] + mid + [1.0 + eps]
        n = len(self.thresholds)
        self.true_positives = self.add_weight("true_positives", shape=(n,))
        self.true_negatives = self.add_weight("true_negatives", shape=(n,))
        self.false_positives = self.add_weight("false_positives", shape=(n,))
        self.false_negatives = self.add_weight("false_negatives", shape=(n,))

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix_variables(
            {"tp": self.true_positives, "tn": self.true_negatives,
             "fp": self.false_positives, "fn": self.false_negatives},
            y_true, y_pred, self.thresholds, class_id=self.class_id,
            sample_weight=sample_weight)

    def _counts(self):
        return (self.true_positives.read_value(), self.true_negatives.read_value(),
                self.false_positives.read_value(), self.false_negatives.read_value())

    def _max_under_constraint(self, constrained, dependent):
        feasible = greater_equal(constrained, self.value)
        exists = reduce_any(feasible)
        best = reduce_max(where(feasible, dependent, -1.0 + 0.0 * dependent))
        return where(exists, best, 0.0 * best)

    def get_config(self):
        config = {"num_thresholds": self.num_thresholds, "class_id": self.class_id,
                  self._VALUE_NAME: self.value}
        config.update(super().get_config())
        return config


def _at(cls_name, value_name, fn, doc):
    def init(self, *args, num_thresholds=200, class_id=None, name=None, dtype=None, **kw):
        value = args[0] if args else kw.pop(value_name)
        _AtBase.__init__(self, value, num_thresholds, class_id, name, dtype)

    cls = type(cls_name, (_AtBase,), {"__init__": init, "_VALUE_NAME": value_name,
                                       "result": fn, "__doc__": doc})
    return public(_PUB)(cls)


def _sens_at_spec(self):
    tp, tn, fp, fn = self._counts()
    return self._max_under_constraint(divide_no_nan(tn, tn + fp), divide_no_nan(tp, tp + fn))


def _spec_at_sens(self):
    tp, tn, fp, fn = self._counts()
    return self._max_under_constraint(divide_no_nan(tp, tp + fn), divide_no_nan(tn, tn + fp))


def _prec_at_recall(self):
    tp, tn, fp, fn = self._counts()
    return self._max_under_constraint(divide_no_nan(tp, tp + fn), divide_no_nan(tp, tp + fp))


def _recall_at_prec(self):
    tp, tn, fp, fn = self._counts()
    return self._max_under_constraint(divide_no_nan(tp, tp + fp), divide_no_nan(tp, tp + fn))


SensitivityAtSpecificity = _at("SensitivityAtSpecificity", "specificity", _sens_at_spec,
    """The best sensitivity where specificity >= the given value.

    Args:
      specificity: float in ``[0, 1]``: the constraint on specificity (first positional argument).
      num_thresholds: int > 0, default 200: how many thresholds the curve is sampled at.
      class_id: None (default) or an int: restrict the metric to one class (last axis).
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: If ``num_thresholds <= 0`` or ``specificity`` is outside ``[0, 1]``.
    """)
SpecificityAtSensitivity = _at("SpecificityAtSensitivity", "sensitivity", _spec_at_sens,
    """The best specificity where sensitivity >= the given value.

    Args:
      sensitivity: float in ``[0, 1]``: the constraint on sensitivity (first positional argument).
      num_thresholds: int > 0, default 200: how many thresholds the curve is sampled at.
      class_id: None (default) or an int: restrict the metric to one class (last axis).
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: If ``num_thresholds <= 0`` or ``sensitivity`` is outside ``[0, 1]``.
    """)
PrecisionAtRecall = _at("PrecisionAtRecall", "recall", _prec_at_recall,
    """The best precision where recall >= the given value.

    Args:
      recall: float in ``[0, 1]``: the constraint on recall (first positional argument).
      num_thresholds: int > 0, default 200: how many thresholds the curve is sampled at.
      class_id: None (default) or an int: restrict the metric to one class (last axis).
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: If ``num_thresholds <= 0`` or ``recall`` is outside ``[0, 1]``.
    """)
RecallAtPrecision = _at("RecallAtPrecision", "precision", _recall_at_prec,
    """The best recall where precision >= the given value.

    Args:
      precision: float in ``[0, 1]``: the constraint on precision (first positional argument).
      num_thresholds: int > 0, default 200: how many thresholds the curve is sampled at.
      class_id: None (default) or an int: restrict the metric to one class (last axis).
      name: str, default None (the snake-case class name).
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: If ``num_thresholds <= 0`` or ``precision`` is outside ``[0, 1]``.
    """)
