"""Reductions of ``tf.RaggedTensor`` along any axis (``tf.reduce_*``, variance, std).

As TF's ragged reductions do, reducing axis 0 or 1 is a segment aggregation of
the values one level down: axis 1 groups the values of each row, axis 0 groups
the values at the same position of every row. When those values are themselves
ragged, the rows of one segment combine position by position (the result row is
as long as the longest of them), recursively. Axes past the ragged ones reduce
the dense flat values.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import math_ops as m
from torchflow._src.ops import reduction_ops as red
from torchflow._src.ops import segment_ops as seg
from torchflow._src.ops import unary_math_ops as um
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    lengths_to_splits,
    rank_of,
    rowids_of,
    splits_tensor,
)

_BOOL = dtypes.bool
_INDEX_ADD_INTS = (dtypes.int32, dtypes.int64)
_DENSE = {"sum": red.reduce_sum, "prod": red.reduce_prod, "max": red.reduce_max,
          "min": red.reduce_min, "all": red.reduce_all, "any": red.reduce_any}


def _segment_sum(values: torch.Tensor, ids: torch.Tensor, n: int) -> torch.Tensor:
    """Sums of the rows of ``values`` per id (one index_add, differentiable)."""
    out = torch.zeros((n,) + tuple(values.shape[1:]), dtype=values.dtype,
                      device=values.device)
    return out.index_add(0, ids.to(device=values.device, dtype=torch.int64), values)


class Reducer(NamedTuple):
    """A reduction given by its dense form and its segment form (``reduce_join``)."""

    dense: Callable  # (Tensor, axis or None, keepdims) -> Tensor
    segment: Callable  # (Tensor, torch int64 ids, n) -> Tensor


def _dense_of(kind) -> Callable:
    return kind.dense if isinstance(kind, Reducer) else _DENSE[kind]


def _dense_segment(kind, values: Tensor, ids: torch.Tensor, n: int) -> Tensor:
    """TF's ``unsorted_segment_<kind>`` of a dense Tensor (empty segments: the identity)."""
    if isinstance(kind, Reducer):
        return kind.segment(values, ids, n)
    if kind in ("all", "any"):
        as_int = values._t.to(torch.int32) if kind == "any" else (~values._t).to(torch.int32)
        s = _segment_sum(as_int, ids, n)
        return wrap(s > 0 if kind == "any" else s == 0, _BOOL)
    if kind == "sum" and (values._dtype.is_floating or values._dtype in _INDEX_ADD_INTS):
        # One index_add, no host read: a tf.function over it can replay.
        return wrap(_segment_sum(values._t, ids, n), values._dtype)
    ids_t = wrap(ids.to(torch.int64), dtypes.int64)
    fn = {"sum": seg.unsorted_segment_sum, "prod": seg.unsorted_segment_prod,
          "max": seg.unsorted_segment_max, "min": seg.unsorted_segment_min}[kind]
    return fn(values, ids_t, n)


def segment(kind, data, ids: torch.Tensor, n: int):
    """``unsorted_segment_<kind>(data, ids, n)`` where ``data`` may be ragged.

    Ragged rows of one segment combine position by position: output row ``j`` is
    as long as the longest row with id ``j``, and its item ``k`` aggregates item
    ``k`` of each of those rows (TF's ``_ragged_segment_aggregate``).
    """
    if not isinstance(data, RaggedTensor):
        return _dense_segment(kind, data, ids, n)
    s = data._row_splits._t.to(torch.int64).cpu()
    lengths = s[1:] - s[:-1]
    ids = ids.to(torch.int64).cpu()
    out_lengths = torch.zeros(n, dtype=torch.int64)
    if lengths.numel():
        out_lengths = out_lengths.scatter_reduce(0, ids, lengths, "amax")
    out_splits = lengths_to_splits(out_lengths)
    # Each value of data goes to: the start of its row's output row + its position.
    rows = rowids_of(s)
    pos = torch.arange(int(s[-1])) - s[:-1][rows]
    target = out_splits[:-1][ids][rows] + pos
    values = segment(kind, data._values, target, int(out_splits[-1]))
    return RaggedTensor(values, splits_tensor(out_splits, data.row_splits_dtype), internal=True)


def expand_dims_at(x, axis: int):
    """``tf.expand_dims(x, axis)`` (``keepdims`` of a reduced axis)."""
    if not isinstance(x, RaggedTensor):
        return wrap(x._t.unsqueeze(axis) if not isinstance(x._t, np.ndarray)
                    else np.expand_dims(x._t, axis), x._dtype)
    n = x._nrows()
    d = x.row_splits_dtype
    if axis == 0:
        return RaggedTensor(x, wrap(torch.tensor([0, n], dtype=d._torch), d), internal=True,
                            uniform_row_length=n)
    if axis == 1:
        return RaggedTensor(x, wrap(torch.arange(n + 1, dtype=d._torch), d), internal=True,
                            uniform_row_length=1)
    return x.with_values(expand_dims_at(x._values, axis - 1))


def _reduce_one(kind, rt, axis: int, keepdims: bool):
    if not isinstance(rt, RaggedTensor):
        return _dense_of(kind)(rt, axis, keepdims)
    rr = rt.ragged_rank
    if axis > rr:
        return rt.with_flat_values(_dense_of(kind)(rt.flat_values, axis - rr, keepdims))
    if axis > 1:
        return rt.with_values(_reduce_one(kind, rt._values, axis - 1, keepdims))
    s = rt._row_splits._t.to(torch.int64).cpu()
    rows = rowids_of(s)
    if axis == 0:
        lengths = s[1:] - s[:-1]
        width = int(lengths.max()) if lengths.numel() else 0
        out = segment(kind, rt._values, torch.arange(int(s[-1])) - s[:-1][rows], width)
    else:
        out = segment(kind, rt._values, rows, s.shape[0] - 1)
    return expand_dims_at(out, axis) if keepdims else out


def axes_of(rt: RaggedTensor, axis) -> list:
    rank = rank_of(rt)
    if isinstance(axis, Tensor):
        axis = axis.numpy().tolist()
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"axis={a} is out of bounds for a RaggedTensor of rank {rank}")
        out.append(a + rank if a < 0 else a)
    return sorted(set(out), reverse=True)


def _count(rt: RaggedTensor, axis, keepdims: bool):
    ones = rt.with_flat_values(wrap(torch.ones_like(rt.flat_values._t), rt.dtype))
    return reduce("sum", ones, axis, keepdims)


def reduce(kind, rt, axis, keepdims):
    """``tf.reduce_<kind>`` of a RaggedTensor.

    ``kind``: a ``Reducer``, or sum prod max min mean all any, or variance and std (TF 2.4's
    ``reduce_variance`` is the mean of the squared deviations from
    ``reduce_mean(keepdims=True)``, which its ragged dispatch computes row-wise).

    Raises:
      ValueError: An axis out of range.
      TypeError: variance or std of an integer RaggedTensor.
    """
    keepdims = bool(keepdims)
    if kind == "mean":
        return m.truediv(reduce("sum", rt, axis, keepdims), _count(rt, axis, keepdims))
    if kind in ("variance", "std"):
        if not (rt.dtype.is_floating or rt.dtype.is_complex):
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{rt.dtype!r}.")
        means = reduce("mean", rt, axis, True)
        diff = m.subtract(rt, means)
        sq = um.square(um.abs(diff)) if rt.dtype.is_complex else um.square(diff)
        var = reduce("mean", sq, axis, keepdims)
        return um.sqrt(var) if kind == "std" else var
    if axis is None:
        return _dense_of(kind)(rt.flat_values, None, False)
    out = rt
    for a in axes_of(rt, axis):
        out = _reduce_one(kind, out, a, keepdims)
    return out
