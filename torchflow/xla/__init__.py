"""``tf.xla``: XLA compilation (torchflow compiles with ``torch.compile``)."""

from torchflow.xla import experimental as experimental
