"""``tf.distribute.experimental.partitioners``: how many shards a variable gets.

A partitioner is called as ``partitioner(shape, dtype, axis=0)`` and returns the
number of partitions along each axis (only ``axis`` above 1).
"""

from __future__ import annotations

import math

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.util.api import public


def _elem_bytes(dtype, bytes_per_string: int) -> int:
    dt = dtypes.as_dtype(dtype)
    return bytes_per_string if dt is dtypes.string else dt.size


@public("torchflow.distribute.experimental.partitioners")
class Partitioner:
    """The base class of partitioners: ``partitioner(shape, dtype, axis=0)``
    returns a list with the number of partitions of each axis."""

    def __call__(self, shape, dtype, axis=0):
        raise NotImplementedError


@public("torchflow.distribute.experimental.partitioners")
class FixedShardsPartitioner(Partitioner):
    """Partitioner that allocates a fixed number of shards.

    Args:
      num_shards: The number of shards (at most the size of the axis).

    >>> import torchflow as tf
    >>> p = tf.distribute.experimental.partitioners.FixedShardsPartitioner(2)
    >>> p(tf.TensorShape([10, 3]), tf.float32)
    [2, 1]
    """

    def __init__(self, num_shards):
        self._num_shards = int(num_shards)

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape)
        result = [1] * len(shape)
        result[axis] = min(self._num_shards, int(shape[axis]))
        return result


@public("torchflow.distribute.experimental.partitioners")
class MinSizePartitioner(Partitioner):
    """Partitioner that allocates a minimum size per shard.

    As many shards as the variable's bytes allow with each at least
    ``min_shard_bytes``, at most ``max_shards`` (and at most the axis size).

    Args:
      min_shard_bytes: Minimum bytes of each shard (default 256K).
      max_shards: Upper bound on the number of shards (default 1).
      bytes_per_string: Estimated size of a string element.

    Raises:
      ValueError: If an argument is not positive.

    >>> import torchflow as tf
    >>> p = tf.distribute.experimental.partitioners.MinSizePartitioner(
    ...     min_shard_bytes=4, max_shards=2)
    >>> p(tf.TensorShape([6]), tf.float32)
    [2]
    """

    def __init__(self, min_shard_bytes=256 << 10, max_shards=1, bytes_per_string=16):
        if min_shard_bytes < 1:
            raise ValueError(f"min_shard_bytes must be positive, got: {min_shard_bytes}")
        if max_shards < 1:
            raise ValueError(f"max_shards must be positive, got: {max_shards}")
        if bytes_per_string < 1:
            raise ValueError(f"bytes_per_string must be positive, got: {bytes_per_string}")
        self._min_shard_bytes = min_shard_bytes
        self._max_shards = max_shards
        self._bytes_per_string = bytes_per_string

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape)
        total = shape.num_elements() * _elem_bytes(dtype, self._bytes_per_string)
        wanted = math.ceil(total / self._min_shard_bytes)
        result = [1] * len(shape)
        result[axis] = max(1, min(int(shape[axis]), self._max_shards, int(wanted)))
        return result


@public("torchflow.distribute.experimental.partitioners")
class MaxSizePartitioner(Partitioner):
    """Partitioner that keeps shards below ``max_shard_bytes``.

    Args:
      max_shard_bytes: The largest a shard may be (one slice along the axis is
        never split, so a shard holds at least one).
      max_shards: The most shards, taking precedence over ``max_shard_bytes``.
      bytes_per_string: Estimated size of a string element.

    Raises:
      ValueError: If an argument is not positive.

    >>> import torchflow as tf
    >>> p = tf.distribute.experimental.partitioners.MaxSizePartitioner(
    ...     max_shard_bytes=8)
    >>> p(tf.TensorShape([6]), tf.float32)
    [3]
    """

    def __init__(self, max_shard_bytes, max_shards=None, bytes_per_string=16):
        if max_shard_bytes < 1:
            raise ValueError(f"max_shard_bytes must be positive, got: {max_shard_bytes}")
        if max_shards and max_shards < 1:
            raise ValueError(f"max_shards must be positive, got: {max_shards}")
        if bytes_per_string < 1:
            raise ValueError(f"bytes_per_string must be positive, got: {bytes_per_string}")
        self._max_shard_bytes = max_shard_bytes
        self._max_shards = max_shards
        self._bytes_per_string = bytes_per_string

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape)
        size = int(shape[axis])
        slice_bytes = shape.num_elements() / size * _elem_bytes(dtype, self._bytes_per_string)
        per_shard = max(1, math.floor(self._max_shard_bytes / slice_bytes))
        shards = math.ceil(size / per_shard)
        if self._max_shards:
            shards = min(self._max_shards, shards)
        result = [1] * len(shape)
        result[axis] = int(shards)
        return result
