"""``tf.profiler.experimental.client``: capture profiles from profiler servers."""

from torchflow._src.profiler.client import monitor as monitor
from torchflow._src.profiler.client import trace as trace
