"""Map vectorization: ``from_tensor_slices(...).map(f)`` applies ``f`` to chunks of rows.

Calling ``f`` once per element costs a few Python-level op calls per element,
which dominates simple preprocessing. When ``f`` works row-wise (casts,
arithmetic, most elementwise ops), ``f(rows[i:j])`` equals the stack of
``f(row)`` for each row, and one call on a chunk replaces ``j - i`` calls.

Whether ``f`` works row-wise is checked, not assumed: ``f`` runs on the first
chunk and, separately, on two of its rows; the chunk result must have the same
structure and dtypes, a leading dimension equal to the chunk length, and rows
equal to the per-row results. Anything else (an error on the chunk, a shape or
value mismatch, e.g. a random op or a reduction over all axes) falls back to
per-element calls for the whole pass. A chunk that raises later is redone
element by element, so an error names the element as without vectorization.

This is off unless a program asks for it with
``options.experimental_optimization.map_vectorization.enabled = True`` (off by
default, as in TF 2.4). It changes what a function sees: ``f`` runs on chunks,
and on two rows of the first chunk a second time to verify it, so a
``tf.py_function`` or ``tf.Variable`` update inside ``f`` runs on chunks and more
than once for those rows. Without the option, every function passed to a
transformation runs exactly once per element, as in TF (TF vectorizes the traced
graph, where Python side effects already ran once at tracing).
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.data import _structure
from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.data.sources import TensorSliceDataset
from torchflow._src.data.transforms import OptionsDataset, normalize_output
from torchflow._src.ops import data_ops

_CHUNK = 1024


def slices_source(dataset, ctx):
    """The TensorSliceDataset under ``dataset`` (through ``with_options``) when
    vectorization applies, else None."""
    while type(dataset) is OptionsDataset:
        dataset = dataset._input
    if type(dataset) is not TensorSliceDataset:
        return None
    flag = ctx.options.experimental_optimization.map_vectorization.enabled
    return dataset if flag is not None and bool(flag) else None


def enabled(dataset, ctx) -> bool:
    return slices_source(dataset, ctx) is not None


def _call(fn, element):
    out = fn(*element) if type(element) is tuple else fn(element)
    return normalize_output(out)


def _rows(structure, flat, start, stop):
    return _structure.pack_as(structure, [data_ops.slice_rows(t, start, stop) for t in flat])


def _row(structure, flat, i):
    return _structure.pack_as(structure, [data_ops.row(t, i) for t in flat])


def _same(a, b) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    x, y = a.numpy(), b.numpy()
    if a.dtype == dtypes.string or not (a.dtype.is_floating or a.dtype.is_complex):
        return bool(np.array_equal(x, y))
    return bool(np.allclose(x, y, rtol=1e-6, atol=1e-7, equal_nan=True))


def _verified(chunk_out, singles, idx, n) -> bool:
    if isinstance(chunk_out, DatasetV2) or not all(
            _structure.same_structure(chunk_out, s) for s in singles):
        return False
    flat = _structure.flatten(chunk_out)
    for t in flat:
        if not hasattr(t, "dtype") or t.shape.rank in (None, 0) or t.shape[0] != n:
            return False
    for i, single in zip(idx, singles):
        for t, s in zip(flat, _structure.flatten(single)):
            if not _same(data_ops.row(t, i), s):
                return False
    return True


def vectorized_chunks(source, fn):
    """Yields ``(chunk_output, None)`` per chunk of rows, or ``(None, element)`` for
    elements computed one by one (when ``fn`` is not row-wise, or a chunk failed)."""
    structure, flat, n = source._structure, source._flat, source._n
    start = 0
    vectorize = True
    while start < n:
        stop = min(start + _CHUNK, n)
        out = None
        if vectorize:
            try:
                out = _call(fn, _rows(structure, flat, start, stop))
            except Exception:  # noqa: BLE001 - not row-wise: redo per element below
                out = None
            if start == 0:
                if out is not None:
                    idx = sorted({0, stop - 1})
                    singles = [_call(fn, _row(structure, flat, i)) for i in idx]
                    if not _verified(out, singles, idx, stop - start):
                        out = None
                if out is None:
                    vectorize = False
            elif out is not None and not all(
                    t.shape.rank and t.shape[0] == stop - start
                    for t in _structure.flatten(out)):
                out = None
        if out is None:
            for i in range(start, stop):
                try:
                    yield None, _call(fn, _row(structure, flat, i))
                except Exception as e:  # noqa: BLE001 - raised at the consumer, who may go on
                    yield None, Raised(e)
        else:
            yield out, None
        start = stop


class Raised:
    """An error for one element, carried through a generator so iteration can go on."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def check(element):
    if type(element) is Raised:
        raise element.error
    return element


class _MapIterator:
    __slots__ = ("_gen",)

    def __init__(self, gen):
        self._gen = gen

    def __iter__(self):
        return self

    def __next__(self):
        e = next(self._gen)
        if type(e) is Raised:
            raise e.error
        return e

    def close(self):
        self._gen.close()


def vectorized_map_iter(source, fn):
    """Elements of ``source.map(fn)``, computed chunk by chunk when ``fn`` is row-wise."""
    return _MapIterator(_vectorized_elements(source, fn))


def _vectorized_elements(source, fn):
    for out, single in vectorized_chunks(source, fn):
        if out is None:
            yield single
            continue
        out_flat = _structure.flatten(out)
        n = out_flat[0].shape[0]
        cols = [data_ops.unstack_range(t, 0, n) for t in out_flat]
        if not _structure.is_nested(out):
            yield from cols[0]
        elif type(out) is tuple and len(out_flat) == len(out):
            yield from zip(*cols)
        else:
            for parts in zip(*cols):
                yield _structure.pack_as(out, list(parts))
