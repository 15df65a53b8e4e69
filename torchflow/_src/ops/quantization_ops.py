"""``tf.quantization``: simulated quantization (quantize-and-dequantize, fake quant).

The forward passes follow TF's kernels step by step (the scale is chosen so
that 0 stays exact, computed in the input's dtype) so the values match TF's.

Gradients: ``quantize_and_dequantize_v2`` passes the gradient where
``input_min <= x <= input_max`` and zero elsewhere (TF's QuantizeAndDequantizeV4
gradient); ``quantize_and_dequantize`` (V1) is straight-through; fake-quant ops
pass the gradient inside the nudged range. The pure forward functions
(``qdq_forward``, ``fake_quant_forward``) are separate so that other gradient
rules can be attached to them.
"""

from __future__ import annotations

import collections

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import invalid_argument, translate
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
from torchflow._src.util.api import public

_ROUND_MODES = ("HALF_TO_EVEN", "HALF_UP")


def _round(x: torch.Tensor, mode: str) -> torch.Tensor:
    return torch.round(x) if mode == "HALF_TO_EVEN" else torch.floor(x + 0.5)


def qdq_forward(x: torch.Tensor, lo: torch.Tensor, hi: torch.Tensor, signed_input: bool,
                num_bits: int, range_given: bool, round_mode: str, narrow_range: bool,
                axis: int | None) -> torch.Tensor:
    """Quantize-and-dequantize ``x`` as TF's kernel does (no gradient rules here).

    ``lo``/``hi`` are the given range (scalars, or vectors along ``axis``); when
    ``range_given`` is False the range is the min/max of ``x`` (per channel).
    """
    if axis is None:
        dims = None
    else:
        dims = [d for d in range(x.ndim) if d != axis]
    if not range_given:
        if x.numel() == 0:
            return x.clone()
        if dims is None:
            lo, hi = x.min(), x.max()
        else:
            lo, hi = torch.amin(x, dim=dims), torch.amax(x, dim=dims)
    if axis is not None:
        shape = [1] * x.ndim
        shape[axis] = -1
        lo, hi = lo.reshape(shape), hi.reshape(shape)
    if signed_input:
        qmin = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        qmax = (1 << (num_bits - 1)) - 1
    else:
        qmin, qmax = 0, (1 << num_bits) - 1
    big = torch.finfo(x.dtype).max
    lo, hi = lo.to(x.dtype), hi.to(x.dtype)
    qmin_t = torch.tensor(float(qmin), dtype=x.dtype, device=x.device)
    qmax_t = torch.tensor(float(qmax), dtype=x.dtype, device=x.device)
    s_min = torch.where(qmin_t * lo > 0, qmin_t / lo, torch.full_like(lo, big))
    s_max = torch.where(qmax_t * hi > 0, qmax_t / hi, torch.full_like(hi, big))
    use_min = s_min < s_max
    scale = torch.where(use_min, s_min, s_max)
    inv = torch.where(use_min, lo / qmin_t, hi / qmax_t)
    new_lo = torch.where(use_min, lo, qmin_t * inv)
    new_hi = torch.where(use_min, qmax_t * inv, hi)
    if range_given:
        x = x.minimum(new_hi).maximum(new_lo)
    return _round(x * scale, round_mode) * inv


def _qdq_args(op, input, input_min, input_max, signed_input, num_bits, range_given,
              round_mode, narrow_range, axis):
    if round_mode not in _ROUND_MODES:
        raise ValueError(f"{op}: round_mode must be one of {list(_ROUND_MODES)}. "
                         f"Received: round_mode={round_mode!r}")
    t = tensor_arg(input)
    if not t._dtype.is_floating:
        raise invalid_argument(op, f"Value for attr 'T' of {t._dtype.name} is not in the list "
                                   "of allowed values: bfloat16, half, float, double")
    x = t._t
    lo = tensor_arg(input_min, t._dtype)._t.to(x.device)
    hi = tensor_arg(input_max, t._dtype)._t.to(x.device)
    nb = int(num_bits)
    if not (0 < nb <= (63 if signed_input else 62)) or (signed_input and nb < 2 and narrow_range):
        raise invalid_argument(op, f"num_bits is out of range: {nb} with signed_input_ "
                                   f"{str(bool(signed_input)).lower()}")
    ax = None
    if axis is not None:
        ax = int(axis)
        if ax < 0:
            ax += x.ndim
        if not 0 <= ax < x.ndim:
            raise invalid_argument(op, f"Axis requested is larger than input dimensions. "
                                       f"Axis: {axis} Input Dimensions: {x.ndim}")
        depth = x.shape[ax]
        if range_given and (lo.numel() != depth or hi.numel() != depth):
            raise invalid_argument(op, f"input_min and input_max must have {depth} elements, "
                                       f"got {lo.numel()} and {hi.numel()}")
        lo, hi = lo.reshape(-1), hi.reshape(-1)
    elif range_given and (lo.ndim != 0 or hi.ndim != 0):
        raise invalid_argument(op, "input_min must be a scalar." if lo.ndim else
                               "input_max must be a scalar.")
    if range_given and bool((lo > hi).any()):
        raise invalid_argument(op, f"Invalid range: input_min {lo.min().item():g} > input_max "
                                   f"{hi.max().item():g}")
    return t, x, lo, hi, nb, ax


@public("torchflow.quantization")
def quantize_and_dequantize_v2(input, input_min, input_max, signed_input=True,
                               num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                               name=None, narrow_range=False, axis=None) -> Tensor:
    """Quantizes then dequantizes a tensor (simulated quantization).

    The gradient is passed through where ``input_min <= input <= input_max`` and
    is zero outside that range.

    Args:
      input: A floating Tensor.
      input_min: Minimum of the range (scalar, or ``[depth]`` with ``axis``).
      input_max: Maximum of the range.
      signed_input: Whether the quantized values are signed.
      num_bits: Bit width of the quantization.
      range_given: Use ``input_min``/``input_max`` as the range (values are
        clamped); otherwise the range is ``input``'s min and max.
      round_mode: ``"HALF_TO_EVEN"`` (default) or ``"HALF_UP"``.
      name: Unused (eager).
      narrow_range: Drop the lowest signed value (e.g. use [-127, 127]).
      axis: Optional axis for per-channel ranges.

    Returns:
      A Tensor of ``input``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``input_min > input_max`` with ``range_given``, or
        ``num_bits``/``axis`` are out of range.

    >>> import torchflow as tf
    >>> tf.quantization.quantize_and_dequantize_v2(
    ...     tf.constant([-1.0, 0.3, 1.0]), -1.0, 1.0, num_bits=3, range_given=True).numpy()
    array([-1.        ,  0.33333334,  1.        ], dtype=float32)
    """
    op = "QuantizeAndDequantizeV4"
    t, x, lo, hi, nb, ax = _qdq_args(op, input, input_min, input_max, signed_input, num_bits,
                                     range_given, round_mode, narrow_range, axis)
    try:
        y = qdq_forward(x.detach(), lo, hi, signed_input, nb, range_given, round_mode,
                        narrow_range, ax)
        if x.requires_grad:
            if ax is not None:
                shape = [1] * x.ndim
                shape[ax] = -1
                lo, hi = lo.reshape(shape), hi.reshape(shape)
            mask = (x >= lo) & (x <= hi)
            y = y + (x - x.detach()) * mask
        return wrap(y, t._dtype)
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None


@public("torchflow.quantization")
def quantize_and_dequantize(input, input_min, input_max, signed_input=True,
                            num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                            name=None, narrow_range=False, axis=None) -> Tensor:
    """Quantizes then dequantizes a tensor, with a straight-through gradient.

    Deprecated in TF 2.4 in favour of ``quantize_and_dequantize_v2``; the values
    are the same, only the gradient differs (identity everywhere here).

    Args: see ``quantize_and_dequantize_v2``.

    Returns:
      A Tensor of ``input``'s dtype and shape.
    """
    op = "QuantizeAndDequantizeV2"
    t, x, lo, hi, nb, ax = _qdq_args(op, input, input_min, input_max, signed_input, num_bits,
                                     range_given, round_mode, narrow_range, axis)
    try:
        y = qdq_forward(x.detach(), lo, hi, signed_input, nb, range_given, round_mode,
                        narrow_range, ax)
        if x.requires_grad:
            y = y + (x - x.detach())
        return wrap(y, t._dtype)
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None


# --- fake quantization ---------------------------------------------------------------
def _nudge(lo: torch.Tensor, hi: torch.Tensor, num_bits: int, narrow_range: bool):
    qmin = 1.0 if narrow_range else 0.0
    qmax = float((1 << num_bits) - 1)
    scale = (hi - lo) / (qmax - qmin)
    zp_from_min = qmin - lo / scale
    # std::round: halves away from zero (the zero point is >= 0 after clamping).
    zp = torch.where(zp_from_min < qmin, torch.full_like(zp_from_min, qmin),
                     torch.where(zp_from_min > qmax, torch.full_like(zp_from_min, qmax),
                                 torch.floor(zp_from_min.abs() + 0.5) * zp_from_min.sign()))
    return (qmin - zp) * scale, (qmax - zp) * scale, scale


def fake_quant_forward(x: torch.Tensor, lo, hi, num_bits: int, narrow_range: bool):
    """TF's FakeQuant kernel: returns ``(output, below, above)`` where the masks mark
    inputs under the nudged minimum / over the nudged maximum (no gradient rules)."""
    lo = torch.as_tensor(lo, dtype=torch.float32, device=x.device).detach()
    hi = torch.as_tensor(hi, dtype=torch.float32, device=x.device).detach()
    nmin, nmax, scale = _nudge(lo, hi, num_bits, narrow_range)
    xd = x.detach()
    clamped = xd.minimum(nmax).maximum(nmin)
    inv = 1.0 / scale
    out = torch.floor((clamped - nmin) * inv + 0.5) * scale + nmin
    return out, xd < nmin, xd > nmax


def _check_bits(op, num_bits) -> int:
    nb = int(num_bits)
    if not 2 <= nb <= 16:
        raise invalid_argument(op, f"num_bits is out of range, expected between 2 and 16, "
                                   f"was: {nb}")
    return nb


def _f32(op, v):
    t = tensor_arg(v, dtypes.float32)
    if t._dtype is not dtypes.float32:
        raise ValueError(f"{op}: Tensor conversion requested dtype float32 for Tensor with "
                         f"dtype {t._dtype.name}")
    return t._t


def _fake_quant(op, inputs, lo, hi, num_bits, narrow_range):
    x = _f32(op, inputs)
    nb = _check_bits(op, num_bits)
    try:
        y, below, above = fake_quant_forward(x, lo, hi, nb, narrow_range)
        # Gradients as TF's FakeQuant*Gradient ops: to the input inside the nudged
        # range, to min/max (when they are tensors) from the inputs clamped to them.
        if x.requires_grad:
            y = y + (x - x.detach()) * ~(below | above)
        if isinstance(lo, torch.Tensor) and lo.requires_grad:
            y = y + (lo - lo.detach()) * below
        if isinstance(hi, torch.Tensor) and hi.requires_grad:
            y = y + (hi - hi.detach()) * above
        return wrap(y, dtypes.float32)
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None


@public("torchflow.quantization")
def fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8,  # noqa: A002
                                 narrow_range=False, name=None) -> Tensor:
    """Fake-quantizes float32 ``inputs`` into ``[min, max]`` (nudged so 0 is exact).

    Args:
      inputs: A float32 Tensor.
      min: Python float, lower end of the range.
      max: Python float, upper end of the range.
      num_bits: Bit width (2..16).
      narrow_range: Quantize into ``[1, 2**num_bits - 1]`` instead of ``[0, ...]``.
      name: Unused (eager).

    Returns:
      A float32 Tensor.
    """
    if not float(min) < float(max):
        raise invalid_argument("FakeQuantWithMinMaxArgs",
                               f"min has to be smaller than max, was: {min} >= {max}")
    return _fake_quant("FakeQuantWithMinMaxArgs", inputs, float(min), float(max), num_bits,
                       narrow_range)


@public("torchflow.quantization")
def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8,  # noqa: A002
                                 narrow_range=False, name=None) -> Tensor:
    """Fake-quantizes float32 ``inputs`` into the range given by tensors ``min`` and ``max``.

    As ``fake_quant_with_min_max_args``, with the range in scalar tensors (often
    trained variables): the range is nudged so that 0 is exactly representable, values
    are clamped to it and rounded to one of ``2**num_bits`` steps.

    Args:
      inputs: A float32 Tensor.
      min: A scalar float32 Tensor, the lower end of the range.
      max: A scalar float32 Tensor, the upper end of the range.
      num_bits: int, default 8: the bit width, 2 to 16.
      narrow_range: bool, default False: quantize into ``[1, 2**num_bits - 1]`` instead
        of ``[0, 2**num_bits - 1]``.
      name: A name for the operation (optional).

    Returns:
      A float32 Tensor of ``inputs``' shape.

    Raises:
      InvalidArgumentError: ``num_bits`` is out of range.
      ValueError: a tensor is not float32 (TF's conversion error).
    """
    lo, hi = _f32("FakeQuantWithMinMaxVars", min), _f32("FakeQuantWithMinMaxVars", max)
    return _fake_quant("FakeQuantWithMinMaxVars", inputs, lo, hi, num_bits, narrow_range)


@public("torchflow.quantization")
def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8,  # noqa: A002
                                             narrow_range=False, name=None) -> Tensor:
    """Fake-quantizes float32 ``inputs`` with one range per channel (the last dimension).

    Args:
      inputs: A float32 Tensor whose last dimension has ``d`` channels.
      min: A float32 Tensor of shape ``[d]``, the lower ends of the ranges.
      max: A float32 Tensor of shape ``[d]``, the upper ends of the ranges.
      num_bits: int, default 8: the bit width, 2 to 16.
      narrow_range: bool, default False: quantize into ``[1, 2**num_bits - 1]`` instead
        of ``[0, 2**num_bits - 1]``.
      name: A name for the operation (optional).

    Returns:
      A float32 Tensor of ``inputs``' shape.

    Raises:
      InvalidArgumentError: ``num_bits`` is out of range.
      ValueError: a tensor is not float32 (TF's conversion error).
    """
    op = "FakeQuantWithMinMaxVarsPerChannel"
    lo, hi = _f32(op, min), _f32(op, max)
    return _fake_quant("FakeQuantWithMinMaxVarsPerChannel", inputs, lo, hi, num_bits,
                       narrow_range)


FakeQuantWithMinMaxVarsGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])
FakeQuantWithMinMaxVarsPerChannelGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])


@public("torchflow.quantization")
def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6, max=6,  # noqa: A002
                                          num_bits=8, narrow_range=False, name=None) -> Tensor:
    """The gradient of ``fake_quant_with_min_max_args``: ``gradients`` where ``inputs`` is in range.

    Args:
      gradients: A float32 Tensor, the gradient flowing into the fake-quant op's output.
      inputs: A float32 Tensor of the same shape, the op's input.
      min: Python float, default -6: the lower end of the range.
      max: Python float, default 6: the upper end of the range.
      num_bits: int, default 8: the bit width, 2 to 16.
      narrow_range: bool, default False: quantize into ``[1, 2**num_bits - 1]`` instead
        of ``[0, 2**num_bits - 1]``.
      name: A name for the operation (optional).

    Returns:
      A float32 Tensor: ``gradients`` inside the (nudged) range, 0 outside.
    """
    op = "FakeQuantWithMinMaxArgsGradient"
    g, x = _f32(op, gradients), _f32(op, inputs)
    _, below, above = fake_quant_forward(x, float(min), float(max), _check_bits(op, num_bits),
                                         narrow_range)
    return wrap(g * ~(below | above), dtypes.float32)


def _vars_gradient(op, gradients, inputs, min, max, num_bits,  # noqa: A002
                   narrow_range, per_channel):
    g, x = _f32(op, gradients), _f32(op, inputs)
    lo, hi = _f32(op, min), _f32(op, max)
    _, below, above = fake_quant_forward(x, lo, hi, _check_bits(op, num_bits), narrow_range)
    dims = list(range(x.ndim - 1)) if per_channel else list(range(x.ndim))
    zero = torch.zeros((), dtype=g.dtype, device=g.device)
    d_min = torch.where(below, g, zero).sum(dim=dims) if dims else torch.where(below, g, zero)
    d_max = torch.where(above, g, zero).sum(dim=dims) if dims else torch.where(above, g, zero)
    return (wrap(g * ~(below | above), dtypes.float32), wrap(d_min, dtypes.float32),
            wrap(d_max, dtypes.float32))


@public("torchflow.quantization")
def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                          narrow_range=False, name=None):
    """The gradients of ``fake_quant_with_min_max_vars`` with respect to inputs, min and max.

    Args:
      gradients: A float32 Tensor, the gradient flowing into the op's output.
      inputs: A float32 Tensor of the same shape, the op's input.
      min: A scalar float32 Tensor, the lower end of the range.
      max: A scalar float32 Tensor, the upper end of the range.
      num_bits: int, default 8: the bit width, 2 to 16.
      narrow_range: bool, default False: quantize into ``[1, 2**num_bits - 1]`` instead
        of ``[0, 2**num_bits - 1]``.
      name: A name for the operation (optional).

    Returns:
      A namedtuple ``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)``: the
      gradients inside the range, and the sums of those below and above it.
    """
    return FakeQuantWithMinMaxVarsGradient(*_vars_gradient(
        "FakeQuantWithMinMaxVarsGradient", gradients, inputs, min, max, num_bits,
        narrow_range, False))


@public("torchflow.quantization")
def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max,  # noqa: A002
                                                      num_bits=8, narrow_range=False,
                                                      name=None):
    """The gradients of ``fake_quant_with_min_max_vars_per_channel``, per channel.

    Args:
      gradients: A float32 Tensor, the gradient flowing into the op's output.
      inputs: A float32 Tensor of the same shape, whose last dimension has ``d`` channels.
      min: A float32 Tensor of shape ``[d]``, the lower ends of the ranges.
      max: A float32 Tensor of shape ``[d]``, the upper ends of the ranges.
      num_bits: int, default 8: the bit width, 2 to 16.
      narrow_range: bool, default False: quantize into ``[1, 2**num_bits - 1]`` instead
        of ``[0, 2**num_bits - 1]``.
      name: A name for the operation (optional).

    Returns:
      A namedtuple ``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)``; the
      last two have shape ``[d]``.
    """
    return FakeQuantWithMinMaxVarsPerChannelGradient(*_vars_gradient(
        "FakeQuantWithMinMaxVarsPerChannelGradient", gradients, inputs, min, max, num_bits,
        narrow_range, True))


@public("torchflow")
def quantize_and_dequantize_v4(input, input_min, input_max, signed_input=True,
                               num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                               narrow_range=False, axis=-1, name=None) -> Tensor:
    """Quantizes then dequantizes ``input`` (TF's ``QuantizeAndDequantizeV4`` wrapper).

    Same values and gradient as ``tf.quantization.quantize_and_dequantize_v2``: the
    gradient passes through inside the range and is 0 outside.

    Args:
      input: A floating Tensor.
      input_min: The lower end of the range (used when ``range_given``).
      input_max: The upper end of the range (used when ``range_given``).
      signed_input: bool, default True: whether the quantization is signed.
      num_bits: int, default 8: the bit width.
      range_given: bool, default False: if False, the range is read from ``input``.
      round_mode: ``"HALF_TO_EVEN"`` (default) or ``"HALF_UP"``.
      narrow_range: bool, default False: whether the lowest quantized value is left out.
      axis: int, default -1: -1 quantizes the whole tensor with one range, otherwise
        one range per slice along ``axis``.
      name: A name for the operation (optional).

    Returns:
      A Tensor of ``input``'s shape and dtype.
    """
    return quantize_and_dequantize_v2(input, input_min, input_max, signed_input=signed_input,
                                      num_bits=num_bits, range_given=range_given,
                                      round_mode=round_mode, narrow_range=narrow_range,
                                      axis=None if axis == -1 else axis)
