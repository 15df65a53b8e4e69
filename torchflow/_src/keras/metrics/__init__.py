"""``tf.keras.metrics``: metric classes, metric functions and ``get``/``serialize``/``deserialize``."""

from __future__ import annotations

from torchflow._src.keras.engine.serialization import lookup_object
from torchflow._src.keras.losses.loss_functions import (
    binary_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    hinge,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from torchflow._src.keras.metrics._all_classes import *  # noqa: F403
from torchflow._src.keras.metrics._all_classes import CLASSES as _MORE
from torchflow._src.keras.metrics._all_classes import cosine_similarity
from torchflow._src.keras.metrics.base_metric import Mean, MeanMetricWrapper, Metric, Reduce, Sum
from torchflow._src.keras.metrics.metric_functions import (
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from torchflow._src.util.api import public

acc = ACC = accuracy
bce = BCE = binary_crossentropy
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh

_FUNCTIONS = dict(
    accuracy=accuracy, acc=acc, ACC=ACC, binary_accuracy=binary_accuracy,
    categorical_accuracy=categorical_accuracy,
    sparse_categorical_accuracy=sparse_categorical_accuracy,
    top_k_categorical_accuracy=top_k_categorical_accuracy,
    sparse_top_k_categorical_accuracy=sparse_top_k_categorical_accuracy,
    binary_crossentropy=binary_crossentropy, bce=bce, BCE=BCE,
    categorical_crossentropy=categorical_crossentropy,
    sparse_categorical_crossentropy=sparse_categorical_crossentropy,
    mean_squared_error=mean_squared_error, mse=mse, MSE=MSE,
    mean_absolute_error=mean_absolute_error, mae=mae, MAE=MAE,
    mean_absolute_percentage_error=mean_absolute_percentage_error, mape=mape, MAPE=MAPE,
    mean_squared_logarithmic_error=mean_squared_logarithmic_error, msle=msle, MSLE=MSLE,
    hinge=hinge, squared_hinge=squared_hinge, categorical_hinge=categorical_hinge,
    kl_divergence=kl_divergence, kld=kld, KLD=KLD,
    kullback_leibler_divergence=kl_divergence, poisson=poisson, log_cosh=log_cosh,
    logcosh=logcosh, cosine_similarity=cosine_similarity,
)


def _objects() -> dict:
    out = {c.__name__: c for c in (Metric, Mean, Sum, MeanMetricWrapper) + tuple(_MORE)}
    out.update(_FUNCTIONS)
    return out


@public("torchflow.keras.metrics")
def serialize(metric):
    """A metric's ``{"class_name", "config"}`` dict, or a metric function's name.

    Args:
      metric: A Keras metric instance.

    Returns:
      A ``{'class_name': ..., 'config': ...}`` dict (a function's name for functions).
    """
    if isinstance(metric, Metric):
        return {"class_name": type(metric).__name__, "config": metric.get_config()}
    name = getattr(metric, "__name__", None)
    if name is None:
        raise ValueError(f"Cannot serialize {metric!r}")
    return name


@public("torchflow.keras.metrics")
def deserialize(config, custom_objects=None):
    """A metric function or ``Metric`` instance from ``serialize``'s output.

    Args:
      config: A ``{'class_name', 'config'}`` dict as ``serialize`` returns (or a name).
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      A new metric.

    Raises:
      ValueError: For an unknown name.
    """
    return lookup_object(config, _objects(), custom_objects, "metric function")


@public("torchflow.keras.metrics")
def get(identifier):
    """A metric from a name, a config dict, a ``Metric`` or a callable.

    Args:
      identifier: A name, a config dict, a metric instance or a callable.

    Returns:
      A metric (instances and callables are returned as they are).

    Raises:
      ValueError: If ``identifier`` cannot be interpreted.
    """
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric function identifier: {identifier}")
