"""``tf.config.optimizer``: graph-optimizer and JIT settings (recorded)."""

from torchflow._src.core.config import get_experimental_options as get_experimental_options
from torchflow._src.core.config import get_jit as get_jit
from torchflow._src.core.config import set_experimental_options as set_experimental_options
from torchflow._src.core.config import set_jit as set_jit
