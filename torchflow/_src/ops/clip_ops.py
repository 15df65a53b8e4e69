"""Clipping: clip_by_value, clip_by_norm, clip_by_global_norm, global_norm."""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import translate
from torchflow._src.core.indexed_slices import IndexedSlices
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import _NATIVE, int_list, op_error, tensor_of, tfname
from torchflow._src.ops._dispatch import COMPOSITE
from torchflow._src.util.api import public


def _bound(v, d: dtypes.DType):
    if isinstance(v, Tensor) or hasattr(v, "_tf_value"):
        b = tensor_of(v)
        if b._dtype is not d:
            raise op_error("Minimum", f"cannot compute Minimum as input #1(zero-based) was "
                                      f"expected to be a {d.name} tensor but is a "
                                      f"{b._dtype.name} tensor")
        return b._t
    return to_tensor(v, d)._t


@public("torchflow")
def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Tensor | IndexedSlices:
    """Clips values to ``[clip_value_min, clip_value_max]``.

    Computed as ``maximum(minimum(t, max), min)``, so when ``min > max`` every
    value becomes ``min`` (as in TF). The gradient flows where
    ``min <= t <= max``.

    Args:
      t: A tensor (or ``IndexedSlices``).
      clip_value_min: A 0-D or broadcastable tensor of ``t``'s dtype: the lower bound.
      clip_value_max: A 0-D or broadcastable tensor of ``t``'s dtype: the upper bound.
      name: Unused (eager).

    Returns:
      A tensor of ``t``'s dtype and shape.

    Raises:
      TypeError: If a Python bound does not fit ``t``'s dtype.
      InvalidArgumentError: If a tensor bound has another dtype or does not
        broadcast to ``t``.

    >>> import torchflow as tf
    >>> tf.clip_by_value([-2., 0.5, 3.], -1., 1.).numpy()
    array([-1. ,  0.5,  1. ], dtype=float32)
    """
    if type(t) in COMPOSITE:  # tf.RaggedTensor: the values are clipped
        return COMPOSITE[type(t)].values_op(clip_by_value, t, clip_value_min, clip_value_max)
    if isinstance(t, IndexedSlices):  # the values are clipped, as in TF
        return IndexedSlices(clip_by_value(t.values, clip_value_min, clip_value_max),
                             t.indices, t.dense_shape)
    x = tensor_of(t)
    d = x._dtype
    if d._kind not in "fiu":
        raise op_error("ClipByValue", f"clip_by_value does not support dtype {d.name}")
    hi = _bound(clip_value_max, d)
    lo = _bound(clip_value_min, d)
    src = x._t.to(torch.int64) if d in _NATIVE else x._t
    if d in _NATIVE:
        lo, hi = lo.to(torch.int64), hi.to(torch.int64)
    try:
        if lo.ndim == 0 and hi.ndim == 0 and not lo.requires_grad and not hi.requires_grad:
            lv, hv = lo.item(), hi.item()
            out = torch.clamp(src, lv, hv) if lv <= hv else torch.full_like(src, lv)
        else:
            lo, hi = lo.to(src.device), hi.to(src.device)
            out = torch.where(lo > hi, lo.expand_as(src) if lo.ndim <= src.ndim else lo,
                              torch.clamp(src, lo, hi))
        if tuple(out.shape) != tuple(src.shape):
            raise op_error("ClipByValue", f"clip_value_min/max shapes must broadcast to "
                                          f"{list(src.shape)}, got {list(out.shape)}")
    except (TypeError, ValueError):
        raise
    except Exception as e:  # noqa: BLE001
        raise translate("ClipByValue", e) from None
    return wrap(out.to(x._t.dtype) if d in _NATIVE else out, d)


def _float_only(x: Tensor, op: str):
    if not x._dtype.is_floating:
        raise op_error(op, f"Value for attr 'T' of {tfname(x._dtype)} is not in the list of "
                           f"allowed values: bfloat16, half, float, double, complex64, "
                           f"complex128")


@public("torchflow")
def clip_by_norm(t, clip_norm, axes=None, name=None) -> Tensor | IndexedSlices:
    """Rescales ``t`` so that its L2 norm (over ``axes``) is at most ``clip_norm``.

    Returns ``t * clip_norm / max(l2norm(t), clip_norm)``.

    Args:
      t: A float tensor (or ``IndexedSlices``).
      clip_norm: A positive 0-D (or broadcastable) float tensor.
      axes: None (default: all dimensions) or a 1-D int list of dimensions to take the norm
        over.
      name: Unused (eager).

    Returns:
      A tensor of ``t``'s dtype and shape.

    Raises:
      InvalidArgumentError: For non-float tensors.
    """
    if isinstance(t, IndexedSlices):  # the norm of the values, as in TF
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes), t.indices,
                             t.dense_shape)
    x = tensor_of(t)
    _float_only(x, "Sqrt")
    v = x._t
    cn = _bound(clip_norm, x._dtype).to(v.device)
    dims = None if axes is None else int_list(axes, "axes")
    l2sum = (v * v).sum(dim=dims, keepdim=True) if dims is not None else \
        (v * v).sum().reshape([1] * v.ndim)
    pos = l2sum > 0
    l2norm = torch.where(pos, torch.sqrt(torch.where(pos, l2sum, torch.ones_like(l2sum))),
                         l2sum)
    out = v * cn / torch.maximum(l2norm, cn)
    return wrap(out, x._dtype)


@public("torchflow.linalg")
def global_norm(t_list, name=None) -> Tensor:
    """The global L2 norm ``sqrt(sum(||t||^2 for t in t_list))``; None entries are ignored.

    Args:
      t_list: A list or tuple of float tensors (or None).
      name: Unused (eager).

    Returns:
      A 0-D float tensor of the inputs' dtype.

    Raises:
      TypeError: If ``t_list`` is not a sequence.
    """
    if isinstance(t_list, (Tensor, str, bytes)) or not hasattr(t_list, "__iter__"):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    ts = [tensor_of(v.values if isinstance(v, IndexedSlices) else v) for v in t_list
          if v is not None]
    if not ts:
        return wrap(torch.tensor(0.0), dtypes.float32)
    d = ts[0]._dtype
    total = None
    for x in ts:
        _float_only(x, "L2Loss")
        s = (x._t * x._t).sum()
        total = s if total is None else total + s.to(total.device)
    return wrap(torch.sqrt(total), d)  # pyright: ignore[reportArgumentType] - ts is not empty


@public("torchflow")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales a list of tensors so that their global norm is at most ``clip_norm``.

    Each tensor becomes ``t * clip_norm / max(global_norm, clip_norm)``; None
    entries stay None. An infinite or NaN global norm makes every value NaN.

    Args:
      t_list: A list or tuple of float tensors (or None / ``IndexedSlices``).
      clip_norm: A positive 0-D float: the maximum global norm.
      use_norm: None (default) or a 0-D float tensor: a precomputed global norm to use.
      name: Unused (eager).

    Returns:
      ``(list_clipped, global_norm)``.

    Raises:
      TypeError: If ``t_list`` is not a sequence.

    >>> import torchflow as tf
    >>> clipped, norm = tf.clip_by_global_norm([tf.constant([3., 4.])], 1.0)
    >>> float(norm)
    5.0
    """
    if isinstance(t_list, (Tensor, str, bytes)) or not hasattr(t_list, "__iter__"):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    gn = global_norm(t_list) if use_norm is None else tensor_of(use_norm)
    g = gn._t
    cn = tensor_of(clip_norm, gn._dtype)._t.to(g.device)
    # (g - g): NaN for an infinite or NaN norm, as TF writes it; no value read, so a
    # traced function replays it.
    scale = cn * torch.minimum(1.0 / g, 1.0 / cn) + (g - g)
    out = []
    for v in t_list:
        if v is None:
            out.append(None)
            continue
        x = tensor_of(v.values if isinstance(v, IndexedSlices) else v)
        c = wrap(x._t * scale.to(x._t.dtype).to(x._t.device), x._dtype)
        out.append(IndexedSlices(c, v.indices, v.dense_shape) if isinstance(v, IndexedSlices)
                   else c)
    return out, gn


__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm"]
