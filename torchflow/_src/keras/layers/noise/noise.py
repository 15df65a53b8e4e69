"""Regularisation noise layers, active in training only: ``GaussianNoise``,
``GaussianDropout``, ``AlphaDropout``."""

from __future__ import annotations

import math

from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.ops.comparison_ops import greater_equal
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.random_ops import normal, uniform
from torchflow._src.util.api import public


class _Noise(Layer):
    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.seed = seed

    def compute_output_shape(self, input_shape):
        return input_shape

    def _seed_config(self, config):
        if self.seed is not None:
            config["seed"] = self.seed
        return config


@public("torchflow.keras.layers")
class GaussianNoise(_Noise):
    """Adds zero-mean Gaussian noise of standard deviation ``stddev`` in training.

    Args:
      stddev: Noise standard deviation.
      seed: Optional random seed.
    """

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.stddev = stddev

    def call(self, inputs, training=None):
        if not training:
            return inputs
        return inputs + normal(inputs.shape, 0.0, self.stddev, dtype=inputs.dtype,
                               seed=self.seed)

    def get_config(self):
        config = super().get_config()
        config["stddev"] = self.stddev
        return self._seed_config(config)


@public("torchflow.keras.layers")
class GaussianDropout(_Noise):
    """Multiplies by Gaussian noise of mean 1 and standard deviation
    ``sqrt(rate / (1 - rate))`` in training.

    Args:
      rate: Drop probability (as in ``Dropout``).
      seed: Optional random seed.
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.rate = rate

    def call(self, inputs, training=None):
        if not training or not 0 < self.rate < 1:
            return inputs
        std = math.sqrt(self.rate / (1.0 - self.rate))
        return inputs * normal(inputs.shape, 1.0, std, dtype=inputs.dtype, seed=self.seed)

    def get_config(self):
        config = super().get_config()
        config["rate"] = self.rate
        return self._seed_config(config)


_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946


@public("torchflow.keras.layers")
class AlphaDropout(_Noise):
    """Dropout that keeps SELU's self-normalising mean and variance: dropped units are
    set to SELU's negative saturation value and the result is affinely corrected.

    Args:
      rate: Drop probability.
      noise_shape: Shape of the keep/drop mask (``None`` entries: the input's size).
      seed: Optional random seed.
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape

    def call(self, inputs, training=None):
        if not training or not 0 < self.rate < 1:
            return inputs
        shape = inputs.shape.as_list()
        if self.noise_shape is not None:
            shape = [shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        alpha_p = -_ALPHA * _SCALE
        kept = cast(greater_equal(uniform(shape, dtype=inputs.dtype, seed=self.seed),
                                  self.rate), inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = inputs * kept + (1.0 - kept) * alpha_p
        return x * a + b

    def get_config(self):
        config = super().get_config()
        config["rate"] = self.rate
        config["noise_shape"] = self.noise_shape
        config["seed"] = self.seed
        return config
