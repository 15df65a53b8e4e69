"""tf.experimental.numpy implementation (above ops/, below distribute/ and keras/; no torch)."""
