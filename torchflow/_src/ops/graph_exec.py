"""Runs TF graphs: a ``FunctionDef`` (TF's function body format) node by node.

This is how a SavedModel written by TensorFlow runs in torchflow: each node is a
TF op (``MatMul``, ``ReadVariableOp``, ``StatefulPartitionedCall``, ...) that
runs through torchflow's raw ops (``tf.raw_ops``), a handler in ``graph_exec_ops``
(ops on resources and the like) or, for calls, ``If`` and ``While``, code
``graph_exec_codegen`` writes itself. The graph is the
program: no Python of the model that wrote it is needed.

Inside a ``FunctionDef`` an input names a function argument (``x``), another
node's output as ``node:out_arg:index`` (``out_arg`` is the op's output
argument, ``index`` the position inside it) or a control dependency as ``^node``;
the function's outputs are the ``ret`` map of its signature's output arguments.
A ``GraphDef``'s nodes use ``node:index`` / ``node`` instead; both are read.

Resource inputs (variables) are the torchflow ``Variable`` objects themselves.
Each function is planned once, on its first call (parsed attributes, each node's
kernel and attributes bound, the order its nodes run in: the nodes its outputs,
its ``control_ret`` and its stateful ops need, data and control edges first) and
written as one Python function over those kernels (``graph_exec_codegen``), which
every later call runs.
"""

from __future__ import annotations

import importlib
import inspect
import threading

from torchflow._src.core import dtypes, errors
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.ops import (
    graph_exec_codegen,
    graph_exec_linalg,
    graph_exec_lists,
    graph_exec_math,
    graph_exec_ops,
    graph_exec_ragged,
    graph_exec_strings,
    graph_exec_tables,
    raw_ops,
)
from torchflow._src.ops.tensor_proto_ops import from_proto

# Ops whose outputs are several arguments: their names in OpDef order (a
# ``node:arg:i`` input is output ``offset(arg) + i``; every other op's outputs are
# one argument, so the index alone locates them).
_OUTPUT_ARGS = {
    "FusedBatchNorm": ("y", "batch_mean", "batch_variance", "reserve_space_1",
                       "reserve_space_2"),
    "FusedBatchNormV2": ("y", "batch_mean", "batch_variance", "reserve_space_1",
                         "reserve_space_2"),
    "FusedBatchNormV3": ("y", "batch_mean", "batch_variance", "reserve_space_1",
                         "reserve_space_2", "reserve_space_3"),
    "TopKV2": ("values", "indices"),
    "Unique": ("y", "idx"),
    "TensorListPopBack": ("output_handle", "tensor"),
    "TensorListConcatV2": ("tensor", "lengths"),
    "LookupTableExportV2": ("keys", "values"),
    **graph_exec_ragged.OUTPUT_ARGS,
    **graph_exec_strings.OUTPUT_ARGS,
    **graph_exec_linalg.OUTPUT_ARGS,
    "SparseSoftmaxCrossEntropyWithLogits": ("loss", "backprop"),
    "SoftmaxCrossEntropyWithLogits": ("loss", "backprop"),
}

# Ops whose output arguments are lists (their lengths attrs): the offset of each
# argument's first output, from the node's attrs.
_LIST_OUTPUTS = {**graph_exec_strings.LIST_OUTPUTS}

_HANDLERS = {**graph_exec_ops.HANDLERS, **graph_exec_lists.HANDLERS,
             **graph_exec_tables.HANDLERS, **graph_exec_ragged.HANDLERS,
             **graph_exec_strings.HANDLERS, **graph_exec_math.HANDLERS,
             **graph_exec_linalg.HANDLERS}

# Raw ops whose first input argument is a list of tensors (its length is an attr
# such as ``N``): the node's leading inputs up to that many form one list.
_LIST_INPUTS = {"ConcatV2": "N", "Pack": "N", "AddN": "N", "Einsum": "N",
                "StringJoin": "N", "StringFormat": "T"}

# OpDef attribute names that the raw op's Python keyword spells differently.
_ATTR_RENAMES = {"Squeeze": {"squeeze_dims": "axis"}}

# Ops that change state: they run even when no output needs them (TF's automatic
# control dependencies order them; a FunctionDef keeps them in ``control_ret``).
_STATEFUL = frozenset({"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                       "StatefulPartitionedCall", "PrintV2", "Assert", "LookupTableImportV2",
                       "LookupTableInsertV2", "LookupTableRemoveV2",
                       "InitializeTableFromTextFileV2"})


def attr_value(av):
    """The Python value of an ``AttrValue`` (DType, TensorShape, Tensor, list, ...)."""
    kind = av.WhichOneof("value")
    if kind is None:
        return None
    if kind == "list":
        lst = av.list
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            if len(getattr(lst, field)):
                return [_scalar_attr(field, v) for v in getattr(lst, field)]
        return []
    if kind == "placeholder":
        raise errors.InvalidArgumentError(
            None, None, f"Attr placeholder ${av.placeholder} was not substituted")
    return _scalar_attr(kind, getattr(av, kind))


def _scalar_attr(kind, v):
    if kind == "s":
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return v
    if kind == "type":
        try:
            return dtypes.as_dtype(int(v))
        except (TypeError, ValueError, KeyError):
            return int(v)  # DT_RESOURCE / DT_VARIANT: no torchflow dtype, kept as the enum
    if kind == "shape":
        if v.unknown_rank:
            return TensorShape(None)
        return TensorShape([None if d.size < 0 else int(d.size) for d in v.dim])
    if kind == "tensor":
        return from_proto(v)
    if kind == "func":
        return v.name
    return v


def _parse_input(ref: str, in_function: bool):
    """``(source, out_arg, index)`` for a data input, ``None`` for ``^control``."""
    if ref.startswith("^"):
        return None
    parts = ref.split(":")
    if len(parts) == 3:
        return parts[0], parts[1], int(parts[2])
    if len(parts) == 2:
        if in_function and not parts[1].isdigit():
            return parts[0], parts[1], 0
        return parts[0], None, int(parts[1])
    return parts[0], None, 0


def _unregistered(op: str, name: str):
    def fail(library, vals):
        raise errors.NotFoundError(
            None, None, f"Op type not registered '{op}' in binary running on torchflow. Make "
            f"sure the Op and Kernel are registered in the binary running in this process. "
            f"(node {name})")

    return fail


def _bind_raw(node, raw, n_inputs: int):
    """``call(library, inputs) -> list`` running raw op ``raw`` with the node's attributes
    (checked and defaulted here, once, as the raw op's own wrapper would on each call)."""
    params = [p for p in inspect.signature(raw).parameters if p != "name"]
    impl = getattr(raw, "_impl", None)
    static = dict(getattr(raw, "_defaults", {})) if impl is not None else {}
    n_list = _LIST_INPUTS.get(node.op)
    if n_list is not None:
        n = node.attrs.get(n_list)
        n = len(n) if isinstance(n, list) else (n_inputs - len(params) + 1 if n is None
                                                  else int(n))
        list_name, singles = params[0], params[1:1 + n_inputs - n]
        used = [list_name] + singles
    else:
        if n_inputs > len(params):
            raise errors.InvalidArgumentError(
                None, None, f"NodeDef {node.name} ({node.op}) has {n_inputs} inputs; the op "
                f"takes {len(params)}")
        n, list_name, singles = 0, None, params[:n_inputs]
        used = singles
    renames = _ATTR_RENAMES.get(node.op, {})
    for k, v in node.attrs.items():
        k = renames.get(k, k)
        if k in params and k not in used:
            static[k] = v
    missing = [p for p in params if p not in used and p not in static]
    if impl is None or missing:
        impl = raw  # its wrapper reports what is missing, in TF's words
    elif list_name is None and hasattr(impl, "_positional"):
        return _bind_positional(node, impl._positional, singles, static)
    single = len(singles) == 1 and list_name is None
    if impl is not raw:
        node.keywords = (impl, static, list_name, n, singles)

    def call(library, vals):
        kwargs = dict(static)
        if list_name is not None:
            kwargs[list_name] = vals[:n]
            kwargs.update(zip(singles, vals[n:]))
        elif single:
            kwargs[singles[0]] = vals[0]
        else:
            kwargs.update(zip(singles, vals))
        out = impl(**kwargs)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    return call


def _bind_positional(node, target, singles: list, static: dict):
    """The call of a raw op that forwards its keywords positionally (``raw_ops._call``):
    the op function itself, the attributes in place, only the inputs filled per call
    (also kept on ``node.positional`` for the generated code)."""
    mod, fn_name, order, fixed = target
    fn = getattr(importlib.import_module("torchflow._src.ops." + mod), fn_name)
    template = [static.get(k) for k in order]
    slots = [(order.index(k), i) for i, k in enumerate(singles) if k in order]
    node.positional = (fn, template, slots, dict(fixed))
    if len(slots) == 1 and not fixed:
        (slot, _), = slots

        def call_one(library, vals):
            args = template.copy()
            args[slot] = vals[0]
            out = fn(*args)
            return list(out) if isinstance(out, (list, tuple)) else [out]

        return call_one

    def call(library, vals):
        args = template.copy()
        for slot, i in slots:
            args[slot] = vals[i]
        out = fn(*args, **fixed)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    return call


class _Node:
    __slots__ = ("name", "op", "inputs", "controls", "attrs", "offsets", "call", "refs",
                 "positional", "keywords", "multi", "used")

    def __init__(self, nd, in_function: bool):
        self.positional = self.keywords = None
        self.multi = nd.op in _OUTPUT_ARGS
        self.used = False
        self.name = nd.name
        self.op = nd.op
        self.inputs = []
        self.controls = []
        for ref in nd.input:
            parsed = _parse_input(ref, in_function)
            if parsed is None:
                self.controls.append(ref[1:])
            else:
                self.inputs.append(parsed)
        self.attrs = {k: attr_value(v) for k, v in nd.attr.items()}
        names = _OUTPUT_ARGS.get(nd.op)
        lists = _LIST_OUTPUTS.get(nd.op)
        self.offsets = lists(self.attrs) if lists is not None else \
            {n: i for i, n in enumerate(names)} if names else None
        handler = _HANDLERS.get(nd.op)
        if nd.op in graph_exec_codegen.CONTROL_OPS:
            self.call = None  # the generated code runs the callee's plan itself
        elif handler is not None:
            attrs = self.attrs
            self.call = lambda library, vals: handler(library, attrs, vals)
        else:
            raw = raw_ops._OPS.get(nd.op)
            self.call = _unregistered(nd.op, nd.name) if raw is None else \
                _bind_raw(self, raw, len(self.inputs))
        self.refs: list = []

    def flat_index(self, arg, index: int) -> int:
        if self.offsets is not None and arg is not None:
            return self.offsets.get(arg, 0) + index
        return index


class _Plan:
    """One FunctionDef made ready to run: arguments, nodes in run order, outputs, and the
    Python function generated from them (``graph_exec_codegen``).

    Every input is resolved here to ``(source, flat output index)`` (an argument is a
    one-element source); the generated code then runs the nodes on local variables.
    """

    def __init__(self, fdef):
        sig = fdef.signature
        self.name = sig.name
        self.arg_names = [a.name for a in sig.input_arg]
        nodes = {nd.name: _Node(nd, True) for nd in fdef.node_def}
        outputs = []
        for arg in sig.output_arg:
            ref = fdef.ret.get(arg.name)
            if ref is None:
                raise errors.InvalidArgumentError(
                    None, None, f"Function {self.name} has no ret for output {arg.name}")
            outputs.append(_parse_input(ref, True))
        roots = [src for src, _, _ in outputs]
        roots += list(fdef.control_ret.values())
        roots += [n.name for n in nodes.values() if n.op in _STATEFUL]
        args = set(self.arg_names)
        self.order = _topo_order(nodes, roots, args, self.name)
        for node in self.order:
            node.refs = [self._resolve(nodes, args, ref) for ref in node.inputs]
        self.outputs = [self._resolve(nodes, args, ref) for ref in outputs]
        for src, index in [r for node in self.order for r in node.refs] + self.outputs:
            if src not in args:
                nodes[src].used = True
                nodes[src].multi = nodes[src].multi or index > 0
        self.fn, self.source = graph_exec_codegen.generate(
            self.order, self.arg_names, self.outputs, self.name)

    def _resolve(self, nodes, args, ref):
        src, arg, index = ref
        if src in args:
            return src, 0
        return src, nodes[src].flat_index(arg, index)

    def check_arity(self, n: int) -> None:
        if n != len(self.arg_names):
            raise errors.InvalidArgumentError(
                None, None, f"Function {self.name} takes {len(self.arg_names)} inputs, got {n}")

    def run(self, library, args: list) -> list:
        if len(args) != len(self.arg_names):
            self.check_arity(len(args))
        try:
            return self.fn(library, *args)
        except IndexError:
            raise errors.InvalidArgumentError(
                None, None, f"Function {self.name}: an input or output names an output its "
                "source does not have") from None


def _topo_order(nodes: dict, roots: list, args: set, fname: str) -> list:
    order: list = []
    state: dict = {}  # name -> 1 visiting, 2 done
    for root in roots:
        if root in args or state.get(root) == 2:
            continue
        stack = [(root, False)]
        while stack:
            name, expanded = stack.pop()
            if expanded:
                state[name] = 2
                order.append(nodes[name])
                continue
            if state.get(name) == 2 or name in args:
                continue
            node = nodes.get(name)
            if node is None:
                raise errors.InvalidArgumentError(
                    None, None, f"Function {fname}: input '{name}' names no node or argument")
            if state.get(name) == 1:
                raise errors.InvalidArgumentError(
                    None, None, f"Function {fname} has a cycle through node '{name}'")
            state[name] = 1
            stack.append((name, True))
            for dep in [s for s, _, _ in node.inputs] + node.controls:
                if dep not in args and state.get(dep) != 2:
                    if state.get(dep) == 1:
                        raise errors.InvalidArgumentError(
                            None, None, f"Function {fname} has a cycle through node '{dep}'")
                    stack.append((dep, False))
    return order


class FunctionLibrary:
    """The functions of a ``FunctionDefLibrary``, callable by name.

    Args:
      library: A ``FunctionDefLibrary`` proto (``GraphDef.library``).

    ``call(name, args)`` runs function ``name`` on a flat list of inputs
    (Tensors; Variables for resource arguments) and returns its flat outputs.
    """

    def __init__(self, library):
        self._fdefs = {f.signature.name: f for f in library.function}
        self._plans: dict = {}
        self._lock = threading.Lock()

    def __contains__(self, name: str) -> bool:
        return name in self._fdefs

    def function_def(self, name: str):
        try:
            return self._fdefs[name]
        except KeyError:
            raise errors.NotFoundError(
                None, None, f"Function {name} is not defined in the SavedModel's function "
                "library") from None

    def closure(self, name: str) -> list:
        """The ``FunctionDef`` of ``name`` and of every function it calls, transitively
        (through ``func`` attributes: call ops, If/While branches), callers first: what a
        SavedModel that re-exports ``name`` must hold in its library."""
        order, seen, stack = [], set(), [name]
        while stack:
            fname = stack.pop()
            if fname in seen:
                continue
            seen.add(fname)
            fdef = self.function_def(fname)
            order.append(fdef)
            for node in fdef.node_def:
                for av in node.attr.values():
                    kind = av.WhichOneof("value")
                    if kind == "func":
                        stack.append(av.func.name)
                    elif kind == "list":
                        stack.extend(f.name for f in av.list.func)
        return order

    def _plan(self, name: str) -> _Plan:
        plan = self._plans.get(name)
        if plan is None:
            with self._lock:
                plan = self._plans.get(name)
                if plan is None:
                    plan = self._plans[name] = _Plan(self.function_def(name))
        return plan

    def call(self, name: str, args: list) -> list:
        return self._plan(name).run(self, list(args))
