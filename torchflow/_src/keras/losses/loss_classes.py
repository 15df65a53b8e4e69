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
    """Binary cross-entropy between 0/1 labels and predicted probabilities (or logits).

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      from_logits: bool, default False: whether ``y_pred`` holds logits.
      label_smoothing: float in ``[0, 1]``, default 0: smooths the labels towards uniform.
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'binary_crossentropy'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """

    def __init__(self, from_logits=False, label_smoothing=0, reduction=_AUTO,
                 name="binary_crossentropy"):
        super().__init__(F.binary_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, label_smoothing=label_smoothing)
        self.from_logits = from_logits


@public(_PUB)
class CategoricalCrossentropy(LossFunctionWrapper):
    """Categorical cross-entropy between one-hot labels and predicted class probabilities.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      from_logits: bool, default False: whether ``y_pred`` holds logits.
      label_smoothing: float in ``[0, 1]``, default 0: smooths the labels towards uniform.
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'categorical_crossentropy'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """

    def __init__(self, from_logits=False, label_smoothing=0, reduction=_AUTO,
                 name="categorical_crossentropy"):
        super().__init__(F.categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, label_smoothing=label_smoothing)


@public(_PUB)
class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Categorical cross-entropy between integer class labels and predicted class probabilities.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      from_logits: bool, default False: whether ``y_pred`` holds logits.
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'sparse_categorical_crossentropy'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """

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
    """Mean of squared errors over the last axis: ``mean(square(y_true - y_pred))``.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'mean_squared_error'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
MeanAbsoluteError = _simple("MeanAbsoluteError", F.mean_absolute_error,
                            "mean_absolute_error",
    """Mean of absolute errors over the last axis: ``mean(abs(y_true - y_pred))``.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'mean_absolute_error'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
MeanAbsolutePercentageError = _simple(
    "MeanAbsolutePercentageError", F.mean_absolute_percentage_error,
    "mean_absolute_percentage_error",
    """Mean absolute percentage error: ``100 * mean(abs((y_true - y_pred) / y_true))``.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'mean_absolute_percentage_error'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
MeanSquaredLogarithmicError = _simple(
    "MeanSquaredLogarithmicError", F.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error",
    """Mean squared logarithmic error: ``mean(square(log(y_pred + 1) - log(y_true + 1)))``.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'mean_squared_logarithmic_error'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
LogCosh = _simple("LogCosh", F.log_cosh, "log_cosh",
    """Logarithm of the hyperbolic cosine of the error, ``mean(log(cosh(y_pred - y_true)))``.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'log_cosh'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
Hinge = _simple("Hinge", F.hinge, "hinge",
    """Hinge loss ``mean(maximum(1 - y_true * y_pred, 0))``; 0/1 labels become -1/1.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'hinge'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
SquaredHinge = _simple("SquaredHinge", F.squared_hinge, "squared_hinge",
    """Squared hinge loss ``mean(square(maximum(1 - y_true * y_pred, 0)))``; 0/1 labels become -1/1.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'squared_hinge'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
CategoricalHinge = _simple("CategoricalHinge", F.categorical_hinge, "categorical_hinge",
    """Categorical hinge loss ``maximum(neg - pos + 1, 0)`` for one-hot labels.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'categorical_hinge'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
KLDivergence = _simple("KLDivergence", F.kl_divergence, "kl_divergence",
    """Kullback-Leibler divergence ``sum(y_true * log(y_true / y_pred))`` over the last axis.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'kl_divergence'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)
Poisson = _simple("Poisson", F.poisson, "poisson",
    """Poisson loss ``mean(y_pred - y_true * log(y_pred))`` over the last axis.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'poisson'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """)


@public(_PUB)
class Huber(LossFunctionWrapper):
    """Huber loss: ``0.5 * e**2`` for ``|e| <= delta``, ``delta * (|e| - 0.5 * delta)`` beyond.

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      delta: float, default 1.0: where the loss turns linear.
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'huber_loss'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """

    def __init__(self, delta=1.0, reduction=_AUTO, name="huber_loss"):
        super().__init__(F.huber, reduction=reduction, name=name, delta=delta)


@public(_PUB)
class CosineSimilarity(LossFunctionWrapper):
    """Negative cosine similarity between ``y_true`` and ``y_pred`` along ``axis`` (-1 is best).

    Calling the loss, ``loss(y_true, y_pred, sample_weight=None)``, returns a float
    scalar (or per-sample losses with ``Reduction.NONE``).

    Args:
      axis: int, default -1: the dimension the similarity is taken along.
      reduction: A ``tf.keras.losses.Reduction``, default ``AUTO`` (``SUM_OVER_BATCH_SIZE``
        outside distribution strategies).
      name: str, default ``'cosine_similarity'``.

    Raises:
      ValueError: For an unknown ``reduction``.
    """

    def __init__(self, axis=-1, reduction=_AUTO, name="cosine_similarity"):
        super().__init__(F.cosine_similarity, reduction=reduction, name=name, axis=axis)
