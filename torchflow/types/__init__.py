"""``tf.types``: type annotations for TF values."""

from torchflow.types import experimental as experimental
