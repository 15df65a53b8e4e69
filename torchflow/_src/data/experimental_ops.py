"""More of ``tf.data.experimental``: Counter, RandomDataset, scan, group_by_reducer,
map_and_batch, parallel_interleave, TFRecordWriter, save/load, snapshot, device
prefetching (a no-op here: elements are made where the ops put them)."""

from __future__ import annotations

import os
import pickle
import random

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import _fn_spec, _structure, traced_fn
from torchflow._src.data._runtime import close_iter, op_seeds
from torchflow._src.data.dataset_ops import INFINITE, UNKNOWN, DatasetV2
from torchflow._src.data.sources import ListDataset
from torchflow._src.data.transforms import (
    _EMPTY,
    UnaryDataset,
    call_fn,
    check_new_state,
    normalize_output,
    prime,
    spec_from_element,
    take_primed,
)
from torchflow._src.ops import data_ops, io_ops, parsing_ops
from torchflow._src.util.api import public


@public("torchflow.data")
class DatasetSpec:
    """The type of a ``tf.data.Dataset``: the structure and types of its elements.

    What ``tf.TensorSpec`` is for a tensor, ``DatasetSpec`` is for a dataset: a
    ``tf.function`` input signature or a nested ``element_spec`` may hold one.
    ``DatasetSpec.from_value(ds)`` gives a dataset's spec.

    Args:
      element_spec: A (nested) structure of ``tf.TypeSpec`` objects, as a
        dataset's ``element_spec``.
      dataset_shape: The shape of the dataset (of a batch of datasets), a
        ``tf.TensorShape`` or list; default ``()``, a single dataset.
    """

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self._shape = dataset_shape

    @staticmethod
    def from_value(value) -> "DatasetSpec":
        """The ``DatasetSpec`` of the dataset ``value`` (its ``element_spec``)."""
        return DatasetSpec(value.element_spec)

    def is_compatible_with(self, other) -> bool:
        spec = other.element_spec if hasattr(other, "element_spec") else None
        return spec is not None and _structure.same_structure(self.element_spec, spec) and all(
            a.is_compatible_with(b) for a, b in zip(_structure.flatten(self.element_spec),
                                                    _structure.flatten(spec)))

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self.element_spec == other.element_spec

    def __hash__(self):
        return hash(repr(self.element_spec))

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r}, TensorShape([]))"


class _CounterDataset(DatasetV2):
    def __init__(self, start, step, dtype):
        self._start, self._step, self._dtype = int(start), int(step), dtypes.as_dtype(dtype)

    def _make_iter(self, ctx):
        def gen():
            v = self._start
            while True:
                yield data_ops.scalar(v, self._dtype)
                v += self._step
        return gen()

    def _cardinality(self):
        return INFINITE

    def _compute_spec(self):
        return TensorSpec([], self._dtype)


@public("torchflow.data.experimental")
def Counter(start=0, step=1, dtype=dtypes.int64):
    """An infinite dataset counting ``start, start + step, ...``.

    Args:
      start: int, default 0: the first value.
      step: int, default 1: the increment.
      dtype: ``tf.int64`` (default) or another integer dtype.

    Returns:
      An infinite ``tf.data.Dataset`` of scalars.
    """
    return _CounterDataset(start, step, dtype)


class RandomDataset(DatasetV2):
    """An infinite dataset of pseudo-random int64 scalars (``seed`` makes it repeatable).

    Args:
      seed: None (default: non-deterministic) or a Python int.
    """

    def __init__(self, seed=None):
        self._seeds = op_seeds(seed)

    def _make_iter(self, ctx):
        seed = ctx.draw_seed(None if self._seeds is None else hash(self._seeds) & (2**63 - 1))
        rng = random.Random(seed)

        def gen():
            while True:
                yield data_ops.scalar(rng.getrandbits(63), dtypes.int64)
        return gen()

    def _cardinality(self):
        return INFINITE

    def _compute_spec(self):
        return TensorSpec([], dtypes.int64)


public("torchflow.data.experimental")(RandomDataset)


def _scan_pair(ret):
    """A scan function's ``(new_state, output)``, each as an element."""
    if not isinstance(ret, (tuple, list)) or len(ret) != 2:
        raise TypeError("The scan function must return a pair comprising the new state "
                        "and the output value.")
    return (normalize_output(ret[0], "scan()"), normalize_output(ret[1], "scan()"))


class _ScanDataset(UnaryDataset):
    def _spec_inferred(self) -> bool:
        return spec_from_element(self)

    def __init__(self, input_dataset, initial_state, scan_func):
        super().__init__(input_dataset)
        self._init = normalize_output(initial_state, "scan()")
        self._fn = traced_fn.traced(scan_func)

    def _compute_spec(self):
        # TF traces scan_func with the initial state's spec, and once more with the
        # state's shapes relaxed where the new state's differ.
        state = _structure.spec_of(self._init)
        for _ in range(2):
            spec = _fn_spec.output_spec(self._fn, (state, self._input.element_spec),
                                        _scan_pair)
            if spec is None:
                break
            try:
                relaxed = _fn_spec.merge(state, spec[0])
            except ValueError:
                break  # another structure or dtypes: the first call raises TF's error
            if relaxed == state:
                self._spec_from_element = False
                return spec[1]
            state = relaxed
        self._spec_from_element = True
        first = prime(self, self._fresh_iter)
        if first is _EMPTY:
            raise ValueError("scan over an empty dataset: element_spec unknown.")
        return _structure.spec_of(first)

    def _make_iter(self, ctx):
        return take_primed(self, ctx) or self._fresh_iter(ctx)

    def _fresh_iter(self, ctx):
        def gen(it):
            state = self._init
            try:
                for element in it:
                    # As in TF, a tuple element is one argument: scan_func(state, element).
                    ret = self._fn(state, element)
                    if not isinstance(ret, (tuple, list)) or len(ret) != 2:
                        raise TypeError("The scan function must return a pair comprising the "
                                        "new state and the output value.")
                    new_state = normalize_output(ret[0], "scan()")
                    check_new_state(state, new_state, "scan()")
                    state = new_state
                    yield normalize_output(ret[1], "scan()")
            finally:
                close_iter(it)
        return gen(self._input._make_iter(ctx))


@public("torchflow.data.experimental")
def scan(initial_state, scan_func):
    """A transformation carrying a state: ``(state, out) = scan_func(state, element)``.

    Args:
      initial_state: A nested structure of tensors: the starting state.
      scan_func: ``(state, element) -> (new_state, output)``.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: _ScanDataset(ds, initial_state, scan_func)


@public("torchflow.data.experimental")
class Reducer:
    """``init_func(key) -> state``, ``reduce_func(state, element) -> state``,
    ``finalize_func(state) -> output`` for ``group_by_reducer``.

    Args:
      init_func: ``key -> initial state``.
      reduce_func: ``(state, element) -> new state``.
      finalize_func: ``state -> output element``.
    """

    def __init__(self, init_func, reduce_func, finalize_func):
        self.init_func = init_func
        self.reduce_func = reduce_func
        self.finalize_func = finalize_func


class _GroupByReducerDataset(UnaryDataset):
    def _spec_inferred(self) -> bool:
        return spec_from_element(self)

    def __init__(self, input_dataset, key_func, reducer):
        super().__init__(input_dataset)
        self._key = traced_fn.traced(key_func)
        self._init_fn = traced_fn.traced(reducer.init_func)
        self._reduce_fn = traced_fn.traced(reducer.reduce_func)
        self._finalize_fn = traced_fn.traced(reducer.finalize_func)

    def _cardinality(self):
        return UNKNOWN

    def _compute_spec(self):
        spec = self._traced_spec()
        self._spec_from_element = spec is None
        if spec is not None:
            return spec
        first = prime(self, self._fresh_iter)
        if first is _EMPTY:
            raise ValueError("group_by_reducer over an empty dataset: element_spec unknown.")
        return _structure.spec_of(first)

    def _traced_spec(self):
        """TF's: init_func traced with a scalar int64 key, reduce_func with the state's
        spec (relaxed once where the new state's shapes differ), finalize_func with
        the final state's; None where one cannot be traced on stand-ins."""
        def norm(out):
            return normalize_output(out, "group_by_reducer()")

        state = _fn_spec.output_spec(self._init_fn, (TensorSpec([], dtypes.int64),), norm)
        for _ in range(2):
            if state is None:
                return None
            new = _fn_spec.output_spec(self._reduce_fn, (state, self._input.element_spec),
                                       norm)
            if new is None:
                return None
            try:
                relaxed = _fn_spec.merge(state, new)
            except ValueError:
                return None  # the first call raises TF's error
            if relaxed == state:
                return _fn_spec.output_spec(self._finalize_fn, _fn_spec.args_of(state), norm)
            state = relaxed
        return None

    def _make_iter(self, ctx):
        return take_primed(self, ctx) or self._fresh_iter(ctx)

    def _fresh_iter(self, ctx):
        def gen(it):
            states: dict = {}
            try:
                for element in it:
                    k = int(call_fn(self._key, element))
                    if k not in states:
                        states[k] = self._init_fn(data_ops.scalar(k, dtypes.int64))
                    states[k] = self._reduce_fn(states[k], element)
            finally:
                close_iter(it)
            for k in sorted(states):
                # TF passes a tuple state unpacked: finalize_func(*state).
                yield normalize_output(call_fn(self._finalize_fn, states[k]),
                                       "group_by_reducer()")
        return gen(self._input._make_iter(ctx))


@public("torchflow.data.experimental")
def group_by_reducer(key_func, reducer):
    """Groups elements by an int64 key and folds each group with ``reducer``.

    Args:
      key_func: ``element -> int64`` scalar key.
      reducer: A ``tf.data.experimental.Reducer``.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: _GroupByReducerDataset(ds, key_func, reducer)


@public("torchflow.data.experimental")
def map_and_batch(map_func, batch_size, num_batches=None, drop_remainder=False,
                  num_parallel_calls=None, num_parallel_batches=None):
    """``map(map_func)`` then ``batch(batch_size)`` (TF's fused form).

    Args:
      map_func: The function mapped over elements.
      batch_size: int: elements per batch.
      num_batches: None (default); accepted for compatibility.
      drop_remainder: bool, default False.
      num_parallel_calls: None (default) or an int; accepted.
      num_parallel_batches: None (default) or an int; accepted.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: ds.map(map_func, num_parallel_calls=num_parallel_calls).batch(
        batch_size, drop_remainder=drop_remainder)


@public("torchflow.data.experimental")
def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """``interleave`` with ``cycle_length`` parallel readers (``sloppy``: any order).

    Args:
      map_func: ``element -> Dataset``.
      cycle_length: int: how many input elements are open at once.
      block_length: int, default 1: consecutive elements taken from each.
      sloppy: bool, default False: allow any order.
      buffer_output_elements: None (default); accepted.
      prefetch_input_elements: None (default); accepted.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: ds.interleave(map_func, cycle_length, block_length,
                                    num_parallel_calls=cycle_length,
                                    deterministic=not sloppy)


@public("torchflow.data.experimental")
def prefetch_to_device(device, buffer_size=None):
    """Prefetching (elements already live where ops made them, so no copy is added).

    Args:
      device: str: the target device.
      buffer_size: None (default: automatic) or an int.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: ds.prefetch(-1 if buffer_size is None else buffer_size)


@public("torchflow.data.experimental")
def copy_to_device(target_device, source_device="/cpu:0"):
    """Accepted for compatibility; elements are left where they are.

    Args:
      target_device: str: the device.
      source_device: str, default ``'/cpu:0'``.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: ds


@public("torchflow.data.experimental")
def get_structure(dataset_or_iterator):
    """The ``element_spec`` of a dataset or iterator.

    Args:
      dataset_or_iterator: A ``tf.data.Dataset`` or one of its iterators.

    Returns:
      A nested structure of ``tf.TypeSpec``.
    """
    return dataset_or_iterator.element_spec


@public("torchflow.data.experimental")
def get_next_as_optional(iterator):
    """The next element of ``iterator`` as an ``Optional`` (``iterator.get_next_as_optional()``).

    Args:
      iterator: A ``tf.data`` iterator.

    Returns:
      A ``tf.experimental.Optional``: the next element, or empty at the end.
    """
    return iterator.get_next_as_optional()


@public("torchflow.data.experimental")
def take_while(predicate):
    """Keeps elements while ``predicate`` holds (``Dataset.take_while``).

    Args:
      predicate: ``element -> bool`` scalar; iteration stops at the first False.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: ds.take_while(predicate)


@public("torchflow.data.experimental")
def unique():
    """Drops repeated elements (``Dataset.unique``).

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one. It keeps the first occurrence of each element (int32, int64 or string
      scalars).
    """
    return lambda ds: ds.unique()


@public("torchflow.data.experimental")
def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """Persists the dataset under ``path`` on the first full pass (like ``cache``).

    Args:
      path: str: the snapshot directory.
      compression: ``'AUTO'`` (default), ``'GZIP'`` or None.
      reader_func: None (default) or ``datasets -> dataset``.
      shard_func: None (default) or ``element -> int64``.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    os.makedirs(os.fspath(path), exist_ok=True)
    return lambda ds: ds.cache(os.path.join(os.fspath(path), "snapshot"))


@public("torchflow.data.experimental")
class TFRecordWriter:
    """Writes a dataset of scalar strings to a TFRecord file: ``write(dataset)``.

    Args:
      filename: str: the file to write.
      compression_type: None / ``''`` (default), ``'ZLIB'`` or ``'GZIP'``.
    """

    def __init__(self, filename, compression_type=None):
        self._filename = filename
        self._compression = compression_type

    def write(self, dataset) -> None:
        spec = dataset.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype != dtypes.string or \
                spec.shape.rank not in (0, None):
            raise TypeError("`dataset` must produce scalar `DT_STRING` tensors whereas it "
                            f"produces shape {spec}")
        with io_ops.TFRecordWriter(self._filename, self._compression) as w:
            for record in dataset:
                w.write(record)


@public("torchflow.data.experimental")
def save(dataset, path, compression=None, shard_func=None):
    """Saves the elements of ``dataset`` under directory ``path`` (torchflow's format).

    Args:
      dataset: The ``tf.data.Dataset`` to save.
      path: str: the output directory.
      compression: None (default) or ``'GZIP'``.
      shard_func: None (default) or ``element -> int64`` shard index.

    Returns:
      None.
    """
    path = os.fspath(path)
    os.makedirs(path, exist_ok=True)
    rows = [[(t.numpy(), t.dtype.name) for t in _structure.flatten(e)] for e in dataset]
    with open(os.path.join(path, "dataset.pkl"), "wb") as f:
        pickle.dump({"spec": dataset.element_spec, "rows": rows}, f,
                    protocol=pickle.HIGHEST_PROTOCOL)


@public("torchflow.data.experimental")
def load(path, element_spec=None, compression=None, reader_func=None):
    """Loads a dataset written by ``save``.

    Args:
      path: str: the directory ``save`` wrote.
      element_spec: None (default: read from ``path``) or the element structure.
      compression: None (default) or ``'GZIP'``: as used by ``save``.
      reader_func: None (default) or ``datasets -> dataset`` for the shards.

    Returns:
      A ``tf.data.Dataset``.
    """
    with open(os.path.join(os.fspath(path), "dataset.pkl"), "rb") as f:
        data = pickle.load(f)
    spec = data["spec"] if element_spec is None else element_spec
    elements = [_structure.pack_as(spec, [data_ops.from_numpy(np.asarray(a),
                                                              dtypes.as_dtype(d))
                                          for a, d in row]) for row in data["rows"]]
    return ListDataset(elements, spec)


@public("torchflow.data.experimental")
def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """Parses batches of serialized Examples with ``tf.io.parse_example``.

    Args:
      features: A dict of feature names to ``FixedLenFeature`` / ``VarLenFeature`` /
        ``SparseFeature``.
      num_parallel_calls: int, default 1; accepted.
      deterministic: None (default) or bool; accepted.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: ds.map(lambda s: parsing_ops.parse_example(s, features),
                             num_parallel_calls=num_parallel_calls)
