"""``tf.keras.preprocessing.text``."""

from torchflow._src.keras.preprocessing.text import Tokenizer as Tokenizer
from torchflow._src.keras.preprocessing.text import hashing_trick as hashing_trick
from torchflow._src.keras.preprocessing.text import one_hot as one_hot
from torchflow._src.keras.preprocessing.text import text_to_word_sequence as text_to_word_sequence
from torchflow._src.keras.preprocessing.text import tokenizer_from_json as tokenizer_from_json
