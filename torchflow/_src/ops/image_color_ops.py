"""``tf.image`` colour, statistics and random ops (TF 2.4 semantics): brightness,
gamma, saturation, hue, colour spaces, standardization, gradients, PSNR, total
variation and the ``random_*`` augmentations."""

from __future__ import annotations

import math

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    UnimplementedError,
    dims,
    invalid_argument,
)
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.image_ops import (
    adjust_contrast,
    check_at_least_3d,
    convert_image_dtype,
    image_arg,
    moved,
)
from torchflow._src.ops.random_ops import uniform
from torchflow._src.util.api import public

_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _float_image(image):
    t = tensor_arg(image)
    if t._dtype.is_floating:
        return t, t._dtype
    return convert_image_dtype(t, dtypes.float32), t._dtype


def _back(y: torch.Tensor, d, orig):
    out = wrap(y, d)
    return out if orig == d else convert_image_dtype(out, orig, saturate=True)


@public("torchflow.image")
def adjust_brightness(image, delta) -> Tensor:
    """Adds ``delta`` to the image in [0, 1] float scale (integers saturate back).

    Args:
      image: An image tensor (any rank >= 3, float or integer).
      delta: A scalar float added to every value in float scale.

    Returns:
      A tensor of ``image``'s dtype and shape.
    """
    t, orig = _float_image(image)
    d = delta._t if isinstance(delta, Tensor) else delta
    return _back(t._t + d, t._dtype, orig)


@public("torchflow.image")
def adjust_gamma(image, gamma=1, gain=1) -> Tensor:
    """``gain * image ** gamma`` in float scale.

    Args:
      image: A float or integer image tensor.
      gamma: A non-negative scalar, default 1.
      gain: A scalar multiplier, default 1.

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: For a negative Python ``gamma``.
      InvalidArgumentError: For a negative tensor ``gamma`` (TF's failed assertion).
    """
    if not isinstance(gamma, Tensor):
        if gamma < 0:
            raise ValueError("Gamma should be a non-negative real number.")
    elif not bool((gamma._t >= 0).all()):  # TF's Assert on a tensor gamma
        raise InvalidArgumentError(None, None, "assertion failed: [Gamma should be a "
                                               "non-negative real number.] [Op:Assert]")
    t, orig = _float_image(image)
    return _back(gain * t._t ** gamma, t._dtype, orig)


def _need_float(op, t):
    if not t._dtype.is_floating:
        raise invalid_argument(op, f"Value for attr 'T' of {t._dtype.name} is not in the "
                                   f"list of allowed values: half, bfloat16, float, double")
    return t


def _check_matmul(x: torch.Tensor, cols: int) -> None:
    """TF's colour conversions are ``tensordot`` over the last axis, a MatMul of
    ``[rest, channels]`` by the ``[3, cols]`` kernel: its error for channels != 3."""
    c = x.shape[-1] if x.dim() else 1
    if c != 3:
        rest = x.numel() // c if c else math.prod(x.shape[:-1])
        raise invalid_argument("MatMul", f"Matrix size-incompatible: In[0]: [{rest},{c}], "
                                         f"In[1]: [3,{cols}]")


def _kernel_apply(op, images, kernel):
    t = tensor_arg(images)
    if not t._dtype.is_floating:
        raise TypeError(f"{op}: Cannot convert the kernel to {t._dtype.name}: images must "
                        f"be floating point.")
    _check_matmul(t._t, 3)
    k = torch.tensor(kernel, dtype=t._t.dtype, device=t._t.device)
    return wrap(torch.tensordot(t._t, k, dims=([-1], [0])), t._dtype)  # pyright: ignore[reportArgumentType] - torch's stub types dims as int; pairs of lists work


@public("torchflow.image")
def rgb_to_yiq(images) -> Tensor:
    """RGB to YIQ (float images).

    Args:
      images: A float tensor whose last dimension is 3 (RGB in ``[0, 1]``).

    Returns:
      A tensor of ``images``' dtype and shape.
    """
    return _kernel_apply("rgb_to_yiq", images, _RGB_TO_YIQ)


@public("torchflow.image")
def yiq_to_rgb(images) -> Tensor:
    """YIQ to RGB.

    Args:
      images: A float tensor whose last dimension is 3 (YIQ).

    Returns:
      A tensor of ``images``' dtype and shape.
    """
    return _kernel_apply("yiq_to_rgb", images, _YIQ_TO_RGB)


@public("torchflow.image")
def rgb_to_yuv(images) -> Tensor:
    """RGB to YUV.

    Args:
      images: A float tensor whose last dimension is 3 (RGB in ``[0, 1]``).

    Returns:
      A tensor of ``images``' dtype and shape.
    """
    return _kernel_apply("rgb_to_yuv", images, _RGB_TO_YUV)


@public("torchflow.image")
def yuv_to_rgb(images) -> Tensor:
    """YUV to RGB.

    Args:
      images: A float tensor whose last dimension is 3 (YUV).

    Returns:
      A tensor of ``images``' dtype and shape.
    """
    return _kernel_apply("yuv_to_rgb", images, _YUV_TO_RGB)


@public("torchflow.image")
def rgb_to_grayscale(images, name=None) -> Tensor:
    """Luma ``0.2989 R + 0.587 G + 0.114 B`` with a trailing channel of size 1.

    Args:
      images: A float tensor whose last dimension is 3 (RGB in ``[0, 1]``).
      name: Unused (eager).

    Returns:
      A tensor of ``images``' dtype whose last dimension is 1.
    """
    t, orig = _float_image(images)
    _check_matmul(t._t, 1)
    k = torch.tensor([0.2989, 0.5870, 0.1140], dtype=t._t.dtype, device=t._t.device)
    g = torch.tensordot(t._t, k, dims=([-1], [0])).unsqueeze(-1)  # pyright: ignore[reportArgumentType] - torch's stub types dims as int; pairs of lists work
    out = wrap(g, t._dtype)
    return out if orig == t._dtype else convert_image_dtype(out, orig)


@public("torchflow.image")
def grayscale_to_rgb(images, name=None) -> Tensor:
    """Repeats the single channel three times.

    Args:
      images: A tensor whose last dimension is 1.
      name: Unused (eager).

    Returns:
      A tensor of ``images``' dtype whose last dimension is 3.

    Raises:
      ValueError: If the last dimension is not 1.
    """
    t = tensor_arg(images)
    if len(t.shape) < 2:
        raise ValueError(f"A grayscale image (shape {t.shape}) must be at least "
                         f"two-dimensional.")
    if t._t.shape[-1] != 1:
        raise ValueError(f"Last dimension of a grayscale image should be size 1, got "
                         f"{t._t.shape[-1]}.")
    return moved(t, lambda x, _: x.expand(*x.shape[:-1], 3).contiguous())


def _check_hsv_kernel(op: str, x: torch.Tensor) -> None:
    """The RGBToHSV/HSVToRGB kernels' checks (a 3-channel last axis)."""
    if x.dim() < 1:
        raise invalid_argument(op, f"input must be at least 1D{dims(x.shape)}")
    if x.shape[-1] != 3:
        raise FailedPreconditionError(None, None, f"input must have 3 channels but input only "
                                                  f"has {x.shape[-1]} channels. [Op:{op}]")


def _check_adjust_kernel(op: str, x: torch.Tensor) -> None:
    """The AdjustHue/AdjustSaturation kernels' checks (3-D or more, 3 channels)."""
    if x.dim() < 3:
        raise invalid_argument(op, f"input must be at least 3-D, got shape{dims(x.shape)}")
    if x.shape[-1] != 3:
        raise invalid_argument(op, f"input must have 3 channels but instead has "
                                   f"{x.shape[-1]} channels.")


def _rgb_to_hsv(x: torch.Tensor) -> torch.Tensor:
    r, g, b = x.unbind(-1)
    v, _ = x.max(-1)
    mn, _ = x.min(-1)
    rng = v - mn
    s = torch.where(v > 0, rng / torch.where(v > 0, v, torch.ones_like(v)), torch.zeros_like(v))
    safe = torch.where(rng > 0, rng, torch.ones_like(rng))
    h = torch.where(v == r, (g - b) / safe, torch.where(v == g, (b - r) / safe + 2.0,
                                                          (r - g) / safe + 4.0))
    h = torch.where(rng > 0, h / 6.0, torch.zeros_like(h))
    h = torch.where(h < 0, h + 1.0, h)
    return torch.stack([h, s, v], -1)


def _hsv_to_rgb(x: torch.Tensor) -> torch.Tensor:
    h, s, v = x.unbind(-1)
    dh = h * 6.0
    r = (torch.abs(dh - 3.0) - 1.0).clamp(0, 1)
    g = (2.0 - torch.abs(dh - 2.0)).clamp(0, 1)
    b = (2.0 - torch.abs(dh - 4.0)).clamp(0, 1)
    rgb = torch.stack([r, g, b], -1)
    return ((rgb - 1.0) * s.unsqueeze(-1) + 1.0) * v.unsqueeze(-1)


@public("torchflow.image")
def rgb_to_hsv(images, name=None) -> Tensor:
    """RGB to HSV, all channels in [0, 1] (float images).

    Args:
      images: A float tensor whose last dimension is 3 (RGB in ``[0, 1]``).
      name: Unused (eager).

    Returns:
      A tensor of ``images``' dtype and shape.

    Raises:
      InvalidArgumentError: For a non-float dtype or a scalar.
      FailedPreconditionError: If the last dimension is not 3.
    """
    t = _need_float("RGBToHSV", tensor_arg(images))
    _check_hsv_kernel("RGBToHSV", t._t)
    return wrap(_rgb_to_hsv(t._t), t._dtype)


@public("torchflow.image")
def hsv_to_rgb(images, name=None) -> Tensor:
    """HSV to RGB (float images).

    Args:
      images: A float tensor whose last dimension is 3 (HSV in ``[0, 1]``).
      name: Unused (eager).

    Returns:
      A tensor of ``images``' dtype and shape.

    Raises:
      InvalidArgumentError: For a non-float dtype or a scalar.
      FailedPreconditionError: If the last dimension is not 3.
    """
    t = _need_float("HSVToRGB", tensor_arg(images))
    _check_hsv_kernel("HSVToRGB", t._t)
    return wrap(_hsv_to_rgb(t._t), t._dtype)


@public("torchflow.image")
def adjust_saturation(image, saturation_factor, name=None) -> Tensor:
    """Multiplies the HSV saturation by ``saturation_factor`` (clipped to [0, 1]).

    Args:
      image: A float or integer RGB image, last dimension 3.
      saturation_factor: A scalar float multiplying the saturation.
      name: Unused (eager).

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``image`` is below 3-D or has other than 3 channels.
    """
    t, orig = _float_image(image)
    _check_adjust_kernel("AdjustSaturation", t._t)
    hsv = _rgb_to_hsv(t._t.float())
    f = saturation_factor._t if isinstance(saturation_factor, Tensor) else saturation_factor
    hsv = torch.stack([hsv[..., 0], (hsv[..., 1] * f).clamp(0, 1), hsv[..., 2]], -1)
    return _back(_hsv_to_rgb(hsv).to(t._t.dtype), t._dtype, orig)


@public("torchflow.image")
def adjust_hue(image, delta, name=None) -> Tensor:
    """Rotates the HSV hue by ``delta`` (in [-1, 1]).

    Args:
      image: A float or integer RGB image, last dimension 3.
      delta: A scalar float in ``[-1, 1]`` added to the hue.
      name: Unused (eager).

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``image`` is below 3-D or has other than 3 channels.
    """
    t, orig = _float_image(image)
    _check_adjust_kernel("AdjustHue", t._t)
    hsv = _rgb_to_hsv(t._t.float())
    d = delta._t if isinstance(delta, Tensor) else delta
    h = torch.remainder(hsv[..., 0] + d, 1.0)
    hsv = torch.stack([h, hsv[..., 1], hsv[..., 2]], -1)
    return _back(_hsv_to_rgb(hsv).to(t._t.dtype), t._dtype, orig)


@public("torchflow.image")
def per_image_standardization(image) -> Tensor:
    """Scales each image to mean 0 and variance 1:
    ``(x - mean) / max(stddev, 1 / sqrt(N))`` over its last three axes.

    As in TF 2.4, an image of a dtype other than float16/float32 is converted to
    float32 with ``convert_image_dtype`` and the result converted back to its
    dtype with ``saturate=True``.

    Args:
      image: A tensor of at least 3 dimensions, the last 3 those of each image.

    Returns:
      A tensor of ``image``'s shape and dtype.

    Raises:
      ValueError: If ``image`` has fewer than 3 dimensions.

    Differences from TensorFlow 2.4: none; TF 2.5 and later return float32 for
    integer images instead.
    """
    t = tensor_arg(image)
    check_at_least_3d(t)
    orig = t._dtype
    if orig not in (dtypes.float16, dtypes.float32):
        t = convert_image_dtype(t, dtypes.float32)
    x = t._t
    axes = (-3, -2, -1)
    n = x.shape[-1] * x.shape[-2] * x.shape[-3]
    mean = x.mean(dim=axes, keepdim=True)
    std = ((x - mean) ** 2).mean(dim=axes, keepdim=True).sqrt()
    out = wrap((x - mean) / std.clamp_min(1.0 / math.sqrt(n)), t._dtype)
    return out if orig == t._dtype else convert_image_dtype(out, orig, saturate=True)


@public("torchflow.image")
def transpose(image, name=None) -> Tensor:
    """Swaps the height and width axes.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      name: Unused (eager).

    Returns:
      A tensor of ``image``'s dtype with height and width swapped.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    t, _ = image_arg("transpose", image)
    return moved(t, lambda x, _: x.transpose(-3, -2).contiguous())


# the Sub kernel's T (total_variation and image_gradients take differences)
_SUB_TYPES = nc.TypeSet((dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64,
                         dtypes.uint8, dtypes.int8, dtypes.uint16, dtypes.int16, dtypes.int32,
                         dtypes.int64, dtypes.complex64, dtypes.complex128, dtypes.uint32,
                         dtypes.uint64))


def _check_sub(t: Tensor) -> None:
    if t.dtype not in _SUB_TYPES:
        raise nc.attr_error("Sub", t.dtype, _SUB_TYPES)


@public("torchflow.image")
def total_variation(images, name=None) -> Tensor:
    """Sum of absolute differences of neighbouring pixels (per image for 4-D input).

    Args:
      images: A 3-D or 4-D image tensor.
      name: Unused (eager).

    Returns:
      A scalar (3-D input) or ``[batch]`` tensor (4-D input) of ``images``' dtype.

    Raises:
      ValueError: If ``images`` is not 3-D or 4-D.
    """
    t = tensor_arg(images)
    if t.shape.rank not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    _check_sub(t)
    x = t._t
    dh = (x[..., 1:, :, :] - x[..., :-1, :, :]).abs().sum(dim=(-3, -2, -1))
    dw = (x[..., :, 1:, :] - x[..., :, :-1, :]).abs().sum(dim=(-3, -2, -1))
    return wrap(dh + dw, t._dtype)


@public("torchflow.image")
def image_gradients(image) -> tuple:
    """``(dy, dx)`` forward differences of 4-D images, zero in the last row/column.

    Args:
      image: A 4-D ``[batch, height, width, depth]`` tensor.

    Returns:
      A pair of tensors of ``image``'s dtype and shape.

    Raises:
      ValueError: If the input is not 4-D.
    """
    t = tensor_arg(image)
    if t.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], "
                         f"not {t.shape.as_list()}.")
    _check_sub(t)
    x = t._t
    dy = torch.nn.functional.pad(x[:, 1:] - x[:, :-1], (0, 0, 0, 0, 0, 1))
    dx = torch.nn.functional.pad(x[:, :, 1:] - x[:, :, :-1], (0, 0, 0, 1))
    return wrap(dy, t._dtype), wrap(dx, t._dtype)


@public("torchflow.image")
def sobel_edges(image) -> Tensor:
    """Sobel ``[dy, dx]`` responses, shape ``[batch, h, w, channels, 2]`` (reflect
    padding as TF).

    Args:
      image: A 4-D float ``[batch, height, width, channels]`` tensor.

    Returns:
      A tensor of ``image``'s dtype.

    Raises:
      InvalidArgumentError: If ``image`` is not 4-D (TF's reflect padding fails) or
        not float.
    """
    t = tensor_arg(image)
    if t.dtype == dtypes.string:  # TF builds its kernels in the image's dtype first
        raise ValueError("Failed to convert a NumPy array to a Tensor (Unsupported object "
                         "type int).")
    if t.shape.rank != 4:
        raise invalid_argument("MirrorPad", f"The first dimension of paddings must be the "
                                            f"rank of inputs[4,2], {dims(t.shape)}")
    t = _need_float("DepthwiseConv2dNative", t)
    x = t._t.permute(0, 3, 1, 2)
    c = x.shape[1]
    ky = torch.tensor([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], dtype=x.dtype, device=x.device)
    ks = torch.stack([ky, ky.t()]).unsqueeze(1).repeat(c, 1, 1, 1)
    xp = torch.nn.functional.pad(x, (1, 1, 1, 1), mode="reflect")
    y = torch.nn.functional.conv2d(xp, ks, groups=c)
    n, _, h, w = y.shape
    return wrap(y.reshape(n, c, 2, h, w).permute(0, 3, 4, 1, 2), t._dtype)


@public("torchflow.image")
def psnr(a, b, max_val, name=None) -> Tensor:
    """Peak signal-to-noise ratio per image: ``20 log10(max_val) - 10 log10(mse)``.

    Args:
      a: An image tensor ``[..., height, width, channels]``.
      b: An image tensor of ``a``'s shape and dtype.
      max_val: The dynamic range of the images (e.g. 1.0 or 255).
      name: Unused (eager).

    Returns:
      A float32 tensor of shape ``a.shape[:-3]``.

    Raises:
      InvalidArgumentError: If the shapes do not broadcast or are below 3-D.
      ValueError: If their last three dimensions differ.
    """
    ta, tb = tensor_arg(a), tensor_arg(b)
    if ta.dtype == dtypes.string:  # TF casts max_val to the images' dtype first
        raise UnimplementedError(None, None, "Cast float to string is not supported [Op:Cast]")
    fa = convert_image_dtype(ta, dtypes.float32)._t
    fb = convert_image_dtype(tb, dtypes.float32)._t
    try:
        torch.broadcast_shapes(fa.shape, fb.shape)
    except RuntimeError:
        raise invalid_argument("SquaredDifference", f"Incompatible shapes: {dims(fa.shape)} "
                                                    f"vs. {dims(fb.shape)}") from None
    rank = max(fa.dim(), fb.dim())
    if rank < 3:
        raise invalid_argument("Mean", f"Invalid reduction dimension (-3 for input with "
                                       f"{rank} dimension(s)")
    for shape in (ta.shape, tb.shape):
        if len(shape) < 3:
            raise ValueError(f"Shape {shape} must have rank at least 3")
    if ta.shape[-3:] != tb.shape[-3:]:
        raise ValueError(f"Shapes {ta.shape[-3:]} and {tb.shape[-3:]} are incompatible")
    mv = float(max_val)
    if not ta._dtype.is_floating:
        mv = mv / float(ta._dtype.max)
    mse = ((fa - fb) ** 2).mean(dim=(-3, -2, -1))
    out = 20.0 * math.log10(mv) - 10.0 * torch.log10(mse)
    return wrap(out, dtypes.float32)


# --- random augmentations -------------------------------------------------------
def _u(shape, lo, hi, seed):
    return uniform(shape, lo, hi, seed=seed)._t


def _draw(lo, hi, seed) -> Tensor:
    """A float32 scalar drawn from ``[lo, hi)``, kept a tensor (read into Python, it
    would make a traced function run eagerly)."""
    return uniform([], lo, hi, seed=seed)


def _random_flip(image, seed, axis):
    t, single = image_arg("random_flip_left_right", image)
    if single:
        m = _u([], 0.0, 1.0, seed) < 0.5
        return moved(t, lambda x, _: torch.where(m.to(x.device), x.flip(axis - 1), x))
    m = _u([t.shape[0], 1, 1, 1], 0.0, 1.0, seed) < 0.5
    return moved(t, lambda x, _: torch.where(m.to(x.device), x.flip(axis), x))


@public("torchflow.image")
def random_flip_left_right(image, seed=None) -> Tensor:
    """Flips each image horizontally with probability 1/2.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      seed: None (default) or a Python int seed (see ``tf.random.set_seed``).

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    return _random_flip(image, seed, 2)


@public("torchflow.image")
def random_flip_up_down(image, seed=None) -> Tensor:
    """Flips each image vertically with probability 1/2.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      seed: None (default) or a Python int seed (see ``tf.random.set_seed``).

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    return _random_flip(image, seed, 1)


@public("torchflow.image")
def random_brightness(image, max_delta, seed=None) -> Tensor:
    """``adjust_brightness`` by a delta drawn from ``[-max_delta, max_delta)``.

    Args:
      image: An image tensor.
      max_delta: A non-negative float.
      seed: None (default) or a Python int seed (see ``tf.random.set_seed``).

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: For a negative ``max_delta``.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _draw(-max_delta, max_delta, seed))


@public("torchflow.image")
def random_contrast(image, lower, upper, seed=None) -> Tensor:
    """``adjust_contrast`` by a factor drawn from ``[lower, upper)``.

    Args:
      image: An image tensor with at least 3 dimensions.
      lower: float >= 0: the lowest factor.
      upper: float > lower: the factor bound.
      seed: None (default) or a Python int seed (see ``tf.random.set_seed``).

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: If ``upper <= lower`` or ``lower < 0``.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, _draw(lower, upper, seed))


@public("torchflow.image")
def random_saturation(image, lower, upper, seed=None) -> Tensor:
    """``adjust_saturation`` by a factor drawn from ``[lower, upper)``.

    Args:
      image: An RGB image, last dimension 3.
      lower: float >= 0: the lowest factor.
      upper: float > lower: the factor bound.
      seed: None (default) or a Python int seed (see ``tf.random.set_seed``).

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: If ``upper <= lower`` or ``lower < 0``.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_saturation(image, _draw(lower, upper, seed))


@public("torchflow.image")
def random_hue(image, max_delta, seed=None) -> Tensor:
    """``adjust_hue`` by a delta drawn from ``[-max_delta, max_delta)``.

    Args:
      image: An RGB image, last dimension 3.
      max_delta: A float in ``[0, 0.5]``.
      seed: None (default) or a Python int seed (see ``tf.random.set_seed``).

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: If ``max_delta`` is outside ``[0, 0.5]``.
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _draw(-max_delta, max_delta, seed))


@public("torchflow.image")
def random_crop(value, size, seed=None, name=None) -> Tensor:
    """A random ``size`` slice of ``value`` (any rank).

    Args:
      value: A tensor of any rank.
      size: A 1-D int list of ``rank(value)`` sizes, each at most the matching dimension.
      seed: None (default) or a Python int seed (see ``tf.random.set_seed``).
      name: Unused (eager).

    Returns:
      A tensor of ``value``'s dtype and shape ``size``.

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
        raise invalid_argument("RandomCrop", f"Need value.shape >= size, got {shape} and "
                                             f"{size}")
    r = _u([len(shape)], 0.0, 1.0, seed)
    x = t._t
    for k, (d, n) in enumerate(zip(shape, size)):
        if n != d:  # (the offset stays a tensor: a traced function replays the crop)
            off = torch.clamp((r[k] * (d - n + 1)).floor(), max=d - n).long()
            x = x.narrow(k, off, n)
    return wrap(x, t._dtype)
