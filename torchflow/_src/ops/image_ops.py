"""``tf.image`` subset: resizing (TF's half-pixel kernels), flips, crops, pads,
contrast, dtype conversion and the projective transform behind Keras' random
image layers.

Resizing builds one ``(out, in)`` weight matrix per spatial axis with TF 2's
kernels (``half_pixel_centers``; Keys cubic with ``a = -0.5``, out-of-range taps
dropped and the rest renormalised as TF does; box overlap for ``area``) and
applies both with one einsum, so the result stays differentiable.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError, dims
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops import gradient_kernels
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.image_scale_ops import scale_translate_weights
from torchflow._src.util.api import public

_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
            "mitchellcubic")
_RESIZE_OPS = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor",
               "bicubic": "ResizeBicubic", "area": "ResizeArea"}
# the methods TF's resize runs through ScaleAndTranslate (bilinear and bicubic only
# with antialias), and the kernel each uses
_SCALED = {"lanczos3": "lanczos3", "lanczos5": "lanczos5", "gaussian": "gaussian",
           "mitchellcubic": "mitchellcubic"}
_ANTIALIASED = {"bilinear": "triangle", "bicubic": "keyscubic"}
# the resize kernels' T: the real types (no bool, string or complex)
_RESIZE_TYPES = nc.TypeSet((dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16,
                            dtypes.int32, dtypes.int64, dtypes.bfloat16, dtypes.float16,
                            dtypes.float32, dtypes.float64))


def check_at_least_3d(t: Tensor, name: str = "image") -> None:
    """TF's ``_CheckAtLeast3DImage``: the ``ValueError`` of a rank below 3."""
    if len(t.shape) < 3:
        raise ValueError(f"'{name}' (shape {t.shape}) must be at least three-dimensional.")


# The ops whose TF implementation checks "at least 3-D" before "3 or 4" (flips,
# rot90, central_crop); the crop/pad family checks "3 or 4" alone, resize names 'images'.
_AT_LEAST_3D_FIRST = frozenset({"flip_left_right", "flip_up_down", "rot90", "central_crop",
                                "transpose", "random_flip_left_right", "random_flip_up_down"})


def image_arg(op: str, images):
    """``images`` as a Tensor and whether it is a single 3-D image, with TF's
    ``ValueError`` for a rank other than 3 or 4 (worded as TF words it for ``op``)."""
    t = tensor_arg(images)
    rank = t.shape.rank
    if rank not in (3, 4):
        if op == "resize":
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        if op in _AT_LEAST_3D_FIRST:
            check_at_least_3d(t)
        raise ValueError(f"'image' (shape {t.shape}) must have either 3 or 4 dimensions.")
    return t, rank == 3


def moved(t: Tensor, fn) -> Tensor:
    """``fn(x, fill)``, an element-moving torch function (flip, slice, transpose,
    pad with ``fill``), applied to an image of any dtype: a string image's bytes
    move through their positions (padding gives ``b""``), as TF's ops take strings."""
    x = t._t
    if not isinstance(x, np.ndarray):
        return wrap(fn(x, 0), t._dtype)
    pos = fn(torch.arange(x.size, dtype=torch.int64).reshape(x.shape), -1).numpy()
    pool = np.append(x.reshape(-1), np.array([b""], dtype=object))
    return wrap(pool[np.where(pos < 0, x.size, pos)], t._dtype)


def _batched(x: torch.Tensor, single: bool) -> torch.Tensor:
    return x.unsqueeze(0) if single else x


def _out(x: torch.Tensor, single: bool, dtype) -> Tensor:
    return wrap(x[0] if single else x, dtype)


@functools.lru_cache(maxsize=64)
def _linear_weights(n_in: int, n_out: int) -> np.ndarray:
    w = np.zeros((n_out, n_in), np.float64)
    scale = n_in / n_out
    for o in range(n_out):
        x = (o + 0.5) * scale - 0.5
        lo = math.floor(x)
        frac = x - lo
        w[o, min(max(lo, 0), n_in - 1)] += 1 - frac
        w[o, min(max(lo + 1, 0), n_in - 1)] += frac
    return w


def _cubic(t: float, a: float = -0.5) -> float:
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


@functools.lru_cache(maxsize=64)
def _cubic_weights(n_in: int, n_out: int) -> np.ndarray:
    # TF reads the Keys coefficients from a table sampled at 1/1024 steps
    w = np.zeros((n_out, n_in), np.float64)
    scale = n_in / n_out
    for o in range(n_out):
        x = (o + 0.5) * scale - 0.5
        base = math.floor(x)
        q = round((x - base) * 1024) / 1024.0
        taps = [(base - 1, _cubic(1 + q)), (base, _cubic(q)), (base + 1, _cubic(1 - q)),
                (base + 2, _cubic(2 - q))]
        taps = [(i, v) for i, v in taps if 0 <= i < n_in]
        total = sum(v for _, v in taps)
        for i, v in taps:
            w[o, i] += v / total
    return w


@functools.lru_cache(maxsize=64)
def _area_weights(n_in: int, n_out: int) -> np.ndarray:
    w = np.zeros((n_out, n_in), np.float64)
    scale = n_in / n_out
    for o in range(n_out):
        start, end = o * scale, (o + 1) * scale
        for i in range(int(math.floor(start)), min(int(math.ceil(end)), n_in)):
            w[o, i] = max(0.0, min(end, i + 1) - max(start, i))
        w[o] /= scale
    return w


@functools.lru_cache(maxsize=64)
def _nearest_index(n_in: int, n_out: int) -> list:
    scale = n_in / n_out
    return [min(int(math.floor((o + 0.5) * scale)), n_in - 1) for o in range(n_out)]


# the matrices depend only on the sizes, so they are cached (read-only: shared)
_WEIGHTS = {"bilinear": _linear_weights, "bicubic": _cubic_weights, "area": _area_weights}


def resize_torch(x: torch.Tensor, h: int, w: int, method: str) -> torch.Tensor:
    """Resizes an NHWC torch tensor (float for all methods but ``nearest``)."""
    n_h, n_w = x.shape[1], x.shape[2]
    if method == "nearest":
        ih = torch.tensor(_nearest_index(n_h, h), device=x.device)
        iw = torch.tensor(_nearest_index(n_w, w), device=x.device)
        return x.index_select(1, ih).index_select(2, iw)
    if method == "bilinear":
        # torch's half-pixel bilinear clamps like TF's kernel; channels-last is its fast path
        y = torch.nn.functional.interpolate(
            x.permute(0, 3, 1, 2), size=(h, w), mode="bilinear", align_corners=False)
        return y.permute(0, 2, 3, 1)
    wh = torch.as_tensor(_WEIGHTS[method](n_h, h), dtype=x.dtype, device=x.device)
    ww = torch.as_tensor(_WEIGHTS[method](n_w, w), dtype=x.dtype, device=x.device)
    return torch.einsum("oh,nhwc,pw->nopc", wh, x, ww)


def _resize_size(size) -> tuple:
    """``size`` as TF's ``resize`` checks it: integers (an int32 tensor), shape [2],
    non-negative (``ValueError`` each, as TF's Python-level checks)."""
    if isinstance(size, Tensor):
        ok, a = size.dtype == dtypes.int32, size.numpy()
    else:
        try:
            a = np.asarray(size)
        except (TypeError, ValueError):
            a = np.asarray([float("nan")])
        ok = a.dtype.kind in "iu"
    if not ok:
        raise ValueError("'size' must be a 1-D int32 Tensor")
    if a.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    for v in a.tolist():
        if v < -1:  # -1 reads as an unknown dimension: the kernel rejects it instead
            raise ValueError(f"Dimension {v} must be >= 0")
    return int(a[0]), int(a[1])


@public("torchflow.image")
def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False,
           name=None) -> Tensor:
    """Resizes images to ``size`` with TF 2's half-pixel-centre kernels.

    Args:
      images: 4-D ``[batch, height, width, channels]`` or 3-D image tensor.
      size: ``[new_height, new_width]``.
      method: A ``tf.image.ResizeMethod``: ``bilinear`` (default), ``nearest``,
        ``bicubic``, ``area``, ``lanczos3``, ``lanczos5``, ``gaussian`` or
        ``mitchellcubic``.
      preserve_aspect_ratio: Fit inside ``size`` keeping the aspect ratio.
      antialias: Widen the kernel when downsampling (bilinear, bicubic and the
        ScaleAndTranslate methods; nearest and area ignore it).
      name: Unused.

    Returns:
      float32 images (``nearest`` keeps the input dtype).

    Raises:
      ValueError: For images not 3-D or 4-D, an unknown ``method`` or a ``size``
        that is not two non-negative integers.
      InvalidArgumentError: For a zero ``size`` or a non-real dtype.

    >>> import torchflow as tf
    >>> tf.image.resize(tf.ones([1, 2, 2, 1]), [4, 4]).shape
    TensorShape([1, 4, 4, 1])
    """
    t, single = image_arg("resize", images)
    method = getattr(method, "value", method)
    if method not in _METHODS:
        raise ValueError(f"resize: Resize method '{method}' not supported; "
                         f"use one of {_METHODS}.")
    h, w = _resize_size(size)
    kernel = _SCALED.get(method) or (_ANTIALIASED.get(method) if antialias else None)
    op = "ScaleAndTranslate" if kernel else _RESIZE_OPS[method]
    if t.dtype not in _RESIZE_TYPES:
        raise nc.attr_error(op, t.dtype, _RESIZE_TYPES)
    x = _batched(t._t, single)
    if h <= 0 or w <= 0:
        raise InvalidArgumentError(None, None,
                                   f"output dimensions must be positive [Op:{op}]")
    if preserve_aspect_ratio:
        s = min(h / x.shape[1], w / x.shape[2])
        h, w = max(int(round(x.shape[1] * s)), 1), max(int(round(x.shape[2] * s)), 1)
    if method == "nearest":
        return _out(resize_torch(x, h, w, method), single, t._dtype)
    xf = x.float()  # the kernels' output is float32 for every input type
    if kernel:
        wh = torch.as_tensor(scale_translate_weights(kernel, x.shape[1], h, bool(antialias)),
                             dtype=xf.dtype, device=xf.device)
        ww = torch.as_tensor(scale_translate_weights(kernel, x.shape[2], w, bool(antialias)),
                             dtype=xf.dtype, device=xf.device)
        return _out(torch.einsum("oh,nhwc,pw->nopc", wh, xf, ww), single, dtypes.float32)
    return _out(resize_torch(xf, h, w, method), single, dtypes.float32)


@public("torchflow.image")
def flip_left_right(image) -> Tensor:
    """Reverses the width axis.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    t, single = image_arg("flip_left_right", image)
    return moved(t, lambda x, _: x.flip(-2))


@public("torchflow.image")
def flip_up_down(image) -> Tensor:
    """Reverses the height axis.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    t, single = image_arg("flip_up_down", image)
    return moved(t, lambda x, _: x.flip(-3))


@public("torchflow.image")
def rot90(image, k=1, name=None) -> Tensor:
    """Rotates images counter-clockwise by ``k`` times 90 degrees.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      k: int, default 1: the number of quarter turns.
      name: Unused (eager).

    Returns:
      A tensor of ``image``'s dtype and rank (height and width swap for odd ``k``).

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    t, single = image_arg("rot90", image)
    if not _is_int(k):
        raise TypeError(f"Cannot convert {k!r} to EagerTensor of dtype int32")
    if isinstance(k, Tensor) and graph_trace._ACTIVE is not None:
        return _rot90_node(t, k)  # (a tensor k in a traced function: read every call)
    return _rot90(t, k)


def _rot90(t: Tensor, k) -> Tensor:
    return moved(t, lambda x, _: torch.rot90(x, int(k), dims=(-3, -2)))


@graph_trace.host_op(dry=graph_trace.RUN, pure=True)
def _rot90_node(t: Tensor, k) -> Tensor:
    return _rot90(t, k)


def _is_int(v) -> bool:
    if isinstance(v, Tensor):
        return v.dtype.is_integer
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) or (
        isinstance(v, np.ndarray) and v.dtype.kind in "iu")


def _int_args(op: str, attr: str, *values) -> tuple:
    """Offsets and sizes as ints; a float one fails as TF's Slice/Pad attr check."""
    for v in values:
        if not _is_int(v):
            d = v.dtype.name if isinstance(v, Tensor) else "float"
            raise InvalidArgumentError(None, None, f"Value for attr '{attr}' of {d} is not in "
                                                   f"the list of allowed values: int32, int64 "
                                                   f"[Op:{op}]")
    return tuple(int(v) for v in values)


@public("torchflow.image")
def crop_to_bounding_box(image, offset_height, offset_width, target_height,
                         target_width) -> Tensor:
    """Crops ``[offset, offset + target)`` along height and width.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      offset_height: int: the top row of the box.
      offset_width: int: the left column of the box.
      target_height: int: the box height.
      target_width: int: the box width.

    Returns:
      A tensor of ``image``'s dtype and rank with height ``target_height`` and width
        ``target_width``.

    Raises:
      ValueError: If the box does not fit in the image.
    """
    t, single = image_arg("crop_to_bounding_box", image)
    h, w = t.shape[-3], t.shape[-2]
    oh, ow, th, tw = _int_args("Slice", "Index", offset_height, offset_width, target_height,
                               target_width)
    for ok, msg in ((ow >= 0, "offset_width must be >= 0."),
                    (oh >= 0, "offset_height must be >= 0."),
                    (tw > 0, "target_width must be > 0."), (th > 0, "target_height must be > 0."),
                    (w >= tw + ow, "width must be >= target + offset."),
                    (h >= th + oh, "height must be >= target + offset.")):
        if not ok:
            raise ValueError(msg)
    return moved(t, lambda x, _: x[..., oh:oh + th, ow:ow + tw, :])


@public("torchflow.image")
def pad_to_bounding_box(image, offset_height, offset_width, target_height,
                        target_width) -> Tensor:
    """Zero-pads the image to ``target`` size, placing it at ``offset``.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      offset_height: int: rows of zeros added on top.
      offset_width: int: columns of zeros added on the left.
      target_height: int: the output height.
      target_width: int: the output width.

    Returns:
      A tensor of ``image``'s dtype and rank, ``target_height`` by ``target_width``.

    Raises:
      ValueError: If the image does not fit in the target.
    """
    t, single = image_arg("pad_to_bounding_box", image)
    oh, ow, th, tw = _int_args("Pad", "Tpaddings", offset_height, offset_width, target_height,
                               target_width)
    bottom, right = th - oh - t.shape[-3], tw - ow - t.shape[-2]
    for ok, msg in ((oh >= 0, "offset_height must be >= 0"),
                    (ow >= 0, "offset_width must be >= 0"),
                    (right >= 0, "width must be <= target - offset"),
                    (bottom >= 0, "height must be <= target - offset")):
        if not ok:
            raise ValueError(msg)
    pads = (0, 0, ow, right, oh, bottom)
    return moved(t, lambda x, fill: torch.nn.functional.pad(x, pads, value=fill))


@public("torchflow.image")
def central_crop(image, central_fraction) -> Tensor:
    """Crops the central ``central_fraction`` of each spatial axis (TF's rounding).

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      central_fraction: A float in ``(0, 1]``: the fraction of height and width kept.

    Returns:
      A tensor of ``image``'s dtype and rank.

    Raises:
      ValueError: If ``central_fraction`` is not in (0, 1].
    """
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    t, single = image_arg("central_crop", image)
    if central_fraction == 1.0:
        return t
    h, w = t._t.shape[-3], t._t.shape[-2]
    sh = int((h - h * central_fraction) / 2)
    sw = int((w - w * central_fraction) / 2)
    return crop_to_bounding_box(t, sh, sw, h - 2 * sh, w - 2 * sw)


@public("torchflow.image")
def resize_with_crop_or_pad(image, target_height, target_width) -> Tensor:
    """Centrally crops and/or zero-pads to ``target_height x target_width``.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      target_height: int: the output height.
      target_width: int: the output width.

    Returns:
      A tensor of ``image``'s dtype and rank, ``target_height`` by ``target_width``.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D or a target size is not positive.
    """
    t, single = image_arg("resize_with_crop_or_pad", image)
    h, w = t._t.shape[-3], t._t.shape[-2]
    th, tw = int(target_height), int(target_width)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    x = crop_to_bounding_box(t, max((h - th) // 2, 0), max((w - tw) // 2, 0),
                             min(h, th), min(w, tw))
    return pad_to_bounding_box(x, max((th - h) // 2, 0), max((tw - w) // 2, 0), th, tw)


@public("torchflow.image")
def adjust_contrast(images, contrast_factor) -> Tensor:
    """Adjusts the contrast of RGB or grayscale images.

    Each channel of each image becomes ``(x - mean) * contrast_factor + mean``,
    with ``mean`` that channel's mean over the image. As in TF, images of a dtype
    other than float16/float32 are converted to float32 with
    ``convert_image_dtype`` first and back with ``saturate=True`` after, so
    integer results are clamped to the dtype's range rather than wrapping.

    Args:
      images: Images of shape ``[..., height, width, channels]``.
      contrast_factor: A float multiplier for adjusting contrast.

    Returns:
      The contrast-adjusted images, of the dtype of ``images``.

    Raises:
      LookupError: On differentiation (TF registers no gradient for
        ``AdjustContrastv2``).

    >>> import torchflow as tf
    >>> x = tf.constant([[[0], [100]], [[200], [255]]], tf.uint8)
    >>> tf.image.adjust_contrast(x, 2.0).numpy().ravel()
    array([  0,  61, 255, 255], dtype=uint8)
    """
    t = tensor_arg(images)
    if len(t.shape) < 3:
        raise InvalidArgumentError(None, None, f"input must be at least 3-D, got shape"
                                               f"{dims(t.shape)} [Op:AdjustContrastv2]")
    orig = t._dtype
    flt = t if orig.name in ("float16", "float32") else convert_image_dtype(t, dtypes.float32)
    f = tensor_arg(contrast_factor)._t

    def contrast(x, f):
        mean = x.mean(dim=(-3, -2), keepdim=True)
        return (x - mean) * f.to(x.dtype) + mean

    # TF registers no gradient for AdjustContrastv2: a tape through it raises.
    y = gradient_kernels.no_gradient("AdjustContrastv2", contrast, flt._t, f)
    return convert_image_dtype(wrap(y, flt._dtype), orig, saturate=True)


@public("torchflow.image")
def convert_image_dtype(image, dtype, saturate=False, name=None) -> Tensor:
    """Converts between image dtypes, scaling integers to ``[0, 1]`` floats and back.

    Args:
      image: A numeric image tensor.
      dtype: The target ``tf.DType``.
      saturate: bool, default False: clip before casting to avoid integer overflow.
      name: Unused (eager).

    Returns:
      A tensor of ``dtype`` and ``image``'s shape.

    Raises:
      AttributeError: If ``dtype`` is not a float or integer type (TF's own error
        type here).
      TypeError: If ``image`` is neither float nor integer (bool, string): TF 2.4
        scales it as a float image and its ``Mul`` rejects the dtype.
    """
    t = tensor_arg(image)
    dtype = dtypes.as_dtype(dtype)
    src = t._dtype
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if src == dtype:
        return t
    if not (src.is_floating or src.is_integer):  # TF 2.5+ raises AttributeError instead
        # TF 2.4 multiplies it by dtype.max + 0.5, which cannot become its dtype
        raise TypeError(f"Cannot convert {float(dtype.max) + 0.5!r} to EagerTensor of dtype "
                        f"{src.name}")
    x = t._t
    if src.is_floating and dtype.is_floating:
        return wrap(x.to(dtype._torch), dtype)
    if src.is_integer and dtype.is_floating:
        # TF multiplies by the rounded reciprocal (not a division): same bits as TF.
        return wrap(x.to(dtype._torch) * (1.0 / float(src.max)), dtype)
    if src.is_floating and dtype.is_integer:
        y = x * (float(dtype.max) + 0.5)
        if saturate:
            y = y.clamp(float(dtype.min), float(dtype.max))
        return wrap(y.to(dtype._torch), dtype)
    # integer to integer: TF scales by the ratio of (max + 1)
    smax, dmax = int(src.max) + 1, int(dtype.max) + 1
    y = x.to(torch.int64)
    y = y // (smax // dmax) if smax > dmax else y * (dmax // smax)
    return wrap(y.to(dtype._torch), dtype)


# --- projective transform (Keras' random rotation / zoom / translation) -------
def _fill_coord(c: torch.Tensor, n: int, mode: str) -> torch.Tensor:
    # TF's map_coordinate, including its integer truncations
    if mode == "constant" or n <= 1 and mode != "nearest":
        return c if mode == "constant" else torch.zeros_like(c)
    if mode == "reflect":
        sz2 = 2.0 * n
        lo = torch.where(c < -sz2, c + sz2 * torch.trunc(-c / sz2), c)
        lo = torch.where(lo < -n, lo + sz2, -lo - 1)
        hi = c - sz2 * torch.trunc(c / sz2)
        hi = torch.where(hi >= n, sz2 - hi - 1, hi)
        c = torch.where(c < 0, lo, torch.where(c > n - 1, hi, c))
    elif mode == "wrap":
        sz = float(n - 1)
        lo = c + n * (torch.trunc(-c / sz) + 1)
        hi = c - n * torch.trunc(c / sz)
        c = torch.where(c < 0, lo, torch.where(c > n - 1, hi, c))
    return c.clamp(0, n - 1)


def transform(images, transforms, interpolation="bilinear", fill_mode="reflect",
              fill_value=0.0) -> Tensor:
    """TF's ``ImageProjectiveTransformV3``: output pixel ``(x, y)`` reads input point
    ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``, ``k = c0 x + c1 y + 1``.

    Args:
      images: NHWC float images.
      transforms: ``[batch or 1, 8]`` transform vectors.
      interpolation: ``bilinear`` or ``nearest``.
      fill_mode: ``reflect``, ``wrap``, ``constant`` or ``nearest``.
      fill_value: Value outside the image in ``constant`` mode.
    """
    t = tensor_arg(images)
    x = t._t
    n, h, w, _ = x.shape
    m = tensor_arg(transforms, dtypes.float32)._t.to(x.dtype)
    m = m.expand(n, 8)
    ys, xs = torch.meshgrid(torch.arange(h, dtype=x.dtype, device=x.device),
                            torch.arange(w, dtype=x.dtype, device=x.device), indexing="ij")
    a = m[:, :, None, None]
    k = a[:, 6] * xs + a[:, 7] * ys + 1.0
    sx = (a[:, 0] * xs + a[:, 1] * ys + a[:, 2]) / k
    sy = (a[:, 3] * xs + a[:, 4] * ys + a[:, 5]) / k
    sx, sy = _fill_coord(sx, w, fill_mode), _fill_coord(sy, h, fill_mode)
    flat = x.reshape(n, h * w, -1)

    def read(yi, xi):
        inside = (yi >= 0) & (yi <= h - 1) & (xi >= 0) & (xi <= w - 1)
        idx = (yi.clamp(0, h - 1).long() * w + xi.clamp(0, w - 1).long()).reshape(n, -1, 1)
        v = torch.gather(flat, 1, idx.expand(-1, -1, flat.shape[-1])).reshape(n, h, w, -1)
        return torch.where(inside[..., None], v, torch.full_like(v, float(fill_value)))

    if interpolation == "nearest":
        def rnd(c):  # std::round: halves away from zero
            return torch.sign(c) * torch.floor(c.abs() + 0.5)

        out = read(rnd(sy), rnd(sx))
    else:
        y0, x0 = torch.floor(sy), torch.floor(sx)
        wy, wx = (sy - y0)[..., None], (sx - x0)[..., None]
        out = ((1 - wy) * ((1 - wx) * read(y0, x0) + wx * read(y0, x0 + 1))
               + wy * ((1 - wx) * read(y0 + 1, x0) + wx * read(y0 + 1, x0 + 1)))
    return wrap(out, t._dtype)


def check_interpolation(value: str) -> str:
    if value not in ("bilinear", "nearest"):
        raise NotImplementedError(f"Unknown `interpolation` {value}. Only `nearest` and "
                                  f"`bilinear` are supported.")
    return value


def check_fill_mode(value: str) -> str:
    if value not in ("reflect", "wrap", "constant", "nearest"):
        raise NotImplementedError(f"Unknown `fill_mode` {value}. Only `reflect`, `wrap`, "
                                  f"`constant` and `nearest` are supported.")
    return value



@public("torchflow.image")
class ResizeMethod:
    """The ``method`` names ``tf.image.resize`` accepts.

    Each attribute is the string ``resize`` takes: ``BILINEAR`` (``"bilinear"``, the
    default), ``NEAREST_NEIGHBOR`` (``"nearest"``), ``BICUBIC``, ``AREA``, ``LANCZOS3``,
    ``LANCZOS5``, ``GAUSSIAN`` and ``MITCHELLCUBIC``.
    """
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


@public("torchflow.image")
def resize_with_pad(image, target_height, target_width, method="bilinear",
                    antialias=False) -> Tensor:
    """Resizes keeping the aspect ratio, then zero-pads to the target size.

    Args:
      image: A 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``
        tensor.
      target_height: int: the output height.
      target_width: int: the output width.
      method: A ``tf.image.ResizeMethod`` name, default ``'bilinear'``.
      antialias: bool, default False.

    Returns:
      A float tensor of ``image``'s rank, ``target_height`` by ``target_width``.

    Raises:
      ValueError: If ``image`` is not 3-D or 4-D.
    """
    t, single = image_arg("resize_with_pad", image)
    h, w = t._t.shape[-3], t._t.shape[-2]
    th, tw = int(target_height), int(target_width)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    ratio = max(w / tw, h / th)
    rh, rw = h / ratio, w / ratio
    ph, pw = max(0, int(math.floor((th - rh) / 2))), max(0, int(math.floor((tw - rw) / 2)))
    resized = resize(t, [int(math.floor(rh)), int(math.floor(rw))], method=method,
                     antialias=antialias)
    return pad_to_bounding_box(resized, ph, pw, th, tw)
