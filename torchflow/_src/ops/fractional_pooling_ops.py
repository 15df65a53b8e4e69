"""``tf.nn.fractional_max_pool`` / ``fractional_avg_pool``: pooling over randomly
sized windows of ``floor(r)`` or ``ceil(r)`` rows/columns (Graham, 2014)."""

from __future__ import annotations

import math

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops import random_ops
from torchflow._src.ops._dispatch import translate, wrap
from torchflow._src.util.api import public


def _sequence(n_in: int, ratio: float, pseudo_random: bool, gen, device) -> torch.Tensor:
    n_out = int(n_in // ratio)
    if n_out < 1:
        raise InvalidArgumentError(None, None, f"pooling_ratio {ratio} leaves no output for an "
                                               f"input of size {n_in} [Op:FractionalMaxPool]")
    u = float(torch.rand((), generator=gen, dtype=torch.float64))
    if pseudo_random:
        # a_i = ceil(alpha * (i + u)) (Graham's pseudo-random regions), with u kept
        # small enough that the first and last windows also span k or k + 1.
        alpha = n_in / n_out
        k = n_in // n_out
        u *= min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        marks = [1] + [int(math.ceil(alpha * (i + u))) for i in range(1, n_out)] + [n_in + 1]
        seq = [m - 1 for m in marks]
    else:
        k = n_in // n_out
        extra = n_in - k * n_out  # this many windows are one longer
        diffs = torch.full((n_out,), k, dtype=torch.int64)
        diffs[torch.randperm(n_out, generator=gen)[:extra]] += 1
        seq = [0] + torch.cumsum(diffs, 0).tolist()
    return torch.tensor(seq, dtype=torch.int64, device=device)


def _windows(seq: torch.Tensor, n_in: int, overlapping: bool):
    """``(index [n_out, width], valid mask)`` for the window of each output."""
    start, end = seq[:-1], seq[1:]
    if overlapping:
        end = torch.clamp(end + 1, max=n_in)
    width = int((end - start).max())
    idx = start.unsqueeze(1) + torch.arange(width, device=seq.device)
    valid = idx < end.unsqueeze(1)
    return torch.where(valid, idx, start.unsqueeze(1)), valid


def _fractional(kind, value, pooling_ratio, pseudo_random, overlapping, seed):
    op = "FractionalMaxPool" if kind == "max" else "FractionalAvgPool"
    x = nc.typed_arg(op, value, nc.TypeSet((dtypes.float32, dtypes.float64, dtypes.int32,
                                            dtypes.int64)))
    t = x._t
    if t.ndim != 4:
        raise InvalidArgumentError(None, None, f"input must be 4-dimensional [Op:{op}]")
    ratio = [float(r) for r in (pooling_ratio if isinstance(pooling_ratio, (list, tuple))
                                else [1.0, pooling_ratio, pooling_ratio, 1.0])]
    if len(ratio) == 2:
        ratio = [1.0] + ratio + [1.0]
    if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0:
        raise InvalidArgumentError(None, None, f"pooling_ratio must be [1.0, r_h, r_w, 1.0], "
                                               f"got {pooling_ratio} [Op:{op}]")
    if min(ratio[1:3]) < 1.0:
        raise InvalidArgumentError(None, None, f"pooling_ratio must be >= 1.0 [Op:{op}]")
    gen = random_ops.stream(op, x._dtype, seed if seed else None, torch.device("cpu"))
    h, w = t.shape[1], t.shape[2]
    rows = _sequence(h, ratio[1], pseudo_random, gen, t.device)
    cols = _sequence(w, ratio[2], pseudo_random, gen, t.device)
    try:
        out = pool_regions(kind, t, rows, cols, overlapping)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return (wrap(out, x._dtype), wrap(rows, dtypes.int64), wrap(cols, dtypes.int64))


def pool_regions(kind: str, t: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor,
                 overlapping: bool) -> torch.Tensor:
    """Max/avg of NHWC ``t`` over the windows that the boundary sequences define."""
    ri, rv = _windows(rows, t.shape[1], overlapping)
    ci, cv = _windows(cols, t.shape[2], overlapping)
    work = t if t.is_floating_point() else t.double()
    patch = work[:, ri][:, :, :, ci]  # [n, out_h, win_h, out_w, win_w, c]
    mask = (rv[:, :, None, None] & cv[None, None, :, :]).unsqueeze(-1)
    if kind == "max":
        out = patch.masked_fill(~mask, float("-inf")).amax((2, 4))
    else:
        out = (patch * mask).sum((2, 4)) / mask.sum((1, 3)).to(work.dtype)
    return out.to(t.dtype)  # integer averages truncate, as TF's kernel does


@public("torchflow.nn")
def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0,
                        name=None):
    """Fractional max pooling of a 4-D NHWC ``value``.

    Args:
      value: A 4-D Tensor (float32/float64/int32/int64).
      pooling_ratio: ``[1.0, r_h, r_w, 1.0]`` (or a float for both), each >= 1.
      pseudo_random: Generate the window sequence pseudo-randomly (else randomly).
      overlapping: Windows share their boundary row/column with the next window.
      seed: Optional op seed (0: none).
      name: Unused (eager).

    Returns:
      ``(output, row_pooling_sequence, col_pooling_sequence)``; the sequences are
      the int64 window boundaries (first 0, last the input size).

    Differences from TensorFlow 2.4: the random windows differ from TF's draws.
    """
    return _fractional("max", value, pooling_ratio, pseudo_random, overlapping, seed)


@public("torchflow.nn")
def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0,
                        name=None):
    """Fractional average pooling of a 4-D NHWC ``value``; see ``fractional_max_pool``.

    Args:
      value: A 4-D NHWC tensor (float32/float64/int32/int64).
      pooling_ratio: ``[1.0, r_h, r_w, 1.0]`` (or a float for both), each >= 1.
      pseudo_random: bool, default False: generate the windows pseudo-randomly.
      overlapping: bool, default False: neighbouring windows share a boundary.
      seed: int, default 0 (none).
      name: Unused (eager).

    Returns:
      ``(output, row_pooling_sequence, col_pooling_sequence)``; the sequences are int64
        window boundaries.
    """
    return _fractional("avg", value, pooling_ratio, pseudo_random, overlapping, seed)
