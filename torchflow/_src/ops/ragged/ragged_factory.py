"""``tf.ragged``: constant, range, stack, boolean_mask, map_flat_values and row ids."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant as dense_constant
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import dtype_error
from torchflow._src.ops.ragged.ragged_convert import from_tensor
from torchflow._src.ops.ragged.ragged_reduce import expand_dims_at
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    lengths_to_splits,
    nrows_of,
    rank_of,
    rowids_of,
    splits_tensor,
    take_rows,
)
from torchflow._src.util import nest
from torchflow._src.util.api import public

_I64 = dtypes.int64


def _is_list(x) -> bool:
    return isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0)


def _depths(x, depth: int, out: set, list_depths: set) -> None:
    if _is_list(x):
        list_depths.add(depth + 1)
        for v in x:
            _depths(v, depth + 1, out, list_depths)
    else:
        out.add(depth)


@public("torchflow.ragged")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=_I64):
    """Constructs a constant RaggedTensor from a nested Python list.

    Args:
      pylist: A nested list (or tuple / NumPy array) of scalars; every scalar must
        be at the same nesting depth.
      dtype: The values' dtype (default inferred, float32 for an empty list).
      ragged_rank: The number of ragged dimensions (default ``depth - 1 -
        len(inner_shape)``).
      inner_shape: The uniform shape of the flat values' items.
      name: Unused (eager).
      row_splits_dtype: int32 or int64.

    Returns:
      A RaggedTensor (a Tensor when ``ragged_rank`` is 0).

    Raises:
      ValueError: If the scalars are at different depths or ``ragged_rank`` does
        not fit.

    >>> import torchflow as tf
    >>> tf.ragged.constant([[1, 2], [3]])
    <tf.RaggedTensor [[1, 2], [3]]>
    """
    if isinstance(pylist, (RaggedTensor, Tensor)):
        raise TypeError("pylist may not be a RaggedTensor or Tensor.")
    scalar_depths: set = set()
    list_depths: set = set()
    _depths(pylist, 0, scalar_depths, list_depths)
    if len(scalar_depths) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    depth = scalar_depths.pop() if scalar_depths else max(list_depths, default=0)
    n_inner = 0 if inner_shape is None else len(tuple(inner_shape))
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - n_inner)
    if ragged_rank < 0:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank="
                         f"{ragged_rank}")
    if depth and ragged_rank >= depth:
        raise ValueError(f"pylist has scalar values depth {depth}, but ragged_rank="
                         f"{ragged_rank} requires scalar value depth greater than "
                         f"{ragged_rank}")
    if ragged_rank == 0:
        return dense_constant(pylist, dtype=dtype)
    items = list(pylist)
    nested_lengths = []
    for _ in builtins.range(ragged_rank):
        nested_lengths.append([len(x) for x in items])
        items = [v for x in items for v in x]
    inner = () if inner_shape is None else tuple(inner_shape)
    if items:
        flat = dense_constant([np.asarray(v).tolist() if isinstance(v, np.ndarray) else v
                               for v in items], dtype=dtype)
    else:
        width = max(0, depth - 1 - ragged_rank) if inner_shape is None else 0
        shape = [0] + list(inner) if inner else [0] + [0] * width
        flat = dense_constant(np.zeros(shape), dtype=dtype or dtypes.float32)
    splits_dtype = dtypes.as_dtype(row_splits_dtype)
    result = flat
    for lengths in reversed(nested_lengths):
        s = lengths_to_splits(torch.tensor(lengths, dtype=torch.int64))
        result = RaggedTensor(result, splits_tensor(s, splits_dtype), internal=True)
    return result


@public("torchflow.ragged")
def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001 - TF's name
          row_splits_dtype=_I64) -> RaggedTensor:
    """A RaggedTensor whose row ``i`` is ``tf.range(starts[i], limits[i], deltas[i])``.

    Args:
      starts: Scalar or vector of starts (the limits when ``limits`` is None).
      limits: Scalar or vector of (exclusive) limits.
      deltas: Scalar or vector of increments (non-zero).
      dtype: The values' dtype (default: inferred from the inputs).
      name: Unused (eager).
      row_splits_dtype: int32 or int64.

    Returns:
      A RaggedTensor of rank 2.

    Raises:
      InvalidArgumentError: If a delta is zero.

    >>> import torchflow as tf
    >>> tf.ragged.range([3, 5, 2])
    <tf.RaggedTensor [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1]]>
    """
    if limits is None:
        starts, limits = 0, starts
    s, lim, dl = (convert_to_tensor(v, dtype=dtype) for v in (starts, limits, deltas))
    d = lim._dtype if not isinstance(limits, (int, float)) else (
        s._dtype if not isinstance(starts, (int, float)) else lim._dtype)
    d = dtypes.as_dtype(dtype) if dtype is not None else d
    a = np.broadcast_arrays(*(np.asarray(v.numpy(), dtype=d.as_numpy_dtype)
                              for v in (s, lim, dl)))
    if (a[2] == 0).any():
        raise InvalidArgumentError(None, None, "Requires delta != 0 [Op:RaggedRange]")
    sa, la, da = (np.atleast_1d(x) for x in a)
    lengths = np.maximum(0, np.ceil((la - sa) / da)).astype(np.int64)
    rows = np.repeat(np.arange(len(lengths)), lengths)
    first = np.concatenate([[0], np.cumsum(lengths)])[:-1]
    pos = np.arange(int(lengths.sum())) - first[rows]
    values = (sa[rows] + pos * da[rows]).astype(d.as_numpy_dtype)
    splits = lengths_to_splits(torch.from_numpy(lengths))
    return RaggedTensor(convert_to_tensor(values, dtype=d),
                        splits_tensor(splits, dtypes.as_dtype(row_splits_dtype)), internal=True)


def to_ragged(x, ragged_rank: int, splits_dtype=_I64):
    """``x`` as a RaggedTensor of ``ragged_rank`` ragged dimensions (dense: uniform rows)."""
    if isinstance(x, RaggedTensor):
        if x.ragged_rank == ragged_rank:
            return x
        if x.ragged_rank > ragged_rank:
            raise ValueError(f"ragged_rank {x.ragged_rank} is larger than {ragged_rank}")
        return x.with_flat_values(to_ragged(x.flat_values, ragged_rank - x.ragged_rank,
                                            x.row_splits_dtype))
    return from_tensor(RaggedTensor, x, ragged_rank=ragged_rank, row_splits_dtype=splits_dtype)


def concat_rows(rts: list):
    """Concatenation along axis 0 of tensors of one ragged rank (or dense Tensors)."""
    if not isinstance(rts[0], RaggedTensor):
        d = rts[0]._dtype
        if d is dtypes.string:
            return wrap(np.concatenate([r._t for r in rts]), d)
        return wrap(torch.cat([r._t for r in rts]), d)
    splits, offset = [rts[0]._row_splits._t[:1].to(torch.int64) * 0], 0
    for r in rts:
        s = r._row_splits._t.to(torch.int64)
        splits.append(s[1:] + offset)
        offset += int(s[-1])
    return RaggedTensor(concat_rows([r._values for r in rts]),
                        splits_tensor(torch.cat(splits), rts[0].row_splits_dtype), internal=True)


def batch_rows(parts: list, ragged_rank: int, splits_dtype=_I64) -> RaggedTensor:
    """``parts`` (Tensors or RaggedTensors brought to ``ragged_rank``) as the rows of one
    RaggedTensor of ragged rank ``ragged_rank + 1`` (tf.data's batch of ragged elements)."""
    parts = [p if isinstance(p, RaggedTensor) and p.ragged_rank == ragged_rank else (
        to_ragged(p, ragged_rank, splits_dtype) if ragged_rank else convert_to_tensor(p))
        for p in parts]
    lengths = torch.tensor([nrows_of(p) for p in parts], dtype=torch.int64)
    return RaggedTensor(concat_rows(parts), splits_tensor(lengths_to_splits(lengths),
                                                          dtypes.as_dtype(splits_dtype)),
                        internal=True)


def interleave_rows(rts: list):
    """Rows ``[rts[0][0], rts[1][0], ..., rts[0][1], ...]`` (for axis-1 stack/concat)."""
    n = nrows_of(rts[0])
    for r in rts:
        if nrows_of(r) != n:
                raise InvalidArgumentError(None, None, "Input tensors have incompatible shapes.")
    allrows = concat_rows(rts)
    k = len(rts)
    idx = (torch.arange(n)[:, None] + n * torch.arange(k)[None, :]).reshape(-1)
    return take_rows(allrows, idx), n, k


def _common(values: list, op: str):
    values = [v if isinstance(v, RaggedTensor) else convert_to_tensor(v) for v in values]
    r0 = values[0].shape.rank
    for v in values[1:]:
        if v.shape.rank != r0:
            raise ValueError(f"Shape {v.shape} must have rank {r0}")
    rr = max((v.ragged_rank for v in values if isinstance(v, RaggedTensor)), default=0)
    d0 = values[0].dtype
    for i, v in enumerate(values):
        if v.dtype != d0:
            raise dtype_error(op, i, d0, v.dtype)
    return values, rr


@public("torchflow.ragged")
def stack(values, axis=0, name=None) -> RaggedTensor:
    """Stacks a list of rank-R (ragged or dense) tensors into one rank-(R+1) RaggedTensor.

    Args:
      values: A non-empty list of Tensors or RaggedTensors of one rank and dtype.
      axis: The new dimension (``-(rank + 1) <= axis <= rank``).
      name: Unused (eager).

    Returns:
      A RaggedTensor.

    Raises:
      ValueError: If ``values`` is empty or the ranks differ.

    >>> import torchflow as tf
    >>> tf.ragged.stack([tf.ragged.constant([[1, 2], [3]]), tf.constant([[4, 5, 6]])])
    <tf.RaggedTensor [[[1, 2], [3]], [[4, 5, 6]]]>
    """
    if not isinstance(values, (list, tuple)) or not values:
        raise ValueError("values must be a non-empty list of tensors.")
    values, rr = _common(list(values), "Pack")
    rank = values[0].shape.rank
    axis = axis + rank + 1 if axis < 0 else axis
    if rank == 1 or rr == 0:
        rr = max(rr, 1) if rank > 1 else 0
    parts = [to_ragged(v, rr) if rr else v for v in values]
    if axis == 0:
        return batch_rows(parts, rr)
    if axis == 1:
        rows, n, k = interleave_rows(parts)
        return RaggedTensor(rows, splits_tensor(torch.arange(n + 1) * k), internal=True)
    if not 0 <= axis <= rank:
        raise ValueError(f"axis={axis - rank - 1 if axis < 0 else axis} out of bounds: "
                         f"expected {-rank - 1}<=axis<{rank + 1}")
    out = _concat_inner([expand_dims_at(to_ragged(v, max(rr, 1)), axis) for v in values], axis)
    if not isinstance(out, RaggedTensor):  # ragged parts (rank >= 2) concatenate to ragged
        raise TypeError(f"tf.ragged.stack produced {type(out).__name__}")
    return out


def concat(values, axis):
    """``tf.concat`` of ragged (and dense) tensors along any axis.

    Raises:
      ValueError: ``axis`` out of range, or ranks or dtypes that differ.
      InvalidArgumentError: Along an axis past a ragged one, inputs whose row
        partitions up to it differ.
    """
    values, rr = _common(list(values), "ConcatV2")
    rank = values[0].shape.rank
    axis = int(axis.numpy()) if isinstance(axis, Tensor) else int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis = axis + rank if axis < 0 else axis
    parts = [to_ragged(v, max(rr, 1)) for v in values]
    if axis == 0:
        return concat_rows(parts)
    return _concat_inner(parts, axis)


def _concat_inner(parts: list, axis: int):
    """Concatenation along ``axis >= 1`` of ``parts`` sharing their outer ``axis`` dims."""
    if not isinstance(parts[0], RaggedTensor):
        d = parts[0]._dtype
        shapes = [tuple(p._t.shape) for p in parts]
        for sh in shapes[1:]:
            if len(sh) != len(shapes[0]) or any(a != b for i, (a, b) in
                                                enumerate(zip(sh, shapes[0])) if i != axis):
                raise InvalidArgumentError(None, None, "ConcatOp : Dimensions of inputs "
                                           "should match: shape[0] = "
                                           f"{list(shapes[0])} vs. shape[1] = {list(sh)} "
                                           "[Op:ConcatV2]")
        if d is dtypes.string:
            return wrap(np.concatenate([p._t for p in parts], axis), d)
        return wrap(torch.cat([p._t for p in parts], axis), d)
    if axis == 1:  # row i of the result: row i of each part, one after the other
        rows, n, k = interleave_rows(parts)
        grouped = RaggedTensor(rows, splits_tensor(torch.arange(n + 1) * k), internal=True)
        return grouped.merge_dims(1, 2)
    first = parts[0]
    s0 = first._row_splits._t.to(torch.int64)
    for p in parts[1:]:
        s = p._row_splits._t.to(torch.int64)
        if s.shape != s0.shape or not bool(torch.equal(s, s0)):
            raise InvalidArgumentError(None, None, "Inputs must have identical ragged splits")
    return first.with_values(_concat_inner([p._values for p in parts], axis - 1))


@public("torchflow.ragged")
def boolean_mask(data, mask, name=None):
    """Applies a boolean mask to ``data`` without flattening the mask dimensions.

    Args:
      data: A Tensor or RaggedTensor.
      mask: A bool Tensor or RaggedTensor whose shape is a prefix of ``data``'s.
      name: Unused (eager).

    Returns:
      ``data`` with the masked-out items removed; the mask's inner dimensions
      become ragged.

    Raises:
      ValueError: If the mask's rank is unknown or larger than the data's.

    >>> import torchflow as tf
    >>> tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], [False] * 3])
    <tf.RaggedTensor [[1, 3], []]>
    """
    if not isinstance(data, RaggedTensor):
        data = convert_to_tensor(data)
    if not isinstance(mask, RaggedTensor):
        mask = convert_to_tensor(mask, dtype=dtypes.bool)
    if mask.dtype is not dtypes.bool:
        raise TypeError("mask must have dtype bool")
    if rank_of(mask) > rank_of(data):
        raise ValueError("mask.shape.ndims must be less than or equal to data.shape.ndims")
    if isinstance(mask, Tensor) and rank_of(mask) == 1:
        keep = torch.nonzero(_flat_bool(mask)).reshape(-1)
        return take_rows(data, keep)
    if not isinstance(mask, RaggedTensor):
        mask = to_ragged(mask, rank_of(mask) - 1)
    if not isinstance(data, RaggedTensor):
        data = to_ragged(data, mask.ragged_rank)
    return _mask_ragged(data, mask)


def _flat_bool(mask: Tensor) -> torch.Tensor:
    return mask._t.cpu().to(torch.bool)


def _mask_ragged(data: RaggedTensor, mask: RaggedTensor):
    s = mask._row_splits._t.to(torch.int64).cpu()
    if isinstance(mask._values, RaggedTensor):
        inner = _mask_ragged(data._values, mask._values)
        return RaggedTensor(inner, data._row_splits, internal=True)
    keep = _flat_bool(mask._values)
    rows = rowids_of(s)
    lengths = torch.bincount(rows[keep], minlength=s.shape[0] - 1)
    vals = take_rows(data._values, torch.nonzero(keep).reshape(-1))
    return RaggedTensor(vals, splits_tensor(lengths_to_splits(lengths), data.row_splits_dtype),
                        internal=True)


@public("torchflow.ragged")
def map_flat_values(op, *args, **kwargs):
    """Applies ``op`` to the ``flat_values`` of the RaggedTensors in the arguments.

    Args:
      op: A callable on Tensors that keeps the outer dimension's size.
      *args: Arguments for ``op``; RaggedTensors are replaced by their flat values.
      **kwargs: Keyword arguments for ``op``, handled the same way.

    Returns:
      A RaggedTensor with the row partitions of the ragged inputs and
      ``op(...)`` as flat values (``op``'s result if no input is ragged).

    Raises:
      ValueError: If the ragged inputs have different row partitions.

    >>> import torchflow as tf
    >>> tf.ragged.map_flat_values(tf.ones_like, tf.ragged.constant([[1, 2], [3]]))
    <tf.RaggedTensor [[1, 1], [1]]>
    """
    found: list = []

    def strip(x):
        if isinstance(x, RaggedTensor):
            found.append(x)
            return x.flat_values
        return x

    new_args = list(nest.map_structure(strip, list(args)))
    new_kwargs: dict[str, Any] = dict(nest.map_structure(strip, dict(kwargs)))
    if not found:
        return op(*new_args, **new_kwargs)
    first = found[0]
    for other in found[1:]:
        if not same_partition(first, other):
            raise ValueError("Inputs must have identical ragged splits")
    out = op(*new_args, **new_kwargs)
    return first.with_flat_values(out)


def same_partition(a: RaggedTensor, b: RaggedTensor) -> bool:
    sa, sb = a.nested_row_splits, b.nested_row_splits
    if len(sa) != len(sb):
        return False
    for x, y in zip(sa, sb):
        if x._t is y._t:
            continue
        if x._t.shape != y._t.shape or not bool(torch.equal(x._t.to(torch.int64),
                                                            y._t.to(torch.int64))):
            return False
    return True


@public("torchflow.ragged")
def row_splits_to_segment_ids(splits, name=None, out_type=None) -> Tensor:
    """The segment id (row) of each value, from row splits.

    >>> import torchflow as tf
    >>> tf.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9]).numpy()
    array([0, 0, 0, 2, 2, 3, 4, 4, 4])

    Args:
      splits: A 1-D int32/int64 Tensor (or list) of sorted row splits starting at 0.
      name: A name for the operation (optional).
      out_type: None (``splits``' dtype; int64 for a list) or the dtype of the result.

    Returns:
      A 1-D Tensor of length ``splits[-1]``.
    """
    s = convert_to_tensor(splits, dtype=None if isinstance(splits, Tensor) else _I64)
    d = s._dtype if out_type is None else dtypes.as_dtype(out_type)
    return wrap(rowids_of(s._t.to(torch.int64)).to(d._torch), d)


@public("torchflow.ragged")
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None,
                              name=None) -> Tensor:
    """Row splits from sorted segment ids.

    >>> import torchflow as tf
    >>> tf.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4]).numpy()
    array([0, 3, 3, 5, 6, 9])

    Args:
      segment_ids: A 1-D int32/int64 Tensor (or list) of sorted segment ids.
      num_segments: None (``max(segment_ids) + 1``) or the number of rows.
      out_type: None (``segment_ids``' dtype; int64 for a list) or the dtype of the
        result.
      name: A name for the operation (optional).

    Returns:
      A 1-D Tensor of ``num_segments + 1`` row splits.
    """
    ids = convert_to_tensor(segment_ids, dtype=None if isinstance(segment_ids, Tensor)
                            else _I64)
    d = ids._dtype if out_type is None else dtypes.as_dtype(out_type)
    t = ids._t.to(torch.int64)
    n = (int(t.max()) + 1 if t.numel() else 0) if num_segments is None else int(num_segments)
    lengths = torch.bincount(t, minlength=n)
    return wrap(lengths_to_splits(lengths).to(d._torch), d)
