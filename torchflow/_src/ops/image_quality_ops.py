"""``tf.image.ssim`` and ``tf.image.ssim_multiscale`` (TF 2.4 semantics): the
structural similarity index with an ``filter_size`` Gaussian window (VALID
padding) and its multi-scale variant (2x average pooling between scales,
symmetric padding of odd sizes)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes
from torchflow._src.core.errors import UnimplementedError, invalid_argument
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.image_ops import convert_image_dtype
from torchflow._src.util.api import public

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _float_pair(img1, img2, max_val):
    a, b = tensor_arg(img1), tensor_arg(img2)
    if a._dtype == dtypes.string:  # TF casts max_val to the images' dtype first
        raise UnimplementedError(None, None, "Cast float to string is not supported [Op:Cast]")
    if a._dtype != b._dtype:
        raise TypeError(f"Input 'y' of 'Sub' Op has type {b._dtype.name} that does not match "
                        f"type {a._dtype.name} of argument 'x'.")
    mv = float(max_val.numpy() if isinstance(max_val, Tensor) else max_val)
    if not a._dtype.is_floating:
        mv = mv / float(a._dtype.max)  # convert_image_dtype(max_val) for integer images
    _check_shapes(a.shape, b.shape)
    fa = convert_image_dtype(a, dtypes.float32)._t
    fb = convert_image_dtype(b, dtypes.float32)._t
    fa, fb = torch.broadcast_tensors(fa, fb)
    return fa, fb, mv


def _check_shapes(sa, sb) -> None:
    """TF's ``_verify_compatible_image_shapes``: rank >= 3, equal image dims and
    batch dims (aligned from the right) that are equal or 1, each a ``ValueError``."""
    for shape in (sa, sb):
        if shape.rank < 3:
            raise ValueError(f"Shape {shape} must have rank at least 3")
    if sa[-3:] != sb[-3:]:
        raise ValueError(f"Shapes {sa[-3:]} and {sb[-3:]} are incompatible")
    ha, hb = sa.as_list()[:-3][::-1], sb.as_list()[:-3][::-1]
    if any(x != y and 1 not in (x, y) for x, y in zip(ha, hb)):
        raise ValueError(f"Two images are not compatible: {sa} and {sb}")


def _gauss_kernel(size: int, sigma: float, channels: int, like: torch.Tensor):
    coords = torch.arange(size, dtype=torch.float32, device=like.device) - (size - 1) / 2.0
    g = coords ** 2 * (-0.5 / sigma ** 2)
    g = torch.softmax((g[None, :] + g[:, None]).reshape(-1), 0).reshape(size, size)
    return g.expand(channels, 1, size, size).contiguous()


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2):
    """Per-channel SSIM and contrast-structure over ``[..., h, w, c]`` floats."""
    h, w, c = x.shape[-3:]
    if h < filter_size or w < filter_size:
        raise invalid_argument("Assert", f"assertion failed: [{list(x.shape[-3:])}] "
                                         f"[{filter_size}] [{filter_size}]")
    head = x.shape[:-3]
    kern = _gauss_kernel(filter_size, filter_sigma, c, x)

    def reducer(v):
        v4 = v.reshape(-1, h, w, c).permute(0, 3, 1, 2)
        out = F.conv2d(v4, kern, groups=c).permute(0, 2, 3, 1)
        return out.reshape(*head, *out.shape[1:])

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    m0, m1 = reducer(x), reducer(y)
    num0 = m0 * m1 * 2.0
    den0 = m0 * m0 + m1 * m1
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(x * x + y * y)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return (luminance * cs).mean(dim=(-3, -2)), cs.mean(dim=(-3, -2))


@public("torchflow.image")
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03) -> Tensor:
    """Structural similarity (SSIM) between two batches of images.

    Images are ``[..., height, width, channels]``; integer images are first scaled
    to [0, 1] (and ``max_val`` with them). The per-channel SSIM over a Gaussian
    window is averaged over the channels.

    Args:
      img1: First image batch.
      img2: Second image batch, same shape and dtype.
      max_val: The dynamic range of the images (e.g. 1.0 or 255).
      filter_size: Gaussian window size.
      filter_sigma: Gaussian window width.
      k1: Luminance stabiliser.
      k2: Contrast stabiliser.

    Returns:
      A float32 tensor of shape ``img1.shape[:-3]``.

    Raises:
      ValueError: For images below 3-D or whose shapes do not broadcast (last three
        dimensions equal, batch dimensions equal or 1).
      InvalidArgumentError: For images smaller than the filter.
      TypeError: For mismatched dtypes.

    >>> import torchflow as tf
    >>> float(tf.image.ssim(tf.ones([16, 16, 1]), tf.ones([16, 16, 1]), 1.0))
    1.0
    """
    x, y, mv = _float_pair(img1, img2, max_val)
    s, _ = _ssim_per_channel(x, y, mv, int(filter_size), float(filter_sigma), k1, k2)
    return wrap(s.mean(dim=-1), dtypes.float32)


@public("torchflow.image")
def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03) -> Tensor:
    """Multi-scale structural similarity (MS-SSIM) between two batches of images.

    One scale per entry of ``power_factors``; between scales both images are
    2x2 average-pooled (odd sizes padded symmetrically first). The result is the
    product of the contrast-structure terms of the coarser scales and the SSIM of
    the last, each raised to its power factor, averaged over the channels.

    Args:
      img1: First image batch ``[..., height, width, channels]``.
      img2: Second image batch, same shape and dtype.
      max_val: The dynamic range of the images.
      power_factors: The weight of each scale.
      filter_size: Gaussian window size.
      filter_sigma: Gaussian window width.
      k1: Luminance stabiliser.
      k2: Contrast stabiliser.

    Returns:
      A float32 tensor of shape ``img1.shape[:-3]``.

    Raises:
      ValueError: For images below 3-D or whose shapes do not broadcast (last three
        dimensions equal, batch dimensions equal or 1).
      InvalidArgumentError: For images too small for the scales.
      TypeError: For mismatched dtypes.
    """
    x, y, mv = _float_pair(img1, img2, max_val)
    head = x.shape[:-3]
    imgs = [x, y]
    mcs = []
    s = None
    for k in range(len(power_factors)):
        if k > 0:
            flat = [v.reshape(-1, *v.shape[-3:]) for v in imgs]
            rh, rw = flat[0].shape[1] % 2, flat[0].shape[2] % 2
            if rh or rw:
                flat = [torch.cat([v, v[:, -1:]], 1) if rh else v for v in flat]
                flat = [torch.cat([v, v[:, :, -1:]], 2) if rw else v for v in flat]
            down = [F.avg_pool2d(v.permute(0, 3, 1, 2), 2, 2).permute(0, 2, 3, 1)
                    for v in flat]
            imgs = [v.reshape(*head, *v.shape[1:]) for v in down]
        s, cs = _ssim_per_channel(imgs[0], imgs[1], mv, int(filter_size),
                                  float(filter_sigma), k1, k2)
        mcs.append(torch.relu(cs))
    mcs.pop()
    stacked = torch.stack(mcs + [torch.relu(s)], dim=-1)  # pyright: ignore[reportArgumentType] - the scale loop runs at least once
    pf = torch.tensor(list(power_factors), dtype=stacked.dtype, device=stacked.device)
    ms = torch.prod(stacked ** pf, dim=-1)
    return wrap(ms.mean(dim=-1), dtypes.float32)
