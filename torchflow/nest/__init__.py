"""``tf.nest``: functions for working with arbitrarily nested structures."""

from torchflow._src.util.nest import assert_same_structure as assert_same_structure
from torchflow._src.util.nest import flatten as flatten
from torchflow._src.util.nest import is_nested as is_nested
from torchflow._src.util.nest import map_structure as map_structure
from torchflow._src.util.nest import pack_sequence_as as pack_sequence_as
