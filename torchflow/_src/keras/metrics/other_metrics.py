"""RootMeanSquaredError, MeanRelativeError, MeanTensor and MeanIoU."""

from __future__ import annotations

import numpy as np

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras.losses._utils import squeeze_or_expand_dimensions
from torchflow._src.keras.metrics.base_metric import Mean, Metric, _broadcastable
from torchflow._src.ops.array_ops import reshape, stack
from torchflow._src.ops.comparison_ops import not_equal
from torchflow._src.ops.creation_ops import cast, ones_like
from torchflow._src.ops.gather_ops import scatter_nd
from torchflow._src.ops.math_ops import divide_no_nan
from torchflow._src.ops.reduction_ops import reduce_mean, reduce_sum
from torchflow._src.ops.shape_ops import broadcast_to
from torchflow._src.ops.unary_math_ops import abs as _abs
from torchflow._src.ops.unary_math_ops import sqrt, square
from torchflow._src.util.api import public

_PUB = "torchflow.keras.metrics"


def _cast_pair(metric, y_true, y_pred):
    y_true = cast(convert_to_tensor(y_true), metric._dtype)
    y_pred = cast(convert_to_tensor(y_pred), metric._dtype)
    y_pred, y_true, _ = squeeze_or_expand_dimensions(y_pred, y_true)
    return y_true, y_pred


@public(_PUB)
class RootMeanSquaredError(Mean):
    """``sqrt(mean((y_pred - y_true) ** 2))`` over all updates.

    Args:
      name: str, default ``'root_mean_squared_error'``.
      dtype: The result's dtype, default None (float32).
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _cast_pair(self, y_true, y_pred)
        return super().update_state(square(y_pred - y_true), sample_weight=sample_weight)

    def result(self):
        return sqrt(divide_no_nan(self.total.read_value(), self.count.read_value()))


@public(_PUB)
class MeanRelativeError(Mean):
    """Mean of ``|y_pred - y_true| / normalizer``.

    Args:
      normalizer: A tensor of ``y_pred``'s shape (or broadcastable): the denominator of each
        error.
      name: str, default ``None``.
      dtype: The result's dtype, default None (float32).
    """

    def __init__(self, normalizer, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.normalizer = cast(convert_to_tensor(normalizer), self._dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _cast_pair(self, y_true, y_pred)
        _, normalizer = squeeze_or_expand_dimensions(y_pred, self.normalizer)[:2]
        rel = divide_no_nan(_abs(y_true - y_pred), normalizer)
        return super().update_state(rel, sample_weight=sample_weight)

    def get_config(self):
        config = {"normalizer": self.normalizer.numpy()}
        config.update(super().get_config())
        return config


@public(_PUB)
class MeanTensor(Metric):
    """Element-wise (weighted) mean of tensors of one fixed shape.

    Args:
      name: str, default ``'mean_tensor'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      ValueError: If a later update has another shape.
    """

    def __init__(self, name="mean_tensor", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._shape = None
        self._built = False

    def _build(self, shape):
        self._shape = tuple(shape)
        self._total = self.add_weight("total", shape=shape)
        self._count = self.add_weight("count", shape=shape)
        self._built = True

    @property
    def total(self):
        return self._total if self._built else None

    @property
    def count(self):
        return self._count if self._built else None

    def update_state(self, values, sample_weight=None):
        values = cast(convert_to_tensor(values), self._dtype)
        if not self._built:
            self._build(values.shape)
        elif tuple(values.shape) != self._shape:
            raise ValueError(f"MeanTensor input values must always have the same shape. "
                             f"Expected shape (set during the first call): {self._shape}. "
                             f"Got: {tuple(values.shape)}")
        num = ones_like(values)
        if sample_weight is not None:
            sw = cast(convert_to_tensor(sample_weight), self._dtype)
            values, _, sw = squeeze_or_expand_dimensions(values, sample_weight=sw)
            if _broadcastable(sw, values):
                sw = broadcast_to(sw, values.shape)
            else:
                values = reduce_mean(values, axis=list(range(len(sw.shape),
                                                             len(values.shape))))
            num = num * sw
            values = values * sw
        self._total.assign_add(values)
        self._count.assign_add(num)

    def result(self):
        if not self._built:
            raise ValueError("MeanTensor does not have any result yet. Please call the "
                             "MeanTensor instance or use `.update_state(value)` before "
                             "retrieving the result.")
        return divide_no_nan(self._total.read_value(), self._count.read_value())

    def reset_states(self):
        if self._built:
            super().reset_states()


@public(_PUB)
class MeanIoU(Metric):
    """Mean intersection-over-union over ``num_classes`` classes.

    Args:
      num_classes: Positive int: the number of classes (labels and predictions are class
        ids).
      name: str, default ``None``.
      dtype: The result's dtype, default None (float32).
    """

    def __init__(self, num_classes, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.num_classes = num_classes
        self.total_cm = self.add_weight("total_confusion_matrix",
                                        shape=(num_classes, num_classes), dtype="float64")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = reshape(cast(convert_to_tensor(y_true), "int64"), [-1])
        y_pred = reshape(cast(convert_to_tensor(y_pred), "int64"), [-1])
        if sample_weight is None:
            w = cast(ones_like(y_true), "float64")
        else:
            w = reshape(cast(convert_to_tensor(sample_weight), "float64"), [-1])
            w = broadcast_to(w, y_true.shape)
        n = self.num_classes
        cm = scatter_nd(stack([y_true, y_pred], axis=1), w, [n, n])
        self.total_cm.assign_add(cm)

    def result(self):
        cm = self.total_cm.read_value()
        rows = reduce_sum(cm, axis=0)
        cols = reduce_sum(cm, axis=1)
        tp = reduce_sum(cm * convert_to_tensor(np.eye(self.num_classes)), axis=1)
        denom = rows + cols - tp
        valid = reduce_sum(cast(not_equal(denom, 0.0), self._dtype))
        iou = divide_no_nan(tp, denom)
        return divide_no_nan(cast(reduce_sum(iou), self._dtype), valid)

    def get_config(self):
        config = {"num_classes": self.num_classes}
        config.update(super().get_config())
        return config


