"""``tf.cond`` and ``tf.while_loop`` inside a traced ``tf.function``.

A condition that depends on the function's inputs (or on variables, or random ops)
becomes control flow in the recording instead of making the trace eager:

* ``cond``: both branches are traced, as TF traces them (their Python runs once
  each): the branch the predicate picks now runs for real, the other one *dry*
  (its torch ops compute on the current values, its host nodes — variable writes,
  prints — are recorded, not run). The recording holds
  ``if bool(pred): <true branch> else: <false branch>``.
* ``while_loop``: the condition and the body are recorded once, on the loop
  variables of the first iteration; the recording holds a Python ``while`` over
  them. The first call's remaining iterations run that recorded loop (the body's
  Python runs once, as in TF), except in a dry trace or one already marked eager,
  where they run as Python.

When a branch cannot be traced this way (a dry branch that fails, branches whose
structures or Python values differ, loop variables that change their Python
values), the trace is marked eager instead: the values are right either way.
"""

from __future__ import annotations

import re

import torch

from torchflow._src.core import graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.util import nest


def wants_graph(pred) -> "graph_trace.Recorder | None":
    """The recorder to record control flow on ``pred`` into, or None (no trace, or a
    predicate that is a Python value or a constant)."""
    r = graph_trace.active()
    if r is None or not isinstance(pred, Tensor) or not isinstance(pred._t, torch.Tensor):
        return None
    return r if r._is_dynamic(pred._t) else None


def wants_graph_loop(loop_vars) -> "graph_trace.Recorder | None":
    """The recorder to record a ``while_loop`` over ``loop_vars`` into, or None."""
    r = graph_trace.active()
    if r is None:
        return None
    # Constant loop variables too: the condition may still read the inputs.
    for x in nest.flatten(loop_vars):
        if isinstance(x, Tensor) and isinstance(x._t, torch.Tensor):
            return r
    return None


def _sub_record(r, fn, dry: bool):
    """Runs ``fn()`` recording its lines apart; returns (lines, output)."""
    saved_lines, saved_dry, saved_grad = r.lines, r.dry, r.grad
    r.lines = []
    r.dry = dry or saved_dry
    try:
        out = fn()
        if r.grad is not saved_grad:
            r.lines.append(f"_sg({saved_grad})")
            torch._C._set_grad_enabled(saved_grad)
            r.grad = saved_grad
        return r.lines, out
    finally:
        r.lines, r.dry = saved_lines, saved_dry
        r.grad = saved_grad


def _indent(lines: list) -> list:
    return ["    " + line for line in lines] or ["    pass"]


def _leaf_exprs(r, leaves) -> list | None:
    out = []
    for x in leaves:
        if isinstance(x, Tensor) and isinstance(x._t, torch.Tensor):
            out.append(r._expr(x._t))
        elif graph_trace.is_host_value(x):  # a TensorArray: the local holding it
            out.append(r._host_expr(x))
        elif isinstance(x, Tensor):
            return None  # a string tensor: its values are not in the recording
        else:
            out.append(None)
    return out


def record_cond(r, pred: Tensor, true_fn, false_fn):
    """``tf.cond`` while ``r`` traces (``pred`` depends on the inputs)."""
    r.paused += 1
    try:
        taken = bool(pred._t)
    finally:
        r.paused -= 1
    first, second = (true_fn, false_fn) if taken else (false_fn, true_fn)
    lines_run, out = _sub_record(r, first, dry=False)
    try:
        lines_dry, out_dry = _sub_record(r, second, dry=True)
    except (Exception, graph_trace.TraceUnsafe):  # noqa: BLE001 - the trace stays right eagerly
        r.mark_unsafe("a tf.cond branch could not be traced")
        return out
    out_true, out_false = (out, out_dry) if taken else (out_dry, out)
    try:
        nest.assert_same_structure(out, out_dry, check_types=False)
    except (ValueError, TypeError) as e:
        raise _branch_mismatch(out_true, out_false, str(e)) from None
    leaves, leaves_dry, changed = _as_tensors_where_paired(r, nest.flatten(out),
                                                           nest.flatten(out_dry))
    if changed:
        out = nest.pack_sequence_as(out, leaves)
    e_run, e_dry = _leaf_exprs(r, leaves), _leaf_exprs(r, leaves_dry)
    if e_run is None or e_dry is None:
        r.mark_unsafe("tf.cond on string tensors")
        return out
    names = []
    for a, b, x, y in zip(e_run, e_dry, leaves, leaves_dry):
        if a is None or b is None:
            if a is not None or b is not None or not _same_value(x, y):
                r.mark_unsafe("tf.cond branches return different Python values")
                return out
            names.append(None)
            continue
        if type(x) is not type(y) and (graph_trace.is_host_value(x) or
                                       graph_trace.is_host_value(y)):
            r.mark_unsafe("tf.cond branches return a TensorArray and another value")
            return out
        if x._dtype is not y._dtype:
            xt, yf = (x, y) if taken else (y, x)
            raise _branch_mismatch(out_true, out_false,
                                   f"{_Sym(xt)!r} and {_Sym(yf)!r} have different types")
        names.append(r._fresh("o"))
    cond_expr = r._expr(pred._t)
    branch_true, branch_false = (lines_run, lines_dry) if taken else (lines_dry, lines_run)
    e_true, e_false = (e_run, e_dry) if taken else (e_dry, e_run)
    code = [f"if bool({cond_expr}):"]
    code += _indent(branch_true + [f"{n} = {e}" for n, e in zip(names, e_true) if n])
    code.append("else:")
    code += _indent(branch_false + [f"{n} = {e}" for n, e in zip(names, e_false) if n])
    r._grad_line()
    r.lines.extend(code)
    r.ops.append(("If", code[0]))
    return _named_outputs(r, out, names)


def _branch_mismatch(out_true, out_false, detail: str) -> TypeError:
    """TF's error for ``tf.cond`` branches whose results do not pair."""
    return TypeError(
        "true_fn and false_fn arguments to tf.cond must have the same number, type, and "
        f"overall structure of return values.\n\ntrue_fn output: {_symbolic(out_true)}\n"
        f"false_fn output: {_symbolic(out_false)}\n\nError details:\n{detail}")


def _symbolic(value):
    """``value`` with its tensors shown as a graph shows them (shape and dtype only: the
    trace's values are stand-ins)."""
    return nest.map_structure(
        lambda t: _Sym(t) if isinstance(t, Tensor) else t, value)


class _Sym:
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t

    def __repr__(self):
        return f"Tensor(shape={self.t.shape}, dtype={self.t.dtype.name})"


def _as_tensors_where_paired(r, run: list, dry: list):
    """A Python number or bool one branch returns where the other returns a tensor
    becomes a constant of that tensor's dtype, as TF's graph ``cond`` converts its
    outputs; returns both lists and whether any leaf changed."""
    changed = False
    run, dry = list(run), list(dry)
    r.paused += 1  # (the constants are not recorded ops)
    try:
        for k, (a, b) in enumerate(zip(run, dry)):
            if type(a) is type(b) and type(a) in (bool, int, float) and a != b:
                # Two different Python values: both become tensors (TF's conversion).
                run[k], dry[k] = to_tensor(a), to_tensor(b)
                changed = True
                continue
            for x, y, side in ((a, b, dry), (b, a, run)):
                if isinstance(x, Tensor) and isinstance(x._t, torch.Tensor) and \
                        _same_kind(x._dtype, y):
                    side[k] = wrap(torch.tensor(y, dtype=x._t.dtype), x._dtype)
                    changed = True
    finally:
        r.paused -= 1
    return run, dry, changed


def _same_kind(dtype, y) -> bool:
    """Whether TF's conversion of the Python value ``y`` gives a tensor ``cond`` can
    pair with one of ``dtype`` (a bool with bool, an int with an integer, a float
    with a floating dtype); otherwise TF's cond refuses the pair."""
    if type(y) is bool:
        return dtype.is_bool
    if type(y) is int:
        return dtype.is_integer
    return type(y) is float and dtype.is_floating


def _named_outputs(r, out, names):
    """``out`` with each named tensor leaf replaced by a fresh alias of it that the
    recording knows by that name (the leaf itself may be a tensor from before,
    which later code must still see as itself)."""
    leaves = nest.flatten(out)
    new = _aliases(r, leaves, names)
    if isinstance(out, Tensor):
        return new[0]
    return nest.pack_sequence_as(out, new)


def _aliases(r, leaves: list, names: list) -> list:
    """Each tensor leaf with a name as a fresh Tensor viewing its storage, which the
    recording knows by that name; the other leaves as they are."""
    new = []
    r.paused += 1
    try:
        for n, x in zip(names, leaves):
            if n is not None and graph_trace.is_host_value(x):
                a = x._host_alias()
                r.values[id(a)] = n
                r.keep.append(a)
                new.append(a)
                continue
            if n is None or not isinstance(x, Tensor):  # (a Python value: the trace is eager)
                new.append(x)
                continue
            a = object.__new__(type(x))
            a._t, a._dtype = x._t.view_as(x._t), x._dtype
            r.slots[id(a._t)] = n
            r.dynamic.add(id(a._t))
            r.keep.append(a._t)
            new.append(a)
    finally:
        r.paused -= 1
    return new


def _same_value(x, y) -> bool:
    try:
        return bool(x == y)
    except Exception:  # noqa: BLE001 - incomparable Python values
        return x is y


def max_iterations(value) -> int:
    """``tf.while_loop``'s ``maximum_iterations`` as an int (TF's error if negative)."""
    n = int(value)
    if n < 0:
        raise InvalidArgumentError(None, None, f"maximum_iterations must be >= 0, got {n}")
    return n


_DRY_ITERATIONS = 100  # the most iterations a dry trace runs of one tf.while_loop


def record_while(r, cond, body, current: tuple, max_iter, step, finish, limit=None):
    """``tf.while_loop`` while ``r`` traces. ``step(current) -> new`` runs one body
    call with TF's structure checks; ``finish(current)`` the remaining iterations
    as Python (recording paused); returns the final loop variables."""
    leaves = nest.flatten(current)
    if any(isinstance(x, Tensor) and not isinstance(x._t, torch.Tensor) for x in leaves):
        r.mark_unsafe("tf.while_loop over string tensors")
        return None
    names, pre = [], []
    for x in leaves:
        if isinstance(x, Tensor):
            name = r._fresh("L")
            pre.append(f"{name} = {r._expr(x._t)}")
            names.append(name)
        elif graph_trace.is_host_value(x):  # a TensorArray loop variable
            name = r._fresh("L")
            pre.append(f"{name} = {r._host_expr(x)}")
            names.append(name)
        else:
            names.append(None)
    aliases = _aliases(r, leaves, names)
    loop_vars = nest.pack_sequence_as(current, aliases)
    cond_lines, pred = _sub_record(r, lambda: cond(*loop_vars), dry=False)
    if not isinstance(pred, Tensor) or not isinstance(pred._t, torch.Tensor):
        r.mark_unsafe("a tf.while_loop condition that is not a tensor")
        return None
    r.paused += 1
    try:
        go = bool(pred._t) and (max_iter is None or max_iter > 0)
    finally:
        r.paused -= 1
    try:
        body_lines, new = _sub_record(r, lambda: step(loop_vars), dry=not go)
    except (Exception, graph_trace.TraceUnsafe):
        if go:
            raise
        r.mark_unsafe("a tf.while_loop body could not be traced")
        return None
    new_leaves = nest.flatten(new)
    e_new = _leaf_exprs(r, new_leaves)
    if e_new is None:
        r.mark_unsafe("tf.while_loop over string tensors")
        return None
    for n, x, y in zip(names, aliases, new_leaves):
        if n is None and not _same_value(x, y):
            r.mark_unsafe("a tf.while_loop changes a Python loop variable")
            return None
        if n is not None and (type(y) is not type(x) and not (
                isinstance(x, Tensor) and isinstance(y, Tensor)) or y._dtype is not x._dtype):
            r.mark_unsafe("a tf.while_loop body changes a loop variable's dtype")
            return None
    counter = r._fresh("n")
    code = list(pre) + [f"{counter} = 0", "while True:"]
    inner = list(cond_lines) + [f"if not bool({r._expr(pred._t)}):", "    break"]
    extra = {}
    if limit is not None:  # a traced tensor: read (and checked) on every call
        bound = r._fresh("n")
        extra[bound] = max_iter
        code.insert(0, f"{bound} = {r._obj(max_iterations)}(_wrap({r._expr(limit._t)}, "
                       f"{r._obj(limit._dtype)}))")
        inner += [f"if {counter} >= {bound}:", "    break"]
    elif max_iter is not None:
        inner += [f"if {counter} >= {int(max_iter)}:", "    break"]
    inner += body_lines + [f"{n} = {e}" for n, e in zip(names, e_new) if n]
    inner += [f"if {counter} > _loop_cap:", "    raise _LoopCapped", f"{counter} += 1"]
    code += _indent(inner)
    r._grad_line()
    r.lines.extend(code)
    r.ops.append(("While", "while"))
    # The first call's result: the remaining iterations run the recorded loop (the
    # body's Python ran once, as in TF); a dry trace, whose host nodes must not run,
    # runs them as Python.
    r.paused += 1
    try:
        if not go:
            final = _shaped_by(current, new)
        elif r.dry:
            # Stand-in values need not ever end the loop (zeros that a body doubles):
            # a dry trace, whose values are not anyone's results, stops early.
            final = finish(new, 1, _DRY_ITERATIONS)
        elif r.unsafe is not None:  # (the recording is not faithful)
            final = finish(new, 1)
        else:
            final = _continue_loop(r, inner, names, new, extra)
    finally:
        r.paused -= 1
    return _named_outputs(r, final, names)


def _shaped_by(current, new):
    """``current`` (a loop's variables, no iteration run) with each TensorArray of
    unknown element shape in it given the one the body's writes gave it, as TF's
    loop outputs have their body's static shapes."""
    leaves, done = nest.flatten(current), nest.flatten(new)
    out = []
    for x, y in zip(leaves, done):
        if graph_trace.is_host_value(x) and type(y) is type(x) and \
                x.element_shape.rank is None and y.element_shape.rank is not None:
            x = x._host_alias()
            x._element_shape = y.element_shape
        out.append(x)
    return nest.pack_sequence_as(current, out)


_NAME = re.compile(r"\b[A-Za-z_]\w*\b")


def _continue_loop(r, inner: list, names: list, new, extra: dict):
    """Runs the recorded loop ``inner`` from the loop variables after one iteration
    (``new``) to its end, now; returns the final loop variables in ``new``'s structure."""
    by_name = {r.slots[id(t)]: t for t in r.keep
               if isinstance(t, torch.Tensor) and id(t) in r.slots}
    by_name.update((r.values[id(v)], v) for v in r.keep if id(v) in r.values)
    by_name.update(r.ref_inputs)  # iterators the call passed
    lines = [line.replace(graph_trace._CONST_MARK, "", 1) for line in inner]
    carried = [n for n in names if n]
    free = sorted({w for line in lines for w in _NAME.findall(line)
                   if w in by_name and w not in carried}) + list(extra)
    counter = next(w for w in _NAME.findall(inner[-1]))  # "nK += 1"
    src = (f"def _loop({', '.join(carried + free)}):\n    {counter} = 1\n    while True:\n"
           + "".join(f"        {line}\n" for line in lines)
           + f"    return ({', '.join(carried)},)\n")
    ns = dict(r.ns)
    exec(compile(src, f"<tf.while_loop in {r.name}>", "exec"), ns)  # the recorded loop
    leaves = nest.flatten(new)
    start = [x._t if isinstance(x, Tensor) else x for n, x in zip(names, leaves) if n]
    outs = iter(ns["_loop"](*start, *[extra[w] if w in extra else by_name[w] for w in free]))
    final = [(wrap(next(outs), x._dtype) if isinstance(x, Tensor) else next(outs)) if n else x
             for n, x in zip(names, leaves)]
    return nest.pack_sequence_as(new, final)
