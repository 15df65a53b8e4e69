"""``tf.keras.metrics.Metric`` and the reducing metrics ``Sum``, ``Mean``, ``MeanMetricWrapper``.

Metric state lives in non-trainable variables created with
``synchronization=ON_READ`` and ``aggregation=SUM`` (strategies sum replicas'
states on read). Nothing is updated while Keras runs layers on placeholders
(``in_symbolic_pass()``).
"""

from __future__ import annotations

import functools

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor, executing_eagerly
from torchflow._src.core.variables import VariableAggregation, VariableSynchronization
from torchflow._src.distribute import ds_context
from torchflow._src.keras import backend
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.functional_utils import in_symbolic_pass
from torchflow._src.keras.losses._utils import squeeze_or_expand_dimensions
from torchflow._src.keras.metrics.metric_functions import (
    sparse_categorical_accuracy as _sparse_accuracy,
)
from torchflow._src.ops.array_ops import squeeze
from torchflow._src.ops.comparison_ops import equal
from torchflow._src.ops.creation_ops import cast, zeros
from torchflow._src.ops.gather_ops import where
from torchflow._src.ops.reduction_ops import argmax, reduce_mean, reduce_sum
from torchflow._src.ops.shape_ops import broadcast_to, size
from torchflow._src.util.api import public

_PUB = "torchflow.keras.metrics"


def _cross_replica_result(fn):
    """tf.distribute: ``result()`` called in a replica of a strategy runs once in
    cross-replica context (``merge_call``), so it reads the state aggregated over
    all replicas, as TF's ``result_wrapper`` does."""

    @functools.wraps(fn)
    def result(self):
        ctx = ds_context.current_replica()
        if ctx is None:
            return fn(self)
        return ctx.merge_call(lambda strategy: fn(self))

    result._metric_cross_replica = True
    return result


def _guard_update(fn):
    @functools.wraps(fn)
    def update_state(self, *args, **kwargs):
        if in_symbolic_pass():
            return None
        return fn(self, *args, **kwargs)

    update_state._metric_guarded = True
    return update_state


@public(_PUB)
class Metric(Layer):
    """Base class of stateful metrics: ``update_state`` accumulates, ``result`` reads.

    Args:
      name: The metric name.
      dtype: The dtype of the metric's state and result (default floatx).

    Subclasses create state in ``__init__`` with ``add_weight`` and implement
    ``update_state(*args, sample_weight=None)`` and ``result()``.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fn = cls.__dict__.get("update_state")
        if fn is not None and not getattr(fn, "_metric_guarded", False):
            cls.update_state = _guard_update(fn)
        fn = cls.__dict__.get("result")
        if fn is not None and not getattr(fn, "_metric_cross_replica", False):
            cls.result = _cross_replica_result(fn)

    def __init__(self, name=None, dtype=None, **kwargs):
        dt = backend.floatx() if dtype is None else dtypes.as_dtype(dtype).name
        super().__init__(name=name, dtype=dt, **kwargs)
        self.stateful = True
        self.built = True
        self._dtype = dt

    @property
    def dtype(self):
        return self._dtype

    def __call__(self, *args, **kwargs):
        """``update_state(*args, **kwargs)`` then ``result()``."""
        self.update_state(*args, **kwargs)
        return self.result()

    def update_state(self, *args, **kwargs):
        """Accumulates statistics for the metric; subclasses implement it.

        Called by ``__call__`` and by ``fit``/``evaluate`` after each batch; it only
        updates the state variables (``add_weight``) and is skipped while Keras runs
        layers on placeholders.

        Args:
          *args: The subclass's inputs, usually ``y_true, y_pred``.
          **kwargs: Usually ``sample_weight``.

        Raises:
          NotImplementedError: in the base class.
        """
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self):
        """The metric's value from its state; subclasses implement it.

        Under a ``tf.distribute`` strategy it is computed once from the state summed over
        replicas.

        Returns:
          A scalar Tensor (or a structure of them).

        Raises:
          NotImplementedError: in the base class.
        """
        raise NotImplementedError("Must be implemented in subclasses.")

    def reset_states(self) -> None:
        """Sets every state variable back to zero.

        ``fit`` and ``evaluate`` call it at the start of each epoch and run.
        """
        for v in self.variables:
            v.assign(zeros(v.shape, dtype=v.dtype))

    def reset_state(self) -> None:
        """Sets every state variable back to zero; the newer name of ``reset_states``.

        Subclasses with non-zero initial states override ``reset_states``.
        """
        self.reset_states()

    def add_weight(self, name, shape=(), aggregation=VariableAggregation.SUM,
                   synchronization=VariableSynchronization.ON_READ, initializer=None,
                   dtype=None):
        """Adds a non-trainable state variable (ON_READ, aggregated by ``aggregation``).

        Args:
          name: str, the variable's name.
          shape: The shape, default ``()`` (a scalar).
          aggregation: ``tf.VariableAggregation``, default SUM: how replicas' values combine.
          synchronization: ``tf.VariableSynchronization``, default ON_READ.
          initializer: None (zeros) or an initializer.
          dtype: None (the metric's dtype) or a dtype.

        Returns:
          The new ``tf.Variable``.
        """
        return super().add_weight(
            name=name, shape=shape, dtype=self._dtype if dtype is None else dtype,
            trainable=False, initializer=initializer or "zeros",
            synchronization=synchronization, aggregation=aggregation,
            experimental_autocast=False)

    def get_config(self) -> dict:
        """The metric's config: its ``name`` and ``dtype`` (subclasses add their arguments).

        Returns:
          A dict that ``from_config`` turns back into a metric.
        """
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        """A metric from ``get_config()``'s dict: ``cls(**config)``.

        Args:
          config: The dict ``get_config`` returned.

        Returns:
          A new metric with zeroed state.
        """
        return cls(**config)


def _num_elements(t) -> int:
    n = 1
    for d in t.shape:
        n *= int(d)
    return n


def _broadcastable(sw, values) -> bool:
    if len(sw.shape) == 0:
        return True
    if len(sw.shape) != len(values.shape):
        return False
    return all(int(a) in (1, int(b)) for a, b in zip(sw.shape, values.shape))


class Reduce(Metric):
    """Reduces values into a total (and a count) by ``reduction``."""

    def __init__(self, reduction, name, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self._n_cache = {}
        self.total = self.add_weight("total", initializer="zeros")
        if reduction in ("sum_over_batch_size", "weighted_mean"):
            self.count = self.add_weight("count", initializer="zeros")

    def update_state(self, values, sample_weight=None):
        values = convert_to_tensor(values)
        if values.dtype.name != self._dtype:
            values = cast(values, self._dtype)
        if sample_weight is not None:
            sample_weight = cast(convert_to_tensor(sample_weight), self._dtype)
            values, _, sample_weight = squeeze_or_expand_dimensions(
                values, sample_weight=sample_weight)
            if _broadcastable(sample_weight, values):
                sample_weight = broadcast_to(sample_weight, values.shape)
            else:
                axes = list(range(len(sample_weight.shape), len(values.shape)))
                red = reduce_sum if self.reduction == "sum" else reduce_mean
                values = red(values, axis=axes)
            values = values * sample_weight
        self.total.assign_add(reduce_sum(values))
        if self.reduction == "sum":
            return
        if self.reduction == "sum_over_batch_size" or sample_weight is None:
            self.count.assign_add(self._count_of(values))
        else:
            self.count.assign_add(reduce_sum(sample_weight))

    def _count_of(self, values):
        """The element count of ``values`` as a tensor of the metric's dtype."""
        if not executing_eagerly():  # a trace's sizes are its call's: count at run time
            return cast(size(values), self._dtype)
        return self._count_constant(_num_elements(values))

    def _count_constant(self, n):
        c = self._n_cache.get(n)
        if c is None:  # a constant per batch size, made once
            c = convert_to_tensor(float(n), dtype=self._dtype)
            if len(self._n_cache) < 16:
                self._n_cache[n] = c
        return c

    @_guard_update
    def _update_weighted_scalar(self, value, n: int):
        """``update_state(value, sample_weight=n)`` for a scalar Tensor ``value`` and a
        Python int ``n`` (the compiled loss's per-batch update), without building the
        weight tensor each step."""
        if type(value) is not Tensor or value.shape.rank != 0:
            return self.update_state(value, sample_weight=n)
        if value._dtype.name != self._dtype:
            value = cast(value, self._dtype)
        c = self._count_constant(n)
        self.total.assign_add(value * c)
        if self.reduction != "sum":
            self.count.assign_add(c)

    def result(self):
        if self.reduction == "sum":
            return self.total.read_value()
        return safe_div(self.total.read_value(), self.count.read_value())


def _sparse_accuracy_fast(metric, y_true, y_pred) -> bool:
    """``sparse_categorical_accuracy`` into ``metric`` comparing integer labels with
    the arg-max directly (TF casts both to float first: the same answer while the
    class count stays below 2**24, where float32 holds every integer exactly).
    False (nothing done) when the inputs are not the plain case."""
    td, pd = y_true._dtype, y_pred._dtype
    if not (td.is_integer and pd.is_floating):
        return False
    pr = y_pred.ndim
    if pr < 1 or y_pred.shape[-1] is None or y_pred.shape[-1] >= 2 ** 24:
        return False
    tr = y_true.ndim
    if tr == pr and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, [-1])
    elif tr != pr - 1:
        return False
    pred = argmax(y_pred, -1, output_type=td) if td in (dtypes.int32, dtypes.int64) else \
        cast(argmax(y_pred, -1), td)
    matches = cast(equal(y_true, pred), metric._dtype)
    metric.total.assign_add(reduce_sum(matches))
    metric.count.assign_add(metric._count_of(matches))
    return True


def safe_div(num, den):
    """``divide_no_nan`` in three cheap ops (0 where ``den`` is 0)."""
    return where(equal(den, 0.0), num * 0.0, num / den)


@public(_PUB)
class Sum(Reduce):
    """The (weighted) sum of the given values.

    Args:
      name: str, default ``'sum'``.
      dtype: The result's dtype, default None (float32).

    >>> import torchflow as tf
    >>> m = tf.keras.metrics.Sum()
    >>> m.update_state([1, 3, 5, 7])
    >>> float(m.result())
    16.0
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(reduction="sum", name=name, dtype=dtype)


@public(_PUB)
class Mean(Reduce):
    """The (weighted) mean of the given values.

    Args:
      name: str, default ``'mean'``.
      dtype: The result's dtype, default None (float32).

    >>> import torchflow as tf
    >>> m = tf.keras.metrics.Mean()
    >>> m.update_state([1, 3, 5, 7])
    >>> float(m.result())
    4.0
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(reduction="weighted_mean", name=name, dtype=dtype)


@public(_PUB)
class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over all updates.

    Args:
      fn: The per-sample metric function.
      name: The metric name.
      dtype: The state dtype.
      **kwargs: Passed to ``fn``.
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = convert_to_tensor(y_true)
        y_pred = convert_to_tensor(y_pred)
        if self._fn is _sparse_accuracy and sample_weight is None and not self._fn_kwargs \
                and self.reduction == "weighted_mean" and self._dtype == "float32" and \
                _sparse_accuracy_fast(self, y_true, y_pred):
            return None
        if y_true.dtype.name != self._dtype:
            y_true = cast(y_true, self._dtype)
        if y_pred.dtype.name != self._dtype:
            y_pred = cast(y_pred, self._dtype)
        y_pred, y_true, _ = squeeze_or_expand_dimensions(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(matches, sample_weight=sample_weight)

    def get_config(self) -> dict:
        config = {k: (v.numpy() if hasattr(v, "numpy") else v)
                  for k, v in self._fn_kwargs.items()}
        config.update(super().get_config())
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if cls is MeanMetricWrapper:
            # cycle: the metrics package imports this module.
            from torchflow._src.keras.metrics import get

            fn = get(config.pop("fn"))
            return cls(fn, **config)
        return cls(**config)
