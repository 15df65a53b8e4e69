"""tf.bitwise: bitwise ops on integer tensors (re-exports only)."""

from torchflow._src.ops.comparison_ops import bitwise_and as bitwise_and
from torchflow._src.ops.comparison_ops import bitwise_or as bitwise_or
from torchflow._src.ops.comparison_ops import bitwise_xor as bitwise_xor
from torchflow._src.ops.comparison_ops import invert as invert
from torchflow._src.ops.comparison_ops import left_shift as left_shift
from torchflow._src.ops.comparison_ops import right_shift as right_shift
