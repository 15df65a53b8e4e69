"""``tf.distribute.DistributedDataset`` and ``DistributedIterator``.

``experimental_distribute_dataset``: each global batch is split along its first
dimension between this worker's replicas, TF's way: every replica takes
``ceil(global_batch / num_replicas_in_sync)`` elements in turn, so a short last
batch leaves the last replicas with fewer, possibly zero, elements (the
per-replica size is fixed by the dataset's static batch size, else by its first
batch). ``distribute_datasets_from_function``: replicas take consecutive
elements of the dataset ``dataset_fn`` returned (already per-replica batches).
"""

from __future__ import annotations

from torchflow._src.core import graph_trace
from torchflow._src.core.config import copy_to_device
from torchflow._src.core.errors import OutOfRangeError
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data.iterator_ops import Optional
from torchflow._src.distribute import values
from torchflow._src.ops.array_ops import split
from torchflow._src.util import nest
from torchflow._src.util.api import public


class PerReplicaSpec:
    """The ``element_spec`` of a distributed dataset with several replicas."""

    def __init__(self, *specs):
        self._value_specs = tuple(specs)

    def __eq__(self, other):
        return isinstance(other, PerReplicaSpec) and self._value_specs == other._value_specs

    def __hash__(self):
        return hash(self._value_specs)

    def __repr__(self) -> str:
        return f"PerReplicaSpec({', '.join(repr(s) for s in self._value_specs)})"


def _split_spec(spec, n: int):
    if not isinstance(spec, TensorSpec) or spec.shape.rank in (None, 0):
        return spec
    dims = spec.shape.as_list()
    first = dims[0]
    dims[0] = first // n if first is not None and first % n == 0 else None
    return TensorSpec(TensorShape(dims), spec.dtype, spec.name)


def _per_replica_spec(element_spec, n: int):
    if n == 1:
        return element_spec
    per = nest.map_structure(lambda s: _split_spec(s, n), element_spec)
    return nest.map_structure(lambda s: PerReplicaSpec(*([s] * n)), per)


class DistributedIteratorSpec:
    """The type of a ``DistributedIterator`` (TF's ``DistributedIteratorSpec``): the
    strategy, how elements are distributed and their element spec. A
    ``tf.function`` traces once per spec, so a fresh iterator of the same
    distributed dataset (each epoch's ``iter(dist_dataset)``) reuses the trace and
    its replay reads the iterator it is passed."""

    def __init__(self, extended, element_spec, mode, n_local):
        self._extended = extended
        self._element_spec = element_spec
        self._mode = mode
        self._n = n_local

    @property
    def value_type(self):
        return DistributedIterator

    def _key(self):
        return (id(self._extended), repr(self._element_spec), self._mode, self._n)

    def __eq__(self, other) -> bool:
        return isinstance(other, DistributedIteratorSpec) and \
            self._extended is other._extended and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"DistributedIteratorSpec({self._element_spec!r})"


@public("torchflow.distribute")
class DistributedIterator:
    """An iterator over a ``tf.distribute.DistributedDataset``; each element is a
    ``PerReplica`` value (the plain value with one replica).

    Made by ``iter(dist_dataset)``; ``next()`` raises ``StopIteration`` at the end,
    ``get_next()`` ``tf.errors.OutOfRangeError``, and ``get_next_as_optional()``
    returns an empty ``tf.experimental.Optional`` there.

    Args:
      extended: The strategy's ``tf.distribute.StrategyExtended``.
      source_iter: The iterator of the underlying (per-worker) dataset.
      element_spec: The ``PerReplicaSpec`` structure of the elements.
      mode: ``"split"``: each element is a global batch split between the
        replicas; ``"consecutive"``: each replica gets the next element (datasets
        of ``distribute_datasets_from_function``).
      n_local: int, the number of replicas on this worker.
      sizes_fn: Optional function of the first global batch size that gives the
        per-replica batch size the later batches are split by.
    """

    def __init__(self, extended, source_iter, element_spec, mode, n_local, sizes_fn=None):
        self._extended = extended
        self._iter = source_iter
        self._element_spec = element_spec
        self._mode = mode  # "split" or "consecutive"
        self._n = n_local
        self._sizes_fn = sizes_fn
        self._per_replica = None
        self._born = graph_trace.serial()

    def __iter__(self):
        return self

    @property
    def _type_spec(self):
        return DistributedIteratorSpec(self._extended, self._element_spec, self._mode, self._n)

    def _dry_next(self):
        # A trace without effects may iterate an iterator it made itself, never a caller's.
        if not graph_trace.made_in_trace(getattr(self, "_born", -1)):
            graph_trace.cannot_dry_run()
        with graph_trace.paused():
            return self._next()

    # A host node of traces, as tf.data's Iterator.__next__: a tf.function given a
    # DistributedIterator is keyed by its spec (bound by reference), and a replay
    # calls next() on the iterator of that call.
    @graph_trace.host_op(dry=_dry_next)
    def __next__(self):
        return self._next()

    def get_next(self):
        """The next element.

        Raises:
          OutOfRangeError: At the end of the data.
        """
        try:
            return self.__next__()
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        """The next element as a ``tf.experimental.Optional`` (empty at the end)."""
        # As a dataset iterator's: the split of a final partial batch is not recorded.
        graph_trace.mark_eager("the body calls get_next_as_optional")
        try:
            return Optional(self._next(), True, self._element_spec)
        except StopIteration:
            return Optional.empty(self._element_spec)

    @property
    def element_spec(self):
        """The type specification of the elements (``PerReplicaSpec`` per component)."""
        return self._element_spec

    def _next(self):
        devices = self._extended._input_devices()
        if self._mode == "consecutive":
            parts = []
            for _ in range(self._n):
                try:
                    parts.append(next(self._iter))
                except StopIteration:
                    break
            if not parts:
                raise StopIteration
            while len(parts) < self._n:
                parts.append(nest.map_structure(_empty_like, parts[0]))
            if self._n == 1:  # one replica: the plain element, as TF gives it
                return _to_devices(parts[0], devices[:1])[0]
        else:
            element = next(self._iter)
            if self._n == 1:
                return _to_devices(element, devices[:1])[0]
            parts = self._split(element)
        return values.regroup(_to_devices_each(parts, devices), always_wrap=True)

    def _split(self, element):
        flat = nest.flatten(element)
        for t in flat:
            if t.shape.rank in (None, 0):
                raise ValueError(
                    "experimental_distribute_dataset with several replicas needs a batched "
                    "dataset (each element's first dimension is split between the replicas); "
                    f"received an element with shape {t.shape}. Batch the dataset with the "
                    "global batch size.")
        batch = int(flat[0].shape[0])
        if self._per_replica is None:
            self._per_replica = self._sizes_fn(batch)
        per = self._per_replica
        sizes, left = [], batch
        for _ in range(self._n):
            s = min(per, left)
            sizes.append(s)
            left -= s
        if left:
            sizes[-1] += left
        pieces = [split(t, sizes, axis=0) for t in flat]
        return [nest.pack_sequence_as(element, [p[i] for p in pieces]) for i in range(self._n)]


def split_global_batch(extended, element, state: dict):
    """One global batch (a nested structure of tensors) as a ``PerReplica`` value, split
    as ``experimental_distribute_dataset`` splits it (Keras ``fit`` uses this on the
    batches of its data handler). ``state`` remembers the per-replica size fixed by
    the first batch."""
    n = extended._num_local_replicas()
    devices = extended._input_devices()
    if n == 1:
        return _to_devices(element, devices[:1])[0]
    it = DistributedIterator(extended, iter(()), None, "split", n,
                             lambda b: state.setdefault(
                                 "per_replica", extended._per_replica_batch_size(b)))
    parts = it._split(element)
    return values.regroup(_to_devices_each(parts, devices), always_wrap=True)


def _empty_like(t):
    return t[:0]


def _to_devices(element, devices):
    return [nest.map_structure(lambda t, d=d: _move(t, d), element) for d in devices]


def _to_devices_each(parts, devices):
    return [nest.map_structure(lambda t, d=d: _move(t, d), p) for p, d in zip(parts, devices)]


def _move(t, device):
    if device is None or not hasattr(t, "_t"):
        return t
    return copy_to_device(t, device)


@public("torchflow.distribute")
class DistributedDataset:
    """A dataset whose elements are distributed over a strategy's replicas.

    Iterate it (``for x in dist_dataset``) or call ``iter()``; pass the elements
    to ``strategy.run``. Made by ``strategy.experimental_distribute_dataset(ds)``
    (each global batch split between the replicas) or
    ``strategy.distribute_datasets_from_function(fn)`` (each replica reads its own
    dataset), not by users.

    Args:
      extended: The strategy's ``tf.distribute.StrategyExtended``.
      dataset: The ``tf.data.Dataset`` to distribute (already sharded for this
        worker).
      mode: ``"split"`` (default): split each element's batch between the
        replicas; ``"consecutive"``: give consecutive elements to the replicas.
      dataset_fn: Optional, the function that built ``dataset`` from an
        ``InputContext``.
    """

    def __init__(self, extended, dataset, mode="split", dataset_fn=None):
        self._extended = extended
        self._dataset = dataset
        self._mode = mode
        n = extended._num_local_replicas()
        self._n = n
        spec = dataset.element_spec
        if mode == "split":
            self._element_spec = _per_replica_spec(spec, n)
        else:
            self._element_spec = spec if n == 1 else nest.map_structure(
                lambda s: PerReplicaSpec(*([s] * n)), spec)

    def __iter__(self):
        return DistributedIterator(self._extended, iter(self._dataset), self._element_spec,
                                   self._mode, self._n, self._sizes_fn)

    def _sizes_fn(self, first_batch: int) -> int:
        static = None
        flat = nest.flatten(self._dataset.element_spec)
        if flat and isinstance(flat[0], TensorSpec) and flat[0].shape.rank:
            static = flat[0].shape.as_list()[0]
        return self._extended._per_replica_batch_size(static or first_batch)

    @property
    def element_spec(self):
        """The type specification of the elements."""
        return self._element_spec

    def reduce(self, initial_state, reduce_fn):
        """Folds ``reduce_fn(state, element)`` over the distributed elements."""
        state = initial_state
        for x in self:
            state = reduce_fn(state, x)
        return state
