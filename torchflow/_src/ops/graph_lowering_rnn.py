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

Cells without a fused kernel (``SimpleRNN``, GRU ``reset_after=False``, other
activations, custom cells) run ``rnn_ops.cell_loop``: its loop body is the cell's
Python step traced once more on stand-in tensors (their ops lowered as any
function's), with the variables it reads passed into the loop as resources. The
step is traced at two batch sizes and the bodies must agree, or the graph is
refused (a step that read a static size). Tensors of the outer graph that the step
reads (the cells' dropout masks, drawn once per sequence by a step at time zero
before the loop, as TF's ``backend.rnn``) are loop inputs, so their batch is the
run-time one; the second trace sees them one row longer.

Also here: ``zero_state`` (an RNN's initial state, ``Fill`` of the run-time batch),
``unstack`` (``Unpack``), ``split`` (``Split``/``SplitV``) and ``reverse`` (``ReverseV2``,
which ``Bidirectional`` applies to the backward layer's sequence).
"""

from __future__ import annotations

import contextlib
import numbers

import torch

from torchflow._src.core import dtypes, errors, graph_trace, op_graph
from torchflow._src.core.op_graph import shape_attr
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import array_ops, rnn_ops
from torchflow._src.ops._dispatch import wrap
from torchflow._src.util import nest

_I32 = dtypes.int32


def _op(b, op: str, inputs: list, d, **attrs) -> str:
    """One node with type attribute ``T=d``; its endpoint."""
    return f"{b.node(op, inputs, {'T': d, **attrs}, out_dtypes=[d])}:0"


def _ops(b, op: str, inputs: list, d, n_out: int, **attrs) -> list:
    """One node with ``n_out`` outputs of dtype ``d``; their endpoints."""
    name = b.node(op, inputs, {"T": d, **attrs}, out_dtypes=[d] * n_out)
    return [f"{name}:{k}" for k in range(n_out)]


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
                     element: list) -> "tuple[str, str]":
    """``x`` time major (reversed for ``go_backwards``) and a TensorList of its steps
    (``x`` is ``[batch, time, ...]`` unless time major)."""
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
    i, f, g, o = _ops(sb, "Split", [sb.constant(1, _I32), z], d, 4, num_split=4)
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
    xz, xr, xh = _ops(sb, "Split", [one, mx], d, 3, num_split=3)
    hz, hr, hh = _ops(sb, "Split", [one, mh], d, 3, num_split=3)
    z = _op(sb, "Sigmoid", [_op(sb, "AddV2", [xz, hz], d)], d)
    r = _op(sb, "Sigmoid", [_op(sb, "AddV2", [xr, hr], d)], d)
    cand = _op(sb, "Tanh", [_op(sb, "AddV2", [xh, _op(sb, "Mul", [r, hh], d)], d)], d)
    keep = _op(sb, "Sub", [sb.constant(1.0, d), z], d)
    return [_op(sb, "AddV2", [_op(sb, "Mul", [z, h], d), _op(sb, "Mul", [keep, cand], d)], d)]


def _fused_cell(kind: str):
    cell = _lstm_cell if kind == "lstm" else _gru_cell

    def step(body, d, xt, st, w):
        new = cell(body, d, xt, st, w)
        return new[0], new

    return step


def _loop(b, call, kind: str, masked: bool):
    """The nodes of one fused ``rnn_ops`` call; the endpoints of its results."""
    a = call.args
    x = a["inputs"]
    d = x.dtype
    kernel, rkernel = a["kernel"], a["recurrent_kernel"]
    units = int(rkernel.shape[0])
    states = ["h", "c"] if kind == "lstm" else ["h"]
    weights = [b.input(kernel, d), b.input(rkernel, d)]
    if kind == "lstm":
        weights.append(b.input(a["bias"], d))
    else:
        weights.extend(_ops(b, "Unpack", [b.input(a["bias"], d)], d, 2, num=2, axis=0))
    seq, last, final = _while(
        b, x, [(s, b.input(a[s], d), d, [units]) for s in states],
        a["mask"] if masked else None, bool(a["time_major"]), bool(a["go_backwards"]),
        bool(a.get("zero_output_for_mask", False)), [units],
        [(f"w{k}", ep, d, None) for k, ep in enumerate(weights)], _fused_cell(kind))
    return [seq, last] + final if masked else [seq] + final


def _while(b, x, states, mask, tm: bool, gb: bool, zero_out: bool, out_dims: list,
           consts: list, step):
    """A ``StatelessWhile`` over the steps of ``x``; ``(sequence, last output, final
    states)`` endpoints.

    Args:
      states: ``(name, endpoint, dtype, dims without batch)`` of the initial states.
      mask: The boolean mask Tensor, or None.
      out_dims: A step output's dims without the batch.
      consts: ``(name, endpoint, dtype, dims)`` of loop-invariant inputs (weights).
      step: ``step(body, d, x_t, states, consts) -> (output, new_states)`` making the
        step's nodes in the body (endpoints in, endpoints out); it may add resource
        arguments to the body (captured variables), which become loop inputs too.
    """
    d = x.dtype
    rank = x.shape.rank
    feat = [int(v) for v in x.shape.as_list()[2:]]
    v = dtypes.variant
    ix, in_list = _time_major_list(b, b.input(x), d, rank, tm, gb, [-1] + feat)
    n = _dim(b, ix, d, 0)
    out_list = _node(b, "TensorListReserve", [b.constant([-1] + out_dims, _I32), n], v,
                     element_dtype=d, shape_type=_I32)
    batch = _dim(b, ix, d, 1)
    shape = _op(b, "Pack", [batch] + [b.constant(s, _I32) for s in out_dims], _I32,
                N=1 + len(out_dims), axis=0)
    prev = _op(b, "Fill", [shape, b.constant(0, d)], d, index_type=_I32)
    loop = [("loop_counter", b.constant(0, _I32), _I32, []), ("num_steps", n, _I32, []),
            ("outputs", out_list, v, []), ("inputs", in_list, v, []),
            ("prev_output", prev, d, [None] + out_dims)]
    if mask is not None:
        m = b.input(mask)
        if b.dtype_of(m) not in (None, dtypes.bool):
            m = _node(b, "Cast", [m], dtypes.bool, SrcT=b.dtype_of(m), DstT=dtypes.bool,
                      Truncate=False)
        loop.append(("mask_list", _time_major_list(b, m, dtypes.bool, 2, tm, gb, [-1])[1], v,
                     []))
    ns = len(states)
    loop += [(name, ep, dt, [None] + list(dims)) for name, ep, dt, dims in states] + consts
    args = [(name, dt, dims) for name, _, dt, dims in loop]

    body, be = b.function("while_body", args)
    i, in_l, prev_ep = be[0], be[3], be[4]
    first_state = len(loop) - len(consts) - ns
    st = be[first_state:first_state + ns]
    xt = _node(body, "TensorListGetItem", [in_l, i, body.constant([-1] + feat, _I32)], d,
               element_dtype=d)
    out_t, new = step(body, d, xt, st, be[first_state + ns:])
    if mask is not None:
        mt = _node(body, "TensorListGetItem", [be[5], i, body.constant([-1], _I32)],
                   dtypes.bool, element_dtype=dtypes.bool)
        mt = _node(body, "ExpandDims", [mt, body.constant(-1, _I32)], dtypes.bool,
                   T=dtypes.bool, Tdim=_I32)
        new = [_op(body, "SelectV2", [mt, s_new, s_old], body.dtype_of(s_old))
               for s_new, s_old in zip(new, st)]
        fill = _op(body, "ZerosLike", [out_t], d) if zero_out else prev_ep
        out_t = _op(body, "SelectV2", [mt, out_t, fill], d)
    outs = _node(body, "TensorListSetItem", [be[2], i, out_t], v, element_dtype=d)
    i_next = _op(body, "AddV2", [i, body.constant(1, _I32)], _I32)
    extra = body.graph.inputs[len(args):]  # variables the step captured (resources)
    body_fn = b.end_function(body, [i_next, be[1], outs, in_l, out_t] + be[5:first_state]
                             + list(new) + be[first_state + ns:] + extra)
    for var in body.graph.variables:
        loop.append((None, b.handle(var), dtypes.resource, []))
        args.append(("resource", dtypes.resource, []))

    cond, ce = b.function("while_cond", args)
    cond_fn = b.end_function(cond, [_node(cond, "Less", [ce[0], ce[1]], dtypes.bool, T=_I32)])
    # A body that reads variables is stateful: TF's While (its StatelessWhile otherwise).
    w = b.node("While" if body.graph.variables else "StatelessWhile", [ep for _, ep, _, _ in loop],
               {"T": [dt for _, dt, _ in args], "cond": cond_fn, "body": body_fn,
                "output_shapes": [shape_attr(dims) for _, _, dims in args],
                "parallel_iterations": 32},
               name="while", out_dtypes=[dt for _, dt, _ in args])
    stacked = _node(b, "TensorListStack", [f"{w}:2", b.constant([-1] + out_dims, _I32)], d,
                    element_dtype=d, num_elements=-1)
    seq = stacked if tm else _transpose(b, stacked, [1, 0] + list(range(2, 2 + len(out_dims))),
                                        d)
    return seq, f"{w}:4", [f"{w}:{first_state + k}" for k in range(ns)]


def _trace_step(step, x_step, states, rows: int):
    """``step`` run on zero stand-ins of ``rows`` rows while its op calls are captured:
    ``(stand-ins, calls, outputs, dynamic ids, (recorder, capture))``, or None if it
    cannot be traced. (The last keeps alive what those ids name while they are used.)"""
    def stand_in(dims, dtype):
        return wrap(torch.zeros([rows] + [int(v) for v in dims[1:]], dtype=dtype._torch), dtype)

    ins = [stand_in(x_step[0], x_step[1])] + [stand_in(s.shape.as_list(), s.dtype)
                                               for s in states]
    rec = graph_trace.Recorder("rnn_step", dry=True)
    for t in ins:
        rec.input(t._t)
    try:
        with rec, op_graph.capture_calls() as cap:
            out, new = step(ins[0], list(ins[1:]))
    except graph_trace.TraceUnsafe:
        return None
    if rec.unsafe is not None:
        return None
    return ins, cap.calls, (out, nest.flatten(new)), rec.dynamic, (rec, cap)


def _outer_reads(b, calls, stand_ins) -> list:
    """The Tensors of the outer graph that the traced step reads (made before the loop,
    e.g. the cells' dropout masks, drawn once per sequence): the loop's invariant inputs."""
    made = {id(t._t) for t in stand_ins}
    bound = getattr(b, "_by_tensor", {})
    out, seen = [], set()
    for call in calls:
        for v in nest.flatten(list(call.args.values())):
            if isinstance(v, Tensor) and id(v._t) not in made and id(v._t) in bound \
                    and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        made.update(id(o._t) for o in nest.flatten(call.outputs, expand_composites=True)
                    if isinstance(o, Tensor))
    return out


@contextlib.contextmanager
def _grown(tensors: list, rows: int):
    """Within it, each of ``tensors`` of ``rows`` leading rows has one row more (its
    first repeated), as the step's second trace at ``rows + 1`` rows must see them."""
    saved = []
    try:
        for t in tensors:
            v = t._t
            if v.dim() > 0 and v.shape[0] == rows:
                saved.append((t, v))
                t._t = torch.cat([v, v[:1]])
        yield
    finally:
        for t, v in saved:
            t._t = v


def _step_graph(trace, outer: list):
    ins = list(trace[0]) + outer
    return op_graph.FuncGraph.build("rnn_step", [f"a{k}" for k in range(len(ins))], ins,
                                    trace[1], trace[2], trace[3])


def _cell_loop(b, call):
    a = call.args
    x, states, mask = a["inputs"], list(a["states"]), a["mask"]
    seq_out, last, _ = call.outputs
    d = x.dtype
    tm = bool(a["time_major"])
    dims = x.shape.as_list()
    x_step = ([dims[1]] + dims[2:] if tm else [dims[0]] + dims[2:], d)
    rows = x_step[0][0]
    first = _trace_step(a["step"], x_step, states, rows)
    outer = _outer_reads(b, first[1], first[0]) if first is not None else []
    ok = first is not None
    if first is not None:
        g1 = _step_graph(first, outer)
        try:
            with _grown(outer, rows):
                second = _trace_step(a["step"], x_step, states, rows + 1)
                g2 = _step_graph(second, outer) if second is not None else None
        except errors.OpError:  # the step read a size of the trace's batch
            g2 = None
        ok = g2 is not None and g1.exportable and g2.exportable and _same_nodes(g1, g2)
    if first is None or not ok:  # a step that cannot be traced, or holds the batch size
        n = b.node("Unlowered", [], {"dtype": d}, out_dtypes=[d], exportable=False)
        return [f"{n}:0"] * (len(states) + (2 if seq_out is not None else 1))
    stand_ins, calls, (out_t, new_t), dynamic, _ = first

    def step(body, d_, xt, st, consts):
        for t, ep in zip(list(stand_ins) + outer, [xt] + list(st) + list(consts)):
            body.bind(t, ep)
        body.lower_calls(calls, dynamic)
        return body.input(out_t), [body.input(s) for s in new_t]

    out_dims = [int(v) for v in last.shape.as_list()[1:]]
    specs = [(f"state_{k}", b.input(s), s.dtype, [int(v) for v in s.shape.as_list()[1:]])
             for k, s in enumerate(states)]
    consts = [(f"captured_{k}", b.input(t), t.dtype,
               [None] + [int(v) for v in t.shape.as_list()[1:]] if t.shape.rank else [])
              for k, t in enumerate(outer)]
    seq, last_ep, final = _while(b, x, specs, mask, tm, bool(a["go_backwards"]),
                                 bool(a["zero_output_for_mask"]), out_dims, consts, step)
    return ([seq] if seq_out is not None else []) + [last_ep] + final


def _same_nodes(g1, g2) -> bool:
    n1, n2 = g1.as_graph_def().node, g2.as_graph_def().node
    return len(n1) == len(n2) and all(
        (a.op == "Placeholder" and c.op == "Placeholder")
        or a.SerializeToString(deterministic=True) == c.SerializeToString(deterministic=True)
        for a, c in zip(n1, n2))


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


def _reverse(b, call):
    a = call.args
    x = a["tensor"]
    axis = a["axis"]
    if isinstance(axis, Tensor):  # possibly the function's argument: an input
        return [_op(b, "ReverseV2", [b.input(x), b.input(axis)], x.dtype, Tidx=axis.dtype)]
    axis = [int(v) for v in ([axis] if isinstance(axis, numbers.Integral) else axis)]
    return [_op(b, "ReverseV2", [b.input(x), b.constant(axis, _I32)], x.dtype, Tidx=_I32)]


def _split(b, call):
    a = call.args
    x = a["value"]
    outs = call.outputs
    n = len(outs)
    rank = x.shape.rank
    axis = int(a["axis"])
    axis = axis % rank if rank else axis
    sizes = a["num_or_size_splits"]
    d = x.dtype
    if isinstance(sizes, numbers.Integral) or (isinstance(sizes, Tensor) and sizes.shape.rank == 0):
        name = b.node("Split", [b.constant(axis, _I32), b.input(x)],
                      {"T": d, "num_split": n}, out_dtypes=[d] * n)
    else:
        # A tensor of sizes is an input of the node (it may be the function's argument).
        if isinstance(sizes, Tensor):
            size_ep, tlen = b.input(sizes), sizes.dtype
        else:
            size_ep, tlen = b.constant([int(v) for v in sizes], _I32), _I32
        name = b.node("SplitV", [b.input(x), size_ep, b.constant(axis, _I32)],
                      {"T": d, "Tlen": tlen, "num_split": n}, out_dtypes=[d] * n)
    return [f"{name}:{k}" for k in range(n)]


op_graph.register(rnn_ops.lstm, lambda b, call: _loop(b, call, "lstm", False))
op_graph.register(rnn_ops.gru, lambda b, call: _loop(b, call, "gru", False))
op_graph.register(rnn_ops.lstm_masked, lambda b, call: _loop(b, call, "lstm", True))
op_graph.register(rnn_ops.gru_masked, lambda b, call: _loop(b, call, "gru", True))
op_graph.register(rnn_ops.zero_state, _zero_state)
op_graph.register(rnn_ops.cell_loop, _cell_loop)
# Other lowering modules may own these (registered before this one is imported).
if not op_graph.is_registered(array_ops.unstack):
    op_graph.register(array_ops.unstack, _unstack)
if not op_graph.is_registered(array_ops.split):
    op_graph.register(array_ops.split, _split)
if not op_graph.is_registered(array_ops.reverse):  # Bidirectional's backward sequence
    op_graph.register(array_ops.reverse, _reverse)
