"""Every metric class beyond the base ones (imported by the package)."""

from torchflow._src.keras.metrics.auc import AUC
from torchflow._src.keras.metrics.confusion_metrics import (
    FalseNegatives,
    FalsePositives,
    Precision,
    PrecisionAtRecall,
    Recall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
    TrueNegatives,
    TruePositives,
)
from torchflow._src.keras.metrics.metric_classes import (
    Accuracy,
    BinaryAccuracy,
    BinaryCrossentropy,
    CategoricalAccuracy,
    CategoricalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    KLDivergence,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalAccuracy,
    SparseCategoricalCrossentropy,
    SparseTopKCategoricalAccuracy,
    SquaredHinge,
    TopKCategoricalAccuracy,
    cosine_similarity,
)
from torchflow._src.keras.metrics.other_metrics import (
    MeanIoU,
    MeanRelativeError,
    MeanTensor,
    RootMeanSquaredError,
)

CLASSES = (
    AUC, FalseNegatives, FalsePositives, Precision, PrecisionAtRecall, Recall,
    RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity, TrueNegatives,
    TruePositives, Accuracy, BinaryAccuracy, BinaryCrossentropy, CategoricalAccuracy,
    CategoricalCrossentropy, CategoricalHinge, CosineSimilarity, Hinge, KLDivergence,
    LogCoshError, MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredError,
    MeanSquaredLogarithmicError, Poisson, SparseCategoricalAccuracy,
    SparseCategoricalCrossentropy, SparseTopKCategoricalAccuracy, SquaredHinge,
    TopKCategoricalAccuracy, MeanIoU, MeanRelativeError, MeanTensor, RootMeanSquaredError,
)

__all__ = [c.__name__ for c in CLASSES] + ["cosine_similarity"]
