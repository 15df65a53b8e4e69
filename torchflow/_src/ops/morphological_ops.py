"""Grayscale morphology: ``tf.nn.dilation2d`` and ``tf.nn.erosion2d``."""

from __future__ import annotations

import torch.nn.functional as F

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, translate, wrap
from torchflow._src.util.api import public


def _dilate(op, x, f, strides, padding, dilations):
    xt, ft = x._t, f._t
    if xt.ndim != 4 or ft.ndim != 3 or ft.shape[-1] != xt.shape[-1]:
        raise InvalidArgumentError(
            None, None, f"input must be 4-dimensional and filter [h, w, depth] with the input's "
                        f"depth: {list(xt.shape)} {list(ft.shape)} [Op:{op}]")
    s = nc.spatial(strides, 2, "strides", True, op)
    d = nc.spatial(dilations, 2, "dilations", True, op)
    kh, kw, c = ft.shape
    xc = nc.to_nc(xt, True)
    n, _, h, w = xc.shape
    p = nc.pads(padding, 2, True, [h, w], [kh, kw], s, d, op)
    padded = F.pad(xc, [p[1][0], p[1][1], p[0][0], p[0][1]], value=float("-inf"))
    oh = (padded.shape[2] - (kh - 1) * d[0] - 1) // s[0] + 1
    ow = (padded.shape[3] - (kw - 1) * d[1] - 1) // s[1] + 1
    cols = F.unfold(padded, (kh, kw), dilation=d, stride=s)  # pyright: ignore[reportArgumentType] - torch's stub wants tuples; lists work; [n, c*kh*kw, L]
    cols = cols.reshape(n, c, kh * kw, oh * ow)
    out = (cols + ft.permute(2, 0, 1).reshape(1, c, kh * kw, 1)).amax(2)
    return nc.from_nc(out.reshape(n, c, oh, ow), True)


@public("torchflow.nn")
def dilation2d(input, filters, strides, padding, data_format="NHWC", dilations=None,
               name=None) -> Tensor:
    """Grayscale dilation: the max over each window of ``input + filters``.

    Args:
      input: A 4-D float NHWC Tensor.
      filters: ``[filter_height, filter_width, depth]``, ``input``'s dtype.
      strides: A list of 4 ints (or 1 or 2).
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: Only ``"NHWC"``.
      dilations: A list of 4 ints (or 1 or 2), the window's dilation rate.
      name: Unused (eager).

    Returns:
      A 4-D Tensor.
    """
    op = "Dilation2D"
    x = nc.typed_arg(op, input, nc.FLOATS)
    f = nc.same_dtype(op, x, filters)
    if data_format != "NHWC":
        raise ValueError(f"{op}: only data_format='NHWC' is supported, got {data_format}")
    try:
        return wrap(_dilate(op, x, f, strides, padding, dilations), x._dtype)
    except (InvalidArgumentError, ValueError):
        raise
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None


@public("torchflow.nn")
def erosion2d(value, filters, strides, padding, data_format="NHWC", dilations=None,
              name=None) -> Tensor:
    """Grayscale erosion: the min over each window of ``value - filters``
    (the filter reflected), i.e. ``-dilation2d(-value, reverse(filters))``.

    Args:
      value: A 4-D float NHWC Tensor.
      filters: ``[filter_height, filter_width, depth]``.
      strides, padding, data_format, dilations: As in ``dilation2d``.
      name: Unused (eager).

    Returns:
      A 4-D Tensor.
    """
    op = "Erosion2D"
    x = nc.typed_arg(op, value, nc.FLOATS)
    f = nc.same_dtype(op, x, filters)
    if data_format != "NHWC":
        raise ValueError(f"{op}: only data_format='NHWC' is supported, got {data_format}")
    neg = wrap(-x._t, x._dtype)
    flipped = wrap(f._t.flip(0, 1), f._dtype)
    return wrap(-_dilate(op, neg, flipped, strides, padding, dilations), x._dtype)
