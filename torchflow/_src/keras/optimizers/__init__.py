"""``tf.keras.optimizers``: optimizers and ``get``/``serialize``/``deserialize``."""

from __future__ import annotations

from torchflow._src.keras.engine.serialization import get_registered_object
from torchflow._src.keras.optimizers.adadelta import Adadelta
from torchflow._src.keras.optimizers.adagrad import Adagrad
from torchflow._src.keras.optimizers.adam import Adam
from torchflow._src.keras.optimizers.adamax import Adamax
from torchflow._src.keras.optimizers.ftrl import Ftrl
from torchflow._src.keras.optimizers.gradient_descent import SGD
from torchflow._src.keras.optimizers.nadam import Nadam
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer, OptimizerV2
from torchflow._src.keras.optimizers.rmsprop import RMSprop
from torchflow._src.util.api import public

_CLASSES = {c.__name__.lower(): c for c in (Adadelta, Adagrad, Adam, Adamax, Ftrl, SGD, Nadam,
                                             RMSprop)}


def _lso():
    # cycle: LossScaleOptimizer serializes its inner optimizer through this package.
    from torchflow._src.keras.mixed_precision.loss_scale_optimizer import LossScaleOptimizer

    return LossScaleOptimizer


@public("torchflow.keras.optimizers")
def serialize(optimizer):
    """``{"class_name", "config"}`` of an optimizer.

    Args:
      optimizer: A Keras optimizer instance.

    Returns:
      A ``{'class_name': ..., 'config': ...}`` dict (a function's name for functions).
    """
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


@public("torchflow.keras.optimizers")
def deserialize(config, custom_objects=None):
    """An optimizer from ``serialize``'s output (class names are case-insensitive).

    Args:
      config: A ``{'class_name', 'config'}`` dict as ``serialize`` returns (or a name).
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      A new optimizer.

    Raises:
      ValueError: For an unknown class name.
    """
    name = config["class_name"]
    cls = get_registered_object(name, custom_objects)
    if cls is None:
        classes = dict(_CLASSES)
        classes["lossscaleoptimizer"] = _lso()
        cls = classes.get(name.lower())
    if cls is None:
        raise ValueError(f"Unknown optimizer: {name}. Please ensure this object is passed to "
                         f"the `custom_objects` argument.")
    cfg = dict(config.get("config", {}))
    if cls is _lso():
        return cls.from_config(cfg, custom_objects=custom_objects)
    return cls.from_config(cfg)


@public("torchflow.keras.optimizers")
def get(identifier):
    """An optimizer from a name (``'adam'``), a config dict or an instance.

    Args:
      identifier: A name, a config dict, a optimizer instance or a callable.

    Returns:
      A optimizer (instances and callables are returned as they are).

    Raises:
      ValueError: If ``identifier`` cannot be interpreted.
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": str(identifier), "config": {}})
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
