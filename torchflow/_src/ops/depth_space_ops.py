"""``tf.nn.depth_to_space`` and ``tf.nn.space_to_depth``: moving blocks of pixels
between the spatial and channel dimensions."""

from __future__ import annotations

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import space_batch_ops as sb
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
from torchflow._src.ops._nn_common import int_list
from torchflow._src.util.api import public


def _check(op, t, block_size):
    b = int(block_size)
    if b < 2:
        raise InvalidArgumentError(None, None, f"Value for attr 'block_size' of {b} must be at "
                                               f"least 2 [Op:{op}]")
    if t.ndim != 4:
        raise InvalidArgumentError(None, None, f"Input rank should be: 4 instead of: {t.ndim} "
                                               f"[Op:{op}]")
    return b


@public("torchflow.nn")
def depth_to_space(input, block_size, data_format="NHWC", name=None) -> Tensor:
    """Rearranges channel data into ``block_size x block_size`` spatial blocks.

    ``[N, H, W, C]`` becomes ``[N, H * b, W * b, C / b**2]`` (NHWC), with
    ``out[n, h*b + i, w*b + j, c] = in[n, h, w, (i*b + j) * C/b**2 + c]``.

    Args:
      input: A 4-D tensor.
      block_size: An int >= 2.
      data_format: ``'NHWC'`` (default) or ``'NCHW'``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype.

    Raises:
      InvalidArgumentError: if the depth is not divisible by ``block_size**2``.
    """
    op = "DepthToSpace"
    x = tensor_arg(input)
    t = x._t
    b = _check(op, t, block_size)
    nchw = str(data_format).startswith("NC")
    n = t.shape[0]
    h, w, c = (t.shape[2], t.shape[3], t.shape[1]) if nchw else (t.shape[1], t.shape[2], t.shape[3])
    if c % (b * b):
        raise InvalidArgumentError(
            None, None, f"Input depth dimension {c} should be divisible by: {b * b} [Op:{op}]")
    co = c // (b * b)
    if nchw:
        r = t.reshape(n, b, b, co, h, w).permute(0, 3, 4, 1, 5, 2).reshape(n, co, h * b, w * b)
    else:
        r = t.reshape(n, h, w, b, b, co).permute(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, co)
    return wrap(r, x._dtype)


@public("torchflow.nn")
def space_to_depth(input, block_size, data_format="NHWC", name=None) -> Tensor:
    """The inverse of ``depth_to_space``: ``[N, H, W, C]`` becomes
    ``[N, H / b, W / b, C * b**2]`` (NHWC).

    Args:
      input: A 4-D tensor.
      block_size: An int >= 2.
      data_format: ``'NHWC'`` (default) or ``'NCHW'``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype.

    Raises:
      InvalidArgumentError: if the height or width is not divisible by ``block_size``.
    """
    op = "SpaceToDepth"
    x = tensor_arg(input)
    t = x._t
    b = _check(op, t, block_size)
    nchw = str(data_format).startswith("NC")
    n = t.shape[0]
    h, w, c = (t.shape[2], t.shape[3], t.shape[1]) if nchw else (t.shape[1], t.shape[2], t.shape[3])
    if h % b or w % b:
        raise InvalidArgumentError(
            None, None, f"Image width {w} and height {h} should be divisible by block_size: {b} "
                        f"[Op:{op}]")
    if nchw:
        r = t.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4)
        r = r.reshape(n, c * b * b, h // b, w // b)
    else:
        r = t.reshape(n, h // b, b, w // b, b, c).permute(0, 1, 3, 2, 4, 5)
        r = r.reshape(n, h // b, w // b, c * b * b)
    return wrap(r, x._dtype)


@public("torchflow.nn")
def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,
                        data_format=None):
    """Runs ``op`` with ``"VALID"`` padding on ``space_to_batch_nd(input)``, then
    ``batch_to_space``: the way to give an undilated op a dilation rate.

    Args:
      input: A Tensor ``[batch, spatial..., channels]``.
      dilation_rate: N ints, the dilation rate per spatial dimension.
      padding: ``"SAME"`` or ``"VALID"``.
      op: ``op(converted_input, num_spatial_dims, padding) -> Tensor``.
      filter_shape: The N spatial filter sizes (needed for ``"SAME"``).
      spatial_dims: The spatial dimensions (default ``1..N``; must be contiguous
        from 1).
      data_format: Optional; only channels-last formats are supported.

    Returns:
      ``op``'s result moved back from batch to space.

    Raises:
      ValueError: on an unknown padding, a missing ``filter_shape`` for ``"SAME"``
        or unsupported ``spatial_dims``.
    """
    rate = int_list(dilation_rate, "dilation_rate")
    n = len(rate)
    dims = list(range(1, n + 1)) if spatial_dims is None else int_list(spatial_dims,
                                                                      "spatial_dims")
    if dims != list(range(1, n + 1)) or (data_format is not None and
                                         str(data_format).startswith("NC")):
        raise ValueError("tf.nn.with_space_to_batch: only channels-last inputs with spatial "
                         "dims 1..N are supported by torchflow.")
    if any(r < 1 for r in rate):
        raise ValueError(f"dilation_rate must be positive, got {rate}")
    if all(r == 1 for r in rate):
        return op(input, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        fs = int_list(filter_shape, "filter_shape")
        extra = [(f - 1) * r for f, r in zip(fs, rate)]
        base = [[e // 2, e - e // 2] for e in extra]
    elif padding == "VALID":
        base = [[0, 0]] * n
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    x = tensor_arg(input)
    pads, crops = sb.required_space_to_batch_paddings(list(x._t.shape[1:1 + n]), rate, base)
    converted = sb.space_to_batch_nd(x, rate, pads)
    return sb.batch_to_space(op(converted, n, "VALID"), rate, crops)
