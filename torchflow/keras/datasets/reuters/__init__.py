"""``tf.keras.datasets.reuters``."""

from torchflow._src.keras.datasets.reuters import get_word_index as get_word_index
from torchflow._src.keras.datasets.reuters import load_data as load_data
