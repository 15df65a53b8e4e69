"""TF lowerings of ``tf.cond`` (and AutoGraph's ``if`` on a tensor): an ``If`` node;
and of ``tf.map_fn``: a ``While`` loop over TensorLists.

Each branch runs again as a dry trace while its op calls are captured, and becomes a
function of the ``If``'s ``then_branch``/``else_branch`` attributes, as TF's
``cond_v2`` builds them: both take the same inputs (the outer tensors either branch
reads, then the variables either captures) and return the same outputs. A Python
``bool`` predicate lowers the branch it selects in place. A branch that cannot be
traced without running (it reads a tensor value into Python) or whose results differ
in structure or dtype from the other's is refused (None).

``map_fn`` writes what TF's does: each element tensor becomes a TensorList
(``TensorListFromTensor``), the loop body reads element ``i``, runs ``fn``'s ops (its
Python traced once more on stand-in elements) and writes each result into a
reserved TensorList, stacked after the loop; the element count is read at run time.
``fn`` is traced at two element sizes (the dimensions the signature leaves unknown,
or, for elements that are not arguments, the size-1 ones that may stand in for them,
one larger the second time) and the bodies must agree, or the graph is refused (a
body that read a size the signature leaves unknown). Where the elements' dimensions
past the first are all known, the results' element shapes are static, so zero rows
stack as in TF.
"""

from __future__ import annotations

import re

import numpy as np
import torch

from torchflow._src.core import dtypes, errors, graph_trace, op_graph
from torchflow._src.core.op_graph import shape_attr
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.variables import Variable
from torchflow._src.ops import control_flow_ops, functional_ops, graph_lowering_tensor_array
from torchflow._src.ops.tensor_array import TensorArray
from torchflow._src.util import nest

_I32 = dtypes.int32
_WORD = re.compile(r"\b\w+\b")


def _trace_branch(b, fn, args=()):
    """``fn(*args)`` run dry while its op calls are captured: ``(calls, flat outputs,
    dynamic ids, outputs, tainted ids, outer tensors read)``; None if it cannot be
    traced without running."""
    rec = graph_trace.Recorder("cond_branch", dry=True)
    names = {}
    for t in list(b._keep) + list(args):  # the outer values (and the stand-ins), so that
        if isinstance(getattr(t, "_t", None), torch.Tensor):  # what fn computes from
            names[rec.input(t._t)] = t  # them without a lowering is not constant
    if any(t.dtype == dtypes.string for t in args):
        # String ops compute in NumPy, out of the recorder's sight (as function.py).
        rec.tainted_from = 0
    try:
        with rec, op_graph.capture_calls() as cap:
            out = fn(*args)
    except (graph_trace.TraceUnsafe, errors.OpError, ValueError, TypeError):
        return None
    if rec.unsafe_outside_ops is not None:
        return None
    flat = nest.flatten(out, expand_composites=True)
    # The outer tensors the recording reads, also inside nested conds and loops
    # (whose calls are not among ``cap.calls``).
    words = set(_WORD.findall("\n".join(rec.lines)))
    used = [t for n, t in names.items() if n in words and id(t._t) in b._by_tensor]
    b.alive.append((rec, cap))
    return cap.calls, flat, rec.dynamic, out, rec.tainted(), used


def _outer_reads(b, calls, seen: dict, outputs=(), used=(), arrays: bool = False) -> None:
    """Adds to ``seen`` (id -> value, in order) the outer tensors and the variables that
    ``calls`` read, and the outer tensors among ``outputs`` (a branch that returns
    one as it is) and ``used`` (read by a nested cond or loop); with ``arrays``, also
    the outer TensorArrays that ``calls`` use (``b`` knows their lists)."""
    made: set = set()
    for call in calls:
        for v in nest.flatten(list(call.args.values())):
            if isinstance(v, Variable):
                seen.setdefault(("var", id(v)), v)
            elif arrays and isinstance(v, TensorArray) and id(v) in b.lists:
                seen.setdefault(id(v), v)
            elif isinstance(v, Tensor) and id(v._t) not in made and \
                    id(v._t) in b._by_tensor:
                seen.setdefault(id(v._t), v)
        made.update(id(o._t) for o in nest.flatten(call.outputs, expand_composites=True)
                    if isinstance(o, Tensor))
    for v in list(outputs) + list(used):
        if isinstance(v, Tensor) and id(v._t) not in made and id(v._t) in b._by_tensor:
            seen.setdefault(id(v._t), v)


def _branch_function(b, name, trace, outer: list, variables: list, out_dtypes: list):
    calls, flat, dynamic, _, tainted, _ = trace
    args = [(f"input_{k}", _arg_dtype(t), None) for k, t in enumerate(outer)]
    body, eps = b.function(name, args)
    body._tainted = set(body._tainted) | tainted
    for t, ep in zip(outer, eps):
        if isinstance(t, TensorArray):
            graph_lowering_tensor_array.bind(body, t, ep, graph_lowering_tensor_array.dims(b, t))
        else:
            body.bind(t, ep)
    for v in variables:
        body.handle(v)
    body.lower_calls(calls, dynamic)
    outs = []
    for o, d in zip(flat, out_dtypes):
        if isinstance(o, TensorArray):
            if not graph_lowering_tensor_array.known(body, o):
                return None
            outs.append(graph_lowering_tensor_array.handle(body, o))
        elif d is not None:
            outs.append(body.input(o, d))
    if [id(v) for v in body.graph.variables] != [id(v) for v in variables] or \
            len(body.graph.inputs) != len(args) + len(variables):
        return None  # it captured what the other branch's signature does not take
    for t, ep in zip(outer, eps):
        if isinstance(t, TensorArray) and graph_lowering_tensor_array.handle(body, t) != ep \
                and not any(o is t for o in flat):
            return None  # it wrote an array it does not return (TF's graph drops that)
    return b.end_function(body, outs)


def _arg_dtype(t):
    return dtypes.variant if isinstance(t, TensorArray) else t.dtype


def _out_dtypes(flat_t: list, flat_f: list):
    """The dtype of each output (None where both branches give the same Python
    value; variant for a TensorArray's list); None if the branches' outputs cannot
    pair."""
    out = []
    for x, y in zip(flat_t, flat_f):
        tx, ty = isinstance(x, Tensor), isinstance(y, Tensor)
        if isinstance(x, TensorArray) or isinstance(y, TensorArray):
            if not (isinstance(x, TensorArray) and isinstance(y, TensorArray)) or \
                    x.dtype != y.dtype:
                return None
            out.append(dtypes.variant)
        elif tx and ty:
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
        calls, flat, dynamic, _, tainted, _ = trace
        b._tainted = set(b._tainted) | tainted
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
    _outer_reads(b, t_trace[0], seen, t_trace[1], t_trace[5], arrays=True)
    _outer_reads(b, f_trace[0], seen, f_trace[1], f_trace[5], arrays=True)
    outer = [v for k, v in seen.items() if not isinstance(k, tuple)]
    variables = [v for k, v in seen.items() if isinstance(k, tuple)]
    then_fn = _branch_function(b, "cond_true", t_trace, outer, variables, out_dtypes)
    else_fn = _branch_function(b, "cond_false", f_trace, outer, variables, out_dtypes)
    if then_fn is None or else_fn is None:
        return None
    p = b.input(pred)  # (If takes a one-element tensor of any rank)
    ins = [graph_lowering_tensor_array.handle(b, t) if isinstance(t, TensorArray)
           else b.input(t) for t in outer] + [b.handle(v) for v in variables]
    tout = [d for d in out_dtypes if d is not None]
    n = b.node("If", [p] + ins,
               {"Tcond": dtypes.bool, "Tin": [_arg_dtype(t) for t in outer] +
                [dtypes.resource] * len(variables), "Tout": tout, "then_branch": then_fn,
                "else_branch": else_fn, "output_shapes": []},
               name="cond", out_dtypes=tout)
    # Where one branch gave a Python value and the other a tensor, the call's result
    # is a tensor (record_cond): one output per dtype here either way. An array's
    # output is its list's, the array the call returned.
    eps, k = [], 0
    for d, x, out in zip(out_dtypes, t_trace[1], nest.flatten(call.outputs)):
        if d is None:
            continue
        if isinstance(x, TensorArray):
            if isinstance(out, TensorArray):
                graph_lowering_tensor_array.bind(b, out, f"{n}:{k}",
                                                 graph_lowering_tensor_array.dims(b, out))
        else:
            eps.append(f"{n}:{k}")
        k += 1
    return eps


def _signature_dims(b, t: Tensor):
    """The dims of ``t`` as the signature gives them (None unknown) where ``t`` is an
    argument of the graph; None where it is not (or its rank is unknown)."""
    ep = b._by_tensor.get(id(t._t))
    if ep is None or not ep.endswith(":0"):
        return None
    try:
        op = b.graph.get_operation_by_name(ep[:-2])
    except (KeyError, ValueError):
        return None
    if op.type != "Placeholder":
        return None
    dims = op.get_attr("shape").dims
    return dims if dims is not None and len(dims) == t._t.ndim else None


def _stand_in(t: Tensor, grow: int, unknown=None) -> Tensor:
    """An element of ``t``: zeros, ``grow`` larger in its unknown dimensions (``unknown``:
    the signature's dims of ``t``; where None, its size-1 dimensions, the dry trace's
    stand-in size of the signature's unknown ones)."""
    sizes = [int(v) for v in t._t.shape[1:]]
    which = [d is None for d in unknown[1:]] if unknown is not None else [v == 1 for v in sizes]
    dims = [v + grow if w else v for v, w in zip(sizes, which)]
    if t.dtype == dtypes.string:
        return wrap(np.full(dims, b"", dtype=object), t.dtype)
    return wrap(torch.zeros(dims, dtype=t.dtype._torch), t.dtype)


def _body_nodes(trace, stand_ins, outer) -> list | None:
    """The serialized nodes of ``trace``'s graph (Placeholders left out), to compare
    the traces at two element sizes; None if it holds what TF cannot run."""
    ins = list(stand_ins) + list(outer)
    g = op_graph.FuncGraph.build("map_fn_body", [f"a{k}" for k in range(len(ins))], ins,
                                 trace[0], trace[3], trace[2], tainted=trace[4])
    if not g.exportable:
        return None
    return [n.SerializeToString(deterministic=True) for n in g.as_graph_def().node
            if n.op != "Placeholder"]


def _list_node(b, op: str, inputs: list, element_dtype) -> str:
    n = b.node(op, inputs, {"element_dtype": element_dtype, "shape_type": _I32},
               out_dtypes=[dtypes.variant])
    return f"{n}:0"


def _map_fn(b, call):
    a = call.args
    fn, elems = a["fn"], a["elems"]
    flat_e = nest.flatten(elems)
    flat_o = nest.flatten(call.outputs)
    if not callable(fn) or not flat_e or not flat_o or \
            not all(isinstance(t, Tensor) and t.shape.rank for t in flat_e) or \
            not all(isinstance(t, Tensor) and t.shape.rank for t in flat_o):
        return None

    def run(*xs):
        return fn(nest.pack_sequence_as(elems, list(xs)))

    sig = [_signature_dims(b, t) for t in flat_e]
    ins1 = [_stand_in(t, 0, u) for t, u in zip(flat_e, sig)]
    ins2 = [_stand_in(t, 1, u) for t, u in zip(flat_e, sig)]
    t1, t2 = _trace_branch(b, run, ins1), _trace_branch(b, run, ins2)
    if t1 is None or t2 is None or len(t1[1]) != len(flat_o) or len(t2[1]) != len(flat_o):
        return None
    seen: dict = {}
    _outer_reads(b, t1[0], seen, (), t1[5])
    outer = [v for k, v in seen.items() if not isinstance(k, tuple)]
    n1, n2 = _body_nodes(t1, ins1, outer), _body_nodes(t2, ins2, outer)
    if n1 is None or n1 != n2:
        return None
    out_dtypes = [o.dtype for o in flat_o]
    for y, d in zip(t1[1], out_dtypes):
        if not isinstance(y, Tensor) or y.dtype != d:
            return None
    v = dtypes.variant
    unknown = b.constant(-1, _I32)
    # Where every element is an argument of known dims past the first, a result shape
    # both traces agree on is static (TF's map_fn stacks even zero rows to it);
    # elsewhere it is unknown.
    known = all(u is not None and None not in u[1:] for u in sig)
    elem_shapes = [b.constant(y1.shape.as_list(), _I32)
                   if known and isinstance(y2, Tensor) and
                   y1.shape.as_list() == y2.shape.as_list() else unknown
                   for y1, y2 in zip(t1[1], t2[1])]
    first = b.input(flat_e[0])
    shape = b.node("Shape", [first], {"T": flat_e[0].dtype, "out_type": _I32},
                   out_dtypes=[_I32])
    count = b.node("GatherV2", [f"{shape}:0", b.constant(0, _I32), b.constant(0, _I32)],
                   {"Tparams": _I32, "Tindices": _I32, "Taxis": _I32, "batch_dims": 0},
                   out_dtypes=[_I32])
    n = f"{count}:0"
    in_lists = [_list_node(b, "TensorListFromTensor", [b.input(t), unknown], t.dtype)
                for t in flat_e]
    out_lists = [_list_node(b, "TensorListReserve", [es, n], d)
                 for es, d in zip(elem_shapes, out_dtypes)]
    loop = [(b.constant(0, _I32), _I32), (n, _I32)] + [(ep, v) for ep in out_lists] + \
        [(ep, v) for ep in in_lists] + [(b.input(t), t.dtype) for t in outer]
    args = [(f"loop_{k}", d, None if k >= 2 else []) for k, (_, d) in enumerate(loop)]
    body, be = b.function("map_while_body", args)
    i, k_out, k_in = be[0], 2, 2 + len(out_lists)
    for t, ep in zip(outer, be[k_in + len(in_lists):]):
        body.bind(t, ep)
    for t, stand_in, lst in zip(flat_e, ins1, be[k_in:k_in + len(in_lists)]):
        x = body.node("TensorListGetItem", [lst, i, body.constant(-1, _I32)],
                      {"element_dtype": t.dtype}, out_dtypes=[t.dtype])
        body.bind(stand_in, f"{x}:0")
    body._tainted = set(body._tainted) | t1[4]
    body.lower_calls(t1[0], t1[2])
    written = []
    for y, d, lst in zip(t1[1], out_dtypes, be[k_out:k_in]):
        w = body.node("TensorListSetItem", [lst, i, body.input(y)], {"element_dtype": d},
                      out_dtypes=[v])
        written.append(f"{w}:0")
    nxt = body.node("AddV2", [i, body.constant(1, _I32)], {"T": _I32}, out_dtypes=[_I32])
    extra = body.graph.inputs[len(args):]  # variables fn captured (resources)
    body_fn = b.end_function(body, [f"{nxt}:0", be[1]] + written + be[k_in:] + extra)
    for var in body.graph.variables:
        loop.append((b.handle(var), dtypes.resource))
        args.append(("resource", dtypes.resource, []))
    cond, ce = b.function("map_while_cond", args)
    less = cond.node("Less", [ce[0], ce[1]], {"T": _I32}, out_dtypes=[dtypes.bool])
    cond_fn = b.end_function(cond, [f"{less}:0"])
    w = b.node("While" if body.graph.variables else "StatelessWhile", [ep for ep, _ in loop],
               {"T": [d for _, d in loop], "cond": cond_fn, "body": body_fn,
                "output_shapes": [shape_attr(dims) for _, _, dims in args],
                "parallel_iterations": int(a.get("parallel_iterations") or 10)},
               name="map/while", out_dtypes=[d for _, d in loop])
    outs = []
    for k, (es, d) in enumerate(zip(elem_shapes, out_dtypes)):
        s_ = b.node("TensorListStack", [f"{w}:{k_out + k}", es],
                    {"element_dtype": d, "num_elements": -1}, out_dtypes=[d])
        outs.append(f"{s_}:0")
    return outs


op_graph.register(control_flow_ops.cond, _cond)
op_graph.register(functional_ops.map_fn, _map_fn)
