"""``tf.nn.embedding_lookup_sparse`` and ``tf.nn.safe_embedding_lookup_sparse``:
embedding lookups of SparseTensor ids, combined per row."""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops.embedding_ops import embedding_lookup
from torchflow._src.ops.sparse import _sparse_common as sc
from torchflow._src.ops.sparse import sparse_ops
from torchflow._src.ops.sparse.sparse_math import _segment
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public

_COMBINERS = ("mean", "sqrtn", "sum")


def _check_combiner(combiner):
    if combiner is None:
        return "mean"
    if combiner not in _COMBINERS:
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    return combiner


def _segment_sum_rows(x: torch.Tensor, seg: torch.Tensor, num: int) -> torch.Tensor:
    out = torch.zeros([num] + list(x.shape[1:]), dtype=x.dtype, device=x.device)
    return out.index_add(0, seg, x)


@public("torchflow.nn")
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                            name=None) -> Tensor:
    """Looks up the ids of each row of ``sp_ids`` and combines their embeddings.

    Row ``i`` of the result combines ``params[id]`` over the entries
    ``sp_ids[i, :]``, weighted by ``sp_weights`` when given.

    Args:
      params: An embedding Tensor ``[N, d]`` (or Variable), or a list of shards.
      sp_ids: An int SparseTensor ``[batch, k]`` of ids (rows in order).
      sp_weights: None (all weights 1) or a float SparseTensor with the same
        indices as ``sp_ids``.
      combiner: ``"mean"`` (default), ``"sqrtn"`` or ``"sum"``.
      max_norm: If given, embeddings are clipped to this L2 norm first.
      name: Unused (eager).

    Returns:
      A Tensor ``[max row id + 1, d]``.

    Raises:
      TypeError: If ``sp_ids`` / ``sp_weights`` are not SparseTensors.
      ValueError: On an unknown ``combiner``.

    >>> import torchflow as tf
    >>> ids = tf.sparse.SparseTensor([[0, 0], [0, 1]], [0, 1], [1, 2])
    >>> p = tf.constant([[1., 2.], [3., 4.]])
    >>> tf.nn.embedding_lookup_sparse(p, ids, None).numpy().tolist()
    [[2.0, 3.0]]
    """
    combiner = _check_combiner(combiner)
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError("sp_ids must be SparseTensor")
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError("sp_weights must be either None or SparseTensor")
    seg = sc.idx(sp_ids)[:, 0]
    ids = sp_ids.values._t.to(torch.int64)
    uniq, inv = torch.unique(ids, sorted=True, return_inverse=True)
    emb = embedding_lookup(params, wrap(uniq, dtypes.int64), max_norm=max_norm)
    if sp_weights is None:
        op = "SparseSegment" + {"sum": "Sum", "mean": "Mean", "sqrtn": "SqrtN"}[combiner]
        return _segment(op, emb, wrap(inv, dtypes.int64), wrap(seg, dtypes.int64), None,
                        combiner)
    e = emb._t[inv.to(emb._t.device)]
    w = sp_weights.values._t.to(e.dtype).to(e.device)
    seg = seg.to(e.device)
    num = int(seg[-1]) + 1 if seg.shape[0] else 0
    e = e * w.reshape([-1] + [1] * (e.ndim - 1))
    out = _segment_sum_rows(e, seg, num)
    if combiner != "sum":
        ws = torch.zeros([num], dtype=e.dtype, device=e.device).index_add(
            0, seg, w if combiner == "mean" else w * w)
        ws = ws if combiner == "mean" else torch.sqrt(ws)
        ws = ws.reshape([num] + [1] * (e.ndim - 1))  # div_no_nan, as TF: a gap row is 0
        out = torch.where(ws == 0, torch.zeros_like(out), out / torch.where(ws == 0, 1, ws))
    return wrap(out, emb.dtype)


@public("torchflow.nn")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, max_norm=None,
                                 name=None) -> Tensor:
    """``embedding_lookup_sparse`` that tolerates invalid ids and empty rows.

    Ids < 0 (and weights <= 0) are dropped; rows left empty give zeros, or the
    embedding of ``default_id`` when given. Any rank >= 2 of ``sparse_ids``
    works: the result has shape ``dense_shape[:-1] + [d]``.

    Args:
      embedding_weights: An embedding Tensor ``[N, d]`` (or Variable), or a list
        of shards.
      sparse_ids: An int SparseTensor ``[d_0, ..., d_{n-1}, k]`` of ids.
      sparse_weights: None or a float SparseTensor with ``sparse_ids``' indices.
      combiner: ``"mean"`` (default), ``"sqrtn"`` or ``"sum"``.
      default_id: The id whose embedding fills empty rows (default: zeros).
      max_norm: If given, embeddings are clipped to this L2 norm first.
      name: Unused (eager).

    Returns:
      A dense Tensor of shape ``dense_shape[:-1] + [d]``.

    Raises:
      ValueError: If ``embedding_weights`` is empty or ``combiner`` unknown.

    >>> import torchflow as tf
    >>> ids = tf.sparse.SparseTensor([[0, 0], [2, 0]], [1, -1], [3, 1])
    >>> p = tf.constant([[1., 2.], [3., 4.]])
    >>> tf.nn.safe_embedding_lookup_sparse(p, ids).numpy().tolist()
    [[3.0, 4.0], [0.0, 0.0], [0.0, 0.0]]
    """
    combiner = _check_combiner(combiner)
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    parts = list(embedding_weights) if isinstance(embedding_weights, (list, tuple)) else \
        [embedding_weights]
    if not parts:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    sp = sc.sparse_arg(sparse_ids)
    shape = sc.shape_list(sp)
    lead = shape[:-1]
    rows = 1
    for d in lead:
        rows *= d
    sp = sparse_ops.reshape(sp, [rows, shape[-1]])
    w = None if sparse_weights is None else sparse_ops.reshape(sc.sparse_arg(sparse_weights),
                                                               [rows, shape[-1]])
    keep = sp.values._t >= 0
    if w is not None:
        keep = keep & (w.values._t.to(keep.device) > 0)
    keep_t = wrap(keep, dtypes.bool)
    sp = sparse_ops.retain(sp, keep_t)
    if w is not None:
        w = sparse_ops.retain(w, keep_t)
    sp, empty = sparse_ops.fill_empty_rows(sp, 0 if default_id is None else default_id)
    if w is not None:
        w, _ = sparse_ops.fill_empty_rows(w, 1.0)
    out = embedding_lookup_sparse(parts if len(parts) > 1 else parts[0], sp, w,
                                  combiner=combiner, max_norm=max_norm)
    o = out._t
    if default_id is None:
        e = empty._t.to(o.device).reshape([-1] + [1] * (o.ndim - 1))
        o = torch.where(e, torch.zeros_like(o), o)
    return wrap(o.reshape(lead + list(o.shape[1:])), out.dtype)
