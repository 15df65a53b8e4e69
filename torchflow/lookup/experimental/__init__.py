"""``tf.lookup.experimental``: the dense mutable table and the dataset initializer."""

from torchflow._src.ops.lookup.dense_table import DenseHashTable as DenseHashTable
from torchflow._src.ops.lookup.initializers import DatasetInitializer as DatasetInitializer
