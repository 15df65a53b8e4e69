"""Fused whole-sequence LSTM/GRU kernels for Keras' recurrent layers (not public TF names).

TF 2.4 runs ``LSTM``/``GRU`` through one cuDNN kernel when the layer is
"cuDNN-compatible" (tanh/sigmoid, no recurrent dropout, not unrolled, with
bias, ``reset_after=True`` for GRU). torchflow does the same with torch's fused
``_VF.lstm``/``_VF.gru`` (cuDNN on CUDA, a fused C++ loop on CPU), converting
Keras' weight layout to torch's:

- LSTM: Keras ``kernel [in, 4u]`` with gate columns ``i, f, c, o`` is torch's
  ``weight_ih [4u, in]`` (gates ``i, f, g, o``) transposed; the Keras bias goes to
  ``bias_ih`` and ``bias_hh`` is zero.
- GRU (``reset_after=True``): Keras gate columns are ``z, r, h``, torch's rows
  are ``r, z, n``; Keras' bias is ``[2, 3u]`` (input bias, recurrent bias), which
  are torch's ``bias_ih``/``bias_hh``. The candidate formula ``tanh(x W_h + b_h +
  r * (h U_h + rb_h))`` is the same in both.

The functions are differentiable with torch autograd (used under GradientTape).
"""

from __future__ import annotations

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from torchflow._src.core import dtypes
from torchflow._src.ops._dispatch import tensor_arg, translate, wrap

_CPU_FUSED = (dtypes.float32, dtypes.float64)


def fusable(dtype, device_type: str = "cpu") -> bool:
    """Whether the fused kernel supports ``dtype`` (on CPU: float32/float64 only)."""
    if device_type == "cuda":
        return dtype in (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
    return dtype in _CPU_FUSED


def can_fuse(x) -> bool:
    """Whether ``x`` (a Tensor) can go through :func:`lstm`/:func:`gru`."""
    t = tensor_arg(x)
    return fusable(t._dtype, t._t.device.type)


def _seq(x, time_major: bool, go_backwards: bool) -> torch.Tensor:
    t = x._t
    if not time_major:
        t = t.transpose(0, 1)
    if go_backwards:
        t = t.flip(0)
    return t.contiguous()


def _out(y: torch.Tensor, time_major: bool) -> torch.Tensor:
    return y if time_major else y.transpose(0, 1)


def lstm(inputs, h, c, kernel, recurrent_kernel, bias, time_major=False,
         go_backwards=False):
    """A whole LSTM sequence in one kernel call.

    Args:
      inputs: ``[batch, time, features]`` (``[time, batch, features]`` if time_major).
      h, c: Initial states ``[batch, units]``.
      kernel, recurrent_kernel, bias: Keras layout ``[in, 4u]``, ``[u, 4u]``, ``[4u]``.
      time_major: Layout of inputs and outputs.
      go_backwards: Process the sequence reversed (outputs stay reversed, as Keras).

    Returns:
      ``(outputs, last_h, last_c)``: the per-step outputs in the inputs' layout and
      the final states.
    """
    x = tensor_arg(inputs)
    k, rk, b = tensor_arg(kernel)._t, tensor_arg(recurrent_kernel)._t, tensor_arg(bias)._t
    h0, c0 = tensor_arg(h)._t, tensor_arg(c)._t
    try:
        seq = _seq(x, time_major, go_backwards)
        params = [k.t(), rk.t(), b, torch.zeros_like(b)]
        out, hn, cn = torch._VF.lstm(seq, (h0.unsqueeze(0), c0.unsqueeze(0)), params,
                                      True, 1, 0.0, False, False, False)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("CudnnRNN", e) from None
    d = x._dtype
    return wrap(_out(out, time_major), d), wrap(hn[0], d), wrap(cn[0], d)


def _zr_to_rz(w: torch.Tensor, units: int, dim: int) -> torch.Tensor:
    z, r, n = torch.split(w, units, dim=dim)
    return torch.cat([r, z, n], dim=dim)


def gru(inputs, h, kernel, recurrent_kernel, bias, time_major=False, go_backwards=False):
    """A whole GRU (``reset_after=True``) sequence in one kernel call.

    Args:
      inputs: ``[batch, time, features]`` (``[time, batch, features]`` if time_major).
      h: Initial state ``[batch, units]``.
      kernel, recurrent_kernel, bias: Keras layout ``[in, 3u]``, ``[u, 3u]``, ``[2, 3u]``.
      time_major: Layout of inputs and outputs.
      go_backwards: Process the sequence reversed.

    Returns:
      ``(outputs, last_h)``.
    """
    x = tensor_arg(inputs)
    k, rk, b = tensor_arg(kernel)._t, tensor_arg(recurrent_kernel)._t, tensor_arg(bias)._t
    h0 = tensor_arg(h)._t
    u = rk.shape[0]
    try:
        seq = _seq(x, time_major, go_backwards)
        params = [_zr_to_rz(k.t(), u, 0), _zr_to_rz(rk.t(), u, 0),
                  _zr_to_rz(b[0], u, 0), _zr_to_rz(b[1], u, 0)]
        out, hn = torch._VF.gru(seq, h0.unsqueeze(0), params, True, 1, 0.0, False, False,
                                False)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("CudnnRNN", e) from None
    d = x._dtype
    return wrap(_out(out, time_major), d), wrap(hn[0], d)


def right_padded_lengths(mask, time_major=False):
    """Per-row lengths (an int64 torch tensor) of a boolean ``[batch, time]`` mask when
    every row is ``True..True False..False`` with at least one True; else None."""
    m = tensor_arg(mask)._t.bool()
    if time_major:
        m = m.t()
    lengths = m.sum(1)
    steps = torch.arange(m.shape[1], device=m.device)
    if bool((lengths > 0).all()) and bool((m == (steps < lengths.unsqueeze(1))).all()):
        return lengths
    return None


def _packed(fn, x, hx, params, lengths, time_major, zero_output):
    """Runs ``fn`` (``_VF.lstm``/``_VF.gru``) on a right-padded batch as a packed
    sequence; padded steps repeat the last valid output (zeros with ``zero_output``)."""
    seq = x._t if time_major else x._t.transpose(0, 1)
    packed = pack_padded_sequence(seq, lengths.cpu(), enforce_sorted=False)
    order = packed.sorted_indices
    hx = tuple(h.index_select(1, order) for h in hx)
    res = fn(packed.data, packed.batch_sizes, hx if len(hx) > 1 else hx[0], params, True, 1,  # pyright: ignore[reportGeneralTypeIssues] - hx is a non-empty tuple
             0.0, False, False)
    out = pad_packed_sequence(type(packed)(res[0], packed.batch_sizes, order,
                                           packed.unsorted_indices),
                              total_length=seq.shape[0])[0]
    back = packed.unsorted_indices
    states = [s.index_select(1, back)[0] for s in res[1:]]
    valid = (torch.arange(seq.shape[0], device=seq.device).unsqueeze(1) <
             lengths.to(seq.device).unsqueeze(0)).unsqueeze(-1)
    fill = torch.zeros_like(out) if zero_output else states[0].unsqueeze(0).expand_as(out)
    out = torch.where(valid, out, fill)
    return _out(out, time_major), states


def lstm_masked(inputs, h, c, kernel, recurrent_kernel, bias, lengths, time_major=False,
                zero_output_for_mask=False):
    """:func:`lstm` over a right-padded batch with per-row ``lengths``
    (from :func:`right_padded_lengths`): Keras' masked-step semantics."""
    x = tensor_arg(inputs)
    k, rk, b = tensor_arg(kernel)._t, tensor_arg(recurrent_kernel)._t, tensor_arg(bias)._t
    hx = (tensor_arg(h)._t.unsqueeze(0), tensor_arg(c)._t.unsqueeze(0))
    try:
        out, (hn, cn) = _packed(torch._VF.lstm, x, hx, [k.t(), rk.t(), b, torch.zeros_like(b)],
                                lengths, time_major, zero_output_for_mask)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("CudnnRNN", e) from None
    d = x._dtype
    return wrap(out, d), wrap(hn, d), wrap(cn, d)


def gru_masked(inputs, h, kernel, recurrent_kernel, bias, lengths, time_major=False,
               zero_output_for_mask=False):
    """:func:`gru` over a right-padded batch with per-row ``lengths``."""
    x = tensor_arg(inputs)
    k, rk, b = tensor_arg(kernel)._t, tensor_arg(recurrent_kernel)._t, tensor_arg(bias)._t
    u = rk.shape[0]
    params = [_zr_to_rz(k.t(), u, 0), _zr_to_rz(rk.t(), u, 0), _zr_to_rz(b[0], u, 0),
              _zr_to_rz(b[1], u, 0)]
    try:
        out, (hn,) = _packed(torch._VF.gru, x, (tensor_arg(h)._t.unsqueeze(0),), params,
                             lengths, time_major, zero_output_for_mask)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("CudnnRNN", e) from None
    d = x._dtype
    return wrap(out, d), wrap(hn, d)
