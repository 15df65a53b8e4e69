"""``tf.keras.datasets.mnist``."""

from torchflow._src.keras.datasets.mnist import load_data as load_data
