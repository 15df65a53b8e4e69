"""``tf.nn.embedding_lookup``: gathers rows of one or several parameter tensors."""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.indexed_slices import gather_rows
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import COMPOSITE, Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public

_ID_TYPES = nc.TypeSet((dtypes.int16, dtypes.int32, dtypes.int64))


def _gather(p: torch.Tensor, idx: torch.Tensor, op: str = "GatherV2",
            ids_dtype=None) -> torch.Tensor:
    n = p.shape[0]
    if p.device.type != "cpu":
        # As TF's GPU kernel: out-of-range ids give zero rows (no host sync, and no
        # device-side assert from torch's indexing).
        ok = (idx >= 0) & (idx < n)
        rows = p[idx.long().clamp(0, max(n - 1, 0))]
        return rows * ok.reshape(ok.shape + (1,) * (rows.ndim - ok.ndim)).to(rows.dtype)
    if idx.numel() and graph_trace.active() is None:
        # (Recorded by a tf.function: index_select rejects an index out of range at the
        # replay, which then reruns the body, whose check raises TF's error.)
        bad = (idx < 0) | (idx >= n)
        if bool(bad.any()):
            pos = int(bad.reshape(-1).nonzero()[0])
            raise InvalidArgumentError(
                None, None,
                f"indices[{pos}] = {int(idx.reshape(-1)[pos])} is not in [0, {n}) [Op:{op}]")
    if ids_dtype is not None and p.requires_grad and torch.is_grad_enabled():
        return gather_rows(p, idx.long(), ids_dtype)  # gradient as IndexedSlices, as TF
    return p.index_select(0, idx.reshape(-1).long()).reshape(tuple(idx.shape) + tuple(p.shape[1:]))


@public("torchflow.nn")
def embedding_lookup(params, ids, max_norm=None, name=None) -> Tensor:
    """Looks up ``ids`` in a list of embedding tensors.

    With several ``params`` tensors, ids are split across them with TF 2.x's
    "div" strategy: contiguous blocks of ids per tensor, the first ``N % n``
    tensors holding one extra row.

    Args:
      params: A Tensor ``[N, ...]`` or a list of Tensors sharded along axis 0.
      ids: An int32/int64 Tensor of ids in ``[0, N)``.
      max_norm: If given, embeddings whose L2 norm exceeds it are scaled down to it.
      name: Unused (eager).

    Returns:
      A Tensor of shape ``ids.shape + params.shape[1:]``.

    Raises:
      InvalidArgumentError: on an id outside ``[0, N)``.

    >>> import torchflow as tf
    >>> tf.nn.embedding_lookup(tf.constant([[0., 1.], [2., 3.]]), [1]).numpy()
    array([[2., 3.]], dtype=float32)
    """
    if type(ids) in COMPOSITE:  # tf.RaggedTensor ids: a ragged result, as TF dispatches
        return ids.with_flat_values(embedding_lookup(params, ids.flat_values, max_norm))
    parts = [tensor_arg(p) for p in params] if isinstance(params, (list, tuple)) else \
        [tensor_arg(params)]
    if not parts:
        raise ValueError("tf.nn.embedding_lookup: `params` must not be empty.")
    i = nc.typed_arg("GatherV2", ids, _ID_TYPES, attr="Tindices")
    it = i._t
    try:
        if len(parts) == 1:
            out = _gather(parts[0]._t, it, ids_dtype=i._dtype)
        else:
            out = _div_lookup([p._t for p in parts], it)
        if max_norm is not None:
            out = _clip(out, it.ndim, float(max_norm))
    except (InvalidArgumentError, ValueError):
        raise
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("GatherV2", e) from None
    return wrap(out, parts[0]._dtype)


def _div_lookup(ps: list[torch.Tensor], ids: torch.Tensor) -> torch.Tensor:
    n = len(ps)
    total = sum(p.shape[0] for p in ps)
    per, extras = divmod(total, n)
    flat = ids.reshape(-1).long()
    if per:
        part = torch.maximum(flat // (per + 1), (flat - extras) // per)
    else:
        part = flat.clone()
    if flat.numel() and bool(((part >= n) | (flat < 0)).any()):
        pos = int(((part >= n) | (flat < 0)).nonzero()[0])
        raise InvalidArgumentError(
            None, None,
            f"indices[{pos}] = {int(flat[pos])} is not in [0, {total}) [Op:GatherV2]")
    local = torch.where(part < extras, flat % (per + 1), (flat - extras) % max(per, 1))
    out = None
    for k, p in enumerate(ps):
        sel = (part == k).nonzero().reshape(-1)
        if not sel.numel():
            continue
        got = _gather(p, local[sel])
        if out is None:
            out = p.new_zeros((flat.shape[0],) + tuple(p.shape[1:]))
        out = out.index_copy(0, sel, got)
    if out is None:
        out = ps[0].new_zeros((0,) + tuple(ps[0].shape[1:]))
    return out.reshape(tuple(ids.shape) + tuple(out.shape[1:]))


def _clip(x: torch.Tensor, ids_rank: int, max_norm: float) -> torch.Tensor:
    if x.ndim <= ids_rank:
        return x  # scalar embeddings: TF leaves them as they are
    axes = list(range(ids_rank, x.ndim))
    norm = x.square().sum(axes, keepdim=True).sqrt()
    scale = max_norm / torch.maximum(norm, torch.full_like(norm, max_norm))
    return x * scale
