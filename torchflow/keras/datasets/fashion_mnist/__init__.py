"""``tf.keras.datasets.fashion_mnist``."""

from torchflow._src.keras.datasets.fashion_mnist import load_data as load_data
