"""``tf.keras.layers.Activation``: applies an activation function."""

from __future__ import annotations

from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers import _utils as U
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class Activation(Layer):
    """Applies ``activation`` (a name such as ``"relu"`` or a callable) to its input.

    Args:
      activation: A name (``'relu'``, ``'softmax'`` ...) or a callable taking and returning
        a tensor.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

    >>> import torchflow as tf
    >>> tf.keras.layers.Activation("relu")(tf.constant([-1.0, 2.0])).numpy()
    array([0., 2.], dtype=float32)
    """

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = U.get_act(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["activation"] = U.ser_act(self.activation)
        return config
