"""``tf.keras.layers.serialize`` / ``deserialize``."""

from __future__ import annotations

from torchflow._src.keras.engine import serialization
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
def serialize(layer) -> dict:
    """A layer's ``{"class_name": ..., "config": ...}`` dict.

    Args:
      layer: A Keras layer instance.

    Returns:
      A ``{'class_name': ..., 'config': ...}`` dict (a function's name for functions).

    >>> import torchflow as tf
    >>> tf.keras.layers.serialize(tf.keras.layers.Dense(2))["class_name"]
    'Dense'
    """
    return serialization.serialize_layer(layer)


@public("torchflow.keras.layers")
def deserialize(config, custom_objects=None):
    """Builds a layer from ``serialize``'s dict (custom classes by ``custom_objects``
    or ``tf.keras.utils.custom_object_scope``).

    Args:
      config: A ``{'class_name', 'config'}`` dict as ``serialize`` returns (or a name).
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      A new layer.

    Raises:
      ValueError: For an unknown class name.
    """
    return serialization.deserialize_layer(config, custom_objects)
