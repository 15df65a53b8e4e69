"""Moving spatial blocks into the batch dimension and back: space_to_batch_nd,
batch_to_space, required_space_to_batch_paddings."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import int_list, op_error, tensor_of
from torchflow._src.ops.array_ops import _move
from torchflow._src.util.api import public


def _pairs(x, m: int, what: str, op: str) -> list:
    if isinstance(x, (list, tuple)):
        rows = [int_list(r, what) for r in x]
    else:
        flat = int_list(x, what) if not (isinstance(x, Tensor) and x._t.ndim == 2) else \
            [int(v) for v in x._t.reshape(-1).tolist()]
        rows = [flat[i:i + 2] for i in range(0, len(flat), 2)]
    if len(rows) != m or any(len(r) != 2 for r in rows):
        raise op_error(op, f"{what} should have shape [{m}, 2] instead of {rows}")
    return rows


@public("torchflow")
def space_to_batch_nd(input, block_shape, paddings, name=None) -> Tensor:
    """Zero-pads the spatial dimensions, then moves ``block_shape`` blocks into the batch.

    Args:
      input: Tensor of shape ``[batch] + spatial_shape + remaining_shape``.
      block_shape: 1-D ints of length M >= 1, each >= 1.
      paddings: ``[M, 2]`` non-negative ints.
      name: Unused (eager).

    Returns:
      Tensor of shape ``[batch * prod(block_shape)] + padded_spatial / block_shape +
      remaining_shape``.

    Raises:
      InvalidArgumentError: If the padded spatial sizes are not divisible by
        ``block_shape``.
    """
    x = tensor_of(input)
    bs = int_list(block_shape, "block_shape")
    m = len(bs)
    pad = _pairs(paddings, m, "paddings", "SpaceToBatchND")
    shape = list(x._t.shape)
    if len(shape) < m + 1:
        raise op_error("SpaceToBatchND", f"input rank should be >= {m + 1} instead of "
                                         f"{len(shape)}")
    if any(b < 1 for b in bs) or any(v < 0 for r in pad for v in r):
        raise op_error("SpaceToBatchND", "block_shape must be positive and paddings "
                                         "non-negative")
    padded = [shape[1 + i] + pad[i][0] + pad[i][1] for i in range(m)]
    for i in range(m):
        if padded[i] % bs[i]:
            raise op_error("SpaceToBatchND", f"padded_shape[{i}]={padded[i]} is not divisible "
                                             f"by block_shape[{i}]={bs[i]}")
    batch, rest = shape[0], shape[1 + m:]
    flat_pad = []
    for i in reversed(range(len(shape))):
        flat_pad += [pad[i - 1][0], pad[i - 1][1]] if 1 <= i <= m else [0, 0]

    def fn(t):
        t = F.pad(t, flat_pad) if any(flat_pad) else t
        split = [batch]
        for i in range(m):
            split += [padded[i] // bs[i], bs[i]]
        t = t.reshape(split + rest)
        perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
            list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
        t = t.permute(perm)
        return t.reshape([batch * int(np.prod(bs))] + [padded[i] // bs[i] for i in range(m)]
                         + rest)

    if x._dtype is dtypes.string:
        raise op_error("SpaceToBatchND", "string tensors are not supported")
    return _move(x, fn, "SpaceToBatchND")


@public("torchflow")
def space_to_batch(input, block_shape, paddings, name=None) -> Tensor:
    """TF 2.x ``tf.space_to_batch``: the same as ``space_to_batch_nd``.

    Args:
      input: A tensor of rank ``1 + M + K``.
      block_shape: A 1-D int32/int64 tensor of M positive block sizes.
      paddings: A ``[M, 2]`` int tensor of zero padding per spatial dimension; padded sizes
        divisible by ``block_shape``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype with ``batch * prod(block_shape)`` entries.

    Raises:
      InvalidArgumentError: If a padded dimension is not divisible by its block size.
    """
    return space_to_batch_nd(input, block_shape, paddings)


@public("torchflow")
def batch_to_space(input, block_shape, crops, name=None) -> Tensor:
    """Inverse of ``space_to_batch_nd``: moves batch blocks back into space, then crops.

    Args:
      input: A tensor of rank ``1 + M + K``: ``[batch] + spatial_shape + remaining_shape``.
      block_shape: A 1-D int32/int64 tensor of M positive block sizes.
      crops: A ``[M, 2]`` int tensor: what to crop from the start and end of each spatial
        dimension.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype with ``batch / prod(block_shape)`` entries.

    Raises:
      InvalidArgumentError: If the batch is not divisible by ``prod(block_shape)``
        or the crops exceed the sizes.
    """
    x = tensor_of(input)
    bs = int_list(block_shape, "block_shape")
    m = len(bs)
    cr = _pairs(crops, m, "crops", "BatchToSpaceND")
    shape = list(x._t.shape)
    if len(shape) < m + 1:
        raise op_error("BatchToSpaceND", f"input rank should be >= {m + 1} instead of "
                                         f"{len(shape)}")
    nb = int(np.prod(bs))
    if any(b < 1 for b in bs) or shape[0] % nb:
        raise op_error("BatchToSpaceND", f"Input batch dimension ({shape[0]}) is not divisible "
                                         f"by product of block sizes ({nb})")
    batch = shape[0] // nb
    spatial, rest = shape[1:1 + m], shape[1 + m:]
    full = [spatial[i] * bs[i] for i in range(m)]
    for i in range(m):
        if cr[i][0] < 0 or cr[i][1] < 0 or cr[i][0] + cr[i][1] > full[i]:
            raise op_error("BatchToSpaceND", f"Crops must be non-negative and not exceed "
                                             f"{full[i]}, got {cr[i]}")

    def fn(t):
        t = t.reshape(bs + [batch] + spatial + rest)
        perm = [m]
        for i in range(m):
            perm += [m + 1 + i, i]
        perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
        t = t.permute(perm).reshape([batch] + full + rest)
        key = [slice(None)] + [slice(cr[i][0], full[i] - cr[i][1]) for i in range(m)]
        return t[tuple(key)]

    if x._dtype is dtypes.string:
        raise op_error("BatchToSpaceND", "string tensors are not supported")
    return _move(x, fn, "BatchToSpaceND")


@public("torchflow")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """Paddings and crops that make ``input_shape`` divisible by ``block_shape``.

    Args:
      input_shape: A 1-D int32 tensor of M spatial sizes.
      block_shape: A 1-D int32 tensor of M block sizes.
      base_paddings: None (default: zeros) or an ``[M, 2]`` int32 tensor of minimum
        paddings.
      name: Unused (eager).

    Returns:
      ``(paddings, crops)``: int32 tensors of shape ``[M, 2]``.
    """
    shp = np.asarray(int_list(input_shape, "input_shape"), np.int64)
    bs = np.asarray(int_list(block_shape, "block_shape"), np.int64)
    m = len(bs)
    base = np.zeros((m, 2), np.int64) if base_paddings is None else \
        np.asarray(_pairs(base_paddings, m, "base_paddings", "RequiredSpaceToBatchPaddings"))
    start, end = base[:, 0], base[:, 1]
    full = shp + start + end
    extra = (bs - full % bs) % bs
    pads = np.stack([start, end + extra], 1).astype(np.int32)
    crops = np.stack([np.zeros_like(extra), extra], 1).astype(np.int32)
    return (wrap(torch.from_numpy(pads), dtypes.int32),
            wrap(torch.from_numpy(crops), dtypes.int32))


__all__ = ["space_to_batch_nd", "space_to_batch", "batch_to_space",
           "required_space_to_batch_paddings"]
