"""``tf.keras.datasets.boston_housing``."""

from torchflow._src.keras.datasets.boston_housing import load_data as load_data
