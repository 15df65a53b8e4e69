"""``tf.keras.models.model_from_config`` / ``model_from_json`` / ``model_from_yaml``:
a model (new weights) from its architecture, as ``get_config``/``to_json``/``to_yaml``
wrote it."""

from __future__ import annotations

import json

from torchflow._src.keras.engine.serialization import deserialize_layer
from torchflow._src.util.api import public

_PUB = "torchflow.keras.models"


@public(_PUB)
def model_from_config(config, custom_objects=None):
    """A model (or layer) from a ``{"class_name": ..., "config": ...}`` dict.

    Args:
      config: The dict, as ``tf.keras.layers.serialize(model)`` gives it.
      custom_objects: ``{name: class or function}`` for custom layers and functions.

    Returns:
      The model, with newly initialised weights.

    Raises:
      TypeError: If ``config`` is a list (a Sequential model's bare layer list).
      ValueError: For an unknown class name.
    """
    if isinstance(config, list):
        raise TypeError("`model_from_config` expects a dictionary, not a list. Maybe you meant "
                        "to use `Sequential.from_config(config)`?")
    return deserialize_layer(config, custom_objects)


@public(_PUB)
def model_from_json(json_string, custom_objects=None):
    """A model from the JSON that ``model.to_json()`` wrote (tf.keras' too).

    >>> import torchflow as tf
    >>> model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    >>> tf.keras.models.model_from_json(model.to_json()).layers[0].units
    2

    Args:
      json_string: The JSON document.
      custom_objects: ``{name: class or function}`` for custom layers and functions.

    Returns:
      The model, with newly initialised weights.

    Raises:
      ValueError: For an unknown class name.
    """
    return deserialize_layer(json.loads(json_string), custom_objects)


@public(_PUB)
def model_from_yaml(yaml_string, custom_objects=None):
    """A model from the YAML that ``model.to_yaml()`` wrote.

    Args:
      yaml_string: The YAML document.
      custom_objects: ``{name: class or function}`` for custom layers and functions.

    Returns:
      The model, with newly initialised weights.

    Raises:
      ImportError: If PyYAML is not installed.
    """
    try:
        import yaml
    except ImportError:
        raise ImportError("Requires yaml module installed (`pip install pyyaml`).") from None
    return deserialize_layer(yaml.safe_load(yaml_string), custom_objects)
