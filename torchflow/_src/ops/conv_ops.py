"""Convolutions: ``tf.nn.conv1d/conv2d/conv3d``, their transposes, depthwise and
separable convolutions, on torch's ``F.conv*`` kernels.

TF's channels-last inputs (NHWC) are viewed as NCHW with ``movedim``; the view's
strides are torch's ``channels_last`` memory format, which the CPU (oneDNN) and
cuDNN kernels take directly, so no layout copy is made on the way in or out.
TF's ``SAME`` padding puts the odd extra row at the bottom/right; symmetric pads
go to the kernel and only asymmetric ones cost an ``F.pad``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError, dims
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public

_CONV_TYPES = nc.TypeSet(nc.FLOATS + (dtypes.int32,))
_FN = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_FN_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
_OPS = {1: "Conv1D", 2: "Conv2D", 3: "Conv3D"}


def _inputs(op: str, x, filters):
    x = nc.typed_arg(op, x, _CONV_TYPES)
    w = nc.same_dtype(op, x, filters)
    return x, w


def _flatten_batch(xt: torch.Tensor, n: int, op: str):
    """Folds extra leading batch dims into one (TF 2.x accepts them)."""
    if xt.ndim < n + 2:
        raise InvalidArgumentError(
            None, None,
            f"convolution input must be {n + 2}-dimensional: {dims(xt.shape)} [Op:{op}]")
    if xt.ndim == n + 2:
        return xt, None
    lead = xt.shape[: xt.ndim - n - 1]
    return xt.reshape((-1,) + tuple(xt.shape[xt.ndim - n - 1:])), lead


def _conv(op, n, input, filters, strides, padding, data_format, dilations):
    x, w = _inputs(op, input, filters)
    cl = nc.channels_last(data_format, n, op)
    s = nc.spatial(strides, n, "strides", cl, op)
    d = nc.spatial(dilations, n, "dilations", cl, op)
    xt, lead = _flatten_batch(x._t, n, op)
    wt = w._t
    if wt.ndim != n + 2:
        raise InvalidArgumentError(
            None, None, f"filter must be {n + 2}-dimensional: {dims(wt.shape)} [Op:{op}]")
    xc = nc.to_nc(xt, cl)
    cin, fin = xc.shape[1], wt.shape[-2]
    if fin == 0 or cin % fin:
        raise InvalidArgumentError(
            None, None,
            f"input depth must be evenly divisible by filter depth: {cin} vs {fin} [Op:{op}]")
    ksize = list(wt.shape[:n])
    p = nc.pads(padding, n, cl, list(xc.shape[2:]), ksize, s, d, op)
    nc.check_output_sizes(op, list(xc.shape[2:]), p, ksize, s, d)
    try:
        xc, tp = nc.apply_pads(xc, p)
        # Output size 0 (padded input shorter than the kernel, not negative): TF
        # returns an empty output.
        if any(xc.shape[2 + i] + 2 * tp[i] < (ksize[i] - 1) * d[i] + 1 for i in range(n)):
            out_sp = [0] * n
            out = xc.new_zeros((xc.shape[0], wt.shape[-1], *out_sp))
        else:
            weight = wt.permute(n + 1, n, *range(n))
            if xt.dtype == torch.int32:  # no integer conv kernels in torch
                out = _FN[n](xc.double(), weight.double(), None, s, tp, d, cin // fin)
                out = out.to(torch.int32)
            else:
                out = _FN[n](xc, weight, None, s, tp, d, cin // fin)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    out = nc.from_nc(out, cl)
    if lead is not None:
        out = out.reshape(tuple(lead) + tuple(out.shape[1:]))
    return wrap(out, x._dtype)


@public("torchflow.nn")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,
           name=None) -> Tensor:
    """Computes a 2-D convolution given 4-D ``input`` and ``filters`` tensors.

    Args:
      input: A Tensor of rank 4 or more (``[batch, in_height, in_width,
        in_channels]`` for NHWC), half/bfloat16/float32/float64/int32.
      filters: A Tensor of the same dtype, ``[filter_height, filter_width,
        in_channels / groups, out_channels]``.
      strides: An int or list of 1, 2 or 4 ints.
      padding: ``"SAME"``, ``"VALID"``, or explicit ``[[0, 0], [top, bottom],
        [left, right], [0, 0]]`` pairs in the data format's order.
      data_format: ``"NHWC"`` (default) or ``"NCHW"``.
      dilations: An int or list of 1, 2 or 4 ints (default 1).
      name: Unused (eager).

    Returns:
      A Tensor of ``input``'s dtype.

    Raises:
      InvalidArgumentError: on dtype/shape mismatches or a bad padding name.
      ValueError: if ``strides``/``dilations`` have a wrong length.

    Differences from TensorFlow 2.4: ``NCHW`` also works on the CPU.

    >>> import torchflow as tf
    >>> tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "SAME").shape
    TensorShape([1, 3, 3, 1])
    """
    return _conv("Conv2D", 2, input, filters, strides, padding, data_format, dilations)


@public("torchflow.nn")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,
           name=None) -> Tensor:
    """Computes a 1-D convolution of a 3-D ``input`` (``[batch, width, channels]``
    for ``NWC``, or ``NCW``) with ``filters`` ``[width, in_channels, out_channels]``.

    Args:
      input: A Tensor of rank 3 or more.
      filters: A Tensor of the same dtype.
      stride: An int or list of 1 or 3 ints.
      padding: ``"SAME"``, ``"VALID"`` or explicit pairs.
      data_format: ``"NWC"`` (default) or ``"NCW"``.
      dilations: An int or list of 1 or 3 ints.
      name: Unused (eager).

    Returns:
      A Tensor of ``input``'s dtype.
    """
    return _conv("Conv1D", 1, input, filters, stride, padding, data_format, dilations)


@public("torchflow.nn")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None,
           name=None) -> Tensor:
    """Computes a 3-D convolution of a 5-D ``input`` with 5-D ``filters``
    (``[depth, height, width, in_channels, out_channels]``).

    Args:
      input: A Tensor of rank 5 or more.
      filters: A Tensor of the same dtype.
      strides: A list of 5 ints (an int or 3 ints are accepted too).
      padding: ``"SAME"``, ``"VALID"`` or explicit pairs.
      data_format: ``"NDHWC"`` (default) or ``"NCDHW"``.
      dilations: A list of 5 ints (default 1).
      name: Unused (eager).

    Returns:
      A Tensor of ``input``'s dtype.
    """
    return _conv("Conv3D", 3, input, filters, strides, padding, data_format, dilations)


@public("torchflow.nn")
def convolution(input, filters, strides=None, padding="VALID", data_format=None,
                dilations=None, name=None) -> Tensor:
    """An N-D convolution (N = 1, 2 or 3, from the rank of ``filters``).

    Args:
      input: A Tensor of rank N + 2.
      filters: A Tensor of rank N + 2 and ``input``'s dtype.
      strides: Optional int or list of N ints.
      padding: ``"SAME"``, ``"VALID"`` or explicit pairs.
      data_format: Optional; channels-last by default.
      dilations: Optional int or list of N ints.
      name: Unused (eager).

    Returns:
      A Tensor of ``input``'s dtype.
    """
    filters = tensor_arg(filters)
    n = filters._t.ndim - 2
    if n not in _FN:
        raise ValueError(f"tf.nn.convolution: filters must have rank 3, 4 or 5. "
                         f"Received: filters.shape={getattr(filters, 'shape', None)}")
    return _conv(_OPS[n], n, input, filters, strides, padding, data_format, dilations)


def _conv_transpose(op, n, input, filters, output_shape, strides, padding, data_format,
                    dilations):
    x, w = _inputs(op, input, filters)
    cl = nc.channels_last(data_format, n, op)
    s = nc.spatial(strides, n, "strides", cl, op)
    d = nc.spatial(dilations, n, "dilations", cl, op)
    xt, wt = x._t, w._t
    if xt.ndim != n + 2 or wt.ndim != n + 2:
        raise InvalidArgumentError(
            None, None, f"input and filter must be {n + 2}-dimensional: {list(xt.shape)} "
                        f"and {list(wt.shape)} [Op:{op}]")
    oshape = nc.int_list(output_shape, "output_shape")
    if len(oshape) != n + 2:
        raise InvalidArgumentError(
            None, None, f"output_shape must have {n + 2} elements, got {oshape} [Op:{op}]")
    out_sp = oshape[1:-1] if cl else oshape[2:]
    out_c = oshape[-1] if cl else oshape[1]
    xc = nc.to_nc(xt, cl)
    ksize = list(wt.shape[:n])
    if wt.shape[-2] != out_c or wt.shape[-1] != xc.shape[1] or oshape[0] != xc.shape[0]:
        raise InvalidArgumentError(
            None, None,
            f"Conv{n}DBackpropInput: filter {list(wt.shape)} does not match input "
            f"{list(xt.shape)} and output_shape {oshape} [Op:{op}]")
    p = nc.pads(padding, n, cl, out_sp, ksize, s, d, op)
    for i in range(n):
        eff = (ksize[i] - 1) * d[i] + 1
        expect = (out_sp[i] + p[i][0] + p[i][1] - eff) // s[i] + 1
        if expect != xc.shape[2 + i]:
            raise InvalidArgumentError(
                None, None,
                f"Conv{n}DBackpropInput: Size of out_backprop doesn't match computed: "
                f"actual = {xc.shape[2 + i]}, computed = {expect} spatial_dim: {i} "
                f"input: {out_sp[i]} filter: {ksize[i]} output: {xc.shape[2 + i]} "
                f"stride: {s[i]} dilation: {d[i]} [Op:{op}]")
    weight = wt.permute(n + 1, n, *range(n))  # [in (=x channels), out, *k]
    try:
        full = _FN_T[n](xc.double() if xt.dtype == torch.int32 else xc,
                        weight.double() if xt.dtype == torch.int32 else weight,
                        None, s, 0, 0, 1, d)
        # full[i] is out[i - pad_before]; rows past the computed output are zeros.
        flat = []
        for i in reversed(range(n)):
            before = p[i][0]
            after = out_sp[i] - (full.shape[2 + i] - before)
            flat += [-before, after]
        out = F.pad(full, flat) if any(flat) else full
        if xt.dtype == torch.int32:
            out = out.to(torch.int32)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return wrap(nc.from_nc(out, cl), x._dtype)


@public("torchflow.nn")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NHWC", dilations=None, name=None) -> Tensor:
    """The transpose of ``conv2d`` (the gradient of conv2d with respect to its input).

    Args:
      input: A 4-D Tensor (``[batch, height, width, in_channels]`` for NHWC).
      filters: ``[height, width, output_channels, in_channels]``, ``input``'s dtype.
      output_shape: The full 4-D output shape (list or 1-D Tensor).
      strides: An int or list of 1, 2 or 4 ints.
      padding: ``"SAME"``, ``"VALID"`` or explicit pairs.
      data_format: ``"NHWC"`` (default) or ``"NCHW"``.
      dilations: An int or list of 1, 2 or 4 ints.
      name: Unused (eager).

    Returns:
      A Tensor of shape ``output_shape``.

    Raises:
      InvalidArgumentError: if ``output_shape`` does not give ``input``'s spatial
        size under ``conv2d`` with the same strides and padding.
    """
    return _conv_transpose("Conv2DBackpropInput", 2, input, filters, output_shape, strides,
                           padding, data_format, dilations)


@public("torchflow.nn")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NWC", dilations=None, name=None) -> Tensor:
    """The transpose of ``conv1d``; ``filters`` is ``[width, output_channels,
    in_channels]`` and ``output_shape`` the full 3-D output shape.

    Args:
      input: A 3-D float tensor (``NWC`` or ``NCW``).
      filters: A 3-D float tensor ``[width, output_channels, in_channels]``.
      output_shape: A 1-D int tensor of length 3: the output shape.
      strides: An int or list of 1 or 3 ints.
      padding: ``'SAME'`` (default) or ``'VALID'``.
      data_format: ``'NWC'`` (default) or ``'NCW'``.
      dilations: None (default: 1), an int or list of 1 or 3 ints.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape ``output_shape``.
    """
    return _conv_transpose("Conv2DBackpropInput", 1, input, filters, output_shape, strides,
                           padding, data_format, dilations)


@public("torchflow.nn")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NDHWC", dilations=None, name=None) -> Tensor:
    """The transpose of ``conv3d``; ``filters`` is ``[depth, height, width,
    output_channels, in_channels]`` and ``output_shape`` the full 5-D output shape.

    Args:
      input: A 5-D float tensor (``NDHWC`` or ``NCDHW``).
      filters: A 5-D float tensor ``[depth, height, width, output_channels, in_channels]``.
      output_shape: A 1-D int tensor of length 5: the output shape.
      strides: An int or list of 1, 3 or 5 ints.
      padding: ``'SAME'`` (default) or ``'VALID'``.
      data_format: ``'NDHWC'`` (default) or ``'NCDHW'``.
      dilations: None (default: 1), an int or list of 1, 3 or 5 ints.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape ``output_shape``.
    """
    return _conv_transpose("Conv3DBackpropInputV2", 3, input, filters, output_shape, strides,
                           padding, data_format, dilations)


@public("torchflow.nn")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,
                   dilations=None, name=None) -> Tensor:
    """The transpose of ``convolution`` for N = 1, 2 or 3 (from ``input``'s rank).

    Args:
      input: A float tensor of rank N + 2.
      filters: A float tensor ``spatial_shape + [output_channels, in_channels]``.
      output_shape: A 1-D int tensor of length N + 2: the output shape.
      strides: An int or list of N or N + 2 ints.
      padding: ``'SAME'`` (default) or ``'VALID'``.
      data_format: None (default: channels last) or a ``'NC...'`` / ``'N...C'`` string.
      dilations: None (default: 1), an int or a list of ints.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape ``output_shape``.
    """
    input = tensor_arg(input)
    n = input._t.ndim - 2
    if n not in _FN:
        raise ValueError(f"tf.nn.conv_transpose: input must have rank 3, 4 or 5. "
                         f"Received: input.shape={getattr(input, 'shape', None)}")
    return _conv_transpose("Conv2DBackpropInput", n, input, filters, output_shape, strides,
                           padding, data_format, dilations)


def _depthwise(op, x, filt, strides, padding, data_format, dilations):
    x, w = _inputs(op, x, filt)
    cl = nc.channels_last(data_format, 2, op)
    s = nc.spatial(strides, 2, "strides", cl, op)
    d = nc.spatial(dilations, 2, "dilations", cl, op)
    xt, wt = x._t, w._t
    if xt.ndim != 4 or wt.ndim != 4:
        raise InvalidArgumentError(
            None, None, f"input and filter must be 4-dimensional: {list(xt.shape)} and "
                        f"{list(wt.shape)} [Op:{op}]")
    xc = nc.to_nc(xt, cl)
    cin = xc.shape[1]
    if wt.shape[2] != cin:
        raise InvalidArgumentError(
            None, None,
            f"input and filter must have the same depth: {cin} vs {wt.shape[2]} [Op:{op}]")
    kh, kw, _, mult = wt.shape
    p = nc.pads(padding, 2, cl, list(xc.shape[2:]), [kh, kw], s, d, op)
    outs = nc.check_output_sizes(op, list(xc.shape[2:]), p, [kh, kw], s, d)
    if 0 in outs:  # an empty output, as TF gives
        out = xc.new_zeros((xc.shape[0], cin * mult, *outs))
        return wrap(nc.from_nc(out, cl), x._dtype)
    # Output channel c * multiplier + m, as TF orders them.
    weight = wt.reshape(kh, kw, 1, cin * mult).permute(3, 2, 0, 1)
    try:
        xc, tp = nc.apply_pads(xc, p)
        if xt.dtype == torch.int32:
            out = F.conv2d(xc.double(), weight.double(), None, s, tp, d, cin).to(torch.int32)
        else:
            out = F.conv2d(xc, weight, None, s, tp, d, cin)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return wrap(nc.from_nc(out, cl), x._dtype)


@public("torchflow.nn")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None,  # noqa: A002 (TF's argument name)
                     name=None) -> Tensor:
    """Depthwise 2-D convolution: each input channel is convolved with its own
    ``channel_multiplier`` filters.

    Args:
      input: A 4-D Tensor (NHWC by default).
      filter: ``[filter_height, filter_width, in_channels, channel_multiplier]``.
      strides: A list of 4 ints (an int or 2 ints are accepted too).
      padding: ``"SAME"``, ``"VALID"`` or explicit pairs.
      data_format: ``"NHWC"`` (default) or ``"NCHW"``.
      dilations: A list of 2 ints, the atrous rate (default 1).
      name: Unused (eager).

    Returns:
      A 4-D Tensor with ``in_channels * channel_multiplier`` channels.
    """
    return _depthwise("DepthwiseConv2dNative", input, filter, strides, padding, data_format,
                      dilations)


@public("torchflow.nn")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,
                     data_format=None, dilations=None, name=None) -> Tensor:
    """A depthwise convolution followed by a 1x1 (pointwise) convolution.

    Args:
      input: A 4-D Tensor (NHWC by default).
      depthwise_filter: ``[h, w, in_channels, channel_multiplier]``.
      pointwise_filter: ``[1, 1, in_channels * channel_multiplier, out_channels]``.
      strides: A list of 4 ints for the depthwise step.
      padding: ``"SAME"`` or ``"VALID"`` for the depthwise step.
      data_format: ``"NHWC"`` (default) or ``"NCHW"``.
      dilations: A list of 2 ints, the atrous rate of the depthwise step.
      name: Unused (eager).

    Returns:
      A 4-D Tensor with ``out_channels`` channels.

    Raises:
      ValueError: if ``pointwise_filter`` is not 1x1.
    """
    pw = getattr(pointwise_filter, "shape", None)
    if pw is not None and len(pw) == 4 and (pw[0] != 1 or pw[1] != 1):
        raise ValueError(f"tf.nn.separable_conv2d: pointwise_filter must be 1x1. "
                         f"Received: pointwise_filter.shape={pw}")
    depth = _depthwise("DepthwiseConv2dNative", input, depthwise_filter, strides, padding,
                       data_format, dilations)
    return _conv("Conv2D", 2, depth, pointwise_filter, 1, "VALID", data_format, None)


@public("torchflow.nn")
def atrous_conv2d(value, filters, rate, padding, name=None) -> Tensor:
    """Atrous (dilated) 2-D convolution: ``conv2d`` with ``dilations=rate``.

    Args:
      value: A 4-D NHWC Tensor.
      filters: ``[height, width, in_channels, out_channels]``.
      rate: A positive int, the dilation rate.
      padding: ``"SAME"`` or ``"VALID"``.
      name: Unused (eager).

    Returns:
      A 4-D Tensor.
    """
    return _conv("Conv2D", 2, value, filters, 1, padding, "NHWC", rate)


@public("torchflow.nn")
def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None) -> Tensor:
    """The transpose of ``atrous_conv2d``; ``filters`` is ``[height, width,
    out_channels, in_channels]``.

    Args:
      value: A 4-D NHWC float tensor.
      filters: A 4-D float tensor ``[height, width, out_channels, in_channels]``.
      output_shape: A 1-D int tensor: the 4-D NHWC output shape.
      rate: A positive int: the dilation rate.
      padding: ``'VALID'`` or ``'SAME'``.
      name: Unused (eager).

    Returns:
      A tensor of ``value``'s dtype and shape ``output_shape``.
    """
    return _conv_transpose("Conv2DBackpropInput", 2, value, filters, output_shape, 1, padding,
                           "NHWC", rate)


def _depthwise_vjp(op, wrt, input_or_sizes, filter_or_sizes, out_backprop, strides, padding,
                   data_format, dilations):
    """The gradient of ``depthwise_conv2d`` with respect to its input or filter,
    taken from torch autograd on the forward op (keeps higher-order tapes working)."""
    g = nc.typed_arg(op, out_backprop, nc.FLOATS)
    outer = torch.is_grad_enabled()
    with torch.enable_grad():
        # The op is linear in the differentiated argument, so a zero leaf of its
        # shape stands in for it.
        if wrt == "input":
            shape = nc.int_list(input_or_sizes, "input_sizes")
            x = target = g._t.new_zeros(shape).requires_grad_(True)
            w = nc.same_dtype(op, g, filter_or_sizes)._t
        else:
            shape = nc.int_list(filter_or_sizes, "filter_sizes")
            x = nc.same_dtype(op, g, input_or_sizes)._t
            w = target = g._t.new_zeros(shape).requires_grad_(True)
        y = _depthwise(op, wrap(x, g._dtype), wrap(w, g._dtype), strides, padding, data_format,
                       dilations)._t
        if tuple(y.shape) != tuple(g._t.shape):
            raise InvalidArgumentError(
                None, None, f"{op}: out_backprop shape {list(g._t.shape)} does not match the "
                            f"forward output {list(y.shape)} [Op:{op}]")
        (grad,) = torch.autograd.grad(y, target, g._t, create_graph=outer)
    return wrap(grad, g._dtype)


@public("torchflow.nn")
def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002 (TF's argument name)
                                    data_format="NHWC", dilations=[1, 1, 1, 1],  # noqa: B006
                                    name=None) -> Tensor:
    """The gradient of ``depthwise_conv2d`` with respect to its input.

    Args:
      input_sizes: The 4 ints of the input's shape.
      filter: ``[h, w, in_channels, channel_multiplier]``.
      out_backprop: The gradient with respect to the output.
      strides, padding, data_format, dilations: As in the forward op.
      name: Unused (eager).

    Returns:
      A Tensor of shape ``input_sizes``.
    """
    return _depthwise_vjp("DepthwiseConv2dNativeBackpropInput", "input", input_sizes, filter,
                          out_backprop, strides, padding, data_format, dilations)


@public("torchflow.nn")
def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                     data_format="NHWC", dilations=[1, 1, 1, 1],  # noqa: B006
                                     name=None) -> Tensor:
    """The gradient of ``depthwise_conv2d`` with respect to its filter.

    Args:
      input: The forward op's 4-D input.
      filter_sizes: The 4 ints of the filter's shape.
      out_backprop: The gradient with respect to the output.
      strides, padding, data_format, dilations: As in the forward op.
      name: Unused (eager).

    Returns:
      A Tensor of shape ``filter_sizes``.
    """
    return _depthwise_vjp("DepthwiseConv2dNativeBackpropFilter", "filter", input, filter_sizes,
                          out_backprop, strides, padding, data_format, dilations)
