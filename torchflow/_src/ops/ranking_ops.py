"""``tf.math.top_k``, ``in_top_k``, ``bincount`` and ``confusion_matrix``."""

from __future__ import annotations

import collections

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
from torchflow._src.util.api import public

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
_TOPK_TYPES = mc.ALL_REAL


@public("torchflow.math")
def top_k(input, k=1, sorted=True, name=None) -> TopKV2:  # noqa: A002 - TF's names
    """Finds the ``k`` largest entries along the last dimension.

    Equal values keep their index order (the lower index comes first).

    Args:
      input: A real tensor of rank >= 1.
      k: The number of top elements (an int or scalar int tensor), ``<=`` the
        last dimension.
      sorted: Unused: results are always sorted in descending order (allowed by TF).
      name: Unused (eager).

    Returns:
      ``TopKV2(values, indices)``: values of ``input``'s dtype and int32 indices,
      both of shape ``input.shape[:-1] + [k]``.

    Raises:
      InvalidArgumentError: If ``k`` is negative or larger than the last dimension.

    >>> import torchflow as tf
    >>> tf.math.top_k(tf.constant([1., 3., 2.]), k=2).indices.numpy()
    array([1, 2], dtype=int32)
    """
    x = tensor_arg(input)
    d = x._dtype
    if d._name not in _TOPK_TYPES:
        raise mc.bad_type("TopKV2", d, _TOPK_TYPES)
    k = int(tensor_arg(k)._t.item()) if isinstance(k, Tensor) else int(k)
    t = x._t
    if t.ndim < 1:
        raise InvalidArgumentError(None, None, "input must be at least 1-D, got shape [] "
                                   "[Op:TopKV2]")
    if k < 0:
        raise InvalidArgumentError(None, None, f"Need k >= 0, got {k} [Op:TopKV2]")
    if t.shape[-1] < k:
        raise InvalidArgumentError(
            None, None, f"input must have at least k columns. Had {t.shape[-1]}, needed {k} "
            f"[Op:TopKV2]"
        )
    wide = d._name in mc.NARROW
    src = mc.order_key(t, d) if wide else t
    _, idx = torch.sort(src, dim=-1, descending=True, stable=True)
    idx = idx[..., :k]
    values = torch.gather(src, -1, idx)
    if wide:
        values = mc.from_order_key(values, d)
    return TopKV2(wrap(values, d), wrap(idx.to(torch.int32), dtypes.int32))


@public("torchflow.math")
def in_top_k(targets, predictions, k, name=None) -> Tensor:
    """Says whether each target's prediction is among the top ``k`` of its row.

    Ties at the boundary count as in the top ``k``; a non-finite prediction or an
    out-of-range target gives False.

    Args:
      targets: A 1-D int32/int64 tensor of class ids, one per row.
      predictions: A float32 ``[batch, classes]`` tensor.
      k: The number of top elements to look at.
      name: Unused (eager).

    Returns:
      A bool tensor of shape ``[batch]``.

    Raises:
      InvalidArgumentError: If the shapes do not match.
    """
    tg = tensor_arg(targets)
    p = tensor_arg(predictions)
    if tg._dtype._name not in ("int32", "int64"):
        raise mc.bad_type("InTopKV2", tg._dtype, mc.TypeSet("int32", "int64"))
    if p._dtype is not dtypes.float32:
        raise mc.bad_type("InTopKV2", p._dtype, mc.TypeSet("float32"))
    pt = p._t
    t = tg._t.to(torch.int64)
    if pt.ndim != 2 or t.ndim != 1 or t.shape[0] != pt.shape[0]:
        raise InvalidArgumentError(
            None, None, f"First dimension of predictions {list(pt.shape)} must match length of "
            f"targets {list(t.shape)} [Op:InTopKV2]"
        )
    k = int(tensor_arg(k)._t.item()) if isinstance(k, Tensor) else int(k)
    classes = pt.shape[1]
    valid = (t >= 0) & (t < classes)
    safe = torch.where(valid, t, torch.zeros_like(t))
    target_pred = pt.gather(1, safe.unsqueeze(1))
    finite = torch.isfinite(target_pred).squeeze(1)
    higher = (pt > target_pred).sum(1)
    return wrap(valid & finite & (higher < k), dtypes.bool)


@public("torchflow.math")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None,
             axis=None, binary_output=False) -> Tensor:
    """Counts the number of occurrences of each value in an integer array.

    The output length is ``max(arr) + 1``, at least ``minlength`` and at most
    ``maxlength``; values ``>= maxlength`` are ignored.

    Args:
      arr: A non-negative int32/int64 tensor.
      weights: Optional tensor of ``arr``'s shape; each value adds its weight
        instead of 1 and fixes the output dtype.
      minlength: Optional minimum output length.
      maxlength: Optional maximum output length.
      dtype: The output dtype when ``weights`` is None (default int32).
      name: Unused (eager).
      axis: None (count over all of ``arr``) or -1 (count each row of a 2-D ``arr``).
      binary_output: If True, outputs 1 where a value occurs instead of counts.

    Returns:
      A 1-D tensor (or 2-D for ``axis=-1``).

    Raises:
      InvalidArgumentError: If ``arr`` has negative values.

    >>> import torchflow as tf
    >>> tf.math.bincount(tf.constant([1, 1, 3])).numpy()
    array([0, 2, 0, 1], dtype=int32)
    """
    if binary_output and weights is not None:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    a = tensor_arg(arr)
    if a._dtype._name not in ("int32", "int64"):
        raise mc.bad_type("DenseBincount", a._dtype, mc.TypeSet("int32", "int64"), "Tidx")
    t = a._t.to(torch.int64)
    if t.numel() and bool((t < 0).any()):
        raise InvalidArgumentError(None, None, "Input arr must be non-negative! [Op:DenseBincount]")
    if weights is not None:
        w = tensor_arg(weights)
        out_d = w._dtype
        wt = w._t
        if tuple(wt.shape) != tuple(t.shape) and wt.numel() != 0:
            raise InvalidArgumentError(
                None, None, "Input arr and weights must have the same shape [Op:DenseBincount]")
    else:
        out_d = dtypes.as_dtype(dtype)
        wt = None
    length = int(t.max().item()) + 1 if t.numel() else 0
    if minlength is not None:
        length = max(length, int(minlength))
    if maxlength is not None:
        length = min(length, int(maxlength))
    if axis is None:
        t = t.reshape(-1)
        wt = wt.reshape(-1) if wt is not None else None
    elif axis not in (-1, 1) or t.ndim != 2:
        if axis == 0 and t.ndim <= 1:
            t = t.reshape(-1)
        else:
            raise InvalidArgumentError(None, None, "bincount: axis must be None, 0 or -1 "
                                       "[Op:DenseBincount]")
    keep = t < length
    src = (wt.to(out_d._torch) if wt is not None else torch.ones(t.shape, dtype=out_d._torch,
                                                                 device=t.device))
    src = torch.where(keep, src, torch.zeros_like(src))
    idx = torch.where(keep, t, torch.zeros_like(t))
    shape = list(t.shape[:-1]) + [length] if t.ndim == 2 else [length]
    out = torch.zeros(shape, dtype=out_d._torch, device=t.device).scatter_add(t.ndim - 1, idx, src)
    if binary_output:
        out = (out != 0).to(out_d._torch)
    return wrap(out, out_d)


@public("torchflow.math")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32,
                     name=None) -> Tensor:
    """Computes the confusion matrix from labels and predictions (rows: labels).

    Args:
      labels: 1-D integer tensor of true labels.
      predictions: 1-D integer tensor of predicted labels, same length.
      num_classes: The number of classes; default ``max(labels, predictions) + 1``.
      weights: Optional 1-D tensor of per-example weights.
      dtype: The output dtype (default int32).
      name: Unused (eager).

    Returns:
      A ``[num_classes, num_classes]`` tensor of ``dtype``.

    Raises:
      ValueError: If the shapes differ.
      InvalidArgumentError: If a label or prediction is negative or ``>= num_classes``.
    """
    lab = tensor_arg(labels)._t.to(torch.int64).reshape(-1)
    pred = tensor_arg(predictions)._t.to(torch.int64).reshape(-1)
    if lab.shape != pred.shape:
        raise ValueError(f"Dimensions {lab.shape[0]} and {pred.shape[0]} are not compatible")
    d = dtypes.as_dtype(dtype)
    if num_classes is None:
        n = int(torch.maximum(lab.max(), pred.max()).item()) + 1 if lab.numel() else 0
    else:
        n = int(tensor_arg(num_classes)._t.item()) if isinstance(num_classes, Tensor) \
            else int(num_classes)
    if lab.numel() and (bool((lab < 0).any()) or bool((pred < 0).any())
                        or bool((lab >= n).any()) or bool((pred >= n).any())):
        raise InvalidArgumentError(
            None, None, "`labels` and `predictions` must be in [0, num_classes)")
    w = (tensor_arg(weights)._t.reshape(-1).to(d._torch) if weights is not None
         else torch.ones(lab.shape, dtype=d._torch, device=lab.device))
    out = torch.zeros(n * n, dtype=d._torch, device=lab.device).index_add(0, lab * n + pred, w)
    return wrap(out.reshape(n, n), d)


@public("torchflow.math")
def invert_permutation(x, name=None) -> Tensor:
    """Computes the inverse permutation: ``y[x[i]] = i``.

    Args:
      x: A 1-D int32/int64 tensor holding a permutation of ``0 .. n-1``.
      name: Unused (eager).

    Returns:
      A tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not 1-D or not a permutation.

    >>> import torchflow as tf
    >>> tf.math.invert_permutation([2, 0, 1]).numpy()
    array([1, 2, 0], dtype=int32)
    """
    p = tensor_arg(x)
    d = p._dtype
    if d._name not in ("int32", "int64"):
        raise mc.bad_type("InvertPermutation", d, mc.TypeSet("int32", "int64"))
    t = p._t
    if t.ndim != 1:
        raise InvalidArgumentError(
            None, None, "invert_permutation expects a 1D vector. [Op:InvertPermutation]")
    n = t.shape[0]
    if n:
        bad = (t < 0) | (t >= n)
        if bool(bad.any()):
            v = int(t[bad][0])
            raise InvalidArgumentError(
                None, None, f"{v} is not between 0 and {n} [Op:InvertPermutation]")
        counts = torch.bincount(t.to(torch.int64), minlength=n)
        if bool((counts > 1).any()):
            v = int(torch.nonzero(counts > 1)[0, 0])
            raise InvalidArgumentError(
                None, None, f"{v} is duplicated in the input. [Op:InvertPermutation]")
    out = torch.empty_like(t).scatter_(0, t.to(torch.int64), torch.arange(n, dtype=t.dtype,
                                                                            device=t.device))
    return wrap(out, d)
