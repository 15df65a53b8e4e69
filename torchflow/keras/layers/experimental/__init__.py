"""``tf.keras.layers.experimental``."""

from torchflow.keras.layers.experimental import preprocessing as preprocessing
