"""``distributed_epoch``: splitting a pipeline's source between the workers.

The source of a pipeline is the one dataset at the bottom of its ``_inputs``
chain: ``range``, ``from_tensor_slices`` (which is also the file list under
``TFRecordDataset(filenames)``, ``TextLineDataset`` ... and ``interleave`` over
file names). Its elements are numbered ``0 .. n-1``; the dispatcher hands
contiguous ranges of these indices to the tasks (``DispatcherState.get_split``),
each range once, and each worker runs the rest of the pipeline over the source
elements of the ranges it gets. A pipeline with several sources (``zip``,
``concatenate``) or another kind of source (``from_generator``, ``from_tensors``)
cannot be split, as in TF.

Before a dataset is sent, ``portable`` copies its graph without the state a
spec computation leaves on it (a primed first element and its iterator), so a
worker starts from the source.
"""

from __future__ import annotations

import copy

from torchflow._src.data import _structure
from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.data.sources import RangeDataset, TensorSliceDataset
from torchflow._src.ops import data_ops


def _leaves(ds, found: list) -> None:
    # every path counts: zip((a, a)) reads its source twice, so it has two sources
    inputs = ds._inputs()
    if not inputs:
        found.append(ds)
    for d in inputs:
        _leaves(d, found)


def source_of(dataset):
    """The splittable source of ``dataset``, or None."""
    found: list = []
    _leaves(dataset, found)
    if len(found) == 1 and type(found[0]) in (RangeDataset, TensorSliceDataset):
        return found[0]
    return None


def num_splits(dataset):
    """How many source elements ``distributed_epoch`` splits (None: not splittable)."""
    src = source_of(dataset)
    if src is None:
        return None
    return len(src._range) if type(src) is RangeDataset else src._n


def _rebuild(ds, replace: dict, memo: dict):
    if id(ds) in replace:
        return replace[id(ds)]
    if id(ds) in memo:
        return memo[id(ds)]
    new = copy.copy(ds)
    new.__dict__.pop("_primed", None)
    memo[id(ds)] = new
    for name, value in list(vars(ds).items()):
        if isinstance(value, DatasetV2):
            setattr(new, name, _rebuild(value, replace, memo))
        elif isinstance(value, (list, tuple)) and value and \
                all(isinstance(v, DatasetV2) for v in value):
            setattr(new, name, type(value)(_rebuild(v, replace, memo) for v in value))
    return new


def pipeline(dataset) -> list:
    """Every dataset of ``dataset``'s graph (each once)."""
    out, seen, todo = [], set(), [dataset]
    while todo:
        ds = todo.pop()
        if id(ds) in seen:
            continue
        seen.add(id(ds))
        out.append(ds)
        todo.extend(ds._inputs())
    return out


def portable(dataset):
    """A copy of ``dataset``'s graph fit to pickle and run elsewhere from the start."""
    return _rebuild(dataset, {}, {})


def split_by(dataset, fetch):
    """``dataset`` with its source reading only the index ranges ``fetch()`` returns
    (``[start, stop)``, or None when there are no more)."""
    src = source_of(dataset)
    if src is None:
        raise ValueError("The dataset's source cannot be split.")
    return _rebuild(dataset, {id(src): _SplitSource(src, fetch)}, {})


class _SplitSource(DatasetV2):
    """The elements of ``source`` at the indices of the ranges ``fetch`` hands out."""

    def __init__(self, source, fetch):
        self._source = source
        self._fetch = fetch

    def _make_iter(self, ctx):
        while True:
            r = self._fetch()
            if r is None:
                return
            yield from self._part(int(r[0]), int(r[1]))._make_iter(ctx)

    def _part(self, start: int, stop: int):
        src = self._source
        if type(src) is RangeDataset:
            part = copy.copy(src)
            part._range = src._range[start:stop]
            return part
        flat = [data_ops.slice_rows(t, start, stop) for t in src._flat]
        return TensorSliceDataset(_structure.pack_as(src._structure, flat))

    def _cardinality(self):
        return -2

    def _compute_spec(self):
        return self._source.element_spec

    def options(self):
        return self._source.options()
