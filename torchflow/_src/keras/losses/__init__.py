"""``tf.keras.losses``: loss classes, loss functions and ``get``/``serialize``/``deserialize``."""

from __future__ import annotations

from torchflow._src.keras.engine.serialization import lookup_object
from torchflow._src.keras.losses._utils import Reduction, compute_weighted_loss
from torchflow._src.keras.losses.loss import Loss, LossFunctionWrapper
from torchflow._src.keras.losses.loss_classes import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from torchflow._src.keras.losses.loss_functions import (
    BCE,
    KLD,
    MAE,
    MAPE,
    MSE,
    MSLE,
    bce,
    binary_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    cosine_similarity,
    hinge,
    huber,
    kl_divergence,
    kld,
    kullback_leibler_divergence,
    log_cosh,
    logcosh,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from torchflow._src.util.api import public

_OBJECTS = {c.__name__: c for c in (
    Loss, LossFunctionWrapper, BinaryCrossentropy, CategoricalCrossentropy, CategoricalHinge,
    CosineSimilarity, Hinge, Huber, KLDivergence, LogCosh, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredError, MeanSquaredLogarithmicError, Poisson,
    SparseCategoricalCrossentropy, SquaredHinge)}
_OBJECTS.update({n: f for n, f in dict(
    binary_crossentropy=binary_crossentropy, categorical_crossentropy=categorical_crossentropy,
    sparse_categorical_crossentropy=sparse_categorical_crossentropy,
    mean_squared_error=mean_squared_error, mean_absolute_error=mean_absolute_error,
    mean_absolute_percentage_error=mean_absolute_percentage_error,
    mean_squared_logarithmic_error=mean_squared_logarithmic_error, hinge=hinge,
    squared_hinge=squared_hinge, categorical_hinge=categorical_hinge, huber=huber,
    log_cosh=log_cosh, logcosh=log_cosh, kl_divergence=kl_divergence, kld=kld, KLD=KLD,
    kullback_leibler_divergence=kl_divergence, poisson=poisson,
    cosine_similarity=cosine_similarity, mse=mse, MSE=MSE, mae=mae, MAE=MAE, mape=mape,
    MAPE=MAPE, msle=msle, MSLE=MSLE, bce=bce, BCE=BCE).items()})


@public("torchflow.keras.losses")
def serialize(loss):
    """A loss's config dict (``{"class_name", "config"}``), or a function's name.

    Args:
      loss: A Keras loss instance.

    Returns:
      A ``{'class_name': ..., 'config': ...}`` dict (a function's name for functions).
    """
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    name = getattr(loss, "__name__", None)
    if name is None:
        raise ValueError(f"Cannot serialize {loss!r}")
    return name


@public("torchflow.keras.losses")
def deserialize(name, custom_objects=None):
    """A loss function or ``Loss`` instance from ``serialize``'s output.

    Args:
      name: A loss name or a ``{'class_name', 'config'}`` dict.
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      A loss function or ``Loss`` instance.

    Raises:
      ValueError: For an unknown name.
    """
    return lookup_object(name, _OBJECTS, custom_objects, "loss function")


@public("torchflow.keras.losses")
def get(identifier):
    """A loss from a name, a config dict, a ``Loss`` or a callable.

    Args:
      identifier: A name, a config dict, a loss instance or a callable.

    Returns:
      A loss (instances and callables are returned as they are).

    Raises:
      ValueError: If ``identifier`` cannot be interpreted.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")
