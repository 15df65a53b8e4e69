"""TF-op graphs of traced functions: ``ConcreteFunction.graph`` and what SavedModel writes.

The replay of a ``tf.function`` (``graph_trace``) is a recording of torch calls. A
TF graph is a different view of the same trace: one node per TF op the body ran
(``MatMul``, ``BiasAdd``, ``ReadVariableOp``, ...) with its TF attributes and
inputs. It is built by running the body once more as a dry trace while a
``sys.settrace`` hook watches for calls of the op functions that know their TF
lowering (``register``). The outermost such call is one op; what it calls inside
is its implementation and is not seen. Functions without a lowering are
transparent: the ops they call are recorded instead, as TF records the ops a
Python function builds.

Lowerings live with the ops (``torchflow._src.ops.graph_lowering``); each is
``lower(b, call)`` and returns the endpoints of the call's output tensors (in
``nest.flatten`` order of its result), made with ``b.node`` and ``b.input``.

Graphs are built only when asked for (``.graph``, ``as_graph_def``, SavedModel),
so tracing and replay pay nothing for them.
"""

from __future__ import annotations

import inspect
import sys
import threading
import weakref
from typing import Any, Callable

import numpy as np

from torchflow._src.core import dtypes, graph_api, graph_trace
from torchflow._src.core.composite_tensor import CompositeTensor
from torchflow._src.core.proto import (
    tf_attr_value_pb2,
    tf_node_def_pb2,
    tf_tensor_pb2,
    tf_tensor_shape_pb2,
)
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.variables import Variable
from torchflow._src.util import nest
from torchflow._src.util.api import public

__all__ = ["register", "FuncGraph", "Operation", "OpCall", "GraphBuilder", "capture_calls",
           "NameAttrList", "is_registered", "set_function_writer"]

_LOWERINGS: "dict[Any, Callable]" = {}
_LOCK = threading.Lock()


def register(fn, lower: Callable, composite: bool = False) -> None:
    """Makes a call of ``fn`` (a function or method) one TF-op node, built by
    ``lower(builder, call)``.

    A call with a composite argument (a ``RaggedTensor``, ``SparseTensor``) is
    transparent unless ``composite``: the ops it runs on the components are recorded,
    as TF's ragged and sparse dispatch builds them from dense ops."""
    global _HOST_CODE
    inner = getattr(fn, "__wrapped_host__", None)
    if inner is not None:  # a graph_trace.host_op wrapper: all share one code object
        _HOST_CODE = fn.__code__
        _HOST_FNS[inner.__code__] = inspect.signature(inner)
        fn = inner
    code = getattr(fn, "__code__", None)
    if code is None:
        fn = getattr(fn, "__wrapped__", None) or getattr(fn, "__func__", None)
        code = getattr(fn, "__code__", None)
    if code is None:
        raise TypeError(f"cannot register a lowering for {fn!r}: no Python code")
    if _LOWERINGS.get(code, lower) is not lower:
        # Functions made by one factory share their code: one lowering must serve
        # them all (reading the factory's arguments from the frame's free variables).
        raise ValueError(f"{fn!r} shares its code with a function that has another lowering")
    _LOWERINGS[code] = lower
    if composite:
        _COMPOSITE_OK.add(code)


_COMPOSITE_OK: set = set()  # codes whose lowerings take composite arguments


def _has_composite(values) -> bool:
    for v in values:
        if isinstance(v, CompositeTensor):
            return True
        if type(v) in (list, tuple) and any(isinstance(e, CompositeTensor) for e in v):
            return True
    return False


_HOST_CODE = None
_HOST_FNS: "dict[Any, inspect.Signature]" = {}


def is_registered(fn) -> bool:
    """Whether a call of ``fn`` already has a lowering (two op families may both
    want one for a shared helper; the first registered serves)."""
    # Keras' symbolic dispatch (tf_op_layer) swaps a public op's code for a trampoline
    # that calls the original: the original's code is what a trace sees.
    inner = getattr(fn, "__wrapped_host__", None) or getattr(fn, "__tf_original__", None) or fn
    code = getattr(inner, "__code__", None)
    if code is None:
        inner = getattr(inner, "__wrapped__", None) or getattr(inner, "__func__", None)
        code = getattr(inner, "__code__", None)
    return code in _LOWERINGS


# Writes a nested function's FuncGraph as a FunctionDef (``GraphDef.library``):
# set by ``train.saved_model.function_def``, which knows TF's output-argument names.
_FUNCTION_WRITER: "Callable | None" = None


def set_function_writer(writer: Callable) -> None:
    """Sets ``writer(graph, name) -> FunctionDef`` for the functions nested in graphs."""
    global _FUNCTION_WRITER
    _FUNCTION_WRITER = writer


class NameAttrList:
    """A function-valued attribute (``If``'s branches): a name and its attributes."""

    __slots__ = ("name", "attr")

    def __init__(self, name: str, attr: dict | None = None):
        self.name = name
        self.attr = attr or {}


class OpCall:
    """One outermost call of an op function during the trace."""

    __slots__ = ("fn", "args", "outputs", "stack")

    def __init__(self, fn, args: dict, stack: tuple = ()):
        self.fn = fn  # the code object
        self.args = args  # its parameters by name, as bound at the call
        self.outputs: Any = None
        self.stack = stack  # see _user_stack


def _user_stack(frame) -> tuple:
    """``((code, line), ...)`` of the frames above ``frame`` outside torchflow,
    outermost first: where user code made the op (TF's creation stack, which the
    SavedModel's debug info records, also leaves out TF's own frames)."""
    out = []
    f = frame.f_back
    while f is not None:
        if not f.f_code.co_filename.startswith(_PKG):
            out.append((f.f_code, f.f_lineno))
        f = f.f_back
    out.reverse()
    return tuple(out)


_SRC = __file__.rsplit("/", 2)[0]
_ENGINE = (f"{_SRC}/core/", f"{_SRC}/ops/")  # the files of torchflow's engine
_PKG = _SRC.rsplit("/", 1)[0] + "/"  # torchflow/


def _qualname(code) -> str:
    return getattr(code, "co_qualname", code.co_name)  # Python 3.11+


def _tensors(x) -> list:
    if isinstance(x, Tensor):
        return [x]
    if type(x) in (list, tuple):
        return [e for e in x if isinstance(e, Tensor)]
    return []


class _Calls(list):
    """The outermost op calls, and ``producers``: the engine function with no
    lowering that returned each other tensor (``id`` of its torch tensor -> name),
    so an ``Unlowered`` node can say what made it."""

    def __init__(self):
        super().__init__()
        self.producers: "dict[int, str]" = {}


class _Tracer:
    """The ``sys.settrace`` hook that collects the outermost op calls."""

    def __init__(self):
        self.calls = _Calls()
        self.keep: list = []
        self._stack: list = []

    def global_trace(self, frame, event, arg):
        if event != "call":
            return None
        code = frame.f_code
        args = None
        if code is _HOST_CODE:
            loc = frame.f_locals
            inner = getattr(loc.get("fn"), "__code__", None)
            if inner not in _HOST_FNS:
                return None
            if not self._stack:
                try:
                    args = dict(_HOST_FNS[inner].bind(*loc["args"], **loc["kwargs"]).arguments)
                except TypeError:
                    return None
            code = inner
        elif code not in _LOWERINGS:
            if not self._stack and code.co_filename.startswith(_ENGINE) and \
                    frame.f_back is not None and \
                    not frame.f_back.f_code.co_filename.startswith(_ENGINE):
                frame.f_trace_lines = False  # an engine function with no lowering, called
                return self._producer_trace  # from above it: it may make Unlowered values
            return None
        if not self._stack and code not in _COMPOSITE_OK and _has_composite(
                (args if args is not None else frame.f_locals).values()):
            return None  # dispatched to its components' ops, which are recorded
        if not self._stack:
            call = OpCall(code, args if args is not None else dict(frame.f_locals),
                          _user_stack(frame))
            self._stack.append((frame, call))
        else:
            self._stack.append((frame, None))
        frame.f_trace_lines = False
        return self.local_trace

    def _producer_trace(self, frame, event, arg):
        if event == "return":
            fn = frame.f_globals.get(frame.f_code.co_name)
            name = (f"{fn.__module__}.{fn.__qualname__}" if callable(fn) and
                    getattr(fn, "__code__", None) is frame.f_code else
                    f"{frame.f_globals.get('__name__')}.{_qualname(frame.f_code)}")
            for t in _tensors(arg):
                self.calls.producers.setdefault(id(t._t), name)  # not a pass-through's
                self.keep.append(t)
        return self._producer_trace

    def local_trace(self, frame, event, arg):
        if event == "return" and self._stack and self._stack[-1][0] is frame:
            _, call = self._stack.pop()
            if call is not None:
                call.outputs = arg
                self.keep.append(arg)
                self.calls.append(call)
        return self.local_trace


class capture_calls:
    """Within it, this thread's outermost op calls are collected in ``.calls``."""

    def __init__(self):
        self._t = _Tracer()
        self._prev = None
        self._outer = None

    @property
    def calls(self) -> "list[OpCall]":
        return self._t.calls

    def __enter__(self):
        self._prev = sys.gettrace()
        self._outer = getattr(graph_trace.OP_CAPTURE, "tracer", None)
        graph_trace.OP_CAPTURE.tracer = self._t
        sys.settrace(self._t.global_trace)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._prev)
        graph_trace.OP_CAPTURE.tracer = self._outer


@public("torchflow")
class Operation:
    """A node of a ``tf.Graph``: one TF op (``tf.Operation``'s read-only view).

    Operations are made by the graph that holds them (a traced function's, or
    ``tf.import_graph_def``), not by user code.

    Args:
      graph: The graph it belongs to.
      name: Its name in the graph.
      type_: The TF op type.
      inputs: The endpoints it reads (``"op:k"``; ``"^op"`` for control inputs).
      attrs: Its attributes, by name.
      num_outputs: How many tensors it produces.
      output_dtypes: Their dtypes (None where unknown).
      output_shapes: Their static shapes (None: unknown).
      proto: The ``NodeDef`` it was imported from, if any.

    Attributes:
      graph: The graph it belongs to.
      name: Its name in the graph.
      type: The TF op type (``"MatMul"``).
    """

    def __init__(self, graph, name: str, type_: str, inputs: list, attrs: dict,
                 num_outputs: int, output_dtypes: list, output_shapes: list | None = None,
                 proto=None):
        self.graph = graph
        self.name = name
        self.type = type_
        self._inputs = inputs
        self._attrs = attrs
        self._num_outputs = num_outputs
        self._output_dtypes = output_dtypes
        self._output_shapes = output_shapes  # TensorShapes, or None: unknown
        self._proto = proto  # the NodeDef it was imported from (import_graph_def)
        self._outputs: list | None = None
        self._stack: tuple = ()  # the user frames of the call it lowers (OpCall.stack)

    @property
    def inputs(self) -> tuple:
        """The tensors this op reads, in order."""
        out = []
        for ep in self._inputs:
            if ep.startswith("^"):
                continue
            src, _, k = ep.partition(":")
            out.append(self.graph._ops[src].outputs[int(k or 0)])
        return tuple(out)

    @property
    def control_inputs(self) -> list:
        return [self.graph.get_operation_by_name(i[1:]) for i in self._inputs
                if i.startswith("^")]

    @property
    def outputs(self) -> list:
        """The tensors this op produces (``GraphTensor`` s)."""
        if self._outputs is None:
            dts = list(self._output_dtypes) + [None] * self._num_outputs
            shapes = self._output_shapes or []
            self._outputs = [graph_api.GraphTensor(
                self, k, dts[k], shapes[k] if k < len(shapes) and shapes[k] is not None
                else TensorShape(None)) for k in range(self._num_outputs)]
        return list(self._outputs)

    def values(self) -> tuple:
        """The op's outputs, as a tuple."""
        return tuple(self.outputs)

    @property
    def device(self) -> str:
        return self._proto.device if self._proto is not None else ""

    @property
    def node_def(self):
        """The op as a ``tensorflow.NodeDef`` proto."""
        return _node_def(self)

    def get_attr(self, name: str):
        """The value of attribute ``name``.

        Raises:
          ValueError: If the op has no such attribute (TF's message).
        """
        if name not in self._attrs:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.")
        return self._attrs[name]

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"

    def __str__(self) -> str:
        return str(self.node_def)


class GraphBuilder:
    """Makes nodes for lowerings (see the module docstring)."""

    def __init__(self, graph: "FuncGraph", dynamic: "set[int]",
                 tainted: "set[int] | frozenset" = frozenset()):
        self.graph = graph
        self._dynamic = dynamic
        # Tensors made after the body read an input-dependent value into Python
        # outside any recorded op: a constant of theirs would be the trace's value.
        self._tainted = tainted
        self._by_tensor: "dict[int, str]" = {}  # id(torch tensor) -> endpoint
        self._dtypes: "dict[str, dtypes.DType]" = {}
        self._keep: list = []
        # Dry traces of branches and loop bodies (their recorders and captures): what
        # the ids in their dynamic, tainted and producer sets name stays alive while
        # this builder lowers their calls, so that no new tensor takes such an id.
        self.alive: list = []
        self._var_reads: "dict[int, str]" = {}
        # id(TensorArray) -> (endpoint of its TensorList now, its declared element dims
        # or None, the array); see graph_lowering_tensor_array.
        self.lists: "dict[int, tuple[str, list | None]]" = {}
        self.producers: "dict[int, str]" = {}  # see _Calls
        self.reader = "the function's outputs"  # the op being lowered, for messages

    # --- names and nodes ------------------------------------------------------------
    def unique(self, base: str) -> str:
        g = self.graph
        n = g._name_counts.get(base, 0)
        g._name_counts[base] = n + 1
        if n == 0 and base not in g._ops:
            return base
        name = f"{base}_{n}"
        while name in g._ops:
            n += 1
            name = f"{base}_{n}"
        g._name_counts[base] = n + 1
        return name

    def node(self, op: str, inputs: list, attrs: dict | None = None, name: str | None = None,
             out_dtypes: list | None = None, num_outputs: int | None = None,
             exportable: bool = True) -> str:
        """Adds a node; returns its name (its outputs are ``name:0``, ``name:1``...)."""
        name = self.unique(name or op)
        outs = list(out_dtypes or [])
        n = num_outputs if num_outputs is not None else len(outs)
        o = Operation(self.graph, name, op, list(inputs), dict(attrs or {}), n, outs)
        self.graph._ops[name] = o
        self.graph._order.append(o)
        for k, d in enumerate(outs):
            self._dtypes[f"{name}:{k}"] = d
        if not exportable:
            self.graph.unexportable.append(op)
        return name

    def dtype_of(self, endpoint: str):
        return self._dtypes.get(endpoint.split("^")[-1])

    def bind(self, value, endpoint: str) -> None:
        """Records that ``value`` (a Tensor) is ``endpoint``'s result."""
        if isinstance(value, Tensor):
            self._by_tensor[id(value._t)] = endpoint
            self._dtypes[endpoint] = value._dtype
            self._keep.append(value)

    # --- inputs ------------------------------------------------------------------
    def input(self, value, dtype=None) -> str:
        """The endpoint for an op input: a traced tensor, a variable (a
        ``ReadVariableOp`` of its captured handle), or a constant."""
        if isinstance(value, Variable):
            return self.read_variable(value)
        if isinstance(value, Tensor):
            ep = self._by_tensor.get(id(value._t))
            if ep is not None:
                return ep
            tid = id(value._t)
            if tid in self._dynamic or tid in self._tainted:
                # Computed from the inputs by code that has no TF lowering (or from
                # a value of them that the body read into Python).
                src = self.producers.get(tid) or (
                    f"an op with no TF lowering, read by {self.reader}")
                if tid in self._tainted and tid not in self._dynamic:
                    src += ", from a tensor value read into Python"
                name = self.node("Unlowered", [], {"dtype": value._dtype, "source": src},
                                 out_dtypes=[value._dtype], exportable=False)
                self.graph.unexportable[-1] = f"Unlowered (made by {src})"
                ep = f"{name}:0"
            else:
                ep = self.graph._capture_constant(self, value)
            self.bind(value, ep)
            return ep
        if type(value) in (list, tuple) and value and \
                any(isinstance(e, (Tensor, Variable)) for e in value):
            return self.pack(value, dtype)
        return self.constant(value, dtype)

    def pack(self, values, dtype=None, axis: int = 0) -> str:
        """``Pack`` of ``values`` along ``axis`` (``tf.stack``; how TF converts a list
        holding tensors), of their tensors' dtype, else ``dtype``."""
        d = dtype
        for e in values:
            if isinstance(e, (Tensor, Variable)):
                d = e.dtype
                break
        eps = [self.input(e, d) for e in values]
        node = self.node("Pack", eps, {"N": len(eps), "T": d, "axis": axis}, out_dtypes=[d])
        return f"{node}:0"

    def constant(self, value, dtype=None, name: str | None = None) -> str:
        """A ``Const`` node holding ``value`` (converted as TF converts Python values)."""
        if isinstance(value, Tensor):
            arr = np.asarray(value.numpy())
            d = value._dtype
        else:
            d = dtypes.as_dtype(dtype) if dtype is not None else None
            arr = np.asarray(value, dtype=None if d is None or d == dtypes.string else d.as_numpy_dtype)
            if d is None:
                if arr.dtype.kind in "SUO":
                    d = dtypes.string
                elif arr.dtype == np.float64 and not isinstance(value, np.ndarray):
                    d = dtypes.float32
                    arr = arr.astype(np.float32)
                elif arr.dtype == np.int64 and not isinstance(value, np.ndarray):
                    d = dtypes.int32
                    arr = arr.astype(np.int32)
                else:
                    d = dtypes.as_dtype(arr.dtype)
        node = self.node("Const", [], {"value": arr, "dtype": d}, name=name, out_dtypes=[d])
        return f"{node}:0"

    def read_variable(self, var) -> str:
        handle = self.graph._capture_variable(self, var)
        base = var.name.split(":")[0].split("/")[-1]
        node = self.node("ReadVariableOp", [handle], {"dtype": var.dtype},
                         name=f"{base}/ReadVariableOp" if base else None, out_dtypes=[var.dtype])
        return f"{node}:0"

    def handle(self, var) -> str:
        """The captured resource handle of ``var`` (for the variable-writing ops)."""
        return self.graph._capture_variable(self, var)

    def resource(self, obj, dtype=None, name: str = "resource") -> str:
        """The captured handle of ``obj``, a resource that is not a variable (a lookup
        table; with ``dtype`` string, the path of a table's vocabulary file): a
        trailing input of the function, as a variable's handle is."""
        return self.graph._capture_variable(self, obj, dtype or dtypes.resource, name)

    # --- nested functions (While bodies, If branches) -----------------------------
    def function(self, base: str, args: list) -> "tuple[GraphBuilder, list]":
        """A new function graph for a functional op's attribute (a loop body).

        Args:
          base: Its name's stem (made unique in the outermost graph's library).
          args: ``(name, dtype, dims)`` of each argument (``dims`` None: unknown rank).

        Returns:
          ``(builder, endpoints)``: a builder making the function's nodes, and the
          endpoints of its arguments. Finish it with :meth:`end_function`.
        """
        root = self.graph.root
        n = root._fn_count
        root._fn_count += 1
        stem = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in root.name)
        g = FuncGraph(f"{stem}_{base}_{n}")
        g.root = root
        sub = GraphBuilder(g, set(self._dynamic))  # outer values made at run time stay so
        eps = []
        for an, d, dims in args:
            ph = sub.node("Placeholder", [], {"dtype": d, "shape": _Shape(dims)}, name=an,
                          out_dtypes=[d])
            g.inputs.append(f"{ph}:0")
            g.arg_names.append(an)
            eps.append(f"{ph}:0")
        return sub, eps

    def lower_calls(self, calls: "list[OpCall]", dynamic=()) -> None:
        """Adds the nodes of ``calls`` (from ``capture_calls``); ``dynamic`` holds the
        ids of the torch tensors a trace computed from its inputs (``Recorder.dynamic``)."""
        self._dynamic.update(dynamic)
        for call in calls:
            first = len(self.graph._order)
            eps = _LOWERINGS[call.fn](self, call)
            for op in self.graph._order[first:]:
                op._stack = call.stack
            if eps is None:
                self.declined(call)
                continue
            flat = [o for o in nest.flatten(call.outputs, expand_composites=True)
                    if isinstance(o, Tensor)]
            for o, ep in zip(flat, eps):
                self.bind(o, ep)

    def declined(self, call: OpCall) -> None:
        """Forgets the lists of the TensorArrays a call whose lowering declined may
        have changed (its arguments and results): a later use of them is then
        ``Unlowered``, never a stale list."""
        if self.lists:
            for v in nest.flatten([list(call.args.values()), call.outputs]):
                self.lists.pop(id(v), None)

    def end_function(self, sub: "GraphBuilder", outputs: list) -> NameAttrList:
        """Sets ``outputs`` (endpoints in ``sub``) as the function's results and adds
        it to the library; returns the attribute value naming it."""
        g = sub.graph
        outs = []
        for ep in outputs:
            d = sub.dtype_of(ep)
            ident = sub.node("Identity", [ep], {"T": d}, name="Identity", out_dtypes=[d])
            outs.append(f"{ident}:0")
        g.outputs = outs
        g.root.functions[g.name] = g
        if g.unexportable:
            g.root.unexportable.extend(g.unexportable)
        return NameAttrList(g.name)


def _placeholder_shape(t: Tensor):
    return _Shape(t.shape.as_list() if t.shape.rank is not None else None)


class FuncGraph(graph_api.Graph):
    """The TF-op graph of one concrete function (``ConcreteFunction.graph``).

    Attributes:
      name: The function's graph name (``__inference_f_N`` style).
      inputs: Endpoints of the inputs: the placeholders of the arguments, then
        the captured variable handles and constants.
      outputs: Endpoints of the outputs.
      variables: The ``tf.Variable`` objects the graph captures.
      unexportable: Op types whose nodes cannot be written as a TF graph.
    """

    building_function = True

    def __init__(self, name: str):
        self._init_graph()
        self.name = name
        self.inputs: list = []
        self.outputs: list = []
        self.structured_outputs = None
        self.static_shapes: dict = {}  # id(output Tensor) -> TensorShape (graph_out_shapes)
        self._variables: list = []  # weak references: a graph does not keep its variables
        self._constants: list = []  # (tensor, endpoint) of captured constants
        self._var_handles: "dict[int, str]" = {}
        self._resource_ids: set = set()  # captures that are not variables (lookup tables)
        self.unexportable: list = []
        self.arg_names: list = []
        self.root: "FuncGraph" = self  # the graph whose library holds nested functions
        self.functions: "dict[str, FuncGraph]" = {}  # nested functions (While bodies)
        self._fn_count = 0

    # --- building -------------------------------------------------------------------
    def _capture_variable(self, b: GraphBuilder, var, dtype=None, name=None) -> str:
        ep = self._var_handles.get(id(var))
        if ep is None:
            if dtype is None:
                base = var.name.split(":")[0].replace("/", "_")
                name = f"{base}/resource" if base else "resource"
            else:
                self._resource_ids.add(id(var))
            d = dtype or dtypes.resource
            node = b.node("Placeholder", [], {"dtype": d, "shape": _Shape([])}, name=name,
                          out_dtypes=[d])
            ep = f"{node}:0"
            self._var_handles[id(var)] = ep
            self._variables.append((weakref.ref(var), ep))
            self.inputs.append(ep)
        return ep

    @property
    def variables(self) -> list:
        """The ``tf.Variable`` objects the graph captures (held weakly, as TF's
        function graphs hold them).

        Raises:
          AssertionError: If one of them was deleted (TF's message).
        """
        return [v for v in self.captured_objects if id(v) not in self._resource_ids]

    @property
    def captured_objects(self) -> list:
        """The variables and other resources (lookup tables, vocabulary files) the
        graph captures, in the order of its trailing inputs."""
        out = []
        for r, _ in self._variables:
            v = r()
            if v is None:
                raise AssertionError(
                    "Called a function referencing variables which have been deleted. This "
                    "likely means that function-local variables were created and not "
                    "referenced elsewhere in the program. This is generally a mistake; "
                    "consider storing variables in an object attribute on first call.")
            out.append(v)
        return out

    @property
    def captures(self) -> list:
        """``(value, placeholder endpoint)`` of the live captured variables, then the
        captured constants."""
        live = [(r(), ep) for r, ep in self._variables]
        return [(v, ep) for v, ep in live if v is not None] + list(self._constants)

    def _capture_constant(self, b: GraphBuilder, value: Tensor) -> str:
        for v, ep in self._constants:
            if v is value:
                return ep
        ep = b.constant(value)  # a tensor of the Python around the function, by value
        self._constants.append((value, ep))
        return ep

    @classmethod
    def build(cls, name: str, arg_names: list, flat_inputs: list, calls: "list[OpCall]", outputs,
              dynamic: "set[int]", specs: list | None = None,
              tainted: "set[int] | frozenset" = frozenset()) -> "FuncGraph":
        """The graph of ``calls`` (from ``capture_calls``) with ``flat_inputs``
        (Tensors, named by ``arg_names``, of the TensorSpecs ``specs``) and the
        function's ``outputs``; ``tainted`` tensors (ids) may not become constants."""
        g = cls(name)
        g.arg_names = list(arg_names)
        b = GraphBuilder(g, dynamic, tainted)
        b.producers = getattr(calls, "producers", b.producers)
        specs = list(specs or [])
        for k, (an, t) in enumerate(zip(arg_names, flat_inputs)):
            shape = (_Shape(specs[k].shape.as_list() if specs[k].shape.rank is not None else None)
                     if k < len(specs) else _placeholder_shape(t))
            ph = b.node("Placeholder", [], {"dtype": t._dtype, "shape": shape},
                        name=an, out_dtypes=[t._dtype])
            b.bind(t, f"{ph}:0")
            g.inputs.append(f"{ph}:0")
        for call in calls:
            lower = _LOWERINGS[call.fn]
            b.reader = f"{call.fn.co_filename.rsplit('/', 1)[-1]}:{_qualname(call.fn)}"
            first = len(g._order)
            eps = lower(b, call)
            for op in g._order[first:]:
                op._stack = call.stack
            if eps is None:
                b.declined(call)
                for o in _tensors(call.outputs):  # the lowering declined these arguments
                    b.producers.setdefault(id(o._t), f"{b.reader} (with these arguments)")
                continue
            flat = [o for o in nest.flatten(call.outputs, expand_composites=True)
                    if isinstance(o, Tensor)]
            for o, ep in zip(flat, eps):
                b.bind(o, ep)
        b.reader = "the function's outputs"
        outs = []
        for k, o in enumerate(x for x in nest.flatten(outputs, expand_composites=True)
                              if isinstance(x, Tensor)):
            src = b.input(o)
            ident = b.node("Identity", [src], {"T": o._dtype}, name="Identity",
                           out_dtypes=[o._dtype])
            outs.append(f"{ident}:0")
            del k
        g.outputs = outs
        g.structured_outputs = outputs
        return g

    # --- reading --------------------------------------------------------------------
    @property
    def exportable(self) -> bool:
        """Whether every node is a TF op that a TF runtime can run."""
        return not self.unexportable

    def as_graph_def(self, add_shapes: bool = False):
        """The graph as a ``tensorflow.GraphDef`` proto (TF's node and attribute
        names, ``NodeDef.input`` as ``name``/``name:k``/``^name``).

        Args:
          add_shapes: Accepted for TF's signature (shapes are not added).
        """

        gd = graph_api.graph_def_of(self._order)
        if self.functions:
            if _FUNCTION_WRITER is None:
                raise TypeError("no FunctionDef writer is set for nested functions")
            for name, fg in self.functions.items():
                gd.library.function.append(_FUNCTION_WRITER(fg, name))
        return gd

    def __repr__(self) -> str:
        return f"<FuncGraph name={self.name}, id={id(self)}>"


def _endpoint(ep: str) -> str:
    """``n:0`` is written ``n`` in a GraphDef, as TF writes it."""
    if ep.endswith(":0"):
        return ep[:-2]
    return ep


def _node_def(op: Operation):
    if op._proto is not None:
        nd = tf_node_def_pb2.NodeDef()
        nd.CopyFrom(op._proto)
        return nd

    nd = tf_node_def_pb2.NodeDef(name=op.name, op=op.type)
    nd.input.extend(_endpoint(i) for i in op._inputs)
    for k, v in op._attrs.items():
        nd.attr[k].CopyFrom(attr_value(v))
    return nd


def attr_value(v):
    """A Python attribute value as a ``tensorflow.AttrValue`` (DType -> type,
    NumPy array -> tensor, list -> list, TensorShape/None-list -> shape)."""

    a = tf_attr_value_pb2.AttrValue()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, dtypes.DType):
        a.type = _enum(v)
    elif isinstance(v, bool):
        a.b = v
    elif isinstance(v, int):
        a.i = v
    elif isinstance(v, float):
        a.f = v
    elif isinstance(v, (str, bytes)):
        a.s = v.encode() if isinstance(v, str) else v
    elif isinstance(v, np.ndarray):
        a.tensor.CopyFrom(tensor_proto(v))
    elif isinstance(v, NameAttrList):
        a.func.name = v.name
        for k, x in v.attr.items():
            a.func.attr[k].CopyFrom(attr_value(x))
    elif isinstance(v, _Shape):
        a.shape.CopyFrom(shape_proto(v.dims))
    elif isinstance(v, (list, tuple)):
        a.list.SetInParent()
        for x in v:
            if isinstance(x, dtypes.DType):
                a.list.type.append(_enum(x))
            elif isinstance(x, bool):
                a.list.b.append(x)
            elif isinstance(x, int):
                a.list.i.append(x)
            elif isinstance(x, float):
                a.list.f.append(x)
            elif isinstance(x, _Shape):
                a.list.shape.append(shape_proto(x.dims))
            else:
                a.list.s.append(x.encode() if isinstance(x, str) else x)
    else:
        raise TypeError(f"cannot write attribute value {v!r}")
    return a


def _enum(d: dtypes.DType) -> Any:
    """``d``'s ``tensorflow.DataType`` number (the stubs type proto enums apart from int)."""
    return d.as_datatype_enum


class _Shape:
    """A shape attribute (``None`` dims unknown; ``dims=None`` unknown rank)."""

    __slots__ = ("dims",)

    def __init__(self, dims):
        self.dims = None if dims is None else list(dims)


def shape_attr(dims) -> _Shape:
    """Marks ``dims`` as a shape-valued attribute."""
    return _Shape(dims)


def shape_proto(dims):

    s = tf_tensor_shape_pb2.TensorShapeProto()
    if dims is None:
        s.unknown_rank = True
    else:
        for d in dims:
            s.dim.add(size=-1 if d is None else int(d))
    return s


def tensor_proto(arr: np.ndarray):
    """``arr`` as a ``tensorflow.TensorProto`` (strings in ``string_val``, numbers
    in ``tensor_content``)."""

    tp = tf_tensor_pb2.TensorProto()
    tp.tensor_shape.CopyFrom(shape_proto(arr.shape))
    if arr.dtype.kind in "SUO":
        tp.dtype = _enum(dtypes.string)
        for x in arr.reshape(-1):
            tp.string_val.append(x.encode() if isinstance(x, str) else bytes(x))
    else:
        tp.dtype = _enum(dtypes.as_dtype(arr.dtype))
        tp.tensor_content = np.ascontiguousarray(arr).tobytes()
    return tp
