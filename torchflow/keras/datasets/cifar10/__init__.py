"""``tf.keras.datasets.cifar10``."""

from torchflow._src.keras.datasets.cifar10 import load_data as load_data
