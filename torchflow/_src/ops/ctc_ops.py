"""``tf.nn.ctc_loss`` (dense labels) on torch's CTC kernel, and the CTC decoders
(``ctc_greedy_decoder``, ``ctc_beam_search_decoder``) as TF's CPU kernels."""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import FailedPreconditionError, InvalidArgumentError
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
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

    As TF 2.4's dense-label loss: a label sequence the frames cannot fit gets a
    large finite loss (TF weights impossible end states ``log(1e-307)``, not
    ``-inf``), a label outside the classes emits probability 1, and the gradient
    is TF's ``softmax - posterior``.

    Raises:
      InvalidArgumentError: For logits that are not 3-D, a ``blank_index`` outside
        the classes or non-integer labels.

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
    # TF's dense-label loss masks frames with sequence_mask(logit_length, frames): a
    # length past the last frame means every frame
    tl = tl.clamp(max=lt.shape[0])
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += classes
    labels_t = y._t.long()
    try:
        logp = torch.log_softmax(lt, -1)
        if blank < 0 or blank >= classes or _regular(labels_t, ll, tl, classes, blank):
            out = torch.nn.functional.ctc_loss(logp, labels_t, tl, ll, blank=blank,
                                               reduction="none", zero_infinity=False)
        else:
            out = _DenseLoss.apply(lt, labels_t, ll.to(lt.device), tl.to(lt.device), blank)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return wrap(out.to(lt.dtype), x._dtype)


def _regular(labels: torch.Tensor, ll: torch.Tensor, tl: torch.Tensor, classes: int,
             blank: int) -> bool:
    """True when torch's CTC kernel computes what TF's dense-label loss does: label
    lengths within the labels, labels real classes, and enough frames for every
    label (and a blank between repeats)."""
    width = labels.shape[1]
    if bool((ll < 0).any()) or bool((ll > width).any()) or bool((tl < 0).any()):
        return False
    ll, tl = ll.to(labels.device), tl.to(labels.device)
    used = torch.arange(width, device=labels.device).unsqueeze(0) < ll.unsqueeze(1)
    real = (labels >= 0) & (labels < classes) & (labels != blank)
    if not bool(real[used].all()):
        return False
    repeats = ((labels[:, 1:] == labels[:, :-1]) & used[:, 1:]).sum(1)
    return bool((tl >= ll + repeats).all())


def _rolled(logp: torch.Tensor, labels: torch.Tensor, blank: int) -> tuple:
    """TF's dense loss moves the blank to class 0 and shifts the labels below it up;
    ``(log-probs in that order (float64), labels, each label state's emission)``: a
    label outside the classes emits log 1 (its one-hot is all zeros)."""
    frames, batch, classes = logp.shape
    lp = logp.double()
    if blank != 0:
        lp = torch.cat([lp[..., blank:blank + 1], lp[..., :blank], lp[..., blank + 1:]], -1)
        labels = torch.where(labels < blank, labels + 1, labels)
    labels = labels.to(lp.device)
    in_range = (labels >= 0) & (labels < classes)
    emit = torch.gather(lp, 2, labels.clamp(0, classes - 1).unsqueeze(0).expand(
        frames, batch, labels.shape[1]))
    return lp, labels, torch.where(in_range.unsqueeze(0), emit, torch.zeros_like(emit))


def _lse(*parts: torch.Tensor) -> torch.Tensor:
    return torch.logsumexp(torch.stack(parts), 0)


def _dense_grad(logp: torch.Tensor, labels: torch.Tensor, ll: torch.Tensor, tl: torch.Tensor,
                blank: int) -> torch.Tensor:
    """TF 2.4's gradient of its dense-label loss w.r.t. the logits: ``softmax -
    posterior`` per frame, the posterior from its forward pass (every state but the
    start one begins at log(1e-307)) and backward pass (from the final weights),
    out-of-range labels' states counted for no class, frames past ``logit_length``
    zero. (TF uses it whatever the loss; where it is not that loss's exact gradient,
    for labels outside the classes or labels the frames cannot fit, this is TF's.)"""
    frames, batch, classes = logp.shape
    width = labels.shape[1]
    lp, labels, emit = _rolled(logp, labels, blank)
    inf = -math.inf
    step = labels[:, 1:] != labels[:, :-1]
    col = torch.full((batch, 1), inf, dtype=lp.dtype, device=lp.device)
    lab = torch.full((batch, width), _LOG_0, dtype=lp.dtype, device=lp.device)
    blk = torch.full((batch, width + 1), _LOG_0, dtype=lp.dtype, device=lp.device)
    start = torch.zeros((batch, 1), dtype=lp.dtype, device=lp.device)
    alpha = []
    for t in range(frames):
        prev = torch.cat([start, torch.where(step, lab[:, :-1], col)], 1)
        lab, blk = (_lse(lab, prev, blk[:, :-1]) + emit[t],
                    _lse(blk, torch.cat([start, lab], 1)) + lp[t, :, :1])
        start = col
        alpha.append((lab, blk))
    pos = torch.arange(width + 1, device=lp.device).unsqueeze(0)
    final = torch.where(pos == ll.unsqueeze(1), 0.0, _LOG_0).to(lp.dtype)
    b_lab, b_blk = final[:, 1:], final
    post = torch.zeros_like(lp)
    for t in reversed(range(frames)):
        keep = (t + 1 < tl).unsqueeze(1)  # beta after frame t: the final weights at the end
        b_lab = torch.where(keep, b_lab, final[:, 1:])
        b_blk = torch.where(keep, b_blk, final)
        g_lab, g_blk = alpha[t][0] + b_lab, alpha[t][1] + b_blk
        z = torch.logsumexp(torch.cat([g_lab, g_blk], 1), 1, keepdim=True)
        p_lab = torch.nan_to_num(torch.exp(g_lab - z))
        p_blk = torch.nan_to_num(torch.exp(g_blk - z))
        counted = (labels >= 1) & (labels < classes)  # TF's one_hot(labels - 1)
        post[t, :, 0] = p_blk.sum(1)
        post[t].scatter_add_(1, labels.clamp(0, classes - 1), torch.where(counted, p_lab, 0.0))
        x_lab, x_blk = emit[t] + b_lab, lp[t, :, :1] + b_blk
        nxt = torch.cat([torch.where(step, x_lab[:, 1:], inf), col], 1)  # label l -> l+1
        b_lab, b_blk = (_lse(x_lab, nxt, x_blk[:, 1:]), _lse(x_blk, torch.cat([x_lab, col], 1)))
    live = (torch.arange(frames, device=lp.device).unsqueeze(1) < tl.unsqueeze(0)).unsqueeze(2)
    grad = torch.where(live, torch.exp(lp) - post, 0.0)
    if blank != 0:  # back to the caller's class order
        grad = torch.cat([grad[..., 1:blank + 1], grad[..., :1], grad[..., blank + 1:]], -1)
    return grad


class _DenseLoss(torch.autograd.Function):
    """TF's dense-label CTC loss with TF's own gradient (see ``_dense_grad``)."""

    @staticmethod
    def forward(ctx, logits, labels, ll, tl, blank):  # pyright: ignore[reportIncompatibleMethodOverride] - autograd's static signature
        ctx.save_for_backward(logits, labels, ll, tl)
        ctx.blank = blank
        with torch.no_grad():
            return _dense_loss(torch.log_softmax(logits, -1), labels, ll, tl, blank)

    @staticmethod
    def backward(ctx, grad_loss):  # pyright: ignore[reportIncompatibleMethodOverride] - autograd's static signature
        logits, labels, ll, tl = ctx.saved_tensors
        with torch.no_grad():
            grad = _dense_grad(torch.log_softmax(logits, -1), labels, ll, tl, ctx.blank)
        grad = grad * grad_loss.double().reshape(1, -1, 1)
        return grad.to(logits.dtype), None, None, None, None


# TF's log of an impossible initial/final state: log(1e-307) in float32, not -inf, so a
# label sequence the frames cannot fit still gets a finite (~707 + x) loss
_LOG_0 = float(np.float32(math.log(1e-307)))
_NEVER = -1e30  # unreachable states: a finite stand-in for -inf (no all -inf logsumexp)


def _dense_loss(logp: torch.Tensor, labels: torch.Tensor, ll: torch.Tensor, tl: torch.Tensor,
                blank: int) -> torch.Tensor:
    """TF 2.4's ``ctc_loss_dense`` value: the forward algorithm over its states (a
    start state, label states 1..width and blank states 0..width) with the blank
    moved to class 0, out-of-range labels emitting log 1, and final states other
    than ``label_length`` weighted ``log(1e-307)``; frames past ``logit_length`` are
    not read."""
    frames, batch, classes = logp.shape
    width = labels.shape[1]
    lp, labels, emit = _rolled(logp, labels, blank)
    never = torch.full((batch, 1), _NEVER, dtype=lp.dtype, device=lp.device)
    lab = never.expand(batch, width).clone()  # label states 1..width
    blk = never.expand(batch, width + 1).clone()  # blank states 0..width
    start = torch.zeros((batch, 1), dtype=lp.dtype, device=lp.device)
    step = labels[:, 1:] != labels[:, :-1]  # label l-1 -> l unless a repeat
    for t in range(frames):
        prev = torch.cat([start, torch.where(step, lab[:, :-1], never)], 1)
        new_lab = torch.logsumexp(torch.stack([lab, prev, blk[:, :-1]]), 0) + emit[t]
        new_blk = (torch.logsumexp(torch.stack([blk, torch.cat([start, lab], 1)]), 0)
                   + lp[t, :, :1])
        live = (t < tl).unsqueeze(1)
        lab = torch.where(live, new_lab, lab)
        blk = torch.where(live, new_blk, blk)
        start = torch.where(live, never, start)  # the start state emits log 0
    pos = torch.arange(width + 1, device=lp.device).unsqueeze(0)
    final = torch.where(pos == ll.unsqueeze(1), 0.0, _LOG_0).to(lp.dtype)
    total = torch.logsumexp(torch.cat([start + final[:, :1], lab + final[:, 1:],
                                       blk + final], 1), 1)
    return -total


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

    Raises:
      InvalidArgumentError: If ``labels`` is not 2-D.
      ValueError: If ``seq_length`` does not hold one length per row.

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
    if tuple(n.shape) != (t.shape[0],):
        raise ValueError(f"seq_length must have shape [{t.shape[0]}] (one length per row of "
                         f"labels), got {list(n.shape)}")
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


# --- decoders ---------------------------------------------------------------------
_DEC_FLOATS = nc.TypeSet((dtypes.float32, dtypes.float64))


def _decoder_args(op: str, inputs, sequence_length) -> tuple:
    """The decoder kernels' input checks; ``(inputs tensor, lengths as ints)``."""
    if isinstance(inputs, Tensor):
        x = nc.typed_arg(op, inputs, _DEC_FLOATS)
    else:
        a = np.asarray(inputs)
        x = tensor_arg(a, dtypes.float64 if a.dtype == np.float64 else dtypes.float32)
    if x._t.dim() != 3:
        raise InvalidArgumentError(None, None, f"inputs is not a 3-Tensor [Op:{op}]")
    n = tensor_arg(sequence_length, dtypes.int32)
    if n._t.dim() != 1:
        raise InvalidArgumentError(None, None, f"sequence_length is not a vector [Op:{op}]")
    frames, batch = x._t.shape[0], x._t.shape[1]
    lengths = [int(v) for v in n._t.tolist()]
    if len(lengths) != batch:
        raise FailedPreconditionError(None, None, f"len(sequence_length) != batch_size.  "
                                                  f"len(sequence_length):  {len(lengths)} "
                                                  f"batch_size: {batch} [Op:{op}]")
    for b, v in enumerate(lengths):
        if v > frames:
            raise FailedPreconditionError(None, None, f"sequence_length({b}) <= {frames} "
                                                      f"[Op:{op}]")
    return x, lengths


def _sparse_paths(paths: list, batch: int, device) -> SparseTensor:
    """One decoded path per batch entry as TF's int64 SparseTensor (row-major)."""
    idx = [[b, i] for b, p in enumerate(paths) for i in range(len(p))]
    vals = [v for p in paths for v in p]
    width = max((len(p) for p in paths), default=0)
    ind = torch.tensor(idx, dtype=torch.int64, device=device).reshape(len(idx), 2)
    return SparseTensor(wrap(ind, dtypes.int64),
                        wrap(torch.tensor(vals, dtype=torch.int64, device=device), dtypes.int64),
                        wrap(torch.tensor([batch, width], dtype=torch.int64, device=device),
                             dtypes.int64))


@public("torchflow.nn")
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Greedy (best-path) CTC decoding of logits.

    At each frame the most likely class is taken (the first one on ties); blanks
    are dropped and, with ``merge_repeated``, runs of the same class emit it once
    (a blank between two equal classes keeps both).

    Args:
      inputs: Float logits ``[max_time, batch_size, num_classes]``.
      sequence_length: int32 ``[batch_size]`` frames to decode per entry.
      merge_repeated: Merge repeated classes in the output (default True).
      blank_index: The blank class; default ``num_classes - 1``, negative values
        count from the end.

    Returns:
      ``(decoded, neg_sum_logits)``: ``decoded`` is a one-element list holding a
      ``SparseTensor`` (int64 ``indices [total, 2]``, int64 ``values``, int64
      ``dense_shape [batch_size, max_decoded_length]``); ``neg_sum_logits`` is a
      ``[batch_size, 1]`` tensor of ``inputs``' dtype: minus the sum of the chosen
      logits.

    Raises:
      InvalidArgumentError: If ``inputs`` is not 3-D or empty, ``sequence_length``
        not a vector or ``blank_index`` out of range.
      FailedPreconditionError: If ``sequence_length`` does not match the batch or
        exceeds ``max_time``.

    Differences from TensorFlow 2.4: ``blank_index`` is a later TF's addition (2.4's
    decoder always uses the last class); it follows that TF's kernel.

    >>> import torchflow as tf
    >>> x = tf.math.log([[[0.8, 0.2]], [[0.1, 0.9]], [[0.7, 0.3]]])
    >>> decoded, _ = tf.nn.ctc_greedy_decoder(x, [3])
    >>> tf.sparse.to_dense(decoded[0]).numpy()
    array([[0, 0]])
    """
    op = "CTCGreedyDecoder"
    x, lengths = _decoder_args(op, inputs, sequence_length)
    t = x._t
    classes = t.shape[2]
    if t.numel() == 0:
        raise InvalidArgumentError(None, None, f"inputs must not be empty [Op:{op}]")
    blank = classes - 1
    if blank_index is not None:
        blank = int(blank_index)
        if not -classes <= blank < classes:
            raise InvalidArgumentError(None, None, f"blank_index expected to be between "
                                                   f"{-classes} and {classes - 1} but was "
                                                   f"{blank} [Op:{op}]")
        blank %= classes
    best, arg = t.max(dim=2)  # the first maximum on ties, as TF's RowMax
    frames = torch.arange(t.shape[0], device=t.device).unsqueeze(1)
    mask = frames < torch.tensor(lengths, device=t.device).unsqueeze(0)
    neg_sum = -(torch.where(mask, best, torch.zeros_like(best))).sum(0, keepdim=True).t()
    arg_np = arg.cpu().numpy()
    paths = []
    for b, n in enumerate(lengths):
        out, prev = [], -1
        for c in arg_np[:max(n, 0), b].tolist():
            if c != blank and not (merge_repeated and c == prev):
                out.append(c)
            prev = c
        paths.append(out)
    return [_sparse_paths(paths, t.shape[1], t.device)], wrap(neg_sum.contiguous(), x._dtype)


class _Beam:
    """A node of the prefix tree: its label, and the log probabilities of its
    prefix ending in a blank / in its label / in total, now and one frame back
    (``old_*``, set when a frame starts with the node in the beam)."""

    __slots__ = ("parent", "label", "kids", "old_total", "old_blank", "total", "blank",
                 "lab")

    def __init__(self, parent, label: int, score: float):
        self.parent, self.label, self.kids = parent, label, None
        self.blank, self.lab, self.total = -math.inf, score, score

    def reset(self) -> None:
        self.total = self.blank = self.lab = -math.inf

    def labels(self, merge_repeated: bool) -> list:
        out, prev, node = [], -1, self
        while node.parent is not None:
            if not merge_repeated or node.label != prev:
                out.append(node.label)
            prev, node = node.label, node.parent
        return out[::-1]


def _log_sum_exp(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    return a + math.log1p(math.exp(b - a)) if a > b else b + math.log1p(math.exp(a - b))


def _beam_step(leaves: list, logp: np.ndarray, width: int, counter) -> list:
    """One frame of TF's CTCBeamSearchDecoder::Step over the current beam."""
    inf = -math.inf
    blank = logp.shape[0] - 1
    branches = sorted(leaves, key=lambda e: -e.total)
    for e in branches:
        e.old_total, e.old_blank = e.total, e.blank
    heap: list = []  # (total, order, beam): heap[0] is the beam's bottom
    p_blank = float(logp[blank])
    for e in branches:  # extend each prefix by a repeat or a blank
        parent = e.parent
        if parent is not None:
            if parent.total != inf:
                prev = parent.old_blank if e.label == parent.label else parent.old_total
                e.lab = _log_sum_exp(e.lab, prev)
            e.lab += float(logp[e.label])
        e.blank = e.old_total + p_blank
        e.total = _log_sum_exp(e.blank, e.lab)
        heapq.heappush(heap, (e.total, next(counter), e))
    # every branch's score for each new label (a repeat of its last label follows a
    # blank); the beam's bottom only rises below, so labels under it now never enter
    scores = logp[None, :blank] + np.array([e.old_total for e in branches])[:, None]
    for i, e in enumerate(branches):
        if 0 <= e.label < blank:
            scores[i, e.label] = float(logp[e.label]) + e.old_blank
    floor = heap[0][0] if len(heap) >= width else inf
    hopeful = scores > floor
    for i, e in enumerate(branches):  # grow each prefix by a new label
        if e.old_total == inf or (len(heap) >= width and e.old_total <= heap[0][0]):
            continue
        labels = np.flatnonzero(hopeful[i]).tolist()
        kids = e.kids
        if kids is None:
            kids = e.kids = {}
        elif kids:  # a child that misses the beam loses its previous frame (TF's oldp)
            labels = sorted(set(labels).union(kids))
        row = scores[i]
        for c in labels:
            kid = kids.get(c)
            if kid is not None and kid.total != inf:
                continue  # in the beam already: extended above
            score = float(row[c])
            if score == inf or (len(heap) >= width and score <= heap[0][0]):
                if kid is not None:
                    kid.old_total = kid.old_blank = inf
                continue
            if kid is None:
                kid = kids[c] = _Beam(e, c, score)
            else:
                kid.blank, kid.lab, kid.total = inf, score, score
            if len(heap) >= width:
                heapq.heappop(heap)[2].reset()
            heapq.heappush(heap, (score, next(counter), kid))
    return [e for _, _, e in heap]


def beam_search_decode(inputs, sequence_length, beam_width: int, top_paths: int,
                       merge_repeated: bool) -> tuple:
    """TF's CTCBeamSearchDecoder kernel (``merge_repeated`` is the v1 option):
    ``(list of top_paths SparseTensors, [batch, top_paths] log probabilities)``."""
    op = "CTCBeamSearchDecoder"
    beam_width, top_paths = int(beam_width), int(top_paths)
    for attr, v in (("beam_width", beam_width), ("top_paths", top_paths)):
        if v < 1:
            raise InvalidArgumentError(None, None, f"Value for attr '{attr}' of {v} must be at "
                                                   f"least minimum 1 [Op:{op}]")
    x, lengths = _decoder_args(op, inputs, sequence_length)
    if top_paths > beam_width:
        raise InvalidArgumentError(None, None, f"requested more paths than the beam width. "
                                               f"[Op:{op}]")
    t = x._t
    logp = torch.log_softmax(t.double(), dim=2).cpu().numpy()
    batch = t.shape[1]
    paths = [[[] for _ in range(batch)] for _ in range(top_paths)]
    scores = np.zeros((batch, top_paths))
    for b, n in enumerate(lengths):
        root = _Beam(None, -1, -math.inf)
        root.total = root.blank = 0.0
        leaves, counter = [root], itertools.count()
        for frame in range(max(n, 0)):
            leaves = _beam_step(leaves, logp[frame, b], beam_width, counter)
        if len(leaves) < top_paths:
            raise InvalidArgumentError(None, None, f"Less leaves in the beam search than "
                                                   f"requested. [Op:{op}]")
        best = sorted(leaves, key=lambda e: -e.total)[:top_paths]
        for k, e in enumerate(best):
            paths[k][b] = e.labels(merge_repeated)
            scores[b, k] = e.total
    decoded = [_sparse_paths(p, batch, t.device) for p in paths]
    return decoded, wrap(torch.tensor(scores, dtype=t.dtype, device=t.device), x._dtype)


@public("torchflow.nn")
def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """Beam-search CTC decoding of logits (TF's prefix beam search).

    The logits of each frame are log-softmax normalised; the ``beam_width`` most
    likely label prefixes are kept at each frame (a prefix's probability sums
    over every alignment that collapses to it), and the ``top_paths`` best are
    returned. The blank is the last class; repeated labels are not merged.

    Args:
      inputs: Float logits ``[max_time, batch_size, num_classes]``.
      sequence_length: int32 ``[batch_size]`` frames to decode per entry.
      beam_width: int >= 1, default 100: the number of prefixes kept.
      top_paths: int in ``[1, beam_width]``, default 1: the paths returned.

    Returns:
      ``(decoded, log_probabilities)``: ``decoded`` is a list of ``top_paths``
      ``SparseTensor`` objects (int64 ``indices``, ``values`` and ``dense_shape
      [batch_size, max_decoded_length]``), the ``j``-th holding each entry's
      ``j``-th best path; ``log_probabilities`` is ``[batch_size, top_paths]`` of
      ``inputs``' dtype.

    Raises:
      InvalidArgumentError: If ``inputs`` is not 3-D, ``sequence_length`` not a
        vector, ``top_paths > beam_width``, or fewer prefixes than ``top_paths``
        survive (very short sequences).
      FailedPreconditionError: If ``sequence_length`` does not match the batch or
        exceeds ``max_time``.

    >>> import torchflow as tf
    >>> x = tf.math.log([[[0.1, 0.9]], [[0.8, 0.2]], [[0.7, 0.3]], [[0.2, 0.8]]])
    >>> decoded, _ = tf.nn.ctc_beam_search_decoder(x, [4], beam_width=4)
    >>> tf.sparse.to_dense(decoded[0]).numpy()
    array([[0]])
    """
    return beam_search_decode(inputs, sequence_length, beam_width, top_paths,
                              merge_repeated=False)
