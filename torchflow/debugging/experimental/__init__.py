"""``tf.debugging.experimental``: Debugger V2 dump switches (recorded only)."""

from torchflow._src.ops.debugging_ops import disable_dump_debug_info as disable_dump_debug_info
from torchflow._src.ops.debugging_ops import enable_dump_debug_info as enable_dump_debug_info
