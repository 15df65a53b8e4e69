"""``tf.image.crop_and_resize`` and ``tf.image.extract_patches`` (TF 2.4 kernels)."""

from __future__ import annotations

import math

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import (
    OutOfRangeError,
    UnimplementedError,
    dims,
    invalid_argument,
)
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.util.api import public


def _coords(lo, hi, n_in: int, n_out: int):
    # TF: sample points spread over [lo, hi] * (n_in - 1); one sample takes the middle
    if n_out > 1:
        step = (hi - lo) * (n_in - 1) / (n_out - 1)
        i = torch.arange(n_out, dtype=lo.dtype, device=lo.device)
        return lo[:, None] * (n_in - 1) + i[None, :] * step[:, None]
    return (0.5 * (lo + hi) * (n_in - 1))[:, None]


_CROP_TYPES = nc.TypeSet((dtypes.uint8, dtypes.uint16, dtypes.int8, dtypes.int16, dtypes.int32,
                          dtypes.int64, dtypes.float16, dtypes.float32, dtypes.float64))
_PATCH_TYPES = nc.TypeSet((dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64,
                           dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                           dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.complex64,
                           dtypes.complex128, dtypes.bool))


def _check_crop_args(op, x, b, bi, cs) -> None:
    """The CropAndResize kernel's checks, in its order."""
    if x.dim() != 4:
        raise invalid_argument(op, f"input image must be 4-D{dims(x.shape)}")
    if x.shape[1] <= 0 or x.shape[2] <= 0:
        raise invalid_argument(op, "image dimensions must be positive")
    if cs.dim() != 1:
        raise invalid_argument(op, f"crop_size must be 1-D{dims(cs.shape)}")
    if cs.shape[0] != 2:
        raise invalid_argument(op, f"crop_size must have two elements{dims(cs.shape)}")
    if bool((cs <= 0).any()):
        raise invalid_argument(op, "crop dimensions must be positive")
    if b.numel() == 0 and bi.numel() == 0:
        return
    if b.dim() != 2:
        raise invalid_argument(op, f"boxes must be 2-D, got: {dims(b.shape)}")
    if b.shape[1] != 4:
        raise invalid_argument(op, "boxes must have 4 columns")
    if bi.dim() != 1:
        raise invalid_argument(op, f"box_indices must be rank 1 but is shape "
                                   f"{dims(bi.shape)}")
    if bi.shape[0] != b.shape[0]:
        raise invalid_argument(op, "box_index has incompatible shape")
    if bool(((bi < 0) | (bi >= x.shape[0])).any()):
        raise OutOfRangeError(None, None, f"box_index has values outside [0, batch_size) "
                                          f"[Op:{op}]")


@public("torchflow.image")
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None) -> Tensor:
    """Crops normalized ``[y1, x1, y2, x2]`` boxes from ``image[box_indices]`` and
    resizes each to ``crop_size`` (float32; samples outside the image get
    ``extrapolation_value``).

    Args:
      image: A 4-D ``[batch, height, width, depth]`` numeric tensor.
      boxes: A float32 ``[num_boxes, 4]`` tensor of normalized ``[y1, x1, y2, x2]`` boxes.
      box_indices: An int32 ``[num_boxes]`` tensor: the batch entry each box is cut from.
      crop_size: A pair ``[crop_height, crop_width]`` of positive ints.
      method: ``'bilinear'`` (default) or ``'nearest'``.
      extrapolation_value: float, default 0.0.
      name: Unused (eager).

    Returns:
      A float32 tensor ``[num_boxes, crop_height, crop_width, depth]``.

    Raises:
      InvalidArgumentError: For an unknown ``method`` or arguments of the wrong
        shape (the CropAndResize kernel's checks).
      OutOfRangeError: For a ``box_indices`` entry outside ``[0, batch)``.
    """
    op = "CropAndResize"
    if method not in ("bilinear", "nearest"):
        raise invalid_argument(op, f"Value for attr 'method' of \"{method}\" is not in the "
                                   f"list of allowed values: \"bilinear\", \"nearest\"")
    t = tensor_arg(image)
    if t.dtype not in _CROP_TYPES:
        raise nc.attr_error(op, t.dtype, _CROP_TYPES)
    x = t._t.float()
    b = tensor_arg(boxes, dtypes.float32)._t.float()
    bi = tensor_arg(box_indices, dtypes.int32)._t.long()
    cs = tensor_arg(crop_size, dtypes.int32)._t
    _check_crop_args(op, x, b, bi, cs)
    ch, cw = (int(v) for v in cs.tolist())
    _, h, w, c = x.shape
    if b.numel() == 0:
        return wrap(x.new_zeros((0, ch, cw, c)), dtypes.float32)
    ys = _coords(b[:, 0], b[:, 2], h, ch)  # [n, ch]
    xs = _coords(b[:, 1], b[:, 3], w, cw)  # [n, cw]
    valid = (((ys >= 0) & (ys <= h - 1))[:, :, None] & ((xs >= 0) & (xs <= w - 1))[:, None, :])
    imgs = x[bi]  # [n, h, w, c]
    n = imgs.shape[0]
    flat = imgs.reshape(n, h * w, c)

    def read(yi, xi):
        idx = (yi.clamp(0, h - 1).long()[:, :, None] * w
               + xi.clamp(0, w - 1).long()[:, None, :]).reshape(n, -1, 1)
        return torch.gather(flat, 1, idx.expand(-1, -1, c)).reshape(n, ch, cw, c)

    if method == "nearest":
        def rnd(v):  # std::round
            return torch.sign(v) * torch.floor(v.abs() + 0.5)
        out = read(rnd(ys), rnd(xs))
    else:
        y0, x0 = torch.floor(ys), torch.floor(xs)
        y1, x1 = torch.ceil(ys), torch.ceil(xs)
        wy = (ys - y0)[:, :, None, None]
        wx = (xs - x0)[:, None, :, None]
        top = read(y0, x0) + (read(y0, x1) - read(y0, x0)) * wx
        bottom = read(y1, x0) + (read(y1, x1) - read(y1, x0)) * wx
        out = top + (bottom - top) * wy
    out = torch.where(valid[..., None], out, torch.full_like(out, float(extrapolation_value)))
    return wrap(out, dtypes.float32)


def _patch_attrs(op, sizes, strides, rates, padding) -> tuple:
    """ExtractImagePatches' attr checks (OpDef lengths and padding values), then its
    kernel's (spatial-only, positive); the three lists as ints."""
    lists = []
    for attr, v in (("ksizes", sizes), ("strides", strides), ("rates", rates)):
        vals = [int(e) for e in (v.numpy().tolist() if isinstance(v, Tensor) else v)]
        if len(vals) < 4:
            raise invalid_argument(op, f"Length for attr '{attr}' of {len(vals)} must be at "
                                       f"least minimum 4")
        lists.append(vals)
    if padding not in ("SAME", "VALID"):
        raise invalid_argument(op, f"Value for attr 'padding' of \"{padding}\" is not in the "
                                   f"list of allowed values: \"SAME\", \"VALID\"")
    for attr, vals in zip(("ksizes", "strides", "rates"), lists):
        if vals[0] != 1 or vals[3] != 1:
            raise UnimplementedError(None, None, f"Only support {attr} across space. "
                                                 f"[Op:{op}]")
    for attr, vals in zip(("ksizes", "strides", "rates"), lists):
        if vals[1] < 1 or vals[2] < 1:
            raise OutOfRangeError(None, None, f"{attr} is out of range. [Op:{op}]")
    return tuple(lists)


@public("torchflow.image")
def extract_patches(images, sizes, strides, rates, padding, name=None) -> Tensor:
    """Patches of ``sizes[1] x sizes[2]`` pixels every ``strides``, dilated by
    ``rates``, flattened as ``(row, col, depth)`` into the last axis.

    Args:
      images: A 4-D ``[batch, rows, cols, depth]`` tensor.
      sizes: ``[1, size_rows, size_cols, 1]``: the patch size.
      strides: ``[1, stride_rows, stride_cols, 1]``: the distance between patch centres.
      rates: ``[1, rate_rows, rate_cols, 1]``: the dilation inside a patch.
      padding: ``'VALID'`` or ``'SAME'``.
      name: Unused (eager).

    Returns:
      A tensor of ``images``' dtype ``[batch, out_rows, out_cols, size_rows * size_cols *
        depth]``.

    Raises:
      InvalidArgumentError: For ``sizes``/``strides``/``rates`` of fewer than 4
        entries, a padding other than ``VALID``/``SAME``, images that are not 4-D or
        a patch larger than a ``VALID`` image.
      UnimplementedError: For sizes, strides or rates other than 1 on the batch or
        depth axis.
      OutOfRangeError: For a size, stride or rate below 1.
    """
    op = "ExtractImagePatches"
    t = tensor_arg(images)
    if t.dtype not in _PATCH_TYPES:
        raise nc.attr_error(op, t.dtype, _PATCH_TYPES)
    x = t._t
    (_, kh, kw, _), (_, sh, sw, _), (_, rh, rw, _) = _patch_attrs(op, sizes, strides, rates,
                                                                  padding)
    if x.dim() != 4:
        raise invalid_argument(op, f"input must be 4-dimensional{dims(x.shape)}")
    n, h, w, c = x.shape
    eh, ew = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    if padding == "VALID":
        pads = (0, 0, 0, 0)
        for size, eff, stride in ((h, eh, sh), (w, ew, sw)):
            out = int((size - eff + stride) / stride)  # C++'s truncating division
            if out < 0:
                raise invalid_argument(op, f"Computed output size would be negative: "
                                           f"{out} [input_size: "
                                           f"{size}, effective_filter_size: {eff}, stride: "
                                           f"{stride}]")
    else:
        oh, ow = math.ceil(h / sh), math.ceil(w / sw)
        ph = max((oh - 1) * sh + eh - h, 0)
        pw = max((ow - 1) * sw + ew - w, 0)
        pads = (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2)
    hp, wp = h + pads[2] + pads[3], w + pads[0] + pads[1]
    oh, ow = (hp - eh) // sh + 1, (wp - ew) // sw + 1
    if oh <= 0 or ow <= 0 or n == 0 or c == 0:
        return wrap(x.new_zeros((n, max(oh, 0), max(ow, 0), kh * kw * c)), t._dtype)
    xc = x.permute(0, 3, 1, 2)
    if not xc.is_floating_point():
        xc = xc.double()
    xc = torch.nn.functional.pad(xc, pads)
    cols = torch.nn.functional.unfold(xc, (kh, kw), dilation=(rh, rw), stride=(sh, sw))
    out = cols.reshape(n, c, kh * kw, oh, ow).permute(0, 3, 4, 2, 1).reshape(
        n, oh, ow, kh * kw * c)
    return wrap(out.to(x.dtype), t._dtype)
