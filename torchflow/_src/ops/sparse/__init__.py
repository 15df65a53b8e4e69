"""``tf.sparse``: the ``SparseTensor`` type and the ops on it (implementation)."""
