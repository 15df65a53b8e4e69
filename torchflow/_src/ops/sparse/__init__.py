"""``tf.sparse``: the ``SparseTensor`` type and the ops on it (implementation)."""

# SparseTensor arguments of the op helpers (tf.abs, tf.cast, ...) need the handler
# registered before any op runs.
from torchflow._src.ops.sparse import sparse_dispatch as sparse_dispatch
