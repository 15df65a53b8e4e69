"""Fused ``shuffle`` + ``batch`` over in-memory rows.

``from_tensor_slices(...)[.map(row-wise f)][.shuffle(k)].batch(n)`` holds its
elements as rows of a few large tensors. Instead of making one small tensor per
element and stacking 128 of them again, the fused path passes row references
through the shuffle buffer (the same buffer algorithm and seeds as
``ShuffleDataset``, so the same order) and builds each batch with one gather
per component. With a shuffle, rows are copied chunk by chunk into an "arena"
of ``buffer_size + chunk + batch_size`` rows whose free slots are reused, so
memory is bounded by the shuffle buffer, as in TF.
"""

from __future__ import annotations

import random

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.data import _structure, vectorize
from torchflow._src.data.batching import stack_elements
from torchflow._src.data.parallel import ParallelMapDataset
from torchflow._src.data.sources import TensorSliceDataset
from torchflow._src.data.transforms import MapDataset, ShuffleDataset
from torchflow._src.ops import data_ops


class _Chunk:
    """Rows ``0..n-1`` of ``flat`` component tensors with element ``structure``."""

    __slots__ = ("structure", "flat")

    def __init__(self, structure, flat):
        self.structure = structure
        self.flat = flat


def _source_rows(ds, ctx):
    """A generator of ``(chunk, row)`` or ``(None, element)`` items, or None if ``ds``
    does not keep its elements as rows."""
    if type(ds) is TensorSliceDataset:
        return _slice_rows(ds)
    if type(ds) in (MapDataset, ParallelMapDataset) and vectorize.enabled(ds._input, ctx):
        return _mapped_rows(vectorize.slices_source(ds._input, ctx), ds._fn)
    if type(ds) is ShuffleDataset:
        inner = _source_rows(ds._input, ctx)
        if inner is None:
            return None
        seed, size = ds._iter_seed(ctx)
        return _shuffled(inner, size, random.Random(seed))
    return None


def _slice_rows(ds):
    structure, flat, n = ds._structure, ds._flat, ds._n
    step = vectorize._CHUNK
    for s in range(0, n, step):
        e = min(s + step, n)
        chunk = _Chunk(structure, [data_ops.slice_rows(t, s, e) for t in flat])
        for i in range(e - s):
            yield chunk, i


def _mapped_rows(source, fn):
    for out, single in vectorize.vectorized_chunks(source, fn):
        if out is None:
            yield None, vectorize.check(single)
            continue
        chunk = _Chunk(out, _structure.flatten(out))
        for i in range(chunk.flat[0].shape[0]):
            yield chunk, i


def _shuffled(it, size, rng):
    # The algorithm of transforms._shuffle_iter, on references.
    buf = []
    rand = rng.random
    for item in it:
        if len(buf) < size:
            buf.append(item)
            continue
        j = int(rand() * size)
        out = buf[j]
        buf[j] = item
        yield out
    while buf:
        j = int(rand() * len(buf))
        out = buf[j]
        buf[j] = buf[-1]
        buf.pop()
        yield out


def fused_batch_iter(batch_ds, ctx):
    """The elements of ``batch_ds`` (a BatchDataset) on the fused path, or None."""
    inp = batch_ds._input
    if type(inp) is TensorSliceDataset:
        return None  # plain slicing + stacking is already as cheap
    if type(inp) is ShuffleDataset:
        src = inp._input
        if type(src) is TensorSliceDataset or (
                type(src) in (MapDataset, ParallelMapDataset)
                and vectorize.enabled(src._input, ctx)):
            seed, size = inp._iter_seed(ctx)
            return _arena_batches(src, ctx, size, random.Random(seed), batch_ds._size,
                                  batch_ds._drop)
        return None
    rows = _source_rows(inp, ctx)
    if rows is None:
        return None
    return _batches(rows, batch_ds._size, batch_ds._drop)


class _Arena:
    """Row storage with free-slot reuse, holding the rows of a shuffle buffer."""

    def __init__(self, capacity):
        self.cap = capacity
        self.free = list(range(capacity - 1, -1, -1))
        self.flat = None
        self.structure = None

    def ingest(self, structure, flat) -> list:
        n = flat[0].shape[0]
        if self.flat is None:
            self.structure = structure
            self.flat = [data_ops.arena_like(t, self.cap) for t in flat]
        elif len(flat) != len(self.flat) or not all(
                data_ops.rows_fit(a, t) for a, t in zip(self.flat, flat)):
            raise InvalidArgumentError(None, None, "Cannot batch tensors with different "
                                       "shapes in component 0.")
        free = self.free
        slots = free[-n:][::-1]
        del free[-n:]
        for a, t in zip(self.flat, flat):
            data_ops.put_rows(a, slots, t)
        return slots

    def take(self, slots):
        out = [data_ops.take_rows(a, slots) for a in self.flat]
        self.free.extend(slots)
        return _structure.pack_as(self.structure, out)


def _arena_slots(src, ctx, arena):
    """Slots of the rows of ``src`` (slices, or a vectorized map over slices)."""
    if type(src) is TensorSliceDataset:
        step = vectorize._CHUNK
        for s in range(0, src._n, step):
            e = min(s + step, src._n)
            yield from arena.ingest(src._structure,
                                    [data_ops.slice_rows(t, s, e) for t in src._flat])
        return
    for out, single in vectorize.vectorized_chunks(vectorize.slices_source(src._input, ctx),
                                                   src._fn):
        if out is None:
            single = vectorize.check(single)
            yield from arena.ingest(single, [data_ops.expand_row(t)
                                             for t in _structure.flatten(single)])
        else:
            yield from arena.ingest(out, _structure.flatten(out))


def _arena_batches(src, ctx, size, rng, batch, drop):
    arena = _Arena(min(size, _source_len(src, ctx)) + vectorize._CHUNK + batch)
    shuffled = _shuffled(_arena_slots(src, ctx, arena), size, rng)
    buf = []
    for slot in shuffled:
        buf.append(slot)
        if len(buf) == batch:
            yield arena.take(buf)
            buf = []
    if buf and not drop:
        yield arena.take(buf)


def _source_len(src, ctx) -> int:
    return src._n if type(src) is TensorSliceDataset else vectorize.slices_source(
        src._input, ctx)._n


def _batches(rows, size, drop):
    buf = []
    for item in rows:
        buf.append(item)
        if len(buf) == size:
            yield _build(buf, stack_elements)
            buf = []
    if buf and not drop:
        yield _build(buf, stack_elements)


def _build(items, stack_elements):
    chunk0 = items[0][0]
    if chunk0 is None or any(c is None for c, _ in items):
        return stack_elements([_element(c, r) for c, r in items])
    groups: dict = {}
    for pos, (c, r) in enumerate(items):
        g = groups.get(id(c))
        if g is None:
            groups[id(c)] = g = (c, [], [])
        g[1].append(r)
        g[2].append(pos)
    chunks = [g[0] for g in groups.values()]
    rows = [g[1] for g in groups.values()]
    positions = [g[2] for g in groups.values()]
    n = len(items)
    flat = [data_ops.gather_groups([c.flat[k] for c in chunks], rows, positions, n)
            for k in range(len(chunk0.flat))]
    return _structure.pack_as(chunk0.structure, flat)


def _element(chunk, r):
    if chunk is None:
        return r
    return _structure.pack_as(chunk.structure, [data_ops.row(t, r) for t in chunk.flat])
