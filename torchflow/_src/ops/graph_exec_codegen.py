"""Turns a planned ``FunctionDef`` into one generated Python function (``graph_exec``).

The plan (nodes in run order, each input resolved to ``(source, flat output
index)``) becomes straight-line code over local variables, written once when the
function is first called:

* ``Const`` nodes are folded: their tensor is a name in the code's namespace;
* ``Identity`` / ``Snapshot`` / ``IdentityN`` / ``PlaceholderWithDefault`` are
  aliases of their inputs and ``NoOp`` disappears (its control edges only order
  nodes, and the code runs them in that order already);
* a raw op whose implementation takes positional arguments is called directly,
  its attributes bound as names; ``ReadVariableOp`` reads the variable in place;
* calls, ``If`` and ``While`` hold their callee's plan, resolved on first use and
  kept: a loop runs its cond and body functions' code directly each iteration;
* every other node calls its handler with its parsed attributes;
* a value no later node needs is released (``del``) after its last use.

So a call runs no per-node lookups by name, attribute parsing or plan walking.
"""

from __future__ import annotations

import torch

from torchflow._src.core import errors
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import graph_exec_fast

_SEQ = (list, tuple)
_ALIASES = frozenset({"Identity", "Snapshot", "PlaceholderWithDefault"})


def truth(x) -> bool:
    """TF's predicate of ``If``/``While``: a scalar's value, else whether it has elements."""
    t = x._t if isinstance(x, Tensor) else None
    if isinstance(t, torch.Tensor):
        if t.dim() == 0:
            return bool(t)
        return t.numel() > 0
    a = x.numpy()
    return bool(a) if getattr(a, "ndim", 0) == 0 else a.size > 0


def read_variable(x):
    if not isinstance(x, Variable):
        raise errors.InvalidArgumentError(
            None, None, f"Input 0 of ReadVariableOp must be a resource (a variable), got "
            f"{type(x).__name__} [Op:ReadVariableOp]")
    return x.read_value()


class _Callee:
    """A function a node calls, planned on its first call and kept."""

    __slots__ = ("name", "plan")

    def __init__(self, name: str):
        self.name = name
        self.plan = None

    def get(self, library):
        plan = self.plan
        if plan is None:
            plan = self.plan = library._plan(self.name)
        return plan


def _call_op(attrs):
    callee = _Callee(attrs["f"])

    def call(library, vals):
        return callee.get(library).run(library, vals)

    return call


def _if_op(attrs):
    then_fn, else_fn = _Callee(attrs["then_branch"]), _Callee(attrs["else_branch"])

    def call(library, vals):
        branch = then_fn if truth(vals[0]) else else_fn
        return branch.get(library).run(library, vals[1:])

    return call


def _while_op(attrs):
    cond_fn, body_fn = _Callee(attrs["cond"]), _Callee(attrs["body"])

    def call(library, vals):
        cond, body = cond_fn.get(library), body_fn.get(library)
        n = len(vals)
        cond.check_arity(n)
        body.check_arity(n)
        if len(body.outputs) != n:
            raise errors.InvalidArgumentError(
                None, None, f"While body {body.name} returns {len(body.outputs)} values for "
                f"{n} loop variables [Op:While]")
        c, b = cond.fn, body.fn
        while truth(c(library, *vals)[0]):
            vals = b(library, *vals)
        return vals

    return call


CONTROL_OPS = {
    "StatefulPartitionedCall": _call_op, "PartitionedCall": _call_op,
    "If": _if_op, "StatelessIf": _if_op, "While": _while_op, "StatelessWhile": _while_op,
}
"""Ops whose code the writer makes itself (no handler or raw op runs them)."""


class _Writer:
    """Writes the code of one function: a statement per node that computes something."""

    def __init__(self, arg_names: list, fname: str):
        self.fname = fname
        self.ns: dict = {"_SEQ": _SEQ, "isinstance": isinstance, "_read": read_variable}
        self.lines: list = []
        self.count = 0
        self.args = {n: f"a{i}" for i, n in enumerate(arg_names)}
        self.exprs: dict = {}  # node name -> [expression of each output], or a list's name
        self.last_use: dict = {}  # variable -> index of the statement that reads it last

    def name(self, value, prefix: str = "k") -> str:
        """An expression for a value known when planning: a literal, or a bound name."""
        if value is None or isinstance(value, bool) or type(value) is int:
            return repr(value)
        if type(value) is str and value.isprintable() and len(value) < 200:
            return repr(value)
        self.count += 1
        key = f"_{prefix}{self.count}"
        self.ns[key] = value
        return key

    def ref(self, src: str, index: int, where: str) -> str:
        if src in self.args:
            return self.args[src]
        e = self.exprs[src]
        if isinstance(e, str):
            return f"{e}[{index}]"
        if index >= len(e):
            raise errors.InvalidArgumentError(
                None, None, f"Function {self.fname}: {where} names an output its source does "
                "not have")
        return e[index]

    def node(self, i: int, node) -> None:
        ins = [self.ref(s, k, f"an input of node '{node.name}' ({node.op})")
               for s, k in node.refs]
        if node.op == "Const" and not node.refs and "value" in node.attrs:
            self.exprs[node.name] = [self.name(node.attrs["value"])]
            return
        if (node.op in _ALIASES and len(ins) == 1) or node.op == "IdentityN":
            self.exprs[node.name] = ins
            return
        if node.op == "NoOp":
            self.exprs[node.name] = []
            return
        for e in ins:
            self.last_use[e.split("[", 1)[0]] = len(self.lines)
        call, kind = self._call(node, ins)
        if not node.used:
            self.lines.append(call)
            return
        var = f"v{i}"
        self.lines.append(f"{var} = {call}")
        if kind == "maybe":  # one output: a raw op may still give it as a 1-list
            self.lines.append(f"if isinstance({var}, _SEQ): {var} = {var}[0]")
        elif kind == "seq":
            self.lines.append(f"if not isinstance({var}, _SEQ): {var} = [{var}]")
        self.exprs[node.name] = var if kind in ("list", "seq") else [var]

    def _call(self, node, ins: list):
        """The call expression of a node, and what it returns: ``one`` value, ``maybe``
        one, a ``seq`` (or one value standing for a 1-list) or a ``list``."""
        many = "seq" if node.multi else "maybe"
        if node.op == "ReadVariableOp" and len(ins) == 1:
            return f"_read({ins[0]})", "one"
        fast = graph_exec_fast.fast_call(node, len(ins))
        if fast is not None:
            kind = "list" if node.op in graph_exec_fast.LIST_OUTPUTS else "one"
            return f"{self.name(fast, 'x')}({', '.join(ins)})", kind
        if node.positional is not None:
            fn, template, slots, fixed = node.positional
            parts = [self.name(v) for v in template]
            for slot, j in slots:
                parts[slot] = ins[j] if j < len(ins) else "None"
            parts += [f"{k}={self.name(v)}" for k, v in fixed.items()]
            return f"{self.name(fn, 'f')}({', '.join(parts)})", many
        if node.keywords is not None:
            fn, static, list_name, n, singles = node.keywords
            parts = [f"{k}={self.name(v)}" for k, v in static.items()]
            if list_name is not None:
                parts.append(f"{list_name}=[{', '.join(ins[:n])}]")
                ins = ins[n:]
            parts += [f"{k}={e}" for k, e in zip(singles, ins)]
            return f"{self.name(fn, 'f')}({', '.join(parts)})", many
        make = CONTROL_OPS.get(node.op)
        target = node.call if make is None else make(node.attrs)
        return f"{self.name(target, 'h')}(L, [{', '.join(ins)}])", "list"

    def finish(self, outputs: list):
        rets = [self.ref(s, k, "an output") for s, k in outputs]
        keep = {e.split("[", 1)[0] for e in rets}
        dead_after: dict = {}
        for var, line in self.last_use.items():
            if var.startswith("v") and var not in keep:
                dead_after.setdefault(line, []).append(var)
        body = []
        for j, line in enumerate(self.lines):
            body.append(line)
            if j in dead_after:
                body.append("del " + ", ".join(dead_after[j]))
        body.append("return [" + ", ".join(rets) + "]")
        params = ", ".join(["L"] + list(self.args.values()))
        src = f"def _run({params}):\n    " + "\n    ".join(body) + "\n"
        exec(compile(src, f"<graph function {self.fname}>", "exec"), self.ns)  # written above
        return self.ns["_run"], src


def generate(order: list, arg_names: list, outputs: list, fname: str):
    """``(function, source)``: the code running ``order`` (``_Node``s whose ``refs``
    are resolved) on arguments ``arg_names``, returning the list of ``outputs``.
    The function is called as ``fn(library, *args)``."""
    w = _Writer(arg_names, fname)
    for i, node in enumerate(order):
        w.node(i, node)
    return w.finish(outputs)
