"""tf.data implementation: datasets, iterators, the threaded runtime, readers."""
