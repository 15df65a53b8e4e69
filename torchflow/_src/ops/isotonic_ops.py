"""``tf.nn.isotonic_regression``: pool-adjacent-violators along one axis."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.ops._dispatch import tensor_arg, translate, wrap
from torchflow._src.util.api import public


def _pava_segments(rows: np.ndarray) -> np.ndarray:
    """Segment ids of the non-decreasing least-squares fit of each row."""
    seg = np.zeros(rows.shape, np.int64)
    for r, row in enumerate(rows):
        sums, counts, starts = [], [], []
        for i, v in enumerate(row.tolist()):
            sums.append(v)
            counts.append(1)
            starts.append(i)
            while len(sums) > 1 and sums[-2] / counts[-2] > sums[-1] / counts[-1]:
                s, c = sums.pop(), counts.pop()
                starts.pop()
                sums[-1] += s
                counts[-1] += c
        for k, start in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(row)
            seg[r, start:end] = k
    return seg


@public("torchflow.nn")
def isotonic_regression(inputs, decreasing=True, axis=-1, name=None):
    """Solves the isotonic regression problem along ``axis``: the closest (least
    squares) non-increasing (``decreasing``) or non-decreasing sequence.

    Args:
      inputs: A real Tensor; integers give float64 results, as in TF.
      decreasing: Fit non-increasing sequences (the default) or non-decreasing ones.
      axis: The axis along which the sequences run.
      name: Unused (eager).

    Returns:
      ``(output, segments)``: the fitted values (differentiable: each is the mean
      of its segment's inputs) and the int32 segment id of each element.

    >>> import torchflow as tf
    >>> tf.nn.isotonic_regression([1., 3., 2., 4.])[0].numpy()
    array([2.5, 2.5, 2.5, 2.5], dtype=float32)
    """
    x = tensor_arg(inputs)
    out_dtype = x._dtype if x._dtype.is_floating else dtypes.float64
    t = x._t.to(out_dtype._torch)
    try:
        moved = t.movedim(int(axis), -1)
        shape = moved.shape
        flat = moved.reshape(-1, shape[-1]) if moved.ndim else moved.reshape(1, 1)
        key = (-flat if decreasing else flat).detach().double().cpu().numpy()
        seg = torch.from_numpy(_pava_segments(key)).to(t.device)
        n = flat.shape[-1]
        gid = (seg + torch.arange(flat.shape[0], device=t.device).unsqueeze(1) * max(n, 1))
        gid = gid.reshape(-1)
        work = flat.float() if flat.dtype in (torch.float16, torch.bfloat16) else flat
        sums = work.new_zeros(flat.numel()).index_add(0, gid, work.reshape(-1))
        counts = work.new_zeros(flat.numel()).index_add(0, gid, torch.ones_like(work.reshape(-1)))
        fitted = (sums[gid] / counts[gid]).to(flat.dtype).reshape(shape).movedim(-1, int(axis))
        segments = seg.to(torch.int32).reshape(shape).movedim(-1, int(axis))
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("IsotonicRegression", e) from None
    return wrap(fitted, out_dtype), wrap(segments, dtypes.int32)
