"""``tf.lookup``: hash tables and their initializers."""

from torchflow._src.ops.lookup.initializers import (
    KeyValueTensorInitializer as KeyValueTensorInitializer,
)
from torchflow._src.ops.lookup.initializers import TextFileIndex as TextFileIndex
from torchflow._src.ops.lookup.initializers import TextFileInitializer as TextFileInitializer
from torchflow._src.ops.lookup.tables import StaticHashTable as StaticHashTable
from torchflow._src.ops.lookup.tables import StaticVocabularyTable as StaticVocabularyTable
from torchflow.lookup import experimental as experimental
