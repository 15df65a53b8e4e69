"""``tf.experimental.dlpack``: zero-copy exchange with torch, NumPy, JAX ... via DLPack."""

from torchflow._src.ops.dlpack_ops import from_dlpack as from_dlpack
from torchflow._src.ops.dlpack_ops import to_dlpack as to_dlpack
