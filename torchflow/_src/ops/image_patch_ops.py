"""``tf.image.crop_and_resize`` and ``tf.image.extract_patches`` (TF 2.4 kernels)."""

from __future__ import annotations

import math

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.util.api import public


def _coords(lo, hi, n_in: int, n_out: int):
    # TF: sample points spread over [lo, hi] * (n_in - 1); one sample takes the middle
    if n_out > 1:
        step = (hi - lo) * (n_in - 1) / (n_out - 1)
        i = torch.arange(n_out, dtype=lo.dtype, device=lo.device)
        return lo[:, None] * (n_in - 1) + i[None, :] * step[:, None]
    return (0.5 * (lo + hi) * (n_in - 1))[:, None]


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
      ValueError: For an unknown ``method``.
    """
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"crop_and_resize: method must be 'bilinear' or 'nearest', got "
                         f"{method}")
    t = tensor_arg(image)
    x = t._t.float()
    b = tensor_arg(boxes, dtypes.float32)._t.float()
    bi = tensor_arg(box_indices, dtypes.int32)._t.long()
    ch, cw = (int(v) for v in (crop_size.numpy() if isinstance(crop_size, Tensor)
                               else crop_size))
    _, h, w, c = x.shape
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
      ValueError: For a padding other than ``VALID``/``SAME``.
    """
    t = tensor_arg(images)
    x = t._t
    kh, kw = int(sizes[1]), int(sizes[2])
    sh, sw = int(strides[1]), int(strides[2])
    rh, rw = int(rates[1]), int(rates[2])
    n, h, w, c = x.shape
    eh, ew = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    if padding == "VALID":
        pads = (0, 0, 0, 0)
    elif padding == "SAME":
        oh, ow = math.ceil(h / sh), math.ceil(w / sw)
        ph = max((oh - 1) * sh + eh - h, 0)
        pw = max((ow - 1) * sw + ew - w, 0)
        pads = (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2)
    else:
        raise ValueError(f"extract_patches: padding must be 'VALID' or 'SAME', got {padding}")
    xc = x.permute(0, 3, 1, 2)
    if not xc.is_floating_point():
        xc = xc.double()
    xc = torch.nn.functional.pad(xc, pads)
    cols = torch.nn.functional.unfold(xc, (kh, kw), dilation=(rh, rw), stride=(sh, sw))
    hp, wp = h + pads[2] + pads[3], w + pads[0] + pads[1]
    oh, ow = (hp - eh) // sh + 1, (wp - ew) // sw + 1
    out = cols.reshape(n, c, kh * kw, oh, ow).permute(0, 3, 4, 2, 1).reshape(
        n, oh, ow, kh * kw * c)
    return wrap(out.to(x.dtype), t._dtype)
