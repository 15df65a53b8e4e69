"""``tf.gather`` and ``tf.gather_nd`` with ragged ``params`` or ``indices``, any axis.

As TF's ragged gather does, a gather along axis ``a > 0`` or with batch dimensions
becomes one gather along axis 0 of the values one level down, with each index
moved by the start of its row in those values. Like TF, indices along a ragged
axis are not checked against each row's length (only against all the values).
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import gather_ops
from torchflow._src.ops._dispatch import tf_type_name
from torchflow._src.ops.ragged import ragged_factory as rf
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    nrows_of,
    rank_of,
    rowids_of,
    take_rows,
)

_I64 = dtypes.int64


def flat_index(rt: RaggedTensor) -> list:
    """For each flat value, its index in dimensions 0..ragged_rank (torch int64, CPU)."""
    splits = [s._t.to(torch.int64).cpu() for s in rt.nested_row_splits]
    cur = torch.arange(int(splits[-1][-1]))
    out: list = [None] * (len(splits) + 1)
    for level in reversed(range(len(splits))):
        s = splits[level]
        rows = rowids_of(s)[cur]
        out[level + 1] = cur - s[rows]
        cur = rows
    out[0] = cur
    return out


def _index_arg(indices):
    idx = indices if isinstance(indices, RaggedTensor) else convert_to_tensor(indices)
    if idx.dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(None, None, f"Value for attr 'Tindices' of "
                                   f"{tf_type_name(idx.dtype)} is not in the list of allowed "
                                   f"values: int32, int64 [Op:RaggedGather]")
    return idx


def _ragged(x, splits_dtype=_I64) -> RaggedTensor:
    return x if isinstance(x, RaggedTensor) else rf.to_ragged(x, 1, splits_dtype)


def _shift(indices, offsets: torch.Tensor):
    """``indices`` (int Tensor or RaggedTensor of n rows) plus ``offsets[i]`` in row i,
    as int64."""
    if isinstance(indices, RaggedTensor):
        flat = indices.flat_values._t.to(torch.int64)
        outer = flat_index(indices)[0].to(flat.device)
        off = offsets.to(flat.device)[outer].reshape([-1] + [1] * (flat.ndim - 1))
        return indices.with_flat_values(wrap(flat + off, _I64))
    t = indices._t.to(torch.int64)
    return wrap(t + offsets.to(t.device).reshape([-1] + [1] * (t.ndim - 1)), _I64)


def gather(params, indices, axis, batch_dims):
    """``tf.gather`` where ``params`` or ``indices`` is a RaggedTensor.

    Raises:
      ValueError: ``axis`` or ``batch_dims`` out of range.
      InvalidArgumentError: Indices that are not int32/int64, or an index outside
        the gathered values.
    """
    if not isinstance(params, RaggedTensor):
        params = convert_to_tensor(params)
    indices = _index_arg(indices)
    rp, ri = rank_of(params), rank_of(indices)
    bd = int(batch_dims)
    bd = bd + ri if bd < 0 else bd
    a = bd if axis is None else int(axis.numpy() if isinstance(axis, Tensor) else axis)
    a = a + rp if a < 0 else a
    if not 0 <= a < rp:
        raise ValueError(f"axis={axis} out of bounds: expected {-rp}<=axis<{rp}")
    if not 0 <= bd <= min(a, ri):
        raise ValueError(f"batch_dims={batch_dims} must be less than or equal to "
                         f"rank(indices)={ri} and axis={a}")
    if bd:
        return _batch_gather(params, indices, a, bd)
    if a:
        return _axis_gather(params, indices, a)
    return gather0(params, indices)


def gather0(params, indices):
    """Rows of ``params`` (Tensor or RaggedTensor) at ``indices`` (ragged or dense)."""
    if isinstance(indices, RaggedTensor):
        return indices.with_flat_values(gather0(params, indices.flat_values))
    if not isinstance(params, RaggedTensor):
        return gather_ops.gather(params, indices)
    flat = indices._t.reshape(-1).to(torch.int64).cpu()
    n = params._nrows()
    if flat.numel() and (int(flat.min()) < 0 or int(flat.max()) >= n):
        bad = int(flat[(flat < 0) | (flat >= n)][0])
        raise InvalidArgumentError(None, None, f"indices[0] = {bad} is not in [0, {n}) "
                                   f"[Op:RaggedGather]")
    out = take_rows(params, flat)
    for d in reversed(list(indices._t.shape)[1:]):
        k = int(d)
        out = RaggedTensor(out, wrap(torch.arange(nrows_of(out) // k + 1) * k,
                                     params.row_splits_dtype), internal=True)
    return out


def _axis_gather(params, indices, a: int):
    """``gather(params, indices, axis=a)``, ``a > 0``, no batch dimensions."""
    if not isinstance(params, RaggedTensor) and not isinstance(indices, RaggedTensor):
        return gather_ops.gather(params, indices, axis=a)
    params = _ragged(params)
    if a > 1:
        return params.with_values(_axis_gather(params._values, indices, a - 1))
    n = params._nrows()
    starts = params._row_splits._t[:-1].to(torch.int64).cpu()
    if isinstance(indices, RaggedTensor):
        # n copies of indices, copy i shifted by the start of params' row i.
        k = indices._nrows()
        tiled = indices._gather_rows(torch.arange(k).repeat(n))
        nflat = int(indices.flat_values._t.shape[0])
        flat = tiled.flat_values._t.to(torch.int64)
        off = starts.repeat_interleave(nflat).to(flat.device)
        shifted = tiled.with_flat_values(wrap(flat + off.reshape([-1] + [1] * (flat.ndim - 1)),
                                              _I64))
        adjusted = RaggedTensor(shifted, wrap(torch.arange(n + 1) * k, params.row_splits_dtype),
                                internal=True, uniform_row_length=k)
    else:
        t = indices._t.to(torch.int64).cpu()
        adjusted = wrap(t.unsqueeze(0) + starts.reshape([n] + [1] * t.ndim), _I64)
    return gather0(params._values, adjusted)


def _batch_gather(params, indices, a: int, bd: int):
    if not isinstance(params, RaggedTensor) and not isinstance(indices, RaggedTensor):
        return gather_ops.gather(params, indices, axis=a, batch_dims=bd)
    params = _ragged(params)
    if params._nrows() != nrows_of(indices):
        raise InvalidArgumentError(None, None, "params and indices must have the same "
                                   f"batch dimensions: {params._nrows()} vs "
                                   f"{nrows_of(indices)} rows")
    if bd > 1:
        if isinstance(indices, RaggedTensor):
            inner = indices._values
        else:  # a dense batch dimension: merge it into the rows
            shape = list(indices._t.shape)
            inner = wrap(indices._t.reshape([shape[0] * shape[1]] + shape[2:]), indices._dtype)
        return params.with_values(_batch_gather(params._values, inner, a - 1, bd - 1))
    if a > 1:
        rows = [gather(params[i], indices[i], a - 1, 0) for i in range(params._nrows())]
        inner = rows[0].ragged_rank if rows and isinstance(rows[0], RaggedTensor) else 0
        return rf.batch_rows(rows, inner, params.row_splits_dtype)
    starts = params._row_splits._t[:-1].to(torch.int64).cpu()
    return gather0(params._values, _shift(indices, starts))


def gather_nd(params, indices, batch_dims=0):
    """``tf.gather_nd`` where ``params`` or ``indices`` is a RaggedTensor.

    Raises:
      ValueError: ``batch_dims != 0``, indices of rank 0, or a ragged innermost
        dimension of indices (as TF).
    """
    if batch_dims != 0:
        raise ValueError("batch_dims != 0 is not supported for ragged gather yet.")
    if not isinstance(params, RaggedTensor):
        params = convert_to_tensor(params)
    indices = _index_arg(indices)
    nd = rank_of(indices)
    if nd == 0:
        raise ValueError("indices.rank be at least 1.")
    if isinstance(indices, RaggedTensor) and nd == indices.ragged_rank + 1:
        raise ValueError("The innermost dimension of indices may not be ragged")
    k = int(indices.flat_values._t.shape[-1] if isinstance(indices, RaggedTensor)
            else indices._t.shape[-1])
    if nd > 2:
        dense = not isinstance(indices, RaggedTensor)
        if dense:
            indices = rf.to_ragged(indices, nd - 2)
        out = indices.with_flat_values(gather_nd(params, indices.flat_values))
        if dense and isinstance(out, RaggedTensor) and out.ragged_rank == nd - 2:
            out = out.to_tensor()
        return out
    if not isinstance(params, RaggedTensor):
        return gather_ops.gather_nd(params, indices)
    if k == 0:
        raise NotImplementedError("tf.gather_nd of a RaggedTensor with empty index tuples "
                                  "is not supported yet.")
    if isinstance(indices, RaggedTensor):  # (rank 2: its innermost dimension is ragged)
        raise ValueError("The innermost dimension of indices may not be ragged")
    idx = indices._t.to(torch.int64).cpu()
    if k == 1:
        return gather0(params, wrap(idx.reshape(-1), _I64))
    splits = params._row_splits._t.to(torch.int64).cpu()
    flat = splits[idx[..., 0]] + idx[..., 1]
    values = params._values
    for dim in range(2, k):
        if not isinstance(values, RaggedTensor):
            tuples = torch.cat([flat.unsqueeze(-1), idx[..., dim:]], -1)
            return gather_ops.gather_nd(values, wrap(tuples, _I64))
        flat = values._row_splits._t.to(torch.int64).cpu()[flat] + idx[..., dim]
        values = values._values
    return gather0(values, wrap(flat, _I64))
