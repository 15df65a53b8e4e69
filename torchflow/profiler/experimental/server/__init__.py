"""``tf.profiler.experimental.server``: serve TF's profiler gRPC service."""

from torchflow._src.profiler.server import start as start
