"""``tf.keras.metrics``."""

from torchflow._src.keras.metrics import binary_crossentropy as BCE
from torchflow._src.keras.metrics import binary_crossentropy as bce
from torchflow._src.keras.metrics import binary_crossentropy as binary_crossentropy
from torchflow._src.keras.metrics import categorical_crossentropy as categorical_crossentropy
from torchflow._src.keras.metrics import categorical_hinge as categorical_hinge
from torchflow._src.keras.metrics import deserialize as deserialize
from torchflow._src.keras.metrics import get as get
from torchflow._src.keras.metrics import hinge as hinge
from torchflow._src.keras.metrics import kl_divergence as KLD
from torchflow._src.keras.metrics import kl_divergence as kl_divergence
from torchflow._src.keras.metrics import kl_divergence as kld
from torchflow._src.keras.metrics import kl_divergence as kullback_leibler_divergence
from torchflow._src.keras.metrics import log_cosh as log_cosh
from torchflow._src.keras.metrics import log_cosh as logcosh
from torchflow._src.keras.metrics import mean_absolute_error as MAE
from torchflow._src.keras.metrics import mean_absolute_error as mae
from torchflow._src.keras.metrics import mean_absolute_error as mean_absolute_error
from torchflow._src.keras.metrics import mean_absolute_percentage_error as MAPE
from torchflow._src.keras.metrics import mean_absolute_percentage_error as mape
from torchflow._src.keras.metrics import (
    mean_absolute_percentage_error as mean_absolute_percentage_error,
)
from torchflow._src.keras.metrics import mean_squared_error as MSE
from torchflow._src.keras.metrics import mean_squared_error as mean_squared_error
from torchflow._src.keras.metrics import mean_squared_error as mse
from torchflow._src.keras.metrics import mean_squared_logarithmic_error as MSLE
from torchflow._src.keras.metrics import (
    mean_squared_logarithmic_error as mean_squared_logarithmic_error,
)
from torchflow._src.keras.metrics import mean_squared_logarithmic_error as msle
from torchflow._src.keras.metrics import poisson as poisson
from torchflow._src.keras.metrics import serialize as serialize
from torchflow._src.keras.metrics import (
    sparse_categorical_crossentropy as sparse_categorical_crossentropy,
)
from torchflow._src.keras.metrics import squared_hinge as squared_hinge
from torchflow._src.keras.metrics.auc import AUC as AUC
from torchflow._src.keras.metrics.base_metric import Mean as Mean
from torchflow._src.keras.metrics.base_metric import MeanMetricWrapper as MeanMetricWrapper
from torchflow._src.keras.metrics.base_metric import Metric as Metric
from torchflow._src.keras.metrics.base_metric import Sum as Sum
from torchflow._src.keras.metrics.confusion_metrics import FalseNegatives as FalseNegatives
from torchflow._src.keras.metrics.confusion_metrics import FalsePositives as FalsePositives
from torchflow._src.keras.metrics.confusion_metrics import Precision as Precision
from torchflow._src.keras.metrics.confusion_metrics import PrecisionAtRecall as PrecisionAtRecall
from torchflow._src.keras.metrics.confusion_metrics import Recall as Recall
from torchflow._src.keras.metrics.confusion_metrics import RecallAtPrecision as RecallAtPrecision
from torchflow._src.keras.metrics.confusion_metrics import (
    SensitivityAtSpecificity as SensitivityAtSpecificity,
)
from torchflow._src.keras.metrics.confusion_metrics import (
    SpecificityAtSensitivity as SpecificityAtSensitivity,
)
from torchflow._src.keras.metrics.confusion_metrics import TrueNegatives as TrueNegatives
from torchflow._src.keras.metrics.confusion_metrics import TruePositives as TruePositives
from torchflow._src.keras.metrics.metric_classes import Accuracy as Accuracy
from torchflow._src.keras.metrics.metric_classes import BinaryAccuracy as BinaryAccuracy
from torchflow._src.keras.metrics.metric_classes import BinaryCrossentropy as BinaryCrossentropy
from torchflow._src.keras.metrics.metric_classes import CategoricalAccuracy as CategoricalAccuracy
from torchflow._src.keras.metrics.metric_classes import (
    CategoricalCrossentropy as CategoricalCrossentropy,
)
from torchflow._src.keras.metrics.metric_classes import CategoricalHinge as CategoricalHinge
from torchflow._src.keras.metrics.metric_classes import CosineSimilarity as CosineSimilarity
from torchflow._src.keras.metrics.metric_classes import Hinge as Hinge
from torchflow._src.keras.metrics.metric_classes import KLDivergence as KLDivergence
from torchflow._src.keras.metrics.metric_classes import LogCoshError as LogCoshError
from torchflow._src.keras.metrics.metric_classes import MeanAbsoluteError as MeanAbsoluteError
from torchflow._src.keras.metrics.metric_classes import (
    MeanAbsolutePercentageError as MeanAbsolutePercentageError,
)
from torchflow._src.keras.metrics.metric_classes import MeanSquaredError as MeanSquaredError
from torchflow._src.keras.metrics.metric_classes import (
    MeanSquaredLogarithmicError as MeanSquaredLogarithmicError,
)
from torchflow._src.keras.metrics.metric_classes import Poisson as Poisson
from torchflow._src.keras.metrics.metric_classes import (
    SparseCategoricalAccuracy as SparseCategoricalAccuracy,
)
from torchflow._src.keras.metrics.metric_classes import (
    SparseCategoricalCrossentropy as SparseCategoricalCrossentropy,
)
from torchflow._src.keras.metrics.metric_classes import (
    SparseTopKCategoricalAccuracy as SparseTopKCategoricalAccuracy,
)
from torchflow._src.keras.metrics.metric_classes import SquaredHinge as SquaredHinge
from torchflow._src.keras.metrics.metric_classes import (
    TopKCategoricalAccuracy as TopKCategoricalAccuracy,
)
from torchflow._src.keras.metrics.metric_classes import cosine_similarity as cosine_similarity
from torchflow._src.keras.metrics.metric_functions import accuracy as ACC
from torchflow._src.keras.metrics.metric_functions import accuracy as acc
from torchflow._src.keras.metrics.metric_functions import accuracy as accuracy
from torchflow._src.keras.metrics.metric_functions import binary_accuracy as binary_accuracy
from torchflow._src.keras.metrics.metric_functions import (
    categorical_accuracy as categorical_accuracy,
)
from torchflow._src.keras.metrics.metric_functions import (
    sparse_categorical_accuracy as sparse_categorical_accuracy,
)
from torchflow._src.keras.metrics.metric_functions import (
    sparse_top_k_categorical_accuracy as sparse_top_k_categorical_accuracy,
)
from torchflow._src.keras.metrics.metric_functions import (
    top_k_categorical_accuracy as top_k_categorical_accuracy,
)
from torchflow._src.keras.metrics.other_metrics import MeanIoU as MeanIoU
from torchflow._src.keras.metrics.other_metrics import MeanRelativeError as MeanRelativeError
from torchflow._src.keras.metrics.other_metrics import MeanTensor as MeanTensor
from torchflow._src.keras.metrics.other_metrics import RootMeanSquaredError as RootMeanSquaredError
