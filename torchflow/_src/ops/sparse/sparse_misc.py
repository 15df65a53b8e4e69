"""``tf.edit_distance`` (Levenshtein distances of SparseTensor sequences) and
``tf.sparse.bincount`` (value counts as a SparseTensor)."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.sparse import _sparse_common as sc
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public


def _levenshtein(a: list, b: list) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def _groups(st: SparseTensor) -> dict:
    """Per index prefix (all but the last dimension), the values in order."""
    out: dict = {}
    vals = st.values.numpy().tolist()
    for row, v in zip(sc.idx(st)[:, :-1].tolist(), vals):
        out.setdefault(tuple(row), []).append(v)
    return out


@public("torchflow")
def edit_distance(hypothesis, truth, normalize=True, name="edit_distance") -> Tensor:
    """The Levenshtein distance between sequences of two SparseTensors.

    The last dimension holds the sequences; the result has the other
    dimensions (the larger of the two inputs' in each).

    Args:
      hypothesis: A SparseTensor of rank R (sorted indices).
      truth: A SparseTensor of rank R and the same dtype.
      normalize: If True, each distance is divided by the truth's length (an
        empty truth gives inf, or 0 when the hypothesis is empty too).
      name: Unused (eager).

    Returns:
      A float32 Tensor of rank R - 1.

    Raises:
      TypeError: If an input is not a SparseTensor.
      InvalidArgumentError: If the ranks or dtypes differ.

    >>> import torchflow as tf
    >>> h = tf.sparse.SparseTensor([[0, 0], [0, 1]], [b"a", b"b"], [1, 2])
    >>> t = tf.sparse.SparseTensor([[0, 0], [0, 1], [0, 2]], [b"a", b"x", b"b"], [1, 3])
    >>> tf.edit_distance(h, t, normalize=False).numpy().tolist()
    [1.0]
    """
    if not isinstance(hypothesis, SparseTensor):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, SparseTensor):
        raise TypeError("Truth must be a SparseTensor.")
    hs, ts = sc.shape_list(hypothesis), sc.shape_list(truth)
    if len(hs) != len(ts):
        raise InvalidArgumentError(
            None, None, f"Expected truth and hypothesis to have matching ranks, but their "
                        f"shapes are: [{len(ts)}] and [{len(hs)}] [Op:EditDistance]")
    if hypothesis.dtype != truth.dtype:
        raise InvalidArgumentError(
            None, None, f"cannot compute EditDistance as input #4(zero-based) was expected "
                        f"to be a {hypothesis.dtype.name} tensor but is a {truth.dtype.name} "
                        "tensor [Op:EditDistance]")
    out_shape = [max(a, b) for a, b in zip(hs[:-1], ts[:-1])]
    hg, tg = _groups(hypothesis), _groups(truth)
    out = np.zeros(out_shape, dtype=np.float32)
    for key in set(hg) | set(tg):
        h, t = hg.get(key, []), tg.get(key, [])
        d = float(_levenshtein(h, t))
        if normalize:
            d = d / len(t) if t else (float("inf") if h else 0.0)
        out[key] = d
    return wrap(torch.from_numpy(out).to(sc.idx(truth).device), dtypes.float32)


def _flat_values(values):
    """(row of each value or None, value ints, weights-like dtype source) of the input."""
    if isinstance(values, SparseTensor):
        ind = sc.idx(values)
        return ind, values.values, sc.shape_list(values)
    t = tensor_arg(values)
    shape = [int(d) for d in t._t.shape]
    flat = wrap(t._t.reshape(-1), t.dtype)
    n = flat._t.shape[0]
    ind = torch.nonzero(torch.ones(shape, dtype=torch.bool)) if shape else \
        torch.zeros([n, 0], dtype=torch.int64)
    return ind, flat, shape


@public("torchflow.sparse")
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
             binary_output=False, name=None) -> SparseTensor:
    """Counts the occurrences of each integer value, as a SparseTensor.

    Args:
      values: An int Tensor or SparseTensor (its listed values only).
      weights: Optional weights of ``values``' shape (summed instead of counting).
      axis: 0 counts over everything (a 1-D result); -1 counts per row of a
        2-D input (a ``[rows, size]`` result).
      minlength: The result's size is at least this.
      maxlength: The result's size is at most this (larger values are dropped).
      binary_output: If True, 1 marks a value that occurs (weights ignored).
      name: Unused (eager).

    Returns:
      A SparseTensor whose dense size is ``max(values) + 1`` bounded by
      ``minlength`` / ``maxlength``.

    Raises:
      InvalidArgumentError: For an axis other than 0 and -1.

    >>> import torchflow as tf
    >>> out = tf.sparse.bincount(tf.constant([1, 3, 1]))
    >>> out.indices.numpy().tolist(), out.values.numpy().tolist()
    ([[1], [3]], [2, 1])
    """
    ind, flat, shape = _flat_values(values)
    if axis not in (0, -1):
        raise InvalidArgumentError(None, None, f"Unsupported axis value {axis}. Only 0 and -1 "
                                               "are currently supported.")
    v = flat._t.to(torch.int64)
    if v.numel() and bool((v < 0).any()):
        raise InvalidArgumentError(None, None, "Input arr must be non-negative!")
    size = int(v.max()) + 1 if v.numel() else 0
    if minlength is not None:
        size = max(size, int(minlength))
    if maxlength is not None:
        size = min(size, int(maxlength))
    if weights is not None and not binary_output:
        w = weights.values if isinstance(weights, SparseTensor) else tensor_arg(weights)
        wt, out_dtype = w._t.reshape(-1), w.dtype
    else:
        out_dtype = flat.dtype
        wt = torch.ones_like(v, dtype=out_dtype._torch)
    keep = v < size
    if axis == -1 and len(shape) > 1:
        rows = ind[:, 0].to(v.device)
        lead = [shape[0], size]
        key = rows * size + v
    else:
        lead = [size]
        key = v
    key, wt = key[keep], wt.to(v.device)[keep]
    uniq, inv = torch.unique(key, sorted=True, return_inverse=True)
    counts = torch.zeros(uniq.shape[0], dtype=wt.dtype, device=wt.device).index_add_(0, inv, wt)
    if binary_output:
        counts = torch.ones_like(counts)
    out_ind = uniq[:, None] if len(lead) == 1 else torch.stack([uniq // size, uniq % size], 1)
    return sc.make(out_ind, wrap(counts, out_dtype), lead)
