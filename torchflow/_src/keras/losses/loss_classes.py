"""The Keras loss classes (``tf.keras.losses.MeanSquaredError`` ...)."""

from __future__ import annotations

from torchflow._src.keras.losses import loss_functions as F
from torchflow._src.keras.losses._utils import Reduction
from torchflow._src.keras.losses.loss import LossFunctionWrapper
from torchflow._src.util.api import public

_PUB = "torchflow.keras.losses"
_AUTO = Reduction.AUTO


@public(_PUB)
class BinaryCrossentropy(LossFunctionWrapper):
    """Binary cross-entropy (``from_logits``, ``label_smoothing``)."""

    def __init__(self, from_logits=False, label_smoothing=0, reduction=_AUTO,
                 name="binary_crossentropy"):
        super().__init__(F.binary_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, label_smoothing=label_smoothing)
        self.from_logits = from_logits


@public(_PUB)
class CategoricalCrossentropy(LossFunctionWrapper):
    """Categorical cross-entropy on one-hot labels (``from_logits``, ``label_smoothing``)."""

    def __init__(self, from_logits=False, label_smoothing=0, reduction=_AUTO,
                 name="categorical_crossentropy"):
        super().__init__(F.categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, label_smoothing=label_smoothing)


@public(_PUB)
class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Categorical cross-entropy on integer labels (``from_logits``)."""

    def __init__(self, from_logits=False, reduction=_AUTO,
                 name="sparse_categorical_crossentropy"):
        super().__init__(F.sparse_categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits)


def _simple(cls_name, fn, default_name, doc):
    def __init__(self, reduction=_AUTO, name=default_name):
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name)

    cls = type(cls_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc})
    return public(_PUB)(cls)


MeanSquaredError = _simple("MeanSquaredError", F.mean_squared_error, "mean_squared_error",
                           "Mean of squared errors over the last axis.")
MeanAbsoluteError = _simple("MeanAbsoluteError", F.mean_absolute_error,
                            "mean_absolute_error", "Mean of absolute errors.")
MeanAbsolutePercentageError = _simple(
    "MeanAbsolutePercentageError", F.mean_absolute_percentage_error,
    "mean_absolute_percentage_error", "Mean absolute percentage error.")
MeanSquaredLogarithmicError = _simple(
    "MeanSquaredLogarithmicError", F.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error", "Mean squared logarithmic error.")
LogCosh = _simple("LogCosh", F.log_cosh, "log_cosh", "Logarithm of the hyperbolic cosine.")
Hinge = _simple("Hinge", F.hinge, "hinge", "Hinge loss.")
SquaredHinge = _simple("SquaredHinge", F.squared_hinge, "squared_hinge", "Squared hinge loss.")
CategoricalHinge = _simple("CategoricalHinge", F.categorical_hinge, "categorical_hinge",
                           "Categorical hinge loss.")
KLDivergence = _simple("KLDivergence", F.kl_divergence, "kl_divergence",
                       "Kullback-Leibler divergence.")
Poisson = _simple("Poisson", F.poisson, "poisson", "Poisson loss.")


@public(_PUB)
class Huber(LossFunctionWrapper):
    """Huber loss: quadratic within ``delta``, linear beyond."""

    def __init__(self, delta=1.0, reduction=_AUTO, name="huber_loss"):
        super().__init__(F.huber, reduction=reduction, name=name, delta=delta)


@public(_PUB)
class CosineSimilarity(LossFunctionWrapper):
    """Negative cosine similarity along ``axis``."""

    def __init__(self, axis=-1, reduction=_AUTO, name="cosine_similarity"):
        super().__init__(F.cosine_similarity, reduction=reduction, name=name, axis=axis)
