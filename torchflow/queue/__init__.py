"""``tf.queue``: thread-safe queues of tensor tuples (FIFO, padding, priority, shuffle)."""

from torchflow._src.ops.queue_ops import FIFOQueue as FIFOQueue
from torchflow._src.ops.queue_ops import PaddingFIFOQueue as PaddingFIFOQueue
from torchflow._src.ops.queue_ops import PriorityQueue as PriorityQueue
from torchflow._src.ops.queue_ops import QueueBase as QueueBase
from torchflow._src.ops.queue_ops import RandomShuffleQueue as RandomShuffleQueue
