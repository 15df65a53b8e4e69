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

Masked sequences (``Masking``, ``Embedding(mask_zero=True)``) go through
:func:`lstm_masked`/:func:`gru_masked`, which take the mask itself: a right-padded
batch runs as a packed sequence in the fused kernel, any other mask through the
same cell equations step by step with Keras' masked-step rule. They read the
mask's values, so a ``tf.function`` runs them as host calls; their TF graph is
the ``While`` loop of ``graph_lowering_rnn``, which applies the rule to any mask.
"""

from __future__ import annotations

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from torchflow._src.core import dtypes, errors, graph_trace
from torchflow._src.ops import array_ops, creation_ops, gather_ops
from torchflow._src.ops._dispatch import tensor_arg, translate, wrap
from torchflow._src.util import nest

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


def zero_state(inputs, size, batch_axis=0, dtype=None):
    """Zeros ``[batch, *size]`` with the batch size of ``inputs`` (read from its shape
    at run time in a graph: an RNN's initial state for any batch).

    Args:
      inputs: The sequence, batch on ``batch_axis``.
      size: An int or list of ints: one state's shape without the batch.
      batch_axis: Where the batch is in ``inputs`` (1 when time major).
      dtype: The zeros' dtype (default: ``inputs``').

    Returns:
      A Tensor of zeros.
    """
    x = tensor_arg(inputs)
    d = dtypes.as_dtype(dtype) if dtype is not None else x._dtype
    dims = [int(size)] if isinstance(size, int) else [int(v) for v in size]
    return wrap(torch.zeros([x._t.shape[batch_axis], *dims], dtype=d._torch,
                            device=x._t.device), d)


def _check_states(op: str, x, time_major: bool, units: int, *states) -> None:
    """The states must be ``[batch, units]`` for ``x``'s batch (torch's CPU kernel does
    not check, and reads past a smaller state's memory)."""
    batch = x._t.shape[1 if time_major else 0]
    for s in states:
        if tuple(s.shape) != (batch, units):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid input_h shape: [1,{','.join(map(str, s.shape))}] "
                f"[1,{batch},{units}] [Op:{op}]")


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
    _check_states("CudnnRNN", x, time_major, rk.shape[0], h0, c0)
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
    _check_states("CudnnRNN", x, time_major, u, h0)
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


def _lstm_step(x, h, c, k, rk, b):
    i, f, g, o = torch.chunk(x @ k + h @ rk + b, 4, dim=1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def _gru_step(x, h, k, rk, b):
    xz, xr, xh = torch.chunk(x @ k + b[0], 3, dim=1)
    hz, hr, hh = torch.chunk(h @ rk + b[1], 3, dim=1)
    z, r = torch.sigmoid(xz + hz), torch.sigmoid(xr + hr)
    return z * h + (1 - z) * torch.tanh(xh + r * hh)


def _stepwise(step, seq, mask, states, zero_output):
    """Keras' masked steps over time-major ``seq``/``mask``: where a row is masked its
    states keep their values and its output repeats the previous one (zeros with
    ``zero_output``)."""
    prev = torch.zeros_like(states[0])
    outs = []
    for t in range(seq.shape[0]):
        new = step(seq[t], *states)
        new = new if isinstance(new, tuple) else (new,)
        m = mask[t].unsqueeze(1)
        states = tuple(torch.where(m, n, s) for n, s in zip(new, states))
        prev = torch.where(m, new[0], torch.zeros_like(prev) if zero_output else prev)
        outs.append(prev)
    return (torch.stack(outs) if outs else seq.new_zeros((0,) + prev.shape)), states


def _masked(kind, inputs, states, kernel, recurrent_kernel, bias, mask, time_major,
            go_backwards, zero_output):
    x = tensor_arg(inputs)
    k, rk, b = tensor_arg(kernel)._t, tensor_arg(recurrent_kernel)._t, tensor_arg(bias)._t
    hx = tuple(tensor_arg(s)._t for s in states)
    _check_states("CudnnRNN", x, time_major, rk.shape[0], *hx)
    m = tensor_arg(mask)._t.bool()
    m = m if time_major else m.t()
    seq = x._t if time_major else x._t.transpose(0, 1)
    if go_backwards:
        seq, m = seq.flip(0), m.flip(0)
    u = rk.shape[0]
    lengths = None if go_backwards else right_padded_lengths(mask, time_major)
    try:
        if lengths is not None:
            if kind == "lstm":
                fn, params = torch._VF.lstm, [k.t(), rk.t(), b, torch.zeros_like(b)]
            else:
                fn, params = torch._VF.gru, [_zr_to_rz(k.t(), u, 0), _zr_to_rz(rk.t(), u, 0),
                                             _zr_to_rz(b[0], u, 0), _zr_to_rz(b[1], u, 0)]
            out, new = _packed(fn, x, tuple(h.unsqueeze(0) for h in hx), params, lengths,
                               time_major, zero_output)
            out_tm = out if time_major else out.transpose(0, 1)
        else:
            def step(xt, *hc):
                if kind == "lstm":
                    return _lstm_step(xt, hc[0], hc[1], k, rk, b)
                return _gru_step(xt, hc[0], k, rk, b)

            out_tm, new = _stepwise(step, seq, m, hx, zero_output)
            out = _out(out_tm, time_major)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("CudnnRNN", e) from None
    d = x._dtype
    last = out_tm[-1] if out_tm.shape[0] else hx[0]
    return (wrap(out, d), wrap(last, d)) + tuple(wrap(s, d) for s in new)


def _dry_masked(n_states):
    def dry(inputs, *args, **kwargs):
        x = tensor_arg(inputs)
        tm = kwargs.get("time_major", args[n_states + 4] if len(args) > n_states + 4 else False)
        u = tensor_arg(args[n_states + 1]).shape[0]
        seq = x._t if tm else x._t.transpose(0, 1)
        z = torch.zeros(seq.shape[:2] + (u,), dtype=x._t.dtype, device=x._t.device)
        # One tensor per result: a graph built from the stand-ins binds each to its own
        # output (a shared one took the last binding: the LSTM's output read its c).
        return (wrap(_out(z, tm), x._dtype),) + tuple(wrap(z[0].clone(), x._dtype)
                                                     for _ in range(1 + n_states))

    return dry


@graph_trace.host_op(dry=_dry_masked(2))
def lstm_masked(inputs, h, c, kernel, recurrent_kernel, bias, mask, time_major=False,
                go_backwards=False, zero_output_for_mask=False):
    """:func:`lstm` with a boolean ``[batch, time]`` mask (Keras' masked steps).

    Returns:
      ``(outputs, last_output, last_h, last_c)``.
    """
    return _masked("lstm", inputs, (h, c), kernel, recurrent_kernel, bias, mask, time_major,
                   go_backwards, zero_output_for_mask)


@graph_trace.host_op(dry=_dry_masked(1))
def gru_masked(inputs, h, kernel, recurrent_kernel, bias, mask, time_major=False,
               go_backwards=False, zero_output_for_mask=False):
    """:func:`gru` with a boolean ``[batch, time]`` mask (Keras' masked steps).

    Returns:
      ``(outputs, last_output, last_h)``.
    """
    return _masked("gru", inputs, (h,), kernel, recurrent_kernel, bias, mask, time_major,
                   go_backwards, zero_output_for_mask)


def _step_mask(m, x):
    """A ``[batch, 1]`` step mask shaped to select rows of ``x``."""
    rank = x.shape.rank
    if rank is not None and rank > 2:
        return array_ops.reshape(m, [-1] + [1] * (rank - 1))
    return m


def cell_loop(step, inputs, states, mask=None, time_major=False, go_backwards=False,
              zero_output_for_mask=False, return_sequences=True):
    """Keras' step loop (``backend.rnn``): ``step(x_t, states) -> (output, new_states)``
    over the time axis of ``inputs``.

    A masked step keeps each masked row's states and repeats its previous output
    (zeros with ``zero_output_for_mask``). In a TF graph the loop is a ``While``
    whose body is ``step`` traced once (``graph_lowering_rnn``), so it runs for
    any sequence length.

    Args:
      step: The cell's step, a Python function of Tensors.
      inputs: ``[batch, time, ...]`` (``[time, batch, ...]`` if ``time_major``).
      states: The list of initial state Tensors.
      mask: Optional boolean ``[batch, time]`` mask (``[time, batch]`` if time major).
      time_major: The layout of ``inputs``, ``mask`` and the outputs.
      go_backwards: Process the steps in reverse (outputs stay in processing order).
      zero_output_for_mask: Masked steps output zeros.
      return_sequences: Also stack every step's output.

    Returns:
      ``(outputs, last_output, new_states)``; ``outputs`` is None without
      ``return_sequences``.
    """
    axis = 0 if time_major else 1
    xs = array_ops.unstack(inputs, axis=axis)
    masks = None
    if mask is not None:
        m = creation_ops.cast(mask, "bool")
        masks = [array_ops.expand_dims(t, -1) for t in array_ops.unstack(m, axis=axis)]
    if go_backwards:
        xs = xs[::-1]
        if masks is not None:
            masks = masks[::-1]
    states = list(states)
    prev_out = None
    outs = []
    for t, x in enumerate(xs):
        out, new_states = step(x, states)
        new_states = nest.flatten(new_states)
        if masks is not None:
            mt = masks[t]
            if prev_out is None:
                prev_out = creation_ops.zeros_like(out)
            new_states = [gather_ops.where(_step_mask(mt, ns), ns, s)
                          for ns, s in zip(new_states, states)]
            fill = creation_ops.zeros_like(out) if zero_output_for_mask else prev_out
            out = gather_ops.where(_step_mask(mt, out), out, fill)
        prev_out = out
        states = new_states
        outs.append(out)
    outputs = array_ops.stack(outs, axis=axis) if return_sequences else None
    return outputs, outs[-1], states
