"""The TF lowering of ``tf.while_loop`` (and of AutoGraph's ``for`` / ``while`` on a
tensor, which call it): a ``While`` node with its condition and body as functions.

As TF's ``while_v2`` builds it, the loop variables are a counter and the iteration
bound (``-1``: none) first, then the user's loop variables, then the outer tensors
that the condition or body reads, then the variables either captures (resources).
Both functions take all of them; the body returns them in the same order (the
counter one up, the rest passed through), and the condition is the user's,
``and``-ed with ``counter < bound`` where a bound is given.

``cond`` and ``body`` run once more as dry traces on stand-ins of the loop
variables while their op calls are captured. A loop is refused (None) where a
condition or body cannot be traced without running (it reads a loop value into
Python), the condition is not a boolean scalar tensor, a loop variable is not a
tensor, or the body changes a loop variable's dtype or shape (its static shape
would be the trace's, baked into the body).
"""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.op_graph import register, shape_attr
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import control_flow_ops, graph_lowering_tensor_array
from torchflow._src.ops.graph_lowering_control import _outer_reads, _trace_branch
from torchflow._src.ops.tensor_array import TensorArray
from torchflow._src.util import nest


def _stand_in(t):
    if isinstance(t, TensorArray):  # a copy of its state, for the dry traces to write
        c = TensorArray.__new__(TensorArray)
        c.__dict__.update(t.__dict__)
        c._items = list(t._items)
        c._stand_in = True
        return c
    return wrap(t._t.clone(), t.dtype)


def _arg(b, t) -> tuple:
    """``(endpoint, dtype)`` of a loop value in ``b`` (an array: its TensorList)."""
    if isinstance(t, TensorArray):
        return graph_lowering_tensor_array.handle(b, t), dtypes.variant
    return b.input(t), t.dtype


def _bind(fn, b, t, stand_in, ep) -> None:
    if isinstance(t, TensorArray):
        graph_lowering_tensor_array.bind(fn, stand_in, ep, graph_lowering_tensor_array.dims(b, t))
    else:
        fn.bind(stand_in, ep)


def _loop_function(b, name, trace, leaves, stand_ins, loop_args, outer, variables):
    """The builder of ``name`` (a ``While`` attribute function taking ``loop_args``)
    with ``trace``'s nodes added, its stand-ins bound to the user's loop variables
    and the outer values to theirs; None if it captured what the signature does
    not take, or wrote an outer array that is not a loop variable (TF's graph would
    drop that write)."""
    fn, eps = b.function(name, loop_args)
    fn._tainted = set(fn._tainted) | trace[4]
    for t, s, ep in zip(leaves, stand_ins, eps[2:]):
        _bind(fn, b, t, s, ep)
    for t, ep in zip(outer, eps[2 + len(stand_ins):]):
        _bind(fn, b, t, t, ep)
    for v in variables:
        fn.handle(v)
    fn.lower_calls(trace[0], trace[2])
    if [id(v) for v in fn.graph.variables] != [id(v) for v in variables] or \
            len(fn.graph.inputs) != len(loop_args) + len(variables):
        return None, eps
    for t, ep in zip(outer, eps[2 + len(stand_ins):]):
        if isinstance(t, TensorArray) and graph_lowering_tensor_array.handle(fn, t) != ep:
            return None, eps
    return fn, eps


def _while_loop(b, call):
    a = call.args
    cond, body, loop_vars = a["cond"], a["body"], a["loop_vars"]
    if not callable(cond) or not callable(body) or loop_vars is None:
        return None
    single = not isinstance(loop_vars, (list, tuple)) or hasattr(type(loop_vars), "_fields")
    current = (loop_vars,) if single else loop_vars
    leaves = nest.flatten(current)
    if not leaves or not all(
            (type(t) is Tensor and t.shape.rank is not None) or
            (isinstance(t, TensorArray) and graph_lowering_tensor_array.known(b, t))
            for t in leaves):
        return None
    ins = [_stand_in(t) for t in leaves]

    def run_cond(*xs):
        return cond(*nest.pack_sequence_as(current, list(xs)))

    def run_body(*xs):
        new = body(*nest.pack_sequence_as(current, list(xs)))
        if single or (len(current) == 1 and isinstance(new, Tensor)):
            new = (new,)
        return new

    c_trace, b_trace = _trace_branch(b, run_cond, ins), _trace_branch(b, run_body, ins)
    if c_trace is None or b_trace is None:
        return None
    pred = c_trace[3]
    if not isinstance(pred, Tensor) or pred.dtype != dtypes.bool or pred.shape.rank != 0:
        return None
    new = b_trace[1]
    if len(new) != len(leaves) or not all(
            (isinstance(y, TensorArray) and y.dtype == x.dtype) if isinstance(x, TensorArray)
            else (isinstance(y, Tensor) and y.dtype == x.dtype and
                  y.shape.as_list() == x.shape.as_list()) for x, y in zip(ins, new)):
        return None
    seen: dict = {}
    _outer_reads(b, c_trace[0], seen, (), c_trace[5], arrays=True)
    _outer_reads(b, b_trace[0], seen, new, b_trace[5], arrays=True)
    outer = [v for k, v in seen.items() if not isinstance(k, tuple)]
    variables = [v for k, v in seen.items() if isinstance(k, tuple)]

    limit = a.get("maximum_iterations")
    if isinstance(limit, Tensor) and limit.dtype in (dtypes.int32, dtypes.int64):
        count_dtype, bound = limit.dtype, b.input(limit)
    elif limit is None or (isinstance(limit, int) and not isinstance(limit, bool)):
        count_dtype, bound = dtypes.int32, b.constant(-1 if limit is None else limit,
                                                      dtypes.int32)
    else:
        return None
    loop = [(b.constant(0, count_dtype), count_dtype), (bound, count_dtype)] + \
        [_arg(b, t) for t in leaves] + [_arg(b, t) for t in outer]
    args = [(f"loop_{k}", d, [] if k < 2 or d == dtypes.variant else None)
            for k, (_, d) in enumerate(loop)]

    cf, ce = _loop_function(b, "while_cond", c_trace, leaves, ins, args, outer, variables)
    bf, be = _loop_function(b, "while_body", b_trace, leaves, ins, args, outer, variables)
    if cf is None or bf is None or not all(
            graph_lowering_tensor_array.known(bf, y) for y in new
            if isinstance(y, TensorArray)):
        return None
    p = cf.input(pred)
    if limit is not None:
        below = cf.node("Less", [ce[0], ce[1]], {"T": count_dtype}, out_dtypes=[dtypes.bool])
        p = f"{cf.node('LogicalAnd', [f'{below}:0', p], {}, out_dtypes=[dtypes.bool])}:0"
    cond_fn = b.end_function(cf, [p])
    one = bf.constant(1, count_dtype)
    nxt = bf.node("AddV2", [be[0], one], {"T": count_dtype}, out_dtypes=[count_dtype])
    results = [f"{nxt}:0", be[1]] + [_arg(bf, y)[0] for y in new] + \
        be[2 + len(leaves):] + bf.graph.inputs[len(args):]
    body_fn = b.end_function(bf, results)

    loop += [(b.handle(v), dtypes.resource) for v in variables]
    args += [("resource", dtypes.resource, []) for _ in variables]
    w = b.node("While", [ep for ep, _ in loop],
               {"T": [d for _, d in loop], "cond": cond_fn, "body": body_fn,
                "output_shapes": [shape_attr(dims) for _, _, dims in args],
                "parallel_iterations": int(a.get("parallel_iterations") or 10)},
               name="while", out_dtypes=[d for _, d in loop])
    eps = []
    for k, (t, y, out) in enumerate(zip(leaves, new, nest.flatten(call.outputs))):
        if isinstance(t, TensorArray):
            if isinstance(out, TensorArray):  # (its element rank as the body wrote it)
                graph_lowering_tensor_array.bind(b, out, f"{w}:{2 + k}",
                                                 graph_lowering_tensor_array.dims(bf, y))
        else:
            eps.append(f"{w}:{2 + k}")
    return eps


register(control_flow_ops.while_loop, _while_loop)
