"""``tf.io``: files, TFRecords and ``tf.train.Example`` parsing."""

from torchflow._src.ops.io_ops import TFRecordOptions as TFRecordOptions
from torchflow._src.ops.io_ops import TFRecordWriter as TFRecordWriter
from torchflow._src.ops.io_ops import decode_base64 as decode_base64
from torchflow._src.ops.io_ops import decode_compressed as decode_compressed
from torchflow._src.ops.io_ops import encode_base64 as encode_base64
from torchflow._src.ops.io_ops import matching_files as matching_files
from torchflow._src.ops.io_ops import read_file as read_file
from torchflow._src.ops.io_ops import write_file as write_file
from torchflow._src.ops.parsing_ops import FixedLenFeature as FixedLenFeature
from torchflow._src.ops.parsing_ops import FixedLenSequenceFeature as FixedLenSequenceFeature
from torchflow._src.ops.parsing_ops import VarLenFeature as VarLenFeature
from torchflow._src.ops.parsing_ops import decode_csv as decode_csv
from torchflow._src.ops.parsing_ops import decode_raw as decode_raw
from torchflow._src.ops.parsing_ops import parse_example as parse_example
from torchflow._src.ops.parsing_ops import parse_single_example as parse_single_example
from torchflow.io import gfile as gfile
