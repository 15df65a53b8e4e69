"""The kernels of Keras' lookup and category-encoding layers, as ops with TF graph
lowerings (``graph_lowering_preprocessing``): eagerly they run on the host (a dict
probe per token, NumPy counts); in a saved graph they are TF's dense ops, so a
SavedModel serves the same values (no lookup-table resource is written).
"""

from __future__ import annotations

import itertools

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import lookup_ops


def vocab_lookup(x: Tensor, tokens: list, index: dict, num_oov: int, oov_start: int,
                 mask_key=None) -> Tensor:
    """The int64 index of each key of ``x`` in ``index`` (``tokens[i]`` is at
    ``index[tokens[i]]``); misses go to ``oov_start`` plus a bucket among ``num_oov``
    (farmhash for strings, modulo for integers, -1 with none); ``mask_key`` to 0."""
    keys = lookup_ops.as_key_array(x.numpy())
    return constant(lookup_ops.lookup(keys, index, num_oov, oov_start, mask_key),
                    dtype=dtypes.int64)


def vocab_invert(idx: Tensor, tokens: np.ndarray, default, dtype) -> Tensor:
    """``tokens[i]`` for each index of ``idx``; ``default`` out of range."""
    return constant(lookup_ops.invert(np.asarray(idx.numpy()), tokens, default), dtype=dtype)


def category_encode(x: Tensor, depth: int, binary: bool, idf=None) -> Tensor:
    """Per-row counts (``binary``: presence) of the integers of a 2-D ``x`` in
    ``[0, depth)`` (others are dropped), times ``idf`` when given: float32 ``[rows,
    depth]``."""
    rows = np.asarray(x.numpy(), np.int64)
    out = np.zeros((rows.shape[0], depth + 1), np.float32)
    r = np.repeat(np.arange(rows.shape[0]), rows.shape[1])
    v = rows.reshape(-1)
    np.add.at(out, (r, np.where((v >= 0) & (v < depth), v, depth)), 1.0)
    out = out[:, :depth]
    if binary:
        out = np.minimum(out, 1.0)
    if idf is not None:
        out = out * np.asarray(idf, np.float32)[:depth]
    return constant(out, dtype=dtypes.float32)


def bucketize(x: Tensor, boundaries: list) -> Tensor:
    """The int64 bucket of each value: ``i`` for ``boundaries[i-1] <= x <
    boundaries[i]`` (TF's ``Bucketize``)."""
    a = np.asarray(x.numpy(), np.float64)
    out = np.searchsorted(np.asarray(boundaries, np.float64), a, side="right")
    return constant(out.astype(np.int64), dtype=dtypes.int64)


def category_cross(inputs: list, depths: tuple, separator: str) -> Tensor:
    """Per row, every combination (of ``depths`` inputs) of one value from each
    input, joined with ``separator``: a string Tensor ``[rows, n]``."""
    cols = []
    for x in inputs:
        a = np.asarray(x.numpy())
        a = a.reshape(a.shape[0], -1)
        cols.append([[v if isinstance(v, bytes) else str(v.item() if isinstance(
            v, np.generic) else v).encode() for v in row] for row in a])
    sep = separator.encode()
    batch = len(cols[0])
    rows = []
    for r in range(batch):
        out = []
        for d in depths:
            for combo in itertools.combinations(range(len(cols)), d):
                for vals in itertools.product(*(cols[c][r] for c in combo)):
                    out.append(sep.join(vals))
        rows.append(out)
    arr = np.empty((batch, len(rows[0]) if rows else 0), dtype=object)
    for r, out in enumerate(rows):
        arr[r, :] = out
    return constant(arr, dtype=dtypes.string)


def on_host(fn, *tensors) -> Tensor:
    """``fn(*tensors)``, a Tensor computed on the host by code with no TF lowering: a
    saved graph that reads its result is refused (never a constant of the value the
    trace computed)."""
    return fn(*tensors)
