"""``Dropout`` and ``SpatialDropout1D/2D/3D``: random zeroing in training only."""

from __future__ import annotations

from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.nn_ops import dropout
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class Dropout(Layer):
    """Sets inputs to 0 with probability ``rate`` in training and scales the rest by
    ``1 / (1 - rate)``; the identity at inference.

    Args:
      rate: Fraction of the inputs to drop, in [0, 1].
      noise_shape: Shape of the binary mask (``None`` entries: the input's size).
      seed: Random seed.
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value "
                             f"between 0 and 1.")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def _get_noise_shape(self, inputs):
        # None entries take the input's size at run time (tf.nn.dropout reads it), so
        # a traced call keeps an unknown batch size out of its graph.
        return None if self.noise_shape is None else list(self.noise_shape)

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        if self.rate >= 1:
            return inputs * 0.0
        return dropout(inputs, self.rate, noise_shape=self._get_noise_shape(inputs),
                       seed=self.seed)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed})
        return config


class _SpatialDropout(Dropout):
    _rank = 1

    def __init__(self, rate, data_format=None, **kwargs):
        super().__init__(rate, **kwargs)
        self.data_format = U.normalize_data_format(data_format) if self._rank > 1 else None
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _get_noise_shape(self, inputs):
        if self._rank == 1 or self.data_format == "channels_last":
            return [None] + [1] * self._rank + [None]
        return [None, None] + [1] * self._rank

    def get_config(self):
        config = super().get_config()
        if self._rank > 1:
            config["data_format"] = self.data_format
        return config


@public("torchflow.keras.layers")
class SpatialDropout1D(_SpatialDropout):
    """Dropout of whole 1-D feature maps (channels) of ``(batch, steps, channels)`` input.

    Args:
      rate: float in ``[0, 1)``: the fraction of channels dropped (training only).
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 1

    def __init__(self, rate, **kwargs):
        super().__init__(rate, **kwargs)


@public("torchflow.keras.layers")
class SpatialDropout2D(_SpatialDropout):
    """Dropout of whole 2-D feature maps (channels); ``data_format`` as in Conv2D.

    Args:
      rate: float in ``[0, 1)``: the fraction of channels dropped (training only).
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 2


@public("torchflow.keras.layers")
class SpatialDropout3D(_SpatialDropout):
    """Dropout of whole 3-D feature maps (channels); ``data_format`` as in Conv3D.

    Args:
      rate: float in ``[0, 1)``: the fraction of channels dropped (training only).
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 3
