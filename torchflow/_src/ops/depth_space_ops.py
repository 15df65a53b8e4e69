"""``tf.nn.depth_to_space`` and ``tf.nn.space_to_depth``: moving blocks of pixels
between the spatial and channel dimensions."""

from __future__ import annotations

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
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
