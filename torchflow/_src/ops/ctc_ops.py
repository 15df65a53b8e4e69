"""``tf.nn.ctc_loss`` (dense labels) on torch's CTC kernel."""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public

_INT = nc.TypeSet((dtypes.int32, dtypes.int64))


@public("torchflow.nn")
def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None,
             blank_index=None, name=None) -> Tensor:
    """Connectionist Temporal Classification loss (negative log-likelihood per example).

    Args:
      labels: A dense int Tensor ``[batch, max_label_length]``.
      logits: Unnormalized log-probabilities ``[frames, batch, classes]`` (or
        ``[batch, frames, classes]`` with ``logits_time_major=False``).
      label_length: ``[batch]`` label lengths.
      logit_length: ``[batch]`` sequence lengths.
      logits_time_major: The layout of ``logits``.
      unique: Unused (an optimization hint in TF).
      blank_index: The blank class (default 0; negative counts from the end).
      name: Unused (eager).

    Returns:
      A ``[batch]`` Tensor of losses of ``logits``' dtype.

    Differences from TensorFlow 2.4: ``labels`` must be dense (no SparseTensor).
    """
    op = "CTCLossV2"
    x = nc.typed_arg(op, logits, (dtypes.float32, dtypes.float64))
    y = nc.typed_arg(op, labels, _INT, attr="Tlabels")
    ll = tensor_arg(label_length)._t.long()
    tl = tensor_arg(logit_length)._t.long()
    lt = x._t if logits_time_major else x._t.transpose(0, 1)
    if lt.ndim != 3:
        raise InvalidArgumentError(None, None, f"logits must be 3-dimensional [Op:{op}]")
    classes = lt.shape[-1]
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += classes
    try:
        logp = torch.log_softmax(lt, -1)
        out = torch.nn.functional.ctc_loss(logp, y._t.long(), tl, ll, blank=blank,
                                           reduction="none", zero_infinity=False)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return wrap(out.to(lt.dtype), x._dtype)


@public("torchflow.nn")
def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of a repeated label into one label (within each sequence length).

    Args:
      labels: An int Tensor ``[batch, max_length]``.
      seq_length: ``[batch]`` sequence lengths.
      name: Unused (eager).

    Returns:
      ``(collapsed_labels, new_seq_length)``: labels padded with 0 to the longest
      collapsed length, and the new lengths (int32).

    >>> import torchflow as tf
    >>> tf.nn.collapse_repeated([[1, 1, 2, 2, 1]], [5])[0].numpy()
    array([[1, 2, 1]], dtype=int32)
    """
    lab = tensor_arg(labels)
    t = lab._t
    n = tensor_arg(seq_length)._t.long().to(t.device)
    if t.ndim != 2:
        raise InvalidArgumentError(None, None, "labels must be [batch, max_length] "
                                               "[Op:CollapseRepeated]")
    pos = torch.arange(t.shape[1], device=t.device)
    valid = pos.unsqueeze(0) < n.unsqueeze(1)
    change = torch.ones_like(valid)
    change[:, 1:] = t[:, 1:] != t[:, :-1]
    keep = valid & change
    new_len = keep.sum(1)
    width = int(new_len.max()) if new_len.numel() else 0
    slot = keep.long().cumsum(1) - 1  # output position of each kept label
    out = torch.zeros((t.shape[0], width + 1), dtype=t.dtype, device=t.device)
    col = torch.where(keep, slot, torch.full_like(slot, width))  # dropped ones go to a spare
    out = out.scatter(1, col, torch.where(keep, t, torch.zeros_like(t)))[:, :width]
    return wrap(out, lab._dtype), wrap(new_len.to(torch.int32), dtypes.int32)


@public("torchflow.nn")
def ctc_unique_labels(labels, name=None):
    """Per-row unique labels in order of first appearance, and each label's index
    into them (TF's helper for sparse CTC label sets).

    Args:
      labels: An int Tensor ``[batch, max_length]``.
      name: Unused (eager).

    Returns:
      ``(unique_labels, idx)``: int64 unique labels padded with 0, and int32 indices
      of ``labels``' shape.
    """
    t = tensor_arg(labels)._t
    if t.ndim != 2:
        raise InvalidArgumentError(None, None, "labels must be [batch, max_length] "
                                               "[Op:CTCUniqueLabels]")
    rows, idx = [], []
    for row in t.cpu().tolist():
        seen: dict = {}
        idx.append([seen.setdefault(v, len(seen)) for v in row])
        rows.append(list(seen) + [0] * (len(row) - len(seen)))
    dev = t.device
    return (wrap(torch.tensor(rows, dtype=torch.int64, device=dev).reshape(t.shape),
                 dtypes.int64),
            wrap(torch.tensor(idx, dtype=torch.int32, device=dev).reshape(t.shape),
                 dtypes.int32))
