"""``tf.train``: Example protos (checkpointing adds its names here)."""

from torchflow._src.ops.parsing_ops import BytesList as BytesList
from torchflow._src.ops.parsing_ops import Example as Example
from torchflow._src.ops.parsing_ops import Feature as Feature
from torchflow._src.ops.parsing_ops import FeatureList as FeatureList
from torchflow._src.ops.parsing_ops import FeatureLists as FeatureLists
from torchflow._src.ops.parsing_ops import Features as Features
from torchflow._src.ops.parsing_ops import FloatList as FloatList
from torchflow._src.ops.parsing_ops import Int64List as Int64List
from torchflow._src.ops.parsing_ops import SequenceExample as SequenceExample
