"""``tf.io``: files, TFRecords and ``tf.train.Example`` parsing."""

from torchflow._src.ops.io_ops import TFRecordOptions as TFRecordOptions
from torchflow._src.ops.io_ops import TFRecordWriter as TFRecordWriter
from torchflow._src.ops.io_ops import read_file as read_file
from torchflow._src.ops.io_ops import write_file as write_file
from torchflow._src.ops.parsing_ops import FixedLenFeature as FixedLenFeature
from torchflow._src.ops.parsing_ops import FixedLenSequenceFeature as FixedLenSequenceFeature
from torchflow._src.ops.parsing_ops import VarLenFeature as VarLenFeature
from torchflow._src.ops.parsing_ops import parse_example as parse_example
from torchflow._src.ops.parsing_ops import parse_single_example as parse_single_example
from torchflow.io import gfile as gfile
