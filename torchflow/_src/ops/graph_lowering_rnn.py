"""TF lowerings of the fused recurrent kernels (``rnn_ops``): a ``StatelessWhile`` loop.

TF's Keras writes an ``LSTM``/``GRU`` as a ``While`` loop over TensorLists, and so do
these: the sequence (time major, reversed for ``go_backwards``) becomes a
TensorList, the loop body reads step ``i``, applies the cell's equations (the
fused path's: tanh, sigmoid, with bias; GRU ``reset_after=True``) and writes the
step's output into a reserved TensorList, which is stacked after the loop. The
time length and the batch are read from the input's shape at run time, so the
graph runs for any batch and any sequence length (``Input((None, 4))``).

With a mask (``lstm_masked``/``gru_masked``) the mask is a TensorList too and each
step applies Keras' masked-step rule: a masked row keeps its states and repeats
its previous output (zeros with ``zero_output_for_mask``). The body and condition
are functions of the graph's library (``GraphBuilder.function``).

Also here: ``zero_state`` (an RNN's initial state, ``Fill`` of the run-time batch)
and ``unstack`` (``Unpack``, used by the per-step loop of non-fused cells).
"""

from __future__ import annotations

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.op_graph import shape_attr
from torchflow._src.ops import array_ops, rnn_ops

_I32 = dtypes.int32


def _op(b, op: str, inputs: list, d, n_out: int = 1, **attrs):
    """One node with type attribute ``T=d``; its endpoint (or endpoints)."""
    name = b.node(op, inputs, {"T": d, **attrs}, out_dtypes=[d] * n_out)
    return f"{name}:0" if n_out == 1 else [f"{name}:{k}" for k in range(n_out)]


def _node(b, op: str, inputs: list, out, **attrs) -> str:
    return f"{b.node(op, inputs, attrs, out_dtypes=[out])}:0"


def _transpose(b, x: str, perm: list, d) -> str:
    return _op(b, "Transpose", [x, b.constant(perm, _I32)], d, Tperm=_I32)


def _dim(b, x: str, d, axis: int) -> str:
    """``tf.shape(x)[axis]`` (an int32 scalar)."""
    shape = _node(b, "Shape", [x], _I32, T=d, out_type=_I32)
    return _op(b, "StridedSlice", [shape, b.constant([axis], _I32), b.constant([axis + 1], _I32),
                                   b.constant([1], _I32)], _I32, Index=_I32, begin_mask=0,
               end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=1)


def _time_major_list(b, x: str, d, rank: int, time_major: bool, go_backwards: bool,
                     element: list) -> str:
    """A TensorList of the steps of ``x`` (``[batch, time, ...]`` unless time major)."""
    if not time_major:
        x = _transpose(b, x, [1, 0] + list(range(2, rank)), d)
    if go_backwards:
        x = _op(b, "ReverseV2", [x, b.constant([0], _I32)], d, Tidx=_I32)
    return x, _node(b, "TensorListFromTensor", [x, b.constant(element, _I32)], dtypes.variant,
                    element_dtype=d, shape_type=_I32)


def _lstm_cell(sb, d, x, states, w):
    h, c = states
    k, rk, bias = w
    z = _op(sb, "AddV2", [_op(sb, "MatMul", [x, k], d, transpose_a=False, transpose_b=False),
                          _op(sb, "MatMul", [h, rk], d, transpose_a=False, transpose_b=False)], d)
    z = _op(sb, "BiasAdd", [z, bias], d, data_format="NHWC")
    i, f, g, o = _op(sb, "Split", [sb.constant(1, _I32), z], d, n_out=4, num_split=4)
    c = _op(sb, "AddV2", [_op(sb, "Mul", [_op(sb, "Sigmoid", [f], d), c], d),
                          _op(sb, "Mul", [_op(sb, "Sigmoid", [i], d), _op(sb, "Tanh", [g], d)],
                              d)], d)
    h = _op(sb, "Mul", [_op(sb, "Sigmoid", [o], d), _op(sb, "Tanh", [c], d)], d)
    return [h, c]


def _gru_cell(sb, d, x, states, w):
    (h,) = states
    k, rk, b_in, b_rec = w
    mx = _op(sb, "BiasAdd", [_op(sb, "MatMul", [x, k], d, transpose_a=False,
                                 transpose_b=False), b_in], d, data_format="NHWC")
    mh = _op(sb, "BiasAdd", [_op(sb, "MatMul", [h, rk], d, transpose_a=False,
                                 transpose_b=False), b_rec], d, data_format="NHWC")
    one = sb.constant(1, _I32)
    xz, xr, xh = _op(sb, "Split", [one, mx], d, n_out=3, num_split=3)
    hz, hr, hh = _op(sb, "Split", [one, mh], d, n_out=3, num_split=3)
    z = _op(sb, "Sigmoid", [_op(sb, "AddV2", [xz, hz], d)], d)
    r = _op(sb, "Sigmoid", [_op(sb, "AddV2", [xr, hr], d)], d)
    cand = _op(sb, "Tanh", [_op(sb, "AddV2", [xh, _op(sb, "Mul", [r, hh], d)], d)], d)
    keep = _op(sb, "Sub", [sb.constant(1.0, d), z], d)
    return [_op(sb, "AddV2", [_op(sb, "Mul", [z, h], d), _op(sb, "Mul", [keep, cand], d)], d)]


def _loop(b, call, kind: str, masked: bool):
    """The nodes of one ``rnn_ops`` call; the endpoints of its results."""
    a = call.args
    x = a["inputs"]
    d = x.dtype
    rank = x.shape.rank
    kernel, rkernel = a["kernel"], a["recurrent_kernel"]
    feat, units = int(kernel.shape[0]), int(rkernel.shape[0])
    tm, gb = bool(a["time_major"]), bool(a["go_backwards"])
    zero_out = bool(a.get("zero_output_for_mask", False))
    state_args = ["h", "c"] if kind == "lstm" else ["h"]
    cell = _lstm_cell if kind == "lstm" else _gru_cell

    ix, in_list = _time_major_list(b, b.input(x), d, rank, tm, gb, [-1] + [feat])
    n = _dim(b, ix, d, 0)
    out_list = _node(b, "TensorListReserve", [b.constant([-1, units], _I32), n], dtypes.variant,
                     element_dtype=d, shape_type=_I32)
    states = [b.input(a[s], d) for s in state_args]
    weights = [b.input(kernel, d), b.input(rkernel, d)]
    if kind == "lstm":
        weights.append(b.input(a["bias"], d))
    else:
        weights.extend(_op(b, "Unpack", [b.input(a["bias"], d)], d, n_out=2, num=2, axis=0))
    extra = []  # (name, endpoint, dtype, dims) of the masked loop's additions
    if masked:
        m = b.input(a["mask"])
        if b.dtype_of(m) not in (None, dtypes.bool):
            m = _node(b, "Cast", [m], dtypes.bool, SrcT=b.dtype_of(m), DstT=dtypes.bool,
                      Truncate=False)
        _, m_list = _time_major_list(b, m, dtypes.bool, 2, tm, gb, [-1])
        prev = _op(b, "ZerosLike", [states[0]], d)
        extra = [("prev_output", prev, d, [None, units]), ("mask_list", m_list, dtypes.variant, [])]

    v = dtypes.variant
    specs = ([("loop_counter", b.constant(0, _I32), _I32, []), ("num_steps", n, _I32, []),
              ("outputs", out_list, v, [])]
             + [(s, ep, d, [None, units]) for s, ep in zip(state_args, states)]
             + extra[:1] + [("inputs", in_list, v, [])] + extra[1:]
             + [(f"w{k}", ep, d, None) for k, ep in enumerate(weights)])
    args = [(name, dt, dims) for name, _, dt, dims in specs]
    ns = len(state_args)

    cond, ce = b.function("while_cond", args)
    less = _node(cond, "Less", [ce[0], ce[1]], dtypes.bool, T=_I32)
    cond_fn = b.end_function(cond, [less])

    body, be = b.function("while_body", args)
    i, steps, outs, st = be[0], be[1], be[2], be[3:3 + ns]
    pos = 3 + ns
    prev_ep = be[pos] if masked else None
    pos += 1 if masked else 0
    in_l = be[pos]
    mask_l = be[pos + 1] if masked else None
    w = be[pos + (2 if masked else 1):]
    xt = _node(body, "TensorListGetItem", [in_l, i, body.constant([-1, feat], _I32)], d,
               element_dtype=d)
    new = cell(body, d, xt, st, w)
    out_t = new[0]
    results = list(new)
    if masked:
        mt = _node(body, "TensorListGetItem", [mask_l, i, body.constant([-1], _I32)],
                   dtypes.bool, element_dtype=dtypes.bool)
        mt = _node(body, "ExpandDims", [mt, body.constant(-1, _I32)], dtypes.bool,
                   T=dtypes.bool, Tdim=_I32)
        results = [_op(body, "SelectV2", [mt, s_new, s_old], d) for s_new, s_old in zip(new, st)]
        fill = _op(body, "ZerosLike", [new[0]], d) if zero_out else prev_ep
        out_t = _op(body, "SelectV2", [mt, new[0], fill], d)
    outs = _node(body, "TensorListSetItem", [outs, i, out_t], v, element_dtype=d)
    i_next = _op(body, "AddV2", [i, body.constant(1, _I32)], _I32)
    body_out = [i_next, steps, outs] + results + ([out_t] if masked else []) + be[3 + ns + (
        1 if masked else 0):]
    body_fn = b.end_function(body, body_out)

    loop = b.node("StatelessWhile", [ep for _, ep, _, _ in specs],
                  {"T": [dt for _, dt, _ in args], "cond": cond_fn, "body": body_fn,
                   "output_shapes": [shape_attr(dims) for _, _, dims in args],
                   "parallel_iterations": 32},
                  name="while", out_dtypes=[dt for _, dt, _ in args])
    stacked = _node(b, "TensorListStack", [f"{loop}:2", b.constant([-1, units], _I32)], d,
                    element_dtype=d, num_elements=-1)
    seq = stacked if tm else _transpose(b, stacked, [1, 0, 2], d)
    final = [f"{loop}:{3 + k}" for k in range(ns)]
    if masked:
        return [seq, f"{loop}:{3 + ns}"] + final
    return [seq] + final


def _zero_state(b, call):
    a = call.args
    out = call.outputs
    d = out.dtype
    x = b.input(a["inputs"])
    size = a["size"]
    dims = [int(size)] if isinstance(size, int) else [int(s) for s in size]
    batch = _dim(b, x, a["inputs"].dtype, int(a["batch_axis"]))
    shape = _op(b, "Pack", [batch] + [b.constant(s, _I32) for s in dims], _I32, N=1 + len(dims),
                axis=0)
    return [_op(b, "Fill", [shape, b.constant(0, d)], d, index_type=_I32)]


def _unstack(b, call):
    x = call.args["value"]
    n = len(call.outputs)
    axis = int(call.args["axis"])
    rank = x.shape.rank
    name = b.node("Unpack", [b.input(x)], {"T": x.dtype, "num": n,
                                          "axis": axis % rank if rank else axis},
                  out_dtypes=[x.dtype] * n)
    return [f"{name}:{k}" for k in range(n)]


op_graph.register(rnn_ops.lstm, lambda b, call: _loop(b, call, "lstm", False))
op_graph.register(rnn_ops.gru, lambda b, call: _loop(b, call, "gru", False))
op_graph.register(rnn_ops.lstm_masked, lambda b, call: _loop(b, call, "lstm", True))
op_graph.register(rnn_ops.gru_masked, lambda b, call: _loop(b, call, "gru", True))
op_graph.register(rnn_ops.zero_state, _zero_state)
if not op_graph.is_registered(array_ops.unstack):  # another lowering module may own it
    op_graph.register(array_ops.unstack, _unstack)
