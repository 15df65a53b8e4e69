"""``tf.keras.initializers``: classes plus ``get``/``serialize``/``deserialize``."""

from __future__ import annotations

from torchflow._src.keras.engine.serialization import get_registered_object
from torchflow._src.keras.initializers.initializers_v2 import (
    Constant,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    Identity,
    Initializer,
    LecunNormal,
    LecunUniform,
    Ones,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    Zeros,
)
from torchflow._src.util.api import public

_CLASSES = {c.__name__: c for c in (
    Constant, GlorotNormal, GlorotUniform, HeNormal, HeUniform, Identity, Initializer,
    LecunNormal, LecunUniform, Ones, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal,
    VarianceScaling, Zeros)}
_ALIASES = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform,
    "he_normal": HeNormal, "he_uniform": HeUniform, "orthogonal": Orthogonal,
    "identity": Identity, "uniform": RandomUniform, "normal": RandomNormal,
}


@public("torchflow.keras.initializers")
def serialize(initializer) -> dict:
    """``{"class_name": ..., "config": ...}`` for an initializer.

    Args:
      initializer: A Keras initializer instance.

    Returns:
      A ``{'class_name': ..., 'config': ...}`` dict (a function's name for functions).
    """
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


@public("torchflow.keras.initializers")
def deserialize(config, custom_objects=None):
    """An initializer from ``serialize``'s output (or a name).

    Args:
      config: A ``{'class_name', 'config'}`` dict as ``serialize`` returns (or a name).
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      A new initializer.

    Raises:
      ValueError: For an unknown class name.
    """
    if isinstance(config, str):
        return get(config)
    name = config["class_name"]
    cls = get_registered_object(name, custom_objects) or _CLASSES.get(name) or \
        _ALIASES.get(name)
    if cls is None:
        raise ValueError(f"Unknown initializer: {name}. Please ensure this object is passed to "
                         f"the `custom_objects` argument.")
    return cls.from_config(dict(config.get("config", {})))


@public("torchflow.keras.initializers")
def get(identifier):
    """An initializer from a name, a config dict, an instance or a callable.

    Args:
      identifier: A name, a config dict, a initializer instance or a callable.

    Returns:
      A initializer (instances and callables are returned as they are).

    Raises:
      ValueError: If ``identifier`` cannot be interpreted.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _ALIASES.get(identifier) or _CLASSES.get(identifier)
        if cls is None:
            cls = get_registered_object(identifier)
        if cls is None:
            raise ValueError(f"Unknown initializer: {identifier}. Please ensure this object is "
                             f"passed to the `custom_objects` argument.")
        return cls()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")
