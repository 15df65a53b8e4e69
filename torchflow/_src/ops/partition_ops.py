"""Index bookkeeping ops: dynamic_partition/stitch, unravel_index,
parallel_stack, get_static_value."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor, executing_eagerly, is_tensor, wrap
from torchflow._src.ops._array_helpers import (
    _NATIVE,
    int_value,
    is_str,
    op_error,
    tensor_list,
    tensor_of,
    tfname,
)
from torchflow._src.ops._dispatch import COMPOSITE
from torchflow._src.ops.array_ops import stack
from torchflow._src.util.api import public


def _ints(x, op: str, allowed=(dtypes.int32, dtypes.int64)) -> Tensor:
    t = tensor_of(x)
    if t._dtype not in allowed:
        raise op_error(op, f"Value for attr 'T' of {tfname(t._dtype)} is not in the list of "
                           f"allowed values: {', '.join(d.name for d in allowed)}")
    return t


@public("torchflow")
def dynamic_partition(data, partitions, num_partitions, name=None) -> list:
    """Splits ``data`` into ``num_partitions`` tensors by the ``partitions`` indices.

    ``partitions`` has the shape of a prefix of ``data``'s shape; output ``i``
    stacks the slices of ``data`` whose partition is ``i``, in order.

    Args:
      data: A tensor.
      partitions: An int32 tensor whose shape is a prefix of ``data``'s.
      num_partitions: int >= 1: how many outputs.
      name: Unused (eager).

    Returns:
      A list of ``num_partitions`` tensors of ``data``'s dtype.

    Raises:
      InvalidArgumentError: If a partition is outside ``[0, num_partitions)``
        or the shapes do not fit.

    >>> import torchflow as tf
    >>> [p.numpy().tolist() for p in tf.dynamic_partition([10, 20, 30], [1, 0, 1], 2)]
    [[20], [10, 30]]
    """
    if type(data) in COMPOSITE or type(partitions) in COMPOSITE:  # tf.RaggedTensor
        h = COMPOSITE.get(type(data)) or COMPOSITE[type(partitions)]
        return h.dynamic_partition(data, partitions, num_partitions, dynamic_partition)
    x = tensor_of(data)
    p = _ints(partitions, "DynamicPartition", (dtypes.int32,))
    n = int_value(num_partitions, "num_partitions")
    pt = p._t
    xs = list(x._t.shape)
    if xs[:pt.ndim] != list(pt.shape):
        raise op_error("DynamicPartition", f"data.shape must start with partitions.shape, got "
                                           f"data.shape = {xs}, partitions.shape = "
                                           f"{list(pt.shape)}")
    flat = pt.reshape(-1).to(torch.int64)
    if flat.numel():
        bad = (flat < 0) | (flat >= n)
        if bool(bad.any()):
            k = int(torch.nonzero(bad)[0])
            raise op_error("DynamicPartition", f"partitions[{k}] = {int(flat[k])} is not in "
                                               f"[0, {n})")
    rest = xs[pt.ndim:]
    out = []
    for i in range(n):
        sel = torch.nonzero(flat == i).reshape(-1)
        if is_str(x._t):
            arr = x._t.reshape([-1] + rest)[sel.numpy()]
            out.append(wrap(np.asarray(arr, dtype=object), dtypes.string))
        else:
            src = x._t.reshape([-1] + rest)
            out.append(wrap(src.index_select(0, sel.to(src.device)), x._dtype))
    return out


@public("torchflow")
def dynamic_stitch(indices, data, name=None) -> Tensor:
    """Interleaves the values of ``data`` into one tensor: ``merged[indices[m]] = data[m]``.

    Where an index repeats, the value that comes last (in ``m``, then in
    position) wins, as in TF's CPU kernel. Positions never written are zero.

    Args:
      indices: A list of int32 tensors.
      data: A list of tensors of one dtype, ``data[m].shape`` starting with
        ``indices[m].shape``.
      name: Unused (eager).

    Returns:
      A tensor of ``data``'s dtype with ``max(indices) + 1`` rows.

    Raises:
      InvalidArgumentError: If a ``data[m]`` shape does not extend
        ``indices[m]``'s shape by the same trailing dimensions.
    """
    idx = [_ints(i, "DynamicStitch", (dtypes.int32,)) for i in indices]
    vals = tensor_list(list(data), "DynamicStitch")
    if len(idx) != len(vals):
        raise op_error("DynamicStitch", f"List argument 'data' to 'DynamicStitch' Op with length "
                                        f"{len(vals)} must match length {len(idx)} of argument "
                                        f"'indices'.")
    if not idx:
        raise ValueError("tf.dynamic_stitch: at least one input is required")
    rest = list(vals[0]._t.shape[idx[0]._t.ndim:])
    for i, (ix, v) in enumerate(zip(idx, vals)):
        want = list(ix._t.shape) + rest
        if list(v._t.shape) != want:
            raise op_error("DynamicStitch", f"data[{i}].shape = {list(v._t.shape)} does not "
                                            f"start with indices[{i}].shape = "
                                            f"{list(ix._t.shape)}")
    flat_i = torch.cat([ix._t.reshape(-1).to(torch.int64) for ix in idx])
    if flat_i.numel() and int(flat_i.min()) < 0:
        raise op_error("DynamicStitch", f"indices must be non-negative, got {int(flat_i.min())}")
    size = int(flat_i.max()) + 1 if flat_i.numel() else 0
    pos = torch.arange(flat_i.numel())
    last = torch.full((size,), -1, dtype=torch.int64)
    last = last.scatter_reduce(0, flat_i.cpu(), pos, "amax", include_self=True)
    filled = last >= 0
    take = torch.where(filled, last, torch.zeros_like(last))
    d = vals[0]._dtype
    if d is dtypes.string:
        pool = np.concatenate([v._t.reshape([-1] + rest) for v in vals])
        res = pool[take.numpy()] if size else np.empty([0] + rest, dtype=object)
        res = np.asarray(res, dtype=object)
        res[~filled.numpy()] = b""
        return wrap(res, d)
    nt = _NATIVE.get(d)
    src = torch.cat([(v._t if nt is None else v._t.view(nt)).reshape([-1] + rest) for v in vals])
    out = src.index_select(0, take.to(src.device))
    mask = filled.to(src.device).reshape([-1] + [1] * len(rest))
    out = torch.where(mask, out, torch.zeros((), dtype=out.dtype, device=out.device))
    return wrap(out if nt is None else out.view(d._torch), d)


@public("torchflow")
def parallel_stack(values, name="parallel_stack") -> Tensor:
    """Stacks a list of same-shaped tensors along a new first axis (like ``tf.stack``).

    Args:
      values: A list of tensors of one shape and dtype.
      name: Unused (eager).

    Returns:
      A tensor of shape ``[len(values)] + values[0].shape``.

    Raises:
      RuntimeError: When executing eagerly, as in TF (it works inside ``tf.function``).
    """
    if executing_eagerly():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    return stack(values, 0)


@public("torchflow")
def unravel_index(indices, dims, name=None) -> Tensor:
    """Converts flat indices into coordinate arrays for an array of shape ``dims``.

    Args:
      indices: A 0-D or 1-D int32/int64 tensor of flat indices.
      dims: A 1-D tensor of ``indices``' dtype: the shape being indexed.
      name: Unused (eager).

    Returns:
      A tensor of shape ``[len(dims)] + indices.shape`` (indices' dtype).

    Raises:
      InvalidArgumentError: If an index is outside ``[0, prod(dims))``.

    >>> import torchflow as tf
    >>> tf.unravel_index([5], [2, 3]).numpy().tolist()
    [[1], [2]]
    """
    ix = _ints(indices, "UnravelIndex")
    dm = tensor_of(dims, ix._dtype) if not isinstance(dims, Tensor) else dims
    if dm._dtype is not ix._dtype:
        raise op_error("UnravelIndex", f"cannot compute UnravelIndex as input #1(zero-based) was "
                                       f"expected to be a {tfname(ix._dtype)} tensor but is a "
                                       f"{tfname(dm._dtype)} tensor")
    if ix._t.ndim > 1:
        raise op_error("UnravelIndex", f"The indices can only be scalar or vector, got "
                                       f"{list(ix._t.shape)}")
    shape = [int(v) for v in dm._t.reshape(-1).tolist()]
    total = int(np.prod(shape))
    t = ix._t.to(torch.int64)
    if t.numel() and (int(t.min()) < 0 or int(t.max()) >= total):
        raise op_error("UnravelIndex", f"index out of bounds for array of shape "
                                       f"{dm._t.reshape(-1).tolist()}")
    coords = []
    rem = t
    for d in reversed(shape):
        coords.append(rem % d)
        rem = torch.div(rem, d, rounding_mode="floor")
    out = torch.stack(coords[::-1]) if coords else torch.zeros((0,) + tuple(t.shape),
                                                              dtype=torch.int64)
    return wrap(out.to(ix._t.dtype), ix._dtype)


@public("torchflow")
def get_static_value(tensor, partial=False):
    """The NumPy value of an eager tensor (or the value itself if not a tensor).

    Args:
      tensor: A tensor or any value.
      partial: bool, default False; unused when eager.

    Returns:
      A NumPy array (or ``tensor`` itself when it is not a tensor).
    """
    if is_tensor(tensor):
        return tensor_of(tensor).numpy()
    return tensor


__all__ = ["dynamic_partition", "dynamic_stitch", "parallel_stack", "unravel_index",
           "get_static_value"]
