"""``tf.strings``: ops on string tensors."""

from torchflow._src.ops.string_hash_ops import to_hash_bucket as to_hash_bucket
from torchflow._src.ops.string_hash_ops import to_hash_bucket_fast as to_hash_bucket_fast
from torchflow._src.ops.string_hash_ops import to_hash_bucket_strong as to_hash_bucket_strong
from torchflow._src.ops.string_ops import as_string as as_string
from torchflow._src.ops.string_ops import bytes_split as bytes_split
from torchflow._src.ops.string_ops import format as format
from torchflow._src.ops.string_ops import join as join
from torchflow._src.ops.string_ops import length as length
from torchflow._src.ops.string_ops import lower as lower
from torchflow._src.ops.string_ops import reduce_join as reduce_join
from torchflow._src.ops.string_ops import regex_full_match as regex_full_match
from torchflow._src.ops.string_ops import regex_replace as regex_replace
from torchflow._src.ops.string_ops import split as split
from torchflow._src.ops.string_ops import strip as strip
from torchflow._src.ops.string_ops import substr as substr
from torchflow._src.ops.string_ops import to_number as to_number
from torchflow._src.ops.string_ops import unicode_decode as unicode_decode
from torchflow._src.ops.string_ops import upper as upper
from torchflow._src.ops.unicode_ops import ngrams as ngrams
from torchflow._src.ops.unicode_ops import (
    unicode_decode_with_offsets as unicode_decode_with_offsets,
)
from torchflow._src.ops.unicode_ops import unicode_encode as unicode_encode
from torchflow._src.ops.unicode_ops import unicode_split as unicode_split
from torchflow._src.ops.unicode_ops import unicode_split_with_offsets as unicode_split_with_offsets
from torchflow._src.ops.unicode_ops import unicode_transcode as unicode_transcode
from torchflow._src.ops.unicode_ops import unsorted_segment_join as unsorted_segment_join
from torchflow._src.ops.unicode_script_ops import unicode_script as unicode_script
