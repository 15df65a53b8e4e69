"""Fused kernels for Keras layers' hot paths (not public TF names).

``conv_bias`` hands the bias to torch's convolution kernel (oneDNN/cuDNN add it
in the same pass and compute its gradient inside the convolution backward),
instead of a separate broadcast add and a reduction in the backward pass —
the main cost of a small CNN besides the convolutions. ``dense`` is one
``addmm``. Both fall back to the plain ops outside their fast path.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops import conv_ops
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.ops.linalg_ops import matmul
from torchflow._src.ops.nn_ops import bias_add

_FN = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def conv_bias(n: int, input, filters, bias, strides, padding: str, data_format: str,
              dilations) -> Tensor:
    """``bias_add(conv{n}d(input, filters, ...), bias)`` in one kernel call.

    ``strides``/``dilations`` are ``n`` ints, ``padding`` ``"SAME"``/``"VALID"``,
    ``data_format`` e.g. ``"NHWC"``/``"NCHW"``; ``bias`` may be None.
    """
    op = f"Conv{n}D"
    x = tensor_arg(input)
    cl = data_format[-1] == "C"
    if x._dtype not in nc.FLOATS or x._t.ndim != n + 2:
        y = conv_ops._conv(op, n, x, filters, strides, padding, data_format, dilations)
        return y if bias is None else bias_add(y, bias, data_format=data_format)
    w = nc.same_dtype(op, x, filters)
    wt = w._t
    xc = nc.to_nc(x._t, cl)
    cin, fin = xc.shape[1], wt.shape[-2]
    if fin == 0 or cin % fin:
        return conv_ops._conv(op, n, x, filters, strides, padding, data_format, dilations)
    ksize = list(wt.shape[:n])
    s, d = list(strides), list(dilations)
    p = nc.pads(padding, n, cl, list(xc.shape[2:]), ksize, s, d, op)
    bt = None if bias is None else nc.same_dtype("BiasAdd", x, bias)._t
    try:
        xc, tp = nc.apply_pads(xc, p)
        if any(xc.shape[2 + i] + 2 * tp[i] < (ksize[i] - 1) * d[i] + 1 for i in range(n)):
            y = conv_ops._conv(op, n, x, filters, strides, padding, data_format, dilations)
            return y if bias is None else bias_add(y, bias, data_format=data_format)
        out = _FN[n](xc, wt.permute(n + 1, n, *range(n)), bt, s, tp, d, cin // fin)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return wrap(nc.from_nc(out, cl), x._dtype)


def dense(x, kernel, bias) -> Tensor:
    """``x @ kernel + bias`` for a 2-D ``x`` (one ``addmm``); ``bias`` may be None."""
    x = tensor_arg(x)
    if bias is None or x._dtype not in nc.FLOATS or x._t.ndim != 2:
        y = matmul(x, kernel)
        return y if bias is None else bias_add(y, bias)
    k = nc.same_dtype("MatMul", x, kernel)
    b = nc.same_dtype("BiasAdd", x, bias)
    try:
        return wrap(torch.addmm(b._t, x._t, k._t), x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("MatMul", e) from None
