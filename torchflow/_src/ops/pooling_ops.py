"""Pooling: ``tf.nn.max_pool*`` and ``tf.nn.avg_pool*`` on torch's pooling kernels.

``SAME`` padding never counts as data: max pooling pads with -inf and average
pooling divides by the number of real elements in each window, as TF does.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public

_MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
_MAX_TYPES = nc.REALS
_AVG_TYPES = nc.FLOATS


def _pool(kind, op, n, input, ksize, strides, padding, data_format):
    x = nc.typed_arg(op, input, _MAX_TYPES if kind == "max" else _AVG_TYPES)
    xt = x._t
    if xt.ndim != n + 2:
        raise InvalidArgumentError(
            None, None,
            f"tensor_in must be {n + 2}-dimensional (have {n} spatial dimensions): "
            f"{list(xt.shape)} [Op:{op}]")
    cl = nc.channels_last(data_format, n, op)
    k = nc.spatial(ksize, n, "ksize", cl, op)
    s = nc.spatial(strides, n, "strides", cl, op)
    xc = nc.to_nc(xt, cl)
    p = nc.pads(padding, n, cl, list(xc.shape[2:]), k, s, [1] * n, op)
    if any(v <= 0 for v in k + s):
        raise InvalidArgumentError(
            None, None, f"Sliding window ksize and strides must be positive: {k} {s} [Op:{op}]")
    outs = nc.check_output_sizes(op, list(xc.shape[2:]), p, k, s, [1] * n)
    if 0 in outs:  # TF allows an empty output (a window larger than the input)
        return wrap(nc.from_nc(xc.new_zeros(tuple(xc.shape[:2]) + tuple(outs)), cl), x._dtype)
    try:
        if kind == "max":
            out = _max(n, xc, k, s, p)
        else:
            out = _avg(n, xc, k, s, p)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return wrap(nc.from_nc(out, cl), x._dtype)


def _max(n, xc, k, s, p):
    dt = xc.dtype
    work = xc if dt.is_floating_point else xc.double()  # no integer max-pool on CPU
    symmetric = all(a == b and 2 * a <= kk for (a, b), kk in zip(p, k))
    if symmetric:
        out = _MAX[n](work, k, s, [a for a, _ in p])
    else:
        flat = []
        for a, b in reversed(p):
            flat += [a, b]
        out = _MAX[n](F.pad(work, flat, value=float("-inf")), k, s)
    return out if out.dtype == dt else out.to(dt)


def _avg(n, xc, k, s, p):
    if all(a == b and 2 * a <= kk for (a, b), kk in zip(p, k)):
        return _AVG[n](xc, k, s, [a for a, _ in p], count_include_pad=False)
    flat = []
    for a, b in reversed(p):
        flat += [a, b]
    total = _AVG[n](F.pad(xc, flat), k, s)
    # The share of real (unpadded) elements in each window, from a 1-channel mask.
    ones = xc.new_ones((1, 1) + tuple(xc.shape[2:]))
    share = _AVG[n](F.pad(ones, flat), k, s)
    return total / share


def _rank_pool(kind, input, ksize, strides, padding, data_format, name):
    input = tensor_arg(input)
    n = input._t.ndim - 2
    if n not in _MAX:
        raise ValueError(f"tf.nn.{kind}_pool: input must have rank 3, 4 or 5. "
                         f"Received: input.shape={getattr(input, 'shape', None)}")
    op = {1: "MaxPool", 2: "MaxPool", 3: "MaxPool3D"}[n] if kind == "max" else \
        {1: "AvgPool", 2: "AvgPool", 3: "AvgPool3D"}[n]
    return _pool(kind, op, n, input, ksize, strides, padding, data_format)


@public("torchflow.nn")
def max_pool(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:
    """Max pooling over 1, 2 or 3 spatial dimensions (from ``input``'s rank).

    Args:
      input: A Tensor of rank N + 2 (channels-last by default).
      ksize: An int or list of 1, N or N + 2 ints, the window size.
      strides: An int or list of 1, N or N + 2 ints.
      padding: ``"SAME"``, ``"VALID"`` or explicit pairs.
      data_format: Optional, e.g. ``"NHWC"`` or ``"NCHW"``.
      name: Unused (eager).

    Returns:
      The max-pooled Tensor, ``input``'s dtype.

    >>> import torchflow as tf
    >>> tf.nn.max_pool(tf.reshape(tf.constant([1., 2., 3., 4.]), [1, 2, 2, 1]), 2, 2,
    ...                "VALID").numpy().ravel()
    array([4.], dtype=float32)
    """
    return _rank_pool("max", input, ksize, strides, padding, data_format, name)


@public("torchflow.nn")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:
    """Average pooling over 1, 2 or 3 spatial dimensions (from ``input``'s rank).

    ``SAME`` padding is left out of each window's count, as in TF.

    Args:
      input: A float Tensor of rank N + 2 (channels-last by default).
      ksize: An int or list of 1, N or N + 2 ints, the window size.
      strides: An int or list of 1, N or N + 2 ints.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: Optional, e.g. ``"NHWC"`` or ``"NCHW"``.
      name: Unused (eager).

    Returns:
      The average-pooled Tensor, ``input``'s dtype.
    """
    return _rank_pool("avg", input, ksize, strides, padding, data_format, name)


@public("torchflow.nn")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:
    """Max pooling of a 3-D ``input`` (``NWC`` or ``NCW``); see ``max_pool``.

    Args:
      input: A 3-D float tensor in ``NWC`` (default) or ``NCW`` layout.
      ksize: An int or a list of 1, 1 or 3 ints: the window size per dimension.
      strides: An int or a list of 1, 1 or 3 ints: the window stride per dimension.
      padding: ``'VALID'`` or ``'SAME'`` (or explicit paddings where TF allows them).
      data_format: ``'NWC'`` (default) or ``'NCW'``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and layout, with the pooled spatial dimensions.

    Raises:
      InvalidArgumentError: For a wrong rank, dtype, ``ksize``/``strides`` length or
        non-positive entries.
    """
    return _pool("max", "MaxPool", 1, input, ksize, strides, padding, data_format)


@public("torchflow.nn")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:
    """Max pooling of a 4-D ``input`` (``NHWC`` or ``NCHW``); see ``max_pool``.

    Args:
      input: A 4-D float tensor in ``NHWC`` (default) or ``NCHW`` layout.
      ksize: An int or a list of 1, 2 or 4 ints: the window size per dimension.
      strides: An int or a list of 1, 2 or 4 ints: the window stride per dimension.
      padding: ``'VALID'`` or ``'SAME'`` (or explicit paddings where TF allows them).
      data_format: ``'NHWC'`` (default) or ``'NCHW'``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and layout, with the pooled spatial dimensions.

    Raises:
      InvalidArgumentError: For a wrong rank, dtype, ``ksize``/``strides`` length or
        non-positive entries.
    """
    return _pool("max", "MaxPool", 2, input, ksize, strides, padding, data_format)


@public("torchflow.nn")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:
    """Max pooling of a 5-D ``input`` (``NDHWC`` or ``NCDHW``); see ``max_pool``.

    Args:
      input: A 5-D float tensor in ``NDHWC`` (default) or ``NCDHW`` layout.
      ksize: An int or a list of 1, 3 or 5 ints: the window size per dimension.
      strides: An int or a list of 1, 3 or 5 ints: the window stride per dimension.
      padding: ``'VALID'`` or ``'SAME'`` (or explicit paddings where TF allows them).
      data_format: ``'NDHWC'`` (default) or ``'NCDHW'``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and layout, with the pooled spatial dimensions.

    Raises:
      InvalidArgumentError: For a wrong rank, dtype, ``ksize``/``strides`` length or
        non-positive entries.
    """
    return _pool("max", "MaxPool3D", 3, input, ksize, strides, padding, data_format)


@public("torchflow.nn")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:
    """Average pooling of a 3-D ``input`` (``NWC`` or ``NCW``); see ``avg_pool``.

    Args:
      input: A 3-D float tensor in ``NWC`` (default) or ``NCW`` layout.
      ksize: An int or a list of 1, 1 or 3 ints: the window size per dimension.
      strides: An int or a list of 1, 1 or 3 ints: the window stride per dimension.
      padding: ``'VALID'`` or ``'SAME'`` (or explicit paddings where TF allows them).
      data_format: ``'NWC'`` (default) or ``'NCW'``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and layout, with the pooled spatial dimensions.

    Raises:
      InvalidArgumentError: For a wrong rank, dtype, ``ksize``/``strides`` length or
        non-positive entries.
    """
    return _pool("avg", "AvgPool", 1, input, ksize, strides, padding, data_format)


@public("torchflow.nn")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:
    """Average pooling of a 4-D ``input`` (``NHWC`` or ``NCHW``); see ``avg_pool``.

    Args:
      input: A 4-D float tensor in ``NHWC`` (default) or ``NCHW`` layout.
      ksize: An int or a list of 1, 2 or 4 ints: the window size per dimension.
      strides: An int or a list of 1, 2 or 4 ints: the window stride per dimension.
      padding: ``'VALID'`` or ``'SAME'`` (or explicit paddings where TF allows them).
      data_format: ``'NHWC'`` (default) or ``'NCHW'``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and layout, with the pooled spatial dimensions.

    Raises:
      InvalidArgumentError: For a wrong rank, dtype, ``ksize``/``strides`` length or
        non-positive entries.
    """
    return _pool("avg", "AvgPool", 2, input, ksize, strides, padding, data_format)


@public("torchflow.nn")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:
    """Average pooling of a 5-D ``input`` (``NDHWC`` or ``NCDHW``); see ``avg_pool``.

    Args:
      input: A 5-D float tensor in ``NDHWC`` (default) or ``NCDHW`` layout.
      ksize: An int or a list of 1, 3 or 5 ints: the window size per dimension.
      strides: An int or a list of 1, 3 or 5 ints: the window stride per dimension.
      padding: ``'VALID'`` or ``'SAME'`` (or explicit paddings where TF allows them).
      data_format: ``'NDHWC'`` (default) or ``'NCDHW'``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and layout, with the pooled spatial dimensions.

    Raises:
      InvalidArgumentError: For a wrong rank, dtype, ``ksize``/``strides`` length or
        non-positive entries.
    """
    return _pool("avg", "AvgPool3D", 3, input, ksize, strides, padding, data_format)



@public("torchflow.nn")
def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,
         dilations=None, name=None) -> Tensor:
    """N-D max or average pooling (N = 1, 2 or 3).

    Args:
      input: A Tensor of rank N + 2.
      window_shape: N ints.
      pooling_type: ``"MAX"`` or ``"AVG"``.
      strides: Optional N ints (default 1).
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: Optional; channels-last by default.
      dilations: Optional N ints; only 1 is supported.
      name: Unused (eager).

    Returns:
      The pooled Tensor.

    Raises:
      ValueError: on an unknown ``pooling_type`` or dilations other than 1.
    """
    kind = {"MAX": "max", "AVG": "avg"}.get(str(pooling_type).upper())
    if kind is None:
        raise ValueError(f"Invalid pooling_type: {pooling_type}")
    n = len(nc.int_list(window_shape, "window_shape"))
    if dilations is not None and any(d != 1 for d in nc.int_list(dilations, "dilations")):
        raise ValueError("tf.nn.pool: dilation rates other than 1 are not supported by "
                         "torchflow yet.")
    op = ("MaxPool" if kind == "max" else "AvgPool") + ("3D" if n == 3 else "")
    return _pool(kind, op, n, input, window_shape, strides if strides is not None else 1,
                 padding, data_format)


@public("torchflow.nn")
def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",
                         output_dtype=dtypes.int64, include_batch_in_index=False, name=None):
    """2-D max pooling that also returns the flat index of each maximum.

    The index of ``[b, y, x, c]`` is ``((b * height + y) * width + x) * channels + c``
    with ``include_batch_in_index``, else ``(y * width + x) * channels + c``.

    Args:
      input: A 4-D NHWC tensor.
      ksize: An int or list of 1, 2 or 4 ints.
      strides: An int or list of 1, 2 or 4 ints.
      padding: ``'VALID'`` or ``'SAME'``.
      data_format: Only ``'NHWC'`` (the default).
      output_dtype: ``tf.int64`` (default) or ``tf.int32``: the dtype of ``argmax``.
      include_batch_in_index: bool, default False: whether the flat index counts the batch.
      name: Unused (eager).

    Returns:
      ``(output, argmax)``.
    """
    op = "MaxPoolWithArgmax"
    x = nc.typed_arg(op, input, _MAX_TYPES)
    xt = x._t
    if xt.ndim != 4:
        raise InvalidArgumentError(None, None, f"input must be 4-dimensional [Op:{op}]")
    if data_format != "NHWC":
        raise ValueError(f"{op}: only data_format='NHWC' is supported, got {data_format}")
    k = nc.spatial(ksize, 2, "ksize", True, op)
    s = nc.spatial(strides, 2, "strides", True, op)
    xc = nc.to_nc(xt, True)
    n_, c_, h, w = xc.shape
    p = nc.pads(padding, 2, True, [h, w], k, s, [1, 1], op)
    nc.check_output_sizes(op, [h, w], p, k, s, [1, 1])
    work = xc if xc.dtype.is_floating_point else xc.double()
    padded = F.pad(work, [p[1][0], p[1][1], p[0][0], p[0][1]], value=float("-inf"))
    try:
        out, idx = F.max_pool2d(padded, k, s, return_indices=True)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    wp = padded.shape[-1]
    yy = idx // wp - p[0][0]
    xx = idx % wp - p[1][0]
    chan = torch.arange(c_, device=xt.device).reshape(1, c_, 1, 1)
    flat = (yy * w + xx) * c_ + chan
    if include_batch_in_index:
        flat = flat + torch.arange(n_, device=xt.device).reshape(n_, 1, 1, 1) * (h * w * c_)
    od = dtypes.as_dtype(output_dtype)
    return (wrap(nc.from_nc(out.to(xt.dtype), True), x._dtype),
            wrap(nc.from_nc(flat, True).to(od._torch), od))
