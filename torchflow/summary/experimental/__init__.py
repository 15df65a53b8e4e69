"""``tf.summary.experimental``."""

from torchflow._src.summary.summary_ops import get_step as get_step
from torchflow._src.summary.summary_ops import set_step as set_step
from torchflow._src.summary.summary_ops import summary_scope as summary_scope
from torchflow._src.summary.trace_ops import write_raw_pb as write_raw_pb
