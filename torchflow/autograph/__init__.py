"""tf.autograph (accepted for compatibility; bodies run as Python)."""

from torchflow._src.core.autograph import set_verbosity as set_verbosity
from torchflow._src.core.autograph import to_code as to_code
from torchflow._src.core.autograph import to_graph as to_graph
from torchflow._src.core.autograph import trace as trace
from torchflow.autograph import experimental as experimental
