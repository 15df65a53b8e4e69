"""``Masking`` (marks timesteps equal to ``mask_value`` as padding) and
``ActivityRegularization``."""

from __future__ import annotations

from torchflow._src.keras import regularizers
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.ops.comparison_ops import not_equal
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.reduction_ops import reduce_any
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class Masking(Layer):
    """Masks timesteps whose features all equal ``mask_value``: their outputs are zero
    and downstream mask-aware layers skip them.

    Args:
      mask_value: float, default 0.0: timesteps whose features all equal it are masked.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

    >>> import torchflow as tf
    >>> y = tf.keras.layers.Masking(0.0)(tf.constant([[[1.0], [0.0]]]))
    >>> y._keras_mask.numpy()
    array([[ True, False]])
    """

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * cast(keep, inputs.dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["mask_value"] = self.mask_value
        return config


@public("torchflow.keras.layers")
class ActivityRegularization(Layer):
    """The identity, adding ``l1 * sum(|x|) + l2 * sum(x**2)`` (per batch element) to the
    layer's losses.

    Args:
      l1: float >= 0, default 0.0: the L1 factor.
      l2: float >= 0, default 0.0: the L2 factor.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"l1": self.l1, "l2": self.l2})
        return config
