"""``tf.mixed_precision``."""

from torchflow.mixed_precision import experimental as experimental
