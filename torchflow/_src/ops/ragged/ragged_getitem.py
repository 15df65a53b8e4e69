"""Indexing and slicing of ``tf.RaggedTensor`` (``rt[1]``, ``rt[:, :2]``, ``rt[..., 0]``).

Installed as ``RaggedTensor.__getitem__``. An int on the outer dimension takes one
row; a slice keeps the rows it selects; on a ragged dimension an int takes that
element of every row (each row must have it) and a slice cuts every row.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    lengths_to_splits,
    rank_of,
    slice_rows,
    splits_tensor,
    take_rows,
)


def _index(k):
    if isinstance(k, Tensor):
        if k.shape.rank == 0 and k.dtype.is_integer:
            return int(k.numpy())
        raise TypeError("Ragged __getitem__ expects a Python int, a scalar int Tensor, a "
                        f"slice, Ellipsis or None; got {k!r}")
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer, slice,
                                                              type(Ellipsis), type(None))):
        raise TypeError("Ragged __getitem__ expects a Python int, a scalar int Tensor, a "
                        f"slice, Ellipsis or None; got {k!r}")
    if isinstance(k, slice):
        return slice(*(int(v.numpy()) if isinstance(v, Tensor) else v
                       for v in (k.start, k.stop, k.step)))
    return int(k) if isinstance(k, np.integer) else k


def _expand_ellipsis(rt: RaggedTensor, key: list) -> list:
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise ValueError("Ellipsis should only appear once in a slice key")
    if not n_ell:
        return key
    i = key.index(Ellipsis)
    n_real = sum(1 for k in key if k is not Ellipsis and k is not None)
    fill = [slice(None)] * max(rank_of(rt) - n_real, 0)
    return key[:i] + fill + key[i + 1:]


def getitem(rt: RaggedTensor, key):
    """``rt[key]``: a Tensor or RaggedTensor, as TF's ragged ``__getitem__``.

    Raises:
      ValueError: Too many indices, or more than one Ellipsis.
      InvalidArgumentError: An index out of range for some row.
    """
    key = list(key) if isinstance(key, tuple) else [key]
    key = _expand_ellipsis(rt, [_index(k) for k in key])
    if any(k is None for k in key):
        raise ValueError("tf.newaxis is not supported in ragged __getitem__ here; use "
                         "tf.expand_dims on the result.")
    if len(key) > rank_of(rt):
        raise ValueError("Too many indices for RaggedTensor")
    return _outer(rt, key)


def _apply_rest(value, rest: list):
    """``value[rest]`` (value's first dimension included in ``rest``)."""
    if not rest:
        return value
    if isinstance(value, RaggedTensor):
        return _outer(value, rest)
    return value[tuple(rest)]


def _outer(rt: RaggedTensor, key: list):
    k, rest = key[0], key[1:]
    n = rt._nrows()
    s = rt._row_splits._t
    if isinstance(k, int):
        i = k + n if k < 0 else k
        if not 0 <= i < n:
            raise InvalidArgumentError(None, None, f"slice index {k} of dimension 0 out of "
                                       f"bounds. [Op:StridedSlice]")
        row = slice_rows(rt._values, int(s[i]), int(s[i + 1]))
        return _apply_rest(row, rest)
    start, stop, step = k.indices(n)
    if step == 1:
        sliced = rt._slice_rows(start, max(stop, start))
    else:
        sliced = rt._gather_rows(torch.arange(start, stop, step, dtype=torch.int64))
    return _inner(sliced, rest) if rest else sliced


def _inner(rt: RaggedTensor, rest: list):
    """Applies ``rest`` to dimensions 1.. of ``rt`` (dimension 0 is kept)."""
    k, more = rest[0], rest[1:]
    s = rt._row_splits._t.to(torch.int64).cpu()
    starts, limits = s[:-1], s[1:]
    lengths = limits - starts
    if isinstance(k, int):
        if rt._uniform_row_length is None:
            raise ValueError("Cannot index into an inner ragged dimension.")
        pos = starts + k if k >= 0 else limits + k
        if lengths.shape[0] and bool(((pos < starts) | (pos >= limits)).any()):
            raise InvalidArgumentError(None, None, f"slice index {k} of dimension 1 out of "
                                       f"bounds. [Op:StridedSlice]")
        picked = take_rows(rt._values, pos)
        return _keep_outer(picked, more)
    start, stop, step = k.start, k.stop, k.step
    if step is None or step == 1:
        lo = _clip(start, lengths, 0)
        hi = torch.maximum(_clip(stop, lengths, None), lo)
        new_lengths = hi - lo
        new_splits = lengths_to_splits(new_lengths)
        idx = (torch.repeat_interleave(starts + lo - new_splits[:-1], new_lengths)
               + torch.arange(int(new_splits[-1])))
    else:
        rows = [list(range(int(a), int(b)))[k] for a, b in zip(starts, limits)]
        new_splits = lengths_to_splits(torch.tensor([len(r) for r in rows], dtype=torch.int64))
        idx = torch.tensor([i for r in rows for i in r], dtype=torch.int64)
    values = _keep_outer(take_rows(rt._values, idx), more)
    return RaggedTensor(values, splits_tensor(new_splits, rt.row_splits_dtype), internal=True)


def _keep_outer(value, rest: list):
    if not rest:
        return value
    if isinstance(value, RaggedTensor):
        return _inner(value, rest)
    return value[(slice(None),) + tuple(rest)]


def _clip(bound, lengths: torch.Tensor, default):
    if bound is None:
        return lengths.clone() if default is None else torch.zeros_like(lengths)
    if bound < 0:
        return torch.clamp(lengths + bound, min=0)
    return torch.full_like(lengths, bound).minimum(lengths)


RaggedTensor.__getitem__ = getitem
