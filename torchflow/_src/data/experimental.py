"""``tf.data.experimental`` transformations: grouping, sampling, errors, cardinality."""

from __future__ import annotations

import random

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.data import _structure, traced_fn
from torchflow._src.data._runtime import close_iter, op_seeds
from torchflow._src.data.dataset_ops import INFINITE, UNKNOWN, DatasetV2
from torchflow._src.data.sources import ListDataset
from torchflow._src.data.transforms import (
    AssertCardinalityDataset,
    IgnoreErrorsDataset,
    UnaryDataset,
    call_fn,
    normalize_output,
)
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public


@public("torchflow.data.experimental")
def cardinality(dataset):
    """The dataset's cardinality as an int64 Tensor (INFINITE -1, UNKNOWN -2).

    Args:
      dataset: A ``tf.data.Dataset``.

    Returns:
      A 0-D int64 tensor.
    """
    return dataset.cardinality()


@public("torchflow.data.experimental")
def assert_cardinality(expected_cardinality):
    """A transformation asserting the dataset has ``expected_cardinality`` elements;
    iteration raises ``FailedPreconditionError`` when it does not.

    Args:
      expected_cardinality: An int (or int64 scalar): the exact number of elements.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: AssertCardinalityDataset(ds, int(expected_cardinality))


@public("torchflow.data.experimental")
def ignore_errors(log_warning=False):
    """A transformation dropping elements whose production raised a ``tf.errors`` error.

    Args:
      log_warning: bool, default False: log each dropped error.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.
    """
    return lambda ds: IgnoreErrorsDataset(ds, log_warning)


def _key_value(k) -> int:
    t = data_ops.as_tensor(k)
    if t.dtype != dtypes.int64 or t.shape.rank != 0:
        raise ValueError(f"`key_func` must return a single tf.int64 scalar tensor. Got type "
                         f"{t.dtype!r} and shape {t.shape}.")
    return int(t)


class GroupByWindowDataset(UnaryDataset):
    def _spec_inferred(self) -> bool:
        self.element_spec  # noqa: B018 - computes it, and the flag with it
        return self.__dict__.get("_inferred", True)

    def __init__(self, input_dataset, key_func, reduce_func, window_size_func,
                 spec_reduce_func=None):
        super().__init__(input_dataset)
        self._key = key_func
        self._reduce = reduce_func
        self._size = window_size_func
        # TF traces reduce_func with a symbolic key; where the output's shape depends on
        # the key's value, spec_reduce_func gives the key-independent form.
        self._spec_reduce = spec_reduce_func or reduce_func

    def _cardinality(self):
        n = self._input._cardinality()
        return INFINITE if n == INFINITE else UNKNOWN

    def _compute_spec(self):
        spec = self._input.element_spec
        ds = self._spec_reduce(data_ops.scalar(0, dtypes.int64),
                          ListDataset([], spec, self._input._spec_inferred()))
        out = ds.element_spec
        self._inferred = ds._spec_inferred()
        return out

    def _make_iter(self, ctx):
        self._input.element_spec  # noqa: B018 - first: its computation's iterator is reused
        return _group_iter(self, ctx, self._input._make_iter(ctx))


def _group_iter(ds, ctx, it):
    spec = ds._input.element_spec
    inferred = ds._input._spec_inferred()
    groups: dict = {}
    sizes: dict = {}

    def flush(k):
        window = groups.pop(k)
        out = ds._reduce(data_ops.scalar(k, dtypes.int64), ListDataset(window, spec, inferred))
        if not isinstance(out, DatasetV2):
            raise TypeError("`reduce_func` must return a `Dataset` object.")
        sub = out._make_iter(ctx)
        try:
            yield from sub
        finally:
            close_iter(sub)

    try:
        for element in it:
            k = _key_value(call_fn(ds._key, element))
            if k not in sizes:
                size = ds._size(data_ops.scalar(k, dtypes.int64))
                size = int(size)
                if size < 1:
                    raise InvalidArgumentError(None, None, "Window size must be greater than "
                                               "zero, but got " + str(size) + ".")
                sizes[k] = size
            groups.setdefault(k, []).append(element)
            if len(groups[k]) >= sizes[k]:
                yield from flush(k)
        for k in sorted(groups):
            yield from flush(k)
    finally:
        close_iter(it)


@public("torchflow.data.experimental")
def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """Groups elements by an int64 key into windows, each reduced to a dataset.

    Args:
      key_func: element -> scalar int64 key.
      reduce_func: (key, window dataset) -> dataset.
      window_size: Elements per window (or give ``window_size_func(key)``).

    Raises:
      ValueError: If both or neither of ``window_size``/``window_size_func`` are given.
    """
    if (window_size is None) == (window_size_func is None):
        raise ValueError("Either the `window_size` argument or the `window_size_func` "
                         "argument must be specified.")
    size_fn = traced_fn.traced(window_size_func) if window_size_func is not None else (
        lambda _k: window_size)
    return lambda ds: GroupByWindowDataset(ds, traced_fn.traced(key_func),
                                           traced_fn.traced_dataset_fn(reduce_func,
                                                                       "reduce_func"),
                                           size_fn)


@public("torchflow.data.experimental")
def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches elements of similar length together (padded within each bucket).

    Buckets are ``[0, b0), [b0, b1), ..., [b_last, inf)``; bucket ``i`` uses
    ``bucket_batch_sizes[i]``.

    Args:
      element_length_func: ``element -> int32`` scalar length.
      bucket_boundaries: A sorted list of ints: the upper bounds (exclusive) of the buckets.
      bucket_batch_sizes: A list of ``len(bucket_boundaries) + 1`` ints: the batch size per
        bucket.
      padded_shapes: None (default: pad every dimension to the batch maximum) or shapes as
        in ``padded_batch``.
      padding_values: None (default: 0 / empty string) or values as in ``padded_batch``.
      pad_to_bucket_boundary: bool, default False: pad to the bucket's boundary minus 1
        instead of the batch maximum.
      no_padding: bool, default False: batch without padding (elements must share a shape).
      drop_remainder: bool, default False: drop each bucket's last partial batch.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one.

    Raises:
      ValueError: If ``len(bucket_batch_sizes) != len(bucket_boundaries) + 1``.
    """
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(f"len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1 but "
                         f"len(bucket_batch_sizes)={len(sizes)} and "
                         f"len(bucket_boundaries)={len(boundaries)}")
    if boundaries != sorted(boundaries):
        raise ValueError("bucket_boundaries must be sorted in increasing order.")

    length_fn = traced_fn.traced(element_length_func)

    def key(*element):
        el = element[0] if len(element) == 1 else element
        n = int(call_fn(length_fn, el))
        return data_ops.scalar(int(np.searchsorted(boundaries, n, side="right")), dtypes.int64)

    def reduce(k, window, to_boundary=pad_to_bucket_boundary):
        b = int(k)
        if no_padding:
            return window.batch(sizes[b], drop_remainder=drop_remainder)
        shapes = padded_shapes
        if to_boundary:
            if b == len(boundaries):
                raise InvalidArgumentError(None, None, "When pad_to_bucket_boundary=True, "
                                           "elements must have length < max(bucket_boundaries).")
            bound = boundaries[b] - 1
            spec = window.element_spec
            base = shapes if shapes is not None else _structure.map_structure(
                lambda s: s.shape.as_list(), spec)
            shapes = _pad_none(base, bound)
        return window.padded_batch(sizes[b], shapes, padding_values,
                                   drop_remainder=drop_remainder)

    return lambda ds: GroupByWindowDataset(ds, key, reduce, lambda k: sizes[int(k)],
                                           lambda k, window: reduce(k, window, False))


def _pad_none(shapes, bound):
    if isinstance(shapes, dict):
        return {k: _pad_none(v, bound) for k, v in shapes.items()}
    if isinstance(shapes, tuple):
        return tuple(_pad_none(v, bound) for v in shapes)
    dims = list(shapes) if not hasattr(shapes, "as_list") else shapes.as_list()
    return [bound if d is None or d == -1 else d for d in dims]


class _DirectedDataset(DatasetV2):
    """Chooses each element from one of ``datasets`` (by weights or a choice dataset)."""

    def __init__(self, datasets, chooser, stop_on_empty):
        self._datasets = list(datasets)
        if not self._datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        self._chooser = chooser
        self._stop = stop_on_empty
        spec = self._datasets[0].element_spec
        for d in self._datasets[1:]:
            if not _structure.same_structure(spec, d.element_spec):
                raise TypeError("Invalid `datasets`. `datasets` must have compatible element "
                                "specs.")

    def _inputs(self):
        return list(self._datasets)

    def _compute_spec(self):
        spec = self._datasets[0].element_spec
        for d in self._datasets[1:]:
            spec = _structure.merge_specs(spec, d.element_spec)
        return spec

    def _cardinality(self):
        # TF's rule: infinite as soon as one input is infinite, else unknown.
        cards = [d._cardinality() for d in self._datasets]
        return INFINITE if INFINITE in cards else UNKNOWN

    def _make_iter(self, ctx):
        return _directed_iter([d._make_iter(ctx) for d in self._datasets],
                              self._chooser(ctx), self._stop)


def _directed_iter(its, choices, stop_on_empty):
    alive = [True] * len(its)
    try:
        for i in choices(alive):
            if i is None:
                return
            if not 0 <= i < len(its):
                raise InvalidArgumentError(None, None, f"Selector index out of range: {i} >= "
                                           f"{len(its)}")
            if not alive[i]:
                continue
            try:
                yield next(its[i])
            except StopIteration:
                alive[i] = False
                if stop_on_empty or not any(alive):
                    return
    finally:
        for it in its:
            close_iter(it)


@public("torchflow.data.experimental")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """Interleaves ``datasets`` by drawing each element's source at random.

    Args:
      datasets: A list of datasets with compatible elements.
      weights: Per-dataset probabilities (default uniform); renormalized over the
        datasets that are not exhausted.
      seed: Op seed.
      stop_on_empty_dataset: Stop when any dataset is exhausted (default: go on
        with the others until all are).
    """
    n = len(datasets)
    if weights is None:
        w = np.full(n, 1.0 / n)
    else:
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, np.float64)
        if w.shape != (n,):
            raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible "
                             f"with `[len(datasets)]` but is {list(w.shape)}.")
    seeds = op_seeds(seed)

    def chooser(ctx):
        rng = random.Random(ctx.draw_seed(None if seeds is None else hash(seeds) & (2**63 - 1)))

        def gen(alive):
            while True:
                ww = np.where(alive, w, 0.0)
                total = ww.sum()
                if total <= 0:
                    yield None
                    return
                r = rng.random() * total
                yield int(min(np.searchsorted(np.cumsum(ww), r, side="right"), n - 1))
        return gen

    return _DirectedDataset(datasets, chooser, stop_on_empty_dataset)


@public("torchflow.data.experimental")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """Takes element ``i`` from ``datasets[choice]`` for each int64 scalar
    ``choice`` that ``choice_dataset`` yields.

    Args:
      datasets: A non-empty list of datasets with compatible element structures.
      choice_dataset: A dataset of int64 scalars in ``[0, len(datasets))``.
      stop_on_empty_dataset: bool, default False: stop at the first exhausted chosen
        dataset.

    Returns:
      A ``tf.data.Dataset``.
    """
    spec = choice_dataset.element_spec
    if _structure.is_nested(spec) or spec.dtype != dtypes.int64 or spec.shape.rank != 0:
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar "
                        f"`tf.int64` tensors but are {spec}.")

    def chooser(ctx):
        def gen(alive):
            it = choice_dataset._make_iter(ctx)
            try:
                for c in it:
                    yield int(c)
            finally:
                close_iter(it)
        return gen

    ds = _DirectedDataset(datasets, chooser, stop_on_empty_dataset)
    ds._choice = choice_dataset
    return ds


@public("torchflow.data.experimental")
def enumerate_dataset(start=0):
    """Pairs each element with its int64 index (``Dataset.enumerate``).

    Args:
      start: int, default 0: the first index.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one. Its elements are ``(int64 index, element)``.
    """
    return lambda ds: ds.enumerate(start)


@public("torchflow.data.experimental")
def unbatch():
    """Splits each element along its first dimension (``Dataset.unbatch``).

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one. Each element's first dimension becomes separate elements.
    """
    return lambda ds: ds.unbatch()


@public("torchflow.data.experimental")
def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """Shuffles and repeats a dataset (``shuffle(buffer_size, seed).repeat(count)``).

    Args:
      buffer_size: int: the shuffle buffer size.
      count: None (default: forever) or an int: the number of epochs.
      seed: None (default) or a Python int.

    Returns:
      A transformation function for ``Dataset.apply``: it takes a dataset and returns the
      new one. It shuffles each epoch anew.
    """
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


@public("torchflow.data.experimental")
def get_single_element(dataset):
    """The only element of ``dataset``; ``InvalidArgumentError`` if it has 0 or more.

    Args:
      dataset: A ``tf.data.Dataset`` with exactly one element.

    Returns:
      That element (a nested structure of tensors).
    """
    it = iter(dataset)
    try:
        first = next(it)
    except StopIteration:
        raise InvalidArgumentError(None, None, "Dataset was empty.") from None
    try:
        next(it)
    except StopIteration:
        return first
    raise InvalidArgumentError(None, None, "Dataset had more than one element.")


__all__ = ["normalize_output"]
