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
                    "How often predictions equal labels.")
BinaryAccuracy = _wrapper("BinaryAccuracy", F.binary_accuracy, "binary_accuracy",
                          "How often ``y_pred > threshold`` matches binary labels.",
                          threshold=0.5)
CategoricalAccuracy = _wrapper("CategoricalAccuracy", F.categorical_accuracy,
                               "categorical_accuracy",
                               "How often the arg-max matches one-hot labels.")
SparseCategoricalAccuracy = _wrapper(
    "SparseCategoricalAccuracy", F.sparse_categorical_accuracy, "sparse_categorical_accuracy",
    "How often the arg-max matches integer labels.")
TopKCategoricalAccuracy = _wrapper(
    "TopKCategoricalAccuracy", F.top_k_categorical_accuracy, "top_k_categorical_accuracy",
    "How often one-hot targets are in the top ``k`` predictions.", k=5)
SparseTopKCategoricalAccuracy = _wrapper(
    "SparseTopKCategoricalAccuracy", F.sparse_top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy",
    "How often integer targets are in the top ``k`` predictions.", k=5)
MeanSquaredError = _wrapper("MeanSquaredError", L.mean_squared_error, "mean_squared_error",
                            "Mean squared error.")
MeanAbsoluteError = _wrapper("MeanAbsoluteError", L.mean_absolute_error,
                             "mean_absolute_error", "Mean absolute error.")
MeanAbsolutePercentageError = _wrapper(
    "MeanAbsolutePercentageError", L.mean_absolute_percentage_error,
    "mean_absolute_percentage_error", "Mean absolute percentage error.")
MeanSquaredLogarithmicError = _wrapper(
    "MeanSquaredLogarithmicError", L.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error", "Mean squared logarithmic error.")
CosineSimilarity = _wrapper("CosineSimilarity", cosine_similarity, "cosine_similarity",
                            "Cosine similarity between labels and predictions.", axis=-1)
LogCoshError = _wrapper("LogCoshError", L.log_cosh, "logcosh",
                        "Logarithm of the hyperbolic cosine of the error.")
Hinge = _wrapper("Hinge", L.hinge, "hinge", "Hinge loss as a metric.")
SquaredHinge = _wrapper("SquaredHinge", L.squared_hinge, "squared_hinge",
                        "Squared hinge loss as a metric.")
CategoricalHinge = _wrapper("CategoricalHinge", L.categorical_hinge, "categorical_hinge",
                            "Categorical hinge loss as a metric.")
KLDivergence = _wrapper("KLDivergence", L.kl_divergence, "kullback_leibler_divergence",
                        "Kullback-Leibler divergence.")
Poisson = _wrapper("Poisson", L.poisson, "poisson", "Poisson loss as a metric.")
BinaryCrossentropy = _wrapper("BinaryCrossentropy", L.binary_crossentropy,
                              "binary_crossentropy", "Binary cross-entropy.",
                              from_logits=False, label_smoothing=0)
CategoricalCrossentropy = _wrapper("CategoricalCrossentropy", L.categorical_crossentropy,
                                   "categorical_crossentropy", "Categorical cross-entropy.",
                                   from_logits=False, label_smoothing=0)
SparseCategoricalCrossentropy = _wrapper(
    "SparseCategoricalCrossentropy", L.sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy", "Sparse categorical cross-entropy.",
    from_logits=False, axis=-1)
