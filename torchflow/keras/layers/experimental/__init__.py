"""``tf.keras.layers.experimental``."""

from torchflow._src.keras.layers.core.einsum_dense import EinsumDense as EinsumDense
from torchflow._src.keras.layers.core.random_fourier_features import (
    RandomFourierFeatures as RandomFourierFeatures,
)
from torchflow.keras.layers.experimental import preprocessing as preprocessing
