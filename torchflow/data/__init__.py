"""``tf.data``: input pipelines."""

from torchflow._src.data.dataset_ops import AUTOTUNE as AUTOTUNE
from torchflow._src.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from torchflow._src.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY
from torchflow._src.data.dataset_ops import DatasetV2 as Dataset
from torchflow._src.data.experimental_ops import DatasetSpec as DatasetSpec
from torchflow._src.data.iterator_ops import Iterator as Iterator
from torchflow._src.data.iterator_ops import IteratorSpec as IteratorSpec
from torchflow._src.data.options import Options as Options
from torchflow._src.data.readers import FixedLengthRecordDataset as FixedLengthRecordDataset
from torchflow._src.data.readers import TextLineDataset as TextLineDataset
from torchflow._src.data.readers import TFRecordDataset as TFRecordDataset
from torchflow.data import experimental as experimental
