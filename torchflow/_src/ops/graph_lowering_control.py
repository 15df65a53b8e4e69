"""TF lowering of ``tf.cond`` (and AutoGraph's ``if`` on a tensor): an ``If`` node.

Each branch runs again as a dry trace while its op calls are captured, and becomes a
function of the ``If``'s ``then_branch``/``else_branch`` attributes, as TF's
``cond_v2`` builds them: both take the same inputs (the outer tensors either branch
reads, then the variables either captures) and return the same outputs. A Python
``bool`` predicate lowers the branch it selects in place. A branch that cannot be
traced without running (it reads a tensor value into Python) or whose results differ
in structure or dtype from the other's is refused (None).
"""

from __future__ import annotations

from torchflow._src.core import dtypes, graph_trace, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import control_flow_ops
from torchflow._src.util import nest


def _trace_branch(b, fn):
    """``fn()`` run dry while its op calls are captured: ``(calls, flat outputs, dynamic
    ids, outputs)``; None if it cannot be traced without running."""
    rec = graph_trace.Recorder("cond_branch", dry=True)
    for t in b._keep:  # the outer values, so that what the branch computes from them
        rec.input(t._t)  # without a lowering is not mistaken for a constant
    try:
        with rec, op_graph.capture_calls() as cap:
            out = fn()
    except graph_trace.TraceUnsafe:
        return None
    if rec.unsafe is not None:
        return None
    flat = nest.flatten(out, expand_composites=True)
    return cap.calls, flat, rec.dynamic, out


def _outer_reads(b, calls, seen: dict) -> None:
    """Adds to ``seen`` (id -> value, in order) the outer tensors and the variables that
    ``calls`` read."""
    made: set = set()
    for call in calls:
        for v in nest.flatten(list(call.args.values())):
            if isinstance(v, Variable):
                seen.setdefault(("var", id(v)), v)
            elif isinstance(v, Tensor) and id(v._t) not in made and \
                    id(v._t) in b._by_tensor:
                seen.setdefault(id(v._t), v)
        made.update(id(o._t) for o in nest.flatten(call.outputs, expand_composites=True)
                    if isinstance(o, Tensor))


def _branch_function(b, name, trace, outer: list, variables: list, out_dtypes: list):
    calls, flat, dynamic, _ = trace
    args = [(f"input_{k}", t.dtype, None) for k, t in enumerate(outer)]
    body, eps = b.function(name, args)
    for t, ep in zip(outer, eps):
        body.bind(t, ep)
    for v in variables:
        body.handle(v)
    body.lower_calls(calls, dynamic)
    outs = [body.input(o, d) for o, d in zip(flat, out_dtypes) if d is not None]
    if [id(v) for v in body.graph.variables] != [id(v) for v in variables] or \
            len(body.graph.inputs) != len(args) + len(variables):
        return None  # it captured what the other branch's signature does not take
    return b.end_function(body, outs)


def _out_dtypes(flat_t: list, flat_f: list):
    """The dtype of each output (None where both branches give the same Python
    value); None if the branches' outputs cannot pair."""
    out = []
    for x, y in zip(flat_t, flat_f):
        tx, ty = isinstance(x, Tensor), isinstance(y, Tensor)
        if tx and ty:
            if x.dtype != y.dtype:
                return None
            out.append(x.dtype)
        elif tx or ty:
            out.append(x.dtype if tx else y.dtype)
        elif x is y or (type(x) is type(y) and x == y):
            out.append(None)
        else:
            return None
    return out


def _cond(b, call):
    a = call.args
    pred, true_fn, false_fn = a["pred"], a.get("true_fn"), a.get("false_fn")
    if not callable(true_fn) or not callable(false_fn):
        return None
    if isinstance(pred, bool):
        trace = _trace_branch(b, true_fn if pred else false_fn)
        if trace is None:
            return None
        calls, flat, dynamic, _ = trace
        b.lower_calls(calls, dynamic)
        return [b.input(o) for o in flat if isinstance(o, Tensor)]
    if not isinstance(pred, Tensor) or pred.shape.num_elements() != 1 or \
            pred.dtype != dtypes.bool:
        return None
    t_trace, f_trace = _trace_branch(b, true_fn), _trace_branch(b, false_fn)
    if t_trace is None or f_trace is None:
        return None
    try:
        nest.assert_same_structure(t_trace[3], f_trace[3], check_types=False)
    except (ValueError, TypeError):
        return None
    out_dtypes = _out_dtypes(t_trace[1], f_trace[1])
    if out_dtypes is None:
        return None
    seen: dict = {}
    _outer_reads(b, t_trace[0], seen)
    _outer_reads(b, f_trace[0], seen)
    outer = [v for k, v in seen.items() if not isinstance(k, tuple)]
    variables = [v for k, v in seen.items() if isinstance(k, tuple)]
    then_fn = _branch_function(b, "cond_true", t_trace, outer, variables, out_dtypes)
    else_fn = _branch_function(b, "cond_false", f_trace, outer, variables, out_dtypes)
    if then_fn is None or else_fn is None:
        return None
    p = b.input(pred)  # (If takes a one-element tensor of any rank)
    ins = [b.input(t) for t in outer] + [b.handle(v) for v in variables]
    tout = [d for d in out_dtypes if d is not None]
    n = b.node("If", [p] + ins,
               {"Tcond": dtypes.bool, "Tin": [t.dtype for t in outer] +
                [dtypes.resource] * len(variables), "Tout": tout, "then_branch": then_fn,
                "else_branch": else_fn, "output_shapes": []},
               name="cond", out_dtypes=tout)
    # Where one branch gave a Python value and the other a tensor, the call's result
    # is a tensor (record_cond): one output per dtype here either way.
    return [f"{n}:{k}" for k in range(len(tout))]


op_graph.register(control_flow_ops.cond, _cond)
