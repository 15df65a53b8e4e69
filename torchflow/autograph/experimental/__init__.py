"""tf.autograph.experimental."""

from torchflow._src.core.autograph import Feature as Feature
from torchflow._src.core.autograph import do_not_convert as do_not_convert
from torchflow._src.ops.autograph_ops import set_loop_options as set_loop_options
