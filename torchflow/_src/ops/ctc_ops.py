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
