"""``tf.image`` stateless random augmentations (TF 2.4 semantics) and the JPEG
quality augmentations.

Each ``stateless_random_*`` op draws its parameters from
``tf.random.stateless_uniform`` exactly as TF 2.4 does (same shapes, bounds and
dtypes), so for a given ``seed`` the result equals TF's bit for bit wherever the
underlying adjustment does.
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import invalid_argument
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.image_codec_ops import adjust_jpeg_quality
from torchflow._src.ops.image_color_ops import (
    adjust_brightness,
    adjust_hue,
    adjust_saturation,
)
from torchflow._src.ops.image_ops import adjust_contrast, convert_image_dtype, image_arg, moved
from torchflow._src.ops.random_ops import uniform
from torchflow._src.ops.stateless_random_ops import stateless_uniform
from torchflow._src.util.api import public


def _stateless_flip(image, seed, axis: int, op: str) -> Tensor:
    t, single = image_arg("random_flip_left_right", image)
    if single:
        m = torch.lt(stateless_uniform([], seed, 0.0, 1.0)._t, 0.5)
        return moved(t, lambda x, _: torch.where(m.to(x.device), x.flip(axis - 1), x))
    u = stateless_uniform([t.shape[0]], seed, 0.0, 1.0)._t
    m = (torch.round(u) > 0).reshape(-1, 1, 1, 1)  # TF: round(u) as the mask
    return moved(t, lambda x, _: torch.where(m.to(x.device), x.flip(axis), x))


@public("torchflow.image")
def stateless_random_flip_left_right(image, seed) -> Tensor:
    """Deterministically flips each image horizontally with probability 1/2.

    Args:
      image: A 3-D ``[h, w, c]`` or 4-D ``[batch, h, w, c]`` tensor.
      seed: A shape ``[2]`` integer tensor or pair (the stateless seed).

    Returns:
      A tensor of the same shape and dtype.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    return _stateless_flip(image, seed, 2, "stateless_random_flip_left_right")


@public("torchflow.image")
def stateless_random_flip_up_down(image, seed) -> Tensor:
    """Deterministically flips each image vertically with probability 1/2.

    Args:
      image: A 3-D ``[h, w, c]`` or 4-D ``[batch, h, w, c]`` tensor.
      seed: A shape ``[2]`` integer tensor or pair (the stateless seed).

    Returns:
      A tensor of the same shape and dtype.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    return _stateless_flip(image, seed, 1, "stateless_random_flip_up_down")


@public("torchflow.image")
def stateless_random_brightness(image, max_delta, seed) -> Tensor:
    """``adjust_brightness`` by a delta drawn deterministically from
    ``[-max_delta, max_delta)``.

    Args:
      image: An image tensor.
      max_delta: A non-negative float.
      seed: A shape ``[2]`` integer tensor or pair.

    Returns:
      The brightness-adjusted image.

    Raises:
      ValueError: If ``max_delta`` is negative.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = stateless_uniform([], seed, -max_delta, max_delta)
    return adjust_brightness(image, delta)


@public("torchflow.image")
def stateless_random_contrast(image, lower, upper, seed) -> Tensor:
    """``adjust_contrast`` by a factor drawn deterministically from ``[lower, upper)``.

    Args:
      image: An image tensor with at least 3 dimensions.
      lower: Lower bound of the contrast factor (non-negative).
      upper: Upper bound of the contrast factor.
      seed: A shape ``[2]`` integer tensor or pair.

    Returns:
      The contrast-adjusted image.

    Raises:
      ValueError: If ``upper <= lower`` or ``lower < 0``.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = stateless_uniform([], seed, lower, upper)
    t = tensor_arg(image)
    if t._dtype in (dtypes.float16, dtypes.float32):
        return adjust_contrast(t, factor)
    # TF adjusts integer images in float32 and saturates back to the dtype.
    out = adjust_contrast(convert_image_dtype(t, dtypes.float32), factor)
    return convert_image_dtype(out, t._dtype, saturate=True)


@public("torchflow.image")
def stateless_random_saturation(image, lower, upper, seed=None) -> Tensor:
    """``adjust_saturation`` by a factor drawn deterministically from ``[lower, upper)``.

    Args:
      image: An RGB image tensor (last dimension 3).
      lower: Lower bound of the saturation factor (non-negative).
      upper: Upper bound of the saturation factor.
      seed: A shape ``[2]`` integer tensor or pair.

    Returns:
      The saturation-adjusted image.

    Raises:
      ValueError: If ``upper <= lower`` or ``lower < 0``.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = stateless_uniform([], seed, lower, upper)
    return adjust_saturation(image, factor)


@public("torchflow.image")
def stateless_random_hue(image, max_delta, seed) -> Tensor:
    """``adjust_hue`` by a delta drawn deterministically from ``[-max_delta, max_delta)``.

    Args:
      image: An RGB image tensor (last dimension 3).
      max_delta: A float in ``[0, 0.5]``.
      seed: A shape ``[2]`` integer tensor or pair.

    Returns:
      The hue-adjusted image.

    Raises:
      ValueError: If ``max_delta`` is outside ``[0, 0.5]``.
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = stateless_uniform([], seed, -max_delta, max_delta)
    return adjust_hue(image, delta)


@public("torchflow.image")
def stateless_random_crop(value, size, seed, name=None) -> Tensor:
    """A deterministic random ``size`` slice of ``value`` (any rank).

    The offset is ``stateless_uniform(int32 in [0, int32.max)) % (shape - size + 1)``
    per dimension, as in TF.

    Args:
      value: The tensor to crop.
      size: A 1-D integer list/tensor, one size per dimension of ``value``.
      seed: A shape ``[2]`` integer tensor or pair.
      name: Unused (eager).

    Returns:
      A tensor of shape ``size`` and ``value``'s dtype.

    Raises:
      InvalidArgumentError: If ``size`` does not fit in ``value``.
    """
    t = tensor_arg(value)
    size = [int(s) for s in (size.numpy() if isinstance(size, Tensor) else size)]
    shape = list(t._t.shape)
    if len(size) != len(shape):  # TF compares shape >= size elementwise first
        raise invalid_argument("GreaterEqual", f"Incompatible shapes: [{len(shape)}] vs. "
                                               f"[{len(size)}]")
    if any(s > d for s, d in zip(size, shape)):
        raise invalid_argument("Assert", f"assertion failed: [Need value.shape >= size, "
                                         f"got ] [{shape}] [{size}]")
    r = stateless_uniform([len(shape)], seed, 0, dtypes.int32.max, dtype=dtypes.int32)
    x = t._t
    for k, (d, n) in enumerate(zip(shape, size)):
        if n != d:  # (the offset stays a tensor: a traced function replays the crop)
            x = x.narrow(k, torch.remainder(r._t[k].long(), d - n + 1), n)
    return wrap(x, t._dtype)


def _check_jpeg_range(lo, hi) -> None:
    if lo < 0 or hi < 0 or lo > 100 or hi > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if lo >= hi:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


@public("torchflow.image")
def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None) -> Tensor:
    """``adjust_jpeg_quality`` at a quality drawn from
    ``[min_jpeg_quality, max_jpeg_quality)``.

    Args:
      image: A 3-D ``[h, w, c]`` image (c 1 or 3), uint8 or float in [0, 1].
      min_jpeg_quality: Minimum JPEG quality (0-100).
      max_jpeg_quality: Maximum JPEG quality (0-100), exclusive.
      seed: An op-level seed.

    Returns:
      The re-encoded image in ``image``'s dtype.

    Raises:
      ValueError: If the range is outside [0, 100] or empty.
    """
    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    q = uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=dtypes.int32)
    return adjust_jpeg_quality(image, q)


@public("torchflow.image")
def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed) -> Tensor:
    """``adjust_jpeg_quality`` at a quality drawn deterministically from
    ``[min_jpeg_quality, max_jpeg_quality)``.

    Args:
      image: A 3-D ``[h, w, c]`` image (c 1 or 3), uint8 or float in [0, 1].
      min_jpeg_quality: Minimum JPEG quality (0-100).
      max_jpeg_quality: Maximum JPEG quality (0-100), exclusive.
      seed: A shape ``[2]`` integer tensor or pair.

    Returns:
      The re-encoded image in ``image``'s dtype.

    Raises:
      ValueError: If the range is outside [0, 100] or empty.
    """
    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    q = stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality, dtype=dtypes.int32)
    return adjust_jpeg_quality(image, q)
