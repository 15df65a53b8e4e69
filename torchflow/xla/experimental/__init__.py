"""``tf.xla.experimental``: compiling a computation; jit scopes."""

from torchflow._src.core.xla import compile as compile
from torchflow._src.core.xla import jit_scope as jit_scope
