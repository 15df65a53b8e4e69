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

from torchflow._src.core import dtypes
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap

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
