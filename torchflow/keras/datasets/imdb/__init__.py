"""``tf.keras.datasets.imdb``."""

from torchflow._src.keras.datasets.imdb import get_word_index as get_word_index
from torchflow._src.keras.datasets.imdb import load_data as load_data
