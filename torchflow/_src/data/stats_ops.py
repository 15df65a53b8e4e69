"""TF 2.4's ``tf.data`` statistics: ``StatsAggregator``, ``latency_stats``, ``bytes_produced_stats``.

A stats transformation records one sample per element into the aggregator set
as ``options.experimental_stats.aggregator`` on the final dataset; none set, it
records nothing. TF removed these after 2.4.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from torchflow._src.data import _structure
from torchflow._src.data.transforms import UnaryDataset
from torchflow._src.util.api import public


@public("torchflow.data.experimental")
class StatsAggregator:
    """Collects the statistics that ``tf.data`` stats transformations record.

    Set it as ``options.experimental_stats.aggregator`` of a dataset that uses
    ``latency_stats`` or ``bytes_produced_stats``; every element then adds one
    sample under the transformation's tag.

    >>> import torchflow as tf
    >>> agg = tf.data.experimental.StatsAggregator()
    >>> ds = tf.data.Dataset.range(3).apply(tf.data.experimental.bytes_produced_stats("b"))
    >>> o = tf.data.Options()
    >>> o.experimental_stats.aggregator = agg
    >>> _ = list(ds.with_options(o))
    >>> agg.samples("b")
    [8.0, 8.0, 8.0]

    Differences from TensorFlow 2.4: TF 2.4's aggregator writes to a summary
    file in a temporary directory; this one keeps the samples, and offers
    ``get_summary()`` (TF 2.4's ``tf.compat.v1`` aggregator method) and
    ``samples(tag)`` to read them.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._samples: dict[str, list[float]] = {}

    def _add(self, tag: str, value: float) -> None:
        with self._lock:
            self._samples.setdefault(tag, []).append(float(value))

    def samples(self, tag: str) -> list:
        """The samples recorded under ``tag`` (a list of floats, in order).

        Args:
          tag: The tag given to the stats transformation.

        Returns:
          A list of floats (empty when nothing was recorded).
        """
        with self._lock:
            return list(self._samples.get(tag, []))

    def get_summary(self) -> bytes:
        """The statistics as a serialized ``tf.summary`` ``Summary`` proto.

        Each tag is one value holding a histogram of its samples (``min``,
        ``max``, ``num``, ``sum``, ``sum_squares``).

        Returns:
          The serialized ``Summary`` proto, as bytes.
        """
        from tensorboard.compat.proto import summary_pb2

        summary = summary_pb2.Summary()
        with self._lock:
            items = sorted((k, list(v)) for k, v in self._samples.items())
        for tag, values in items:
            a = np.asarray(values, dtype=np.float64)
            histo = summary_pb2.HistogramProto(
                min=float(a.min()), max=float(a.max()), num=float(a.size),
                sum=float(a.sum()), sum_squares=float((a * a).sum()))
            summary.value.add(tag=tag, histo=histo)
        return summary.SerializeToString()


def _element_bytes(element) -> int:
    total = 0
    for t in _structure.flatten(element):
        value = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
        if value.dtype == object:
            total += sum(len(x) for x in value.reshape(-1))
        else:
            total += value.nbytes
    return total


class _StatsDataset(UnaryDataset):
    _same_elements = True

    def __init__(self, input_dataset, tag, kind):
        super().__init__(input_dataset)
        self._tag = tag
        self._kind = kind

    def _make_iter(self, ctx):
        aggregator = ctx.options.experimental_stats.aggregator
        return _stats_iter(self._input._make_iter(ctx), aggregator, self._tag, self._kind)


def _stats_iter(it, aggregator, tag, kind):
    while True:
        start = time.perf_counter()
        try:
            element = next(it)
        except StopIteration:
            return
        if aggregator is not None:
            if kind == "latency":
                aggregator._add(tag, (time.perf_counter() - start) * 1e6)
            else:
                aggregator._add(tag, _element_bytes(element))
        yield element


def _check_tag(tag) -> str:
    if isinstance(tag, bytes):
        tag = tag.decode()
    if not isinstance(tag, str):
        raise TypeError(f"`tag` must be a string. Received: tag={tag!r}")
    return tag


@public("torchflow.data.experimental")
def latency_stats(tag):
    """Records the time taken to produce each element (for ``Dataset.apply``).

    Each element adds one sample, in microseconds, under ``tag`` in the
    dataset's ``options.experimental_stats.aggregator``.

    >>> import torchflow as tf
    >>> ds = tf.data.Dataset.range(2).apply(tf.data.experimental.latency_stats("lat"))
    >>> [int(x) for x in ds]
    [0, 1]

    Args:
      tag: A string, the tag the samples are recorded under.

    Returns:
      A ``Dataset`` transformation function, for ``tf.data.Dataset.apply``.

    Raises:
      TypeError: If ``tag`` is not a string.
    """
    tag = _check_tag(tag)
    return lambda dataset: _StatsDataset(dataset, tag, "latency")


@public("torchflow.data.experimental")
def bytes_produced_stats(tag):
    """Records the size in bytes of each element (for ``Dataset.apply``).

    Each element adds one sample, the total bytes of its tensors (for strings,
    their lengths), under ``tag`` in the dataset's
    ``options.experimental_stats.aggregator``.

    >>> import torchflow as tf
    >>> ds = tf.data.Dataset.range(2).apply(tf.data.experimental.bytes_produced_stats("b"))
    >>> [int(x) for x in ds]
    [0, 1]

    Args:
      tag: A string, the tag the samples are recorded under.

    Returns:
      A ``Dataset`` transformation function, for ``tf.data.Dataset.apply``.

    Raises:
      TypeError: If ``tag`` is not a string.
    """
    tag = _check_tag(tag)
    return lambda dataset: _StatsDataset(dataset, tag, "bytes")
