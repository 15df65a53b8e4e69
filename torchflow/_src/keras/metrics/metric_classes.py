"""Metrics that average a per-sample function (``tf.keras.metrics.Accuracy`` ...)."""

from __future__ import annotations

from torchflow._src.keras.losses import loss_functions as L
from torchflow._src.keras.metrics import metric_functions as F
from torchflow._src.keras.metrics.base_metric import MeanMetricWrapper
from torchflow._src.ops.reduction_ops import l2_normalize, reduce_sum
from torchflow._src.util.api import public

_PUB = "torchflow.keras.metrics"


def cosine_similarity(y_true, y_pred, axis=-1):
    """Cosine similarity along ``axis`` (1 for identical directions)."""
    y_true = l2_normalize(y_true, axis=axis)
    y_pred = l2_normalize(y_pred, axis=axis)
    return reduce_sum(y_true * y_pred, axis=axis)


def _wrapper(cls_name, fn, default_name, doc, **defaults):
    keys = list(defaults)

    def __init__(self, name=default_name, dtype=None, **kwargs):
        unknown = set(kwargs) - set(keys)
        if unknown:
            raise TypeError(f"{cls_name}: unexpected keyword argument(s) {sorted(unknown)}")
        fn_kwargs = {k: kwargs.get(k, defaults[k]) for k in keys}
        MeanMetricWrapper.__init__(self, fn, name, dtype=dtype, **fn_kwargs)

    cls = type(cls_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc})
    return public(_PUB)(cls)


Accuracy = _wrapper("Accuracy", F.accuracy, "accuracy",
    """How often ``y_pred`` equals ``y_true`` (elementwise).

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'accuracy'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
BinaryAccuracy = _wrapper("BinaryAccuracy", F.binary_accuracy, "binary_accuracy",
    """How often ``y_pred > threshold`` matches binary (0/1) labels.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'binary_accuracy'``.
      dtype: The result's dtype, default None (float32).
      threshold: float, default 0.5: predictions above it count as 1.

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """,
                          threshold=0.5)
CategoricalAccuracy = _wrapper("CategoricalAccuracy", F.categorical_accuracy,
                               "categorical_accuracy",
    """How often the arg-max of ``y_pred`` matches the arg-max of one-hot ``y_true``.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'categorical_accuracy'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
SparseCategoricalAccuracy = _wrapper(
    "SparseCategoricalAccuracy", F.sparse_categorical_accuracy, "sparse_categorical_accuracy",
    """How often the arg-max of ``y_pred`` equals the integer label ``y_true``.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'sparse_categorical_accuracy'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
TopKCategoricalAccuracy = _wrapper(
    "TopKCategoricalAccuracy", F.top_k_categorical_accuracy, "top_k_categorical_accuracy",
    """How often the one-hot target is among the ``k`` highest predictions.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'top_k_categorical_accuracy'``.
      dtype: The result's dtype, default None (float32).
      k: int, default 5: how many top predictions are searched.

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """, k=5)
SparseTopKCategoricalAccuracy = _wrapper(
    "SparseTopKCategoricalAccuracy", F.sparse_top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy",
    """How often the integer target is among the ``k`` highest predictions.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'sparse_top_k_categorical_accuracy'``.
      dtype: The result's dtype, default None (float32).
      k: int, default 5: how many top predictions are searched.

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """, k=5)
MeanSquaredError = _wrapper("MeanSquaredError", L.mean_squared_error, "mean_squared_error",
    """Mean squared error between ``y_true`` and ``y_pred``.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'mean_squared_error'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
MeanAbsoluteError = _wrapper("MeanAbsoluteError", L.mean_absolute_error,
                             "mean_absolute_error",
    """Mean absolute error between ``y_true`` and ``y_pred``.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'mean_absolute_error'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
MeanAbsolutePercentageError = _wrapper(
    "MeanAbsolutePercentageError", L.mean_absolute_percentage_error,
    "mean_absolute_percentage_error",
    """Mean absolute percentage error, ``100 * mean(abs((y_true - y_pred) / y_true))``.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'mean_absolute_percentage_error'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
MeanSquaredLogarithmicError = _wrapper(
    "MeanSquaredLogarithmicError", L.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error",
    """Mean squared logarithmic error, ``mean(square(log(y_pred + 1) - log(y_true + 1)))``.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'mean_squared_logarithmic_error'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
CosineSimilarity = _wrapper("CosineSimilarity", cosine_similarity, "cosine_similarity",
    """Cosine similarity between labels and predictions (1 for identical directions).

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'cosine_similarity'``.
      dtype: The result's dtype, default None (float32).
      axis: int, default -1: the dimension the value is computed along.

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """, axis=-1)
LogCoshError = _wrapper("LogCoshError", L.log_cosh, "logcosh",
    """Logarithm of the hyperbolic cosine of the prediction error.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'logcosh'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
Hinge = _wrapper("Hinge", L.hinge, "hinge",
    """Hinge loss ``mean(maximum(1 - y_true * y_pred, 0))`` as a metric.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'hinge'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
SquaredHinge = _wrapper("SquaredHinge", L.squared_hinge, "squared_hinge",
    """Squared hinge loss as a metric.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'squared_hinge'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
CategoricalHinge = _wrapper("CategoricalHinge", L.categorical_hinge, "categorical_hinge",
    """Categorical hinge loss as a metric.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'categorical_hinge'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
KLDivergence = _wrapper("KLDivergence", L.kl_divergence, "kullback_leibler_divergence",
    """Kullback-Leibler divergence between ``y_true`` and ``y_pred`` distributions.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'kullback_leibler_divergence'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
Poisson = _wrapper("Poisson", L.poisson, "poisson",
    """Poisson loss ``mean(y_pred - y_true * log(y_pred))`` as a metric.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'poisson'``.
      dtype: The result's dtype, default None (float32).

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """)
BinaryCrossentropy = _wrapper("BinaryCrossentropy", L.binary_crossentropy,
                              "binary_crossentropy",
    """Binary cross-entropy between 0/1 labels and predicted probabilities.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'binary_crossentropy'``.
      dtype: The result's dtype, default None (float32).
      from_logits: bool, default False: whether ``y_pred`` holds logits.
      label_smoothing: float in ``[0, 1]``, default 0: smooths the labels towards uniform.

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """,
                              from_logits=False, label_smoothing=0)
CategoricalCrossentropy = _wrapper("CategoricalCrossentropy", L.categorical_crossentropy,
                                   "categorical_crossentropy",
    """Categorical cross-entropy between one-hot labels and predicted probabilities.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'categorical_crossentropy'``.
      dtype: The result's dtype, default None (float32).
      from_logits: bool, default False: whether ``y_pred`` holds logits.
      label_smoothing: float in ``[0, 1]``, default 0: smooths the labels towards uniform.

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """,
                                   from_logits=False, label_smoothing=0)
SparseCategoricalCrossentropy = _wrapper(
    "SparseCategoricalCrossentropy", L.sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy",
    """Categorical cross-entropy between integer labels and predicted probabilities.

    ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch; ``result()``
    is the (weighted) mean of the per-sample values so far, a scalar.

    Args:
      name: str, default ``'sparse_categorical_crossentropy'``.
      dtype: The result's dtype, default None (float32).
      from_logits: bool, default False: whether ``y_pred`` holds logits.
      axis: int, default -1: the dimension the value is computed along.

    Raises:
      TypeError: For a keyword argument the metric does not take.
    """,
    from_logits=False, axis=-1)
