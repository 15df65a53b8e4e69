"""``tf.ragged``: ops on ragged tensors (tensors whose rows have different lengths)."""

from torchflow._src.ops.ragged.ragged_cross import cross as cross
from torchflow._src.ops.ragged.ragged_cross import cross_hashed as cross_hashed
from torchflow._src.ops.ragged.ragged_cross import (
    stack_dynamic_partitions as stack_dynamic_partitions,
)
from torchflow._src.ops.ragged.ragged_factory import boolean_mask as boolean_mask
from torchflow._src.ops.ragged.ragged_factory import constant as constant
from torchflow._src.ops.ragged.ragged_factory import map_flat_values as map_flat_values
from torchflow._src.ops.ragged.ragged_factory import range as range
from torchflow._src.ops.ragged.ragged_factory import (
    row_splits_to_segment_ids as row_splits_to_segment_ids,
)
from torchflow._src.ops.ragged.ragged_factory import (
    segment_ids_to_row_splits as segment_ids_to_row_splits,
)
from torchflow._src.ops.ragged.ragged_factory import stack as stack
