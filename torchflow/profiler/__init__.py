"""``tf.profiler``: TensorFlow's profiler (traces in XSpace files that XProf reads)."""

from torchflow.profiler import experimental as experimental
