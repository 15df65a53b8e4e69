"""``tf.io``: files, TFRecords and ``tf.train.Example`` parsing."""

from torchflow._src.ops.graph_io import write_graph as write_graph
from torchflow._src.ops.image_codec_ops import decode_and_crop_jpeg as decode_and_crop_jpeg
from torchflow._src.ops.image_codec_ops import decode_bmp as decode_bmp
from torchflow._src.ops.image_codec_ops import decode_gif as decode_gif
from torchflow._src.ops.image_codec_ops import decode_image as decode_image
from torchflow._src.ops.image_codec_ops import decode_jpeg as decode_jpeg
from torchflow._src.ops.image_codec_ops import decode_png as decode_png
from torchflow._src.ops.image_codec_ops import encode_jpeg as encode_jpeg
from torchflow._src.ops.image_codec_ops import encode_png as encode_png
from torchflow._src.ops.image_codec_ops import extract_jpeg_shape as extract_jpeg_shape
from torchflow._src.ops.image_codec_ops import is_jpeg as is_jpeg
from torchflow._src.ops.io_ops import TFRecordOptions as TFRecordOptions
from torchflow._src.ops.io_ops import TFRecordWriter as TFRecordWriter
from torchflow._src.ops.io_ops import decode_base64 as decode_base64
from torchflow._src.ops.io_ops import decode_compressed as decode_compressed
from torchflow._src.ops.io_ops import encode_base64 as encode_base64
from torchflow._src.ops.io_ops import match_filenames_once as match_filenames_once
from torchflow._src.ops.io_ops import matching_files as matching_files
from torchflow._src.ops.io_ops import read_file as read_file
from torchflow._src.ops.io_ops import write_file as write_file
from torchflow._src.ops.parsing_ops import FixedLenFeature as FixedLenFeature
from torchflow._src.ops.parsing_ops import FixedLenSequenceFeature as FixedLenSequenceFeature
from torchflow._src.ops.parsing_ops import RaggedFeature as RaggedFeature
from torchflow._src.ops.parsing_ops import SparseFeature as SparseFeature
from torchflow._src.ops.parsing_ops import VarLenFeature as VarLenFeature
from torchflow._src.ops.parsing_ops import decode_csv as decode_csv
from torchflow._src.ops.parsing_ops import decode_raw as decode_raw
from torchflow._src.ops.parsing_ops import parse_example as parse_example
from torchflow._src.ops.parsing_ops import parse_single_example as parse_single_example
from torchflow._src.ops.proto_ops import decode_proto as decode_proto
from torchflow._src.ops.proto_ops import encode_proto as encode_proto
from torchflow._src.ops.sequence_example_ops import decode_json_example as decode_json_example
from torchflow._src.ops.sequence_example_ops import parse_sequence_example as parse_sequence_example
from torchflow._src.ops.sequence_example_ops import (
    parse_single_sequence_example as parse_single_sequence_example,
)
from torchflow._src.ops.sparse.sparse_serialize import (
    deserialize_many_sparse as deserialize_many_sparse,
)
from torchflow._src.ops.sparse.sparse_serialize import (
    serialize_many_sparse as serialize_many_sparse,
)
from torchflow._src.ops.sparse.sparse_serialize import serialize_sparse as serialize_sparse
from torchflow._src.ops.tensor_proto_ops import parse_tensor as parse_tensor
from torchflow._src.ops.tensor_proto_ops import serialize_tensor as serialize_tensor
from torchflow.io import gfile as gfile
