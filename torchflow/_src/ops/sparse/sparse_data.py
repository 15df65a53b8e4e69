"""SparseTensors as tf.data elements: their rows (``from_tensor_slices``,
``unbatch``), batches of them (``batch``), and batches of dense elements as one
SparseTensor (``tf.data.experimental.dense_to_sparse_batch``)."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.sparse import _sparse_common as sc
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor


def nrows(st: SparseTensor) -> int:
    """The size of the dense dimension 0 (InvalidArgumentError for a scalar)."""
    shape = sc.shape_list(st)
    if not shape:
        raise InvalidArgumentError(None, None, "Unbatching a tensor is only supported for "
                                   "rank >= 1")
    return shape[0]


def rows(st: SparseTensor, start: int, stop: int) -> list:
    """``st[start] .. st[stop - 1]`` as SparseTensors of one rank less."""
    ind = sc.idx(st)
    shape = sc.shape_list(st)
    first = ind[:, 0]
    out = []
    for i in range(start, stop):
        pos = torch.nonzero(first == i).reshape(-1)
        out.append(sc.make(ind[pos, 1:], sc.take(st.values, pos), shape[1:]))
    return out


def batch(parts: list) -> SparseTensor:
    """SparseTensors of one rank as the rows of one SparseTensor; each dense dimension
    is the largest of the parts' (as tf.data batches sparse elements)."""
    sps = [sc.sparse_arg(p) for p in parts]
    shapes = [sc.shape_list(s) for s in sps]
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        raise InvalidArgumentError(None, None, "Cannot batch sparse tensors of different "
                                               "ranks")
    dense = [max(s[d] for s in shapes) for d in range(rank)]
    ind = []
    for b, s in enumerate(sps):
        i = sc.idx(s)
        ind.append(torch.cat([torch.full([i.shape[0], 1], b, dtype=torch.int64,
                                         device=i.device), i], 1))
    vals = sc.cat_values([s.values for s in sps], sps[0].dtype)
    return sc.make(torch.cat(ind), vals, [len(sps)] + dense)


def dense_batch(parts: list, row_shape: list) -> SparseTensor:
    """Dense Tensors (every entry kept) as the rows of one SparseTensor whose row shape
    is ``row_shape`` (None: the largest in the batch)."""
    ts = [tensor_arg(p) for p in parts]
    rank = len(row_shape)
    for t in ts:
        if t.shape.rank != rank:
            raise InvalidArgumentError(
                None, None, f"Input element and row_shape must have the same rank; got "
                            f"{t.shape.rank} and {rank}")
    dims = [[int(d) for d in t._t.shape] for t in ts]
    out_shape = [max(d[k] for d in dims) if row_shape[k] is None or row_shape[k] < 0
                 else row_shape[k] for k in range(rank)]
    ind, vals = [], []
    for b, (t, d) in enumerate(zip(ts, dims)):
        if any(x > y for x, y in zip(d, out_shape)):
            raise InvalidArgumentError(
                None, None, f"Input element had shape ({', '.join(map(str, d))}) that is "
                            f"larger than row shape ({', '.join(map(str, out_shape))}).")
        n = int(np.prod(d)) if d else 1
        pos = sc.unravel(torch.arange(n, dtype=torch.int64), d)
        ind.append(torch.cat([torch.full([n, 1], b, dtype=torch.int64), pos], 1))
        vals.append(wrap(t._t.reshape(-1) if not isinstance(t._t, np.ndarray)
                         else np.asarray(t._t, dtype=object).reshape(-1), t.dtype))
    values = sc.cat_values(vals, ts[0].dtype)
    return sc.make(torch.cat(ind).to(values._t.device if isinstance(values._t, torch.Tensor)
                                     else "cpu"), values, [len(ts)] + out_shape)


def placeholder(dims: list, dtype) -> SparseTensor:
    """A SparseTensor of dense shape ``dims`` with a one at ``[i, 0, ...]`` of each row
    (Keras runs layers on it to infer the output spec of a sparse input)."""
    n = dims[0] if dims else 0
    ind = torch.zeros([n, len(dims)], dtype=torch.int64)
    if dims:
        ind[:, 0] = torch.arange(n)
    if dtype._torch is None:  # a string input: NumPy bytes values, as every string tensor
        vals = wrap(np.full([n], b"1", dtype=object), dtype)
    else:
        vals = wrap(torch.ones([n], dtype=dtype._torch), dtype)
    return sc.make(ind, vals, dims)


def slice_rows(st: SparseTensor, lo: int, hi: int) -> SparseTensor:
    """Rows ``lo..hi-1`` of ``st`` (Keras' batches of a sparse input)."""
    shape = sc.shape_list(st)
    hi = min(hi, shape[0])
    ind = sc.idx(st)
    pos = torch.nonzero((ind[:, 0] >= lo) & (ind[:, 0] < hi)).reshape(-1)
    new = ind[pos].clone()
    new[:, 0] -= lo
    return sc.make(new, sc.take(st.values, pos), [max(hi - lo, 0)] + shape[1:])


def gather_rows(st: SparseTensor, perm) -> SparseTensor:
    """Rows ``perm`` of ``st`` in that order (Keras' shuffle of a sparse input)."""
    p = tensor_arg(perm)._t.to(torch.int64).reshape(-1)
    shape = sc.shape_list(st)
    ind = sc.idx(st)
    inv = torch.full([shape[0]], -1, dtype=torch.int64, device=ind.device)
    inv[p.to(ind.device)] = torch.arange(p.shape[0], device=ind.device)
    new = ind.clone()
    new[:, 0] = inv[ind[:, 0]]
    keep = torch.nonzero(new[:, 0] >= 0).reshape(-1)
    new = new[keep]
    order = sc.lex_order(new)
    return sc.make(new[order], sc.take(sc.take(st.values, keep), order),
                   [p.shape[0]] + shape[1:])
