"""More ops of TF 2.4's ragged dispatch: one_hot, squeeze, where(condition), the
unsorted segment reductions, dynamic_partition, and the value-wise ops that keep
the row partitions (clip_by_value, dropout, add_n).

Each takes the dense op it stands in for as an argument, so this module does not
import the op modules that call it.
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import comparison_ops as cmp
from torchflow._src.ops import math_ops as m
from torchflow._src.ops import segment_ops as seg
from torchflow._src.ops import unary_math_ops as um
from torchflow._src.ops.ragged import ragged_factory as rf
from torchflow._src.ops.ragged.ragged_gather import flat_index
from torchflow._src.ops.ragged.ragged_reduce import segment
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor, rank_of

_DENSE_SEGMENT = {"sum": seg.unsorted_segment_sum, "prod": seg.unsorted_segment_prod,
                  "amax": seg.unsorted_segment_max, "amin": seg.unsorted_segment_min,
                  "mean": seg.unsorted_segment_mean, "sqrt_n": seg.unsorted_segment_sqrt_n}
_KINDS = {"sum": "sum", "prod": "prod", "amax": "max", "amin": "min", "max": "max",
          "min": "min"}


def one_hot(indices: RaggedTensor, dense_one_hot, depth, on_value, off_value, axis, dtype):
    """``tf.one_hot`` of ragged indices: the new dimension goes after the ragged ones."""
    rank = rank_of(indices)
    a = -1 if axis is None else int(axis)
    if a != -1 and a <= indices.ragged_rank:
        raise ValueError(f"axis ({a}) must be greater than indices.ragged_rank "
                         f"({indices.ragged_rank}).")
    if a > rank:
        raise ValueError(f"axis ({a}) must be at most the rank of indices ({rank}), or -1")
    inner = -1 if a == -1 else a - indices.ragged_rank
    return indices.with_flat_values(dense_one_hot(indices.flat_values, depth, on_value,
                                                  off_value, inner, dtype))


def squeeze(rt: RaggedTensor, axis, dense_squeeze):
    """``tf.squeeze`` of a RaggedTensor: the listed dimensions must have size 1
    (a ragged one: every row of length 1).

    Raises:
      ValueError: No ``axis``, or axis 0 or a ragged axis whose rows are not all 1 long.
    """
    if axis is None:
        raise ValueError("Ragged.squeeze must have an axis argument.")
    rank = rank_of(rt)
    axes = [int(a) for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    axes = sorted({a + rank if a < 0 else a for a in axes}, reverse=True)
    out = rt
    for a in axes:
        if not 0 <= a < rank:
            raise ValueError(f"axis={a} out of bounds: expected {-rank}<=axis<{rank}")
        out = _squeeze_one(out, a, dense_squeeze)
    return out


def _squeeze_one(rt, a: int, dense_squeeze):
    if not isinstance(rt, RaggedTensor):
        return dense_squeeze(rt, [a])
    if a == 0:
        raise ValueError("Ragged.squeeze does not support squeezing axis 0")
    if a > 1:
        return rt.with_values(_squeeze_one(rt._values, a - 1, dense_squeeze))
    s = rt._row_splits._t
    if bool(((s[1:] - s[:-1]) != 1).any()):
        raise InvalidArgumentError(None, None, "the given axis (axis = 1) is not squeezable!")
    return rt._values


def where_coordinates(condition: RaggedTensor) -> Tensor:
    """``tf.where(condition)``: the int64 coordinates of the true values, row-major."""
    flat = condition.flat_values
    if flat.dtype != dtypes.bool:
        flat = cmp.not_equal(flat, wrap(torch.zeros((), dtype=flat._t.dtype), flat.dtype))
    hits = torch.nonzero(flat._t.cpu())
    outer = [ix[hits[:, 0]] for ix in flat_index(condition)]
    coords = torch.stack(outer + [hits[:, j] for j in range(1, hits.shape[1])], 1) \
        if hits.shape[0] else torch.zeros((0, rank_of(condition)), dtype=torch.int64)
    return wrap(coords.to(torch.int64), dtypes.int64)


def unsorted_segment(kind: str, data, segment_ids, num_segments):
    """``tf.math.unsorted_segment_<kind>`` with ragged data (and ids of its partitions).

    Rows of one segment combine position by position, as TF's ragged dispatch.

    Raises:
      ValueError: Ragged ids with dense data.
      InvalidArgumentError: Ragged ids whose row partitions differ from data's.
    """
    if isinstance(segment_ids, RaggedTensor):
        if not isinstance(data, RaggedTensor):
            raise ValueError("segment_ids.shape must be a prefix of data.shape, but "
                             "segment_ids is ragged and data is not.")
        s1, s2 = segment_ids._row_splits._t, data._row_splits._t
        if s1.shape != s2.shape or not bool(torch.equal(s1.to(torch.int64),
                                                        s2.to(torch.int64))):
            raise InvalidArgumentError(None, None, "segment_ids.shape must be a prefix of "
                                       "data.shape")
        return unsorted_segment(kind, data._values, segment_ids._values, num_segments)
    if not isinstance(data, RaggedTensor):  # the values of ragged data and ids
        return _DENSE_SEGMENT[kind](data, segment_ids, num_segments)
    ids_t = convert_to_tensor(segment_ids)
    if ids_t.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"segment_ids must be int32 or int64; got {ids_t.dtype.name}")
    ids = ids_t._t.reshape(-1).to(torch.int64).cpu()
    n = int(num_segments.numpy() if isinstance(num_segments, Tensor) else num_segments)
    if ids.shape[0] != data._nrows():
        raise InvalidArgumentError(None, None, "segment_ids.shape must be a prefix of "
                                   "data.shape")
    if kind in ("mean", "sqrt_n"):
        total = segment("sum", data, ids, n)
        ones = data.with_flat_values(wrap(torch.ones_like(data.flat_values._t), data.dtype))
        count = segment("sum", ones, ids, n)
        count = m.maximum(count, 1) if kind == "mean" else um.sqrt(m.maximum(count, 1))
        return m.truediv(total, count)
    return segment(_KINDS[kind], data, ids, n)


def dynamic_partition(data, partitions, num_partitions, dense_partition) -> list:
    """``tf.dynamic_partition`` with ragged data or partitions (TF's ragged dispatch)."""
    if isinstance(partitions, RaggedTensor):
        k = partitions.ragged_rank
        ok = isinstance(data, RaggedTensor) and data.ragged_rank >= k and all(
            a._t.shape == b._t.shape and bool(torch.equal(a._t.to(torch.int64),
                                                          b._t.to(torch.int64)))
            for a, b in zip(partitions.nested_row_splits, data.nested_row_splits[:k]))
        if not ok:
            raise InvalidArgumentError(None, None, "data and partitions have incompatible "
                                       "ragged shapes")
        values = data
        for _ in range(k):
            values = values._values
        return dense_partition(values, partitions.flat_values, num_partitions)
    p = convert_to_tensor(partitions)
    if p.shape.rank != 1:
        raise ValueError("partitions must be a vector when data is ragged")
    ids = p._t.to(torch.int64).cpu()
    n = int(num_partitions)
    if ids.shape[0] != data._nrows():
        raise InvalidArgumentError(None, None, "partitions.shape must be a prefix of "
                                   "data.shape")
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= n):
        raise InvalidArgumentError(None, None, f"partitions must be in [0, {n})")
    return [data._gather_rows(torch.nonzero(ids == i).reshape(-1)) for i in range(n)]


def values_op(fn, x: RaggedTensor, *args):
    """An op on the values that keeps the row partitions (clip_by_value, dropout)."""
    return x.with_flat_values(fn(x.flat_values, *args))


def add_n(inputs: list, dense_add_n):
    """``tf.math.add_n`` of RaggedTensors of one row partition."""
    first = next(v for v in inputs if isinstance(v, RaggedTensor))
    flats = []
    for v in inputs:
        if isinstance(v, RaggedTensor):
            if not rf.same_partition(first, v):
                raise InvalidArgumentError(None, None, "Inputs must have identical ragged "
                                           "splits")
            flats.append(v.flat_values)
        else:
            raise InvalidArgumentError(None, None, "add_n of a RaggedTensor and a Tensor: "
                                       "all inputs must be ragged with identical splits")
    return first.with_flat_values(dense_add_n(flats))

