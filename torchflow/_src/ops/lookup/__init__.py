"""``tf.lookup``: hash tables made in Python, their initializers and their ops."""
