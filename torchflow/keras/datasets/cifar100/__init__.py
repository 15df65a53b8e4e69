"""``tf.keras.datasets.cifar100``."""

from torchflow._src.keras.datasets.cifar100 import load_data as load_data
