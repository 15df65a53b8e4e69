"""``tf.keras.preprocessing.sequence``."""

from torchflow._src.keras.preprocessing.sequence import TimeseriesGenerator as TimeseriesGenerator
from torchflow._src.keras.preprocessing.sequence import make_sampling_table as make_sampling_table
from torchflow._src.keras.preprocessing.sequence import pad_sequences as pad_sequences
from torchflow._src.keras.preprocessing.sequence import skipgrams as skipgrams
