"""``tf.keras.layers.experimental``."""

from torchflow._src.keras.layers.core.einsum_dense import EinsumDense as EinsumDense
from torchflow._src.keras.layers.core.random_fourier_features import (
    RandomFourierFeatures as RandomFourierFeatures,
)
from torchflow._src.keras.layers.normalization.sync_batch_norm import (
    SyncBatchNormalization as SyncBatchNormalization,
)
from torchflow.keras.layers.experimental import preprocessing as preprocessing
