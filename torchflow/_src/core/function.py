"""``tf.function``: concrete functions per input signature, traced once and replayed.

A ``Function`` keeps TF's bookkeeping — one ``ConcreteFunction`` per input
signature (tensor shapes and dtypes, Python values, structure), ``input_signature``
checks with TF's errors, ``reduce_retracing``/``experimental_relax_shapes``
generalisation and ``experimental_get_tracing_count()``. The first call of a
signature runs the Python body once while ``graph_trace.Recorder`` records its torch
calls; later calls replay the recording, so the body's Python (``print``, list
appends) runs only at trace time, as in TF, and ops, variable writes, ``tf.print`` and
``py_function`` run on every call. A body the recording cannot replay faithfully
(Python control flow on tensor values, dataset loops, string inputs) runs eagerly on
every call for that signature. See docs/function.md.

``jit_compile=True`` hands each concrete function to ``torch.compile``; a frame
that cannot be compiled runs eagerly (torch's own per-frame fallback, taken
before the frame runs, so side effects never run twice). Inside the body
``tf.executing_eagerly()`` is False, as in TF.
"""

from __future__ import annotations

import functools
import inspect
import logging
import weakref
from typing import Any

import numpy as np
import torch

from torchflow._src.core import (
    autograph_convert,
    context,
    dtypes,
    function_signature,
    graph_out_shapes,
    graph_trace,
    op_graph,
    profiler_backend,
    retracing,
    tape,
    variables,
)
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import (
    InvalidArgumentError,
    OpError,
    OutOfRangeError,
    UnimplementedError,
)
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape, from_tuple
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.core.variables import Variable
from torchflow._src.util import nest
from torchflow._src.util.api import public

_state = context.thread_state()
_log = logging.getLogger("tensorflow")
_PY_LITERALS = (int, float, str, bytes, type(None))


class _SignatureError(TypeError, ValueError):
    """Inputs that do not fit ``input_signature`` (TypeError in TF 2.21, ValueError
    in TF 2.4: both ``except`` clauses catch it)."""


def _encode(x, shapes: list):
    """Hashable trace key of one argument; tensor shapes go to ``shapes``."""
    tp = type(x)
    if tp is Tensor:
        shapes.append(x._t.shape)
        return x._dtype
    if tp in _PY_LITERALS:
        return x
    if tp is bool:
        return ("bool", x)
    if tp is list or tp is tuple:
        return (tp, tuple([_encode(e, shapes) for e in x]))
    if tp is dict:
        try:
            items = sorted(x.items())
        except TypeError:
            items = list(x.items())
        return (dict, tuple([(k, _encode(v, shapes)) for k, v in items]))
    if isinstance(x, Variable):
        shapes.append(x._leaf.shape)
        return ("var", x._dtype)
    if isinstance(x, Tensor):
        shapes.append(x._t.shape)
        return x._dtype
    if isinstance(x, TensorSpec):
        shapes.append(x.shape)
        return x.dtype
    spec = getattr(x, "_type_spec", None)
    if spec is not None and not isinstance(x, Variable):
        # A composite (RaggedTensor, SparseTensor, ...): traced per TypeSpec, as TF.
        try:
            hash(spec)
            return ("composite", spec)
        except TypeError:
            pass
    if isinstance(x, np.ndarray) and x.dtype.kind not in "OUS":
        # TF converts NumPy arrays to tensors: they share the tensors' traces.
        shapes.append(tuple(x.shape))
        return dtypes.as_dtype(x.dtype)
    if nest.is_nested(x):
        return (tp, tuple([_encode(e, shapes) for e in nest.flatten(x)]))
    try:
        hash(x)
        return ("obj", x)
    except TypeError:
        return ("id", id(x))


def _spec_of(x):
    if isinstance(x, (Tensor, Variable)):
        return TensorSpec(x.shape, x.dtype)
    if isinstance(x, np.ndarray):
        return TensorSpec(x.shape, dtypes.as_dtype(x.dtype))
    spec = getattr(x, "_type_spec", None)
    if isinstance(spec, TypeSpec) and type(spec) in _COMPOSITE_PLACEHOLDERS:
        return spec  # a RaggedTensor's or SparseTensor's signature is its spec, as in TF
    return x


# Stand-in values of composite specs for dry traces: ``{spec class: fn(spec, unknown)}``,
# registered by the op families that define the composites (ragged, sparse).
_COMPOSITE_PLACEHOLDERS: dict = {}


def register_composite_placeholder(spec_type, fn) -> None:
    """Makes ``fn(spec, unknown)`` the dry-trace stand-in of ``spec_type`` values: a
    value of the spec whose unknown dimensions are ``unknown``."""
    _COMPOSITE_PLACEHOLDERS[spec_type] = fn


def _flat_specs(structure) -> list:
    """The ``TensorSpec`` of each graph input of ``structure``: its TensorSpecs, and
    each composite spec's component specs (``flat_values``, ``row_splits``...)."""
    out = []
    for s in nest.flatten(structure):
        if isinstance(s, TensorSpec):
            out.append(s)
        elif isinstance(s, TypeSpec) and type(s) in _COMPOSITE_PLACEHOLDERS:
            out.extend(c for c in nest.flatten(s._component_specs) if isinstance(c, TensorSpec))
    return out


@public("torchflow.types.experimental")
class ConcreteFunction:
    """One traced signature of a ``tf.function`` (returned by ``get_concrete_function``)."""

    def __init__(self, function: "Function", skeleton, shapes, args_spec, kwargs_spec):
        self._function = function
        self._skeleton = skeleton
        self._shapes = shapes  # list of TensorShape, one per tensor input
        self.structured_input_signature = (args_spec, kwargs_spec)
        self.structured_outputs: Any = None
        self._outputs_static = False  # structured_outputs has graph_out_shapes' shapes
        self._compiled: tuple | None = None  # (torch.compile(...), output structure)
        self._compile_failed = False
        # Recordings by exact inputs (graph_trace._graph_inputs' key); None: eager.
        self._graphs: dict = {}
        # Recordings that hold for any size >= 2 of the unknown dimensions, by
        # _size_class of their keys (see _note_recording).
        self._generic: dict = {}
        self._op_graph = None  # op_graph.FuncGraph, built when asked for
        self._node_states: dict = {}  # the recordings' stateful nodes (Recorder.node_states)

    def _note_recording(self, key, graph) -> None:
        """A new recording: where an earlier one of other sizes (>= 2) of the unknown
        dimensions is the same code, it serves every such size without the body's
        Python running again (TF traces a ``None`` dimension once; here the body runs
        at two sizes, and again for sizes 0 and 1, which ops treat specially)."""
        cls = _size_class(key)
        if cls == key or cls in self._generic or graph.size_bound:
            return
        for k, other in self._graphs.items():
            if other is not None and other is not graph and _size_class(k) == cls and \
                    other.same_as(graph):
                self._generic[cls] = graph
                return

    def _matches(self, shapes) -> bool:
        if len(shapes) != len(self._shapes):
            return False
        return all(s.is_subtype_of(spec) for s, spec in zip(shapes, self._shapes))

    @property
    def name(self) -> str:
        return f"__inference_{self._function.__name__}"

    @property
    def graph(self):
        """The function's TF-op graph (a ``FuncGraph``: ``get_operations()``,
        ``as_graph_def()``, ``inputs``, ``outputs``, ``variables``).

        Built on first access by tracing the Python body once more without
        effects (no variable writes run); Python side effects such as ``print``
        in the body happen again then.
        """
        g = self._op_graph
        if g is None:
            g = self._op_graph = self._function._build_op_graph(self)
        return g

    def _export_graph(self):
        """``graph``, checked for writing (SavedModel): a signature with unknown
        dimensions is traced again with other sizes standing in for them, and the
        two graphs must be the same, or the graph holds a size the trace happened
        to see (Python that read ``x.shape[0]``: TF's tracing would have kept it
        unknown).

        Raises:
          UnimplementedError: If the graph depends on the stand-in sizes.
        """
        g = self.graph
        specs = _flat_specs(self.structured_input_signature)
        if not any(s.shape.rank is not None and None in s.shape.as_list() for s in specs):
            return g
        other = self._function._dry_trace_graph(self, None, None, unknown=2)
        if other is not None and not _same_graph(g, other):
            raise UnimplementedError(
                None, None, f"Cannot write the graph of tf.function {self._function.__name__} "
                f"for {self.pretty_printed_signature(verbose=False).splitlines()[0]}: it depends "
                f"on the size of "
                f"a dimension the signature leaves unknown (Python code read a static shape, "
                f"e.g. x.shape[0]; use tf.shape(x) for sizes known only at run time).")
        return g

    @property
    def inputs(self) -> list:
        """The graph's input endpoints: arguments, then captures."""
        return self.graph.inputs

    @property
    def outputs(self) -> list:
        """The graph's output endpoints."""
        return self.graph.outputs

    @property
    def variables(self) -> list:
        """The variables the function reads or writes."""
        return self.graph.variables

    def _outputs(self):
        if self.structured_outputs is None:
            self._function._dry_trace(self)
        return self.structured_outputs

    @property
    def output_shapes(self):
        """The static shapes of the outputs (``TensorShape`` s, in the structure of
        ``structured_outputs``): unknown where they depend on a dimension the
        signature leaves unknown, as TF's shape inference gives them."""
        return nest.map_structure(
            lambda x: x.shape if isinstance(x, function_signature.SymbolicTensor) else None,
            self._outputs())

    @property
    def output_dtypes(self):
        """The dtypes of the outputs, in the structure of ``structured_outputs``."""
        return nest.map_structure(
            lambda x: x.dtype if isinstance(x, function_signature.SymbolicTensor) else None,
            self._outputs())

    def pretty_printed_signature(self, verbose=True) -> str:
        """The signature as TF 2.4 prints it: ``f(a, b=2)``, its tensor arguments
        (``Args:``) and outputs (``Returns:``)."""
        fn = self._function
        if self.structured_outputs is None:
            fn._dry_trace(self)
        return function_signature.pretty_signature(
            fn.__name__, fn._arg_names(len(self.structured_input_signature[0])),
            self.structured_input_signature, self.structured_outputs)

    def __str__(self) -> str:
        return "ConcreteFunction " + self.pretty_printed_signature()

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.pretty_printed_signature().splitlines()[0]} at " \
               f"0x{id(self):X}>"

    def __call__(self, *args, **kwargs):
        fn = self._function
        args, kwargs = function_signature.bind_concrete_call(
            fn.__name__, fn._arg_names(len(self.structured_input_signature[0])),
            self.structured_input_signature, args, kwargs)
        flat_specs = [s for s in nest.flatten(self.structured_input_signature)
                      if isinstance(s, TensorSpec)]
        flat_args = [a for a in nest.flatten((args, kwargs)) if isinstance(a, (Tensor, Variable))]
        for i, (a, s) in enumerate(zip(flat_args, flat_specs)):
            if a.dtype != s.dtype:
                raise InvalidArgumentError(
                    None, None, f"cannot compute {self.name} as input #{i}(zero-based) was "
                    f"expected to be a {s.dtype.name} tensor but is a {a.dtype.name} tensor "
                    f"[Op:{self.name}]")
        return self._function._run(self, args, kwargs)


@public("torchflow.types.experimental")
class Function:
    """A callable that keeps one concrete function per input signature.

    Created by ``tf.function``; see its docstring.
    """

    # Whether a trace that changes a list or dict argument raises TF's ValueError
    # (tf.data's element functions and Keras' step functions do not check: in TF they
    # are traced on their element's spec, not called with these objects).
    _checks_arguments = True

    def __init__(self, python_function, input_signature=None, jit_compile=False,
                 reduce_retracing=False, name=None, instance_ref=None, autograph=True):
        self._python_function = python_function
        self._autograph = bool(autograph)
        self._instance_ref = instance_ref
        self._jit_compile = bool(jit_compile)
        self._reduce_retracing = bool(reduce_retracing)
        self.__name__ = name or getattr(python_function, "__name__", "function")
        functools.update_wrapper(self, python_function, updated=())
        try:
            sig = inspect.signature(python_function)
            params = list(sig.parameters.values())
            if instance_ref is not None and params:
                params = params[1:]
                sig = sig.replace(parameters=params)
        except (TypeError, ValueError):
            sig, params = None, []
        self._sig = sig
        self._n_simple = (len(params) if sig is not None and all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) else -1)
        if input_signature is not None:
            if isinstance(input_signature, TensorSpec) or not isinstance(
                    input_signature, (list, tuple)):
                raise TypeError(f"input_signature must be either a tuple or a list, received "
                                f"{type(input_signature)}.")
            for s in nest.flatten(input_signature):
                if not isinstance(s, TypeSpec):
                    raise TypeError(f"input_signature must be a possibly nested sequence of "
                                    f"TensorSpec objects, got invalid args {s!r} with type "
                                    f"{type(s)}.")
            input_signature = tuple(input_signature)
        self._input_signature = input_signature
        self._cache: dict = {}
        self._detector: retracing.RetraceDetector | None = None
        self._relaxed: dict = {}
        self._tracing_count = 0
        self._calls = 0
        self._bound: dict = {}

    # --- public surface ----------------------------------------------------
    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    def _uses_symbolic_gradients(self) -> bool:
        flag = self.__dict__.get("_symbolic")
        if flag is None:
            code = getattr(self._python_function, "__code__", None)
            names = code.co_names if code is not None else ()
            flag = self._symbolic = "gradients" in names or "hessians" in names
        return flag

    def _arg_names(self, n: int) -> list:
        """Names of the first ``n`` positional arguments (``*args`` ones numbered)."""
        names, star = [], None
        for p in (self._sig.parameters.values() if self._sig is not None else ()):
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                star = p.name
        while len(names) < n:
            names.append(f"{star or 'arg'}_{len(names)}")
        return names[:n]

    def _list_all_concrete_functions(self) -> list:
        out = []
        for c in self._cache.values():
            if all(c is not o for o in out):
                out.append(c)
        return out

    def pretty_printed_concrete_signatures(self, verbose=True) -> str:
        """The signatures of every concrete function traced so far, as TF 2.4 prints
        them (see ``ConcreteFunction.pretty_printed_signature``)."""
        return "\n\n".join(c.pretty_printed_signature(verbose)
                            for c in self._list_all_concrete_functions())

    def experimental_get_tracing_count(self) -> int:
        """How many concrete functions this Function has traced."""
        return self._tracing_count

    def __repr__(self) -> str:
        return f"<torchflow.function {self.__name__}>"

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        key = id(instance)
        entry = self._bound.get(key)
        if entry is not None and entry[0]() is instance:
            return entry[1]
        try:
            ref = weakref.ref(instance, lambda _r, k=key, b=self._bound: b.pop(k, None))
        except TypeError:
            ref = (lambda obj: (lambda: obj))(instance)
        bound = Function(self._python_function, self._input_signature, self._jit_compile,
                         self._reduce_retracing, self.__name__, instance_ref=ref,
                         autograph=self._autograph)
        self._bound[key] = (ref, bound)
        return bound

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The concrete function for these arguments (TensorSpecs or values),
        tracing a new one if needed.

        Raises:
          ValueError: If there is no ``input_signature`` and no arguments are
            given for a function that takes some.
        """
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        args, kwargs = self._canonicalize(args, kwargs)
        if self._input_signature is not None:
            args = self._check_signature(args, kwargs)
        concrete = self._lookup(args, kwargs, trace=True)
        if concrete.structured_outputs is None and not context.GLOBAL.run_functions_eagerly:
            self._dry_trace(concrete, args, kwargs)
        return concrete

    def _dry_trace(self, concrete: ConcreteFunction, args=None, kwargs=None) -> None:
        """Traces ``concrete`` without running anything that has effects (variable
        writes, prints): ``get_concrete_function``. The recording is kept for later
        calls with these exact inputs, so the Python body runs once, as in TF; the
        same trace gives the function's TF-op graph (``concrete.graph``)."""
        try:
            self._dry_trace_graph(concrete, args, kwargs)
        except graph_trace.TraceUnsafe:
            return

    def _build_op_graph(self, concrete: ConcreteFunction):
        """``concrete.graph`` when no dry trace made it: one more dry trace."""
        try:
            g = self._dry_trace_graph(concrete, None, None)
        except graph_trace.TraceUnsafe as e:
            raise UnimplementedError(
                None, None, f"The graph of tf.function {self.__name__} is not available: the "
                f"body calls an op that a trace without execution cannot stand in for "
                f"({e})") from None
        if g is None:
            raise UnimplementedError(
                None, None, f"The graph of tf.function {self.__name__} is not available for "
                f"inputs of composite types")
        return g

    def _dry_trace_graph(self, concrete: ConcreteFunction, args, kwargs, op_graph_too=True,
                         unknown: int = 1):
        """One dry trace (see ``_dry_trace``). Integer arguments stand in as zeros; where
        an op rejects those (``tf.reshape(x, shape)`` of a shape argument), the trace
        runs again with other stand-ins (``_INT_FILLS``; floats then stand in as identity
        matrices, which ``tf.linalg.inv`` or ``cholesky`` accept) before the
        error is the caller's, unless the failed trace created variables."""
        if args is None:
            args, kwargs = concrete.structured_input_signature
        fills = _INT_FILLS if any(s.dtype.is_integer or s.dtype.is_floating or
                                  s.dtype.is_complex for s in _flat_specs(
            (args, kwargs or {}))) else _INT_FILLS[:1]
        first: OpError | None = None
        for k, fill in enumerate(fills):
            created = getattr(_state, "variables_created", 0)
            try:
                return self._dry_trace_with(concrete, args, kwargs, op_graph_too, unknown,
                                            fill)
            except OpError as e:
                first = first or e
                if getattr(_state, "variables_created", 0) != created:
                    raise
                if k == len(fills) - 1:  # none fits: the error of the first stand-ins
                    raise first from None
        return None

    def _dry_trace_with(self, concrete: ConcreteFunction, args, kwargs, op_graph_too: bool,
                        unknown: int, fill: str):
        specs = _flat_specs((args, kwargs or {}))
        args, kwargs = nest.map_structure(lambda x: _placeholder(x, unknown, fill),
                                          (args, kwargs or {}))
        if any(isinstance(s, TypeSpec) for s in nest.flatten((args, kwargs))):
            return None  # a composite's spec: traced at its first call
        flat, gkey = _graph_inputs(args, kwargs)
        rec = graph_trace.Recorder(self.__name__, dry=True, autograph=self._autograph)
        rec.node_states = concrete._node_states
        names = [rec.input(t) for t in flat]
        if op_graph_too and any(s.dtype == dtypes.string for s in specs):
            # String ops compute in NumPy, out of the recorder's sight: any tensor the
            # trace makes may come from a string input (none may become a constant).
            rec.tainted_from = 0
        first = self._calls == 0
        if op_graph_too:
            with rec, op_graph.capture_calls() as cap:
                out = self._run_python(concrete, args, kwargs, first)
        else:
            with rec:
                out = self._run_python(concrete, args, kwargs, first)
        graph = None
        if rec.unsafe is None and gkey is not None:
            graph = graph_trace.Graph(rec, names, out)
            if gkey not in concrete._graphs:
                concrete._graphs[gkey] = graph
                concrete._note_recording(gkey, graph)
        shapes = self._note_outputs(concrete, graph, out, flat, rec.stand_in_sizes)
        if not op_graph_too:
            return None
        tensors, arg_names = [], []
        pos = self._arg_names(len(args))
        for an, a in list(zip(pos, args)) + sorted(kwargs.items()):
            leaves = [x for x in nest.flatten(a, expand_composites=True)
                      if isinstance(x, Tensor)]
            tensors.extend(leaves)
            if len(leaves) > 1 and not nest.is_nested(a):
                # A composite's components: TF names them x, x_1, x_2, ...
                arg_names.extend([an] + [f"{an}_{i}" for i in range(1, len(leaves))])
            else:
                arg_names.extend([an] if len(leaves) == 1 else
                                 [f"{an}_{i}" for i in range(len(leaves))])
        # A trace again of a concrete function keeps its graph's name (its While bodies'
        # names come from it, and _export_graph compares the two traces' nodes).
        name = concrete._op_graph.name if concrete._op_graph is not None else \
            f"{concrete.name}_{len(self._list_all_concrete_functions())}"
        g = op_graph.FuncGraph.build(name, arg_names, tensors, cap.calls, out, rec.dynamic,
                                     specs=specs, tainted=rec.tainted())
        g.static_shapes = shapes
        if concrete._op_graph is None:
            concrete._op_graph = g
        return g

    def _note_outputs(self, concrete: ConcreteFunction, graph, out, flat,
                      stand_in_sizes: "set[int] | frozenset[int]" = frozenset()) -> dict:
        """The static shapes of a trace's outputs (``graph_out_shapes``), which
        become ``concrete.structured_outputs`` after its first trace."""
        unknown = graph_out_shapes.unknown_dims(
            _flat_specs(concrete.structured_input_signature), flat)
        if unknown is None and stand_in_sizes:  # (string arguments: no torch inputs)
            graph, flat, unknown = None, [], []
        elif unknown is None:  # composite or variable arguments: sizes as traced
            return {}
        shapes = graph_out_shapes.static_shapes(graph, out, flat, unknown, stand_in_sizes)
        if not concrete._outputs_static:
            concrete._outputs_static = True
            concrete.structured_outputs = function_signature.symbolic_outputs(out, shapes)
        return shapes

    # --- calling -----------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if profiler_backend._active:  # TF's Function.__call__ event, for tf.profiler
            with profiler_backend.function_call(
                    self.__name__, None if context.GLOBAL.run_functions_eagerly
                    else self.experimental_get_tracing_count):
                return self._call(args, kwargs)
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        if context.GLOBAL.run_functions_eagerly:
            return self._call_python(args, kwargs)
        det = self._detector
        if det is None:
            det = self._detector = retracing.detector(self._python_function)
        det.calls += 1
        cargs, ckwargs = self._canonicalize(args, kwargs)
        if self._input_signature is not None:
            cargs = self._check_signature(cargs, ckwargs)
            args, kwargs = cargs, ckwargs
        concrete, saw_numpy = self._lookup(cargs, ckwargs, trace=True, report_numpy=True)
        if saw_numpy:
            cargs, ckwargs = nest.map_structure(_np_to_tensor, (cargs, ckwargs))
        try:
            return self._run(concrete, cargs, ckwargs)
        except StopIteration:
            # next(iterator) past the end inside a function: TF's IteratorGetNext error.
            raise OutOfRangeError(
                None, None, f"End of sequence\n\t [[{{{{node IteratorGetNext}}}}]] "
                f"[Op:__inference_{self.__name__}]") from None

    def _call_python(self, args, kwargs):
        if self._instance_ref is not None:
            return self._python_function(self._instance_ref(), *args, **kwargs)
        return self._python_function(*args, **kwargs)

    def _call_converted(self, args, kwargs):
        """The body as a trace runs it: AutoGraph's conversion of it (tensor-dependent
        if/while/for become tf.cond / tf.while_loop) unless ``autograph=False``."""
        fn = self.__dict__.get("_converted")
        if fn is None:
            fn = self._python_function
            if self._autograph:
                fn = autograph_convert.convert(fn)
            self._converted = fn
        if self._instance_ref is not None:
            return fn(self._instance_ref(), *args, **kwargs)
        return fn(*args, **kwargs)

    def _canonicalize(self, args, kwargs):
        if not kwargs and len(args) == self._n_simple:
            return args, kwargs
        if self._sig is None:
            return args, kwargs
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}: {e}") from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _check_signature(self, args, kwargs):
        sig = self._input_signature
        n = len(sig)  # pyright: ignore[reportArgumentType] - called only with an input_signature
        if len(args) < n:
            raise _SignatureError(
                f"Binding inputs to tf.function failed due to `missing a required argument`. "
                f"Received args: {args} and kwargs: {kwargs} for signature: {sig}.")
        if len(args) > n:
            extra = args[n:]
            params = list(self._sig.parameters.values())[n:] if self._sig else []
            for a, p in zip(extra, params):
                if p.default is inspect.Parameter.empty or a is not p.default and a != p.default:
                    raise _SignatureError(
                        f"Binding inputs to tf.function failed due to `Can not cast {a!r} to "
                        f"Literal[{p.default!r}]`. Received args: {args} and kwargs: "
                        f"{kwargs} for signature: {sig}.")
        converted = []
        for a, spec in zip(args[:n], sig):  # pyright: ignore[reportArgumentType] - called only with an input_signature
            converted.append(self._conform(a, spec, args, kwargs))
        return tuple(converted) + tuple(args[n:])

    def _conform(self, value, spec, args, kwargs):
        try:
            nest.assert_same_structure(spec, value, check_types=False)
        except (ValueError, TypeError):
            if not isinstance(spec, TensorSpec):
                raise _SignatureError(
                    f"Binding inputs to tf.function failed due to `Can not cast {value!r} to "
                    f"{spec!r}`. Received args: {args} and kwargs: {kwargs} for signature: "
                    f"{self._input_signature}.") from None
        flat_spec = nest.flatten(spec)
        flat_val = nest.flatten(value) if not isinstance(spec, TensorSpec) else [value]
        out = []
        for v, s in zip(flat_val, flat_spec):
            if not isinstance(s, TensorSpec):  # a composite's spec (RaggedTensorSpec, ...)
                if not s.is_compatible_with(v):
                    raise _SignatureError(
                        f"Binding inputs to tf.function failed due to `Can not cast {v!r} to "
                        f"{s!r}`. Received args: {args} and kwargs: {kwargs} for signature: "
                        f"{self._input_signature}.")
                out.append(v)
                continue
            if isinstance(v, TensorSpec) and v.dtype == s.dtype and \
                    s.shape.is_compatible_with(v.shape):
                out.append(v)  # get_concrete_function(spec)
                continue
            if isinstance(v, (Tensor, Variable)):
                t = v
            else:
                try:
                    t = to_tensor(v, s.dtype)
                except (TypeError, ValueError):
                    t = None
            if t is None or t.dtype != s.dtype or not s.shape.is_compatible_with(t.shape):
                got = TensorSpec(t.shape, t.dtype) if t is not None else v
                raise _SignatureError(
                    f"Binding inputs to tf.function failed due to `Can not cast {got!r} to "
                    f"{TensorSpec(s.shape, s.dtype)!r}`. Received args: {args} and kwargs: "
                    f"{kwargs} for signature: {self._input_signature}.")
            out.append(t)
        if isinstance(spec, TensorSpec):
            return out[0]
        return nest.pack_sequence_as(spec, out)

    def _lookup(self, args, kwargs, trace: bool, report_numpy: bool = False) -> Any:
        # The ConcreteFunction, or (it, saw_numpy) with report_numpy.
        concrete, saw_numpy = self._lookup2(args, kwargs)
        return (concrete, saw_numpy) if report_numpy else concrete

    def _lookup2(self, args, kwargs):
        if self._input_signature is not None:
            concrete = self._cache.get("sig")
            if concrete is None:
                shapes = [s.shape for s in nest.flatten(self._input_signature)]
                # The arguments after the signature are their defaults (checked by
                # _check_signature); TF's signature holds them: (x_spec, y_spec, None).
                args_spec = tuple(self._input_signature) + tuple(args[len(self._input_signature):])
                concrete = self._new_concrete(None, shapes, args_spec, kwargs)
                self._cache["sig"] = concrete
            return concrete, False
        shapes: list = []
        skeleton = (_encode(args, shapes), _encode(kwargs, shapes) if kwargs else None)
        # Tensor shapes are torch.Size; NumPy shapes are plain tuples.
        saw_numpy = False
        for sh in shapes:
            if type(sh) is tuple:
                saw_numpy = True
                break
        key = (skeleton, tuple(shapes))
        concrete = self._cache.get(key)
        if concrete is not None:
            return concrete, saw_numpy
        spec_shapes = [s if isinstance(s, TensorShape) else from_tuple(s) for s in shapes]
        candidates = self._relaxed.setdefault(skeleton, [])
        for c in reversed(candidates):
            if c._matches(spec_shapes):
                self._cache[key] = c
                return c, saw_numpy
        if self._reduce_retracing and candidates:
            last = candidates[-1]._shapes
            spec_shapes = [a.most_specific_compatible_shape(b) for a, b in
                           zip(spec_shapes, last)]
        args_spec = nest.map_structure(_spec_of, args)
        kwargs_spec = nest.map_structure(_spec_of, kwargs) if kwargs else {}
        if self._reduce_retracing and candidates:
            args_spec, kwargs_spec = _with_shapes((args_spec, kwargs_spec), spec_shapes)
        concrete = self._new_concrete(skeleton, spec_shapes, args_spec, kwargs_spec)
        candidates.append(concrete)
        self._cache[key] = concrete
        return concrete, saw_numpy

    def _new_concrete(self, skeleton, shapes, args_spec, kwargs_spec) -> ConcreteFunction:
        self._tracing_count += 1
        retracing.detector(self._python_function).traced(self._python_function)
        return ConcreteFunction(self, skeleton, shapes, args_spec, kwargs_spec)

    def _run(self, concrete: ConcreteFunction, args, kwargs):
        s = _state
        first = self._calls == 0
        self._calls += 1
        flat, gkey = _graph_inputs(args, kwargs)
        if self._jit_compile and gkey is None and not concrete._compile_failed:
            return self._run_python(concrete, args, kwargs, first, compiled=True)
        graphs = concrete._graphs
        graph = graphs.get(gkey, _MISSING) if gkey is not None else None
        if graph is _MISSING and concrete._generic:
            graph = concrete._generic.get(_size_class(gkey), _MISSING)
            if graph is not _MISSING:
                graphs[gkey] = graph
        if graph is not _MISSING and graph is not None:
            s.function_depth += 1
            # The host nodes the replay runs (graph_trace's log), for a fallback below.
            host_log = graph_trace._HOST_LOG
            outer_log = getattr(host_log, "log", None)
            ran = host_log.log = []
            try:
                leaves = graph.run(flat, self._jit_compile)
            except graph_trace.StaleRecording:
                # A recording made at other sizes whose guard fails at these: the body
                # traces again for them (nothing it does ran before the guard).
                leaves = _MISSING
            except (OpError, StopIteration):
                raise
            except Exception:  # noqa: BLE001 - the Python body raises TF's error
                # A torch error inside the replay (a value a kernel rejects): the
                # body runs as Python, whose ops raise TF's error for it.
                leaves = None
            finally:
                s.function_depth -= 1
                host_log.log = outer_log
                if outer_log is not None:
                    outer_log.extend(ran)
            if leaves is None:
                return self._run_resumed(concrete, args, kwargs, first, ran)
            if leaves is not _MISSING:
                return graph.pack(leaves)
            del graphs[gkey]
            graph = _MISSING
        if graph is None or graph_trace.active() is not None:
            # Not replayable, or called while another function traces (inlined there).
            return self._run_python(concrete, args, kwargs, first)
        rec = graph_trace.Recorder(self.__name__, autograph=self._autograph)
        rec.node_states = concrete._node_states
        names = [rec.input(t) for t in flat]
        unknown = graph_out_shapes.unknown_dims(
            _flat_specs(concrete.structured_input_signature), flat)
        if unknown:
            rec.unknown_sizes = {int(t.shape[d]) for t, dims in zip(flat, unknown)
                                 for d in dims}
        created = getattr(s, "variables_created", 0)
        with rec:
            out = self._run_python(concrete, args, kwargs, first)
        if getattr(s, "variables_created", 0) != created:
            # TF traces again at once after a trace that created variables, and fails
            # (ValueError) if that trace creates more; this one runs without effects.
            # (A body that runs as Python on every call checks on its next call.)
            self._tracing_count += 1
            if rec.unsafe is None:
                try:
                    self._dry_trace_graph(concrete, args, kwargs, op_graph_too=False)
                except graph_trace.TraceUnsafe:
                    pass
            return out
        if rec.unsafe is not None:
            _log.debug("tf.function %s runs eagerly for this signature: %s", self.__name__,
                       rec.unsafe)
            graphs[gkey] = graph = None
        else:
            graphs[gkey] = graph = graph_trace.Graph(rec, names, out)
            concrete._note_recording(gkey, graph)
        if not concrete._outputs_static:
            self._note_outputs(concrete, graph, out, flat)
        return out

    def _run_resumed(self, concrete, args, kwargs, first, ran: list):
        """The body as Python after a replay failed (a kernel rejected a value), its
        ops raising TF's error for it; where host nodes of the replay had run
        (``ran``: an iterator's ``next``, a ``py_function``), the body's host calls take
        their results while they match, so that no iterator element is read twice and
        no side effect repeats."""
        if not ran:
            return self._run_python(concrete, args, kwargs, first)
        host_log = graph_trace._HOST_LOG
        host_log.resume = list(ran)
        try:
            return self._run_python(concrete, args, kwargs, first)
        finally:
            host_log.resume = None

    def _run_python(self, concrete, args, kwargs, first, compiled=False):
        s = _state
        created = getattr(s, "variables_created", 0)
        s.function_depth += 1
        symbolic = self._uses_symbolic_gradients()
        if symbolic:
            # tf.gradients / tf.hessians in the body: everything is differentiable
            # from the inputs and variables, as a TF graph is.
            prev = (s.recording, torch.is_grad_enabled())
            s.recording = True
            s.symbolic_gradients += 1  # tf.constant makes differentiable tensors too
            torch.set_grad_enabled(True)
            args, kwargs = nest.map_structure(_differentiable_input, (args, kwargs))
        before = function_signature.containers_of((args, kwargs)) \
            if self._checks_arguments else None
        try:
            if compiled:
                out = _run_compiled(self, concrete, args, kwargs)
            else:
                out = self._call_converted(args, kwargs)
            if before is not None:
                function_signature.check_unchanged(self._python_function, before, (args, kwargs))
        finally:
            s.function_depth -= 1
            if symbolic:
                s.symbolic_gradients -= 1
                s.recording = prev[0]  # pyright: ignore[reportPossiblyUnboundVariable] - set when symbolic
                torch.set_grad_enabled(prev[1])  # pyright: ignore[reportPossiblyUnboundVariable] - set when symbolic
        if not first and getattr(s, "variables_created", 0) != created:
            raise ValueError(
                f"tf.function only supports singleton tf.Variables created on the first call. "
                f"Make sure the tf.Variable is only created once or created outside "
                f"tf.function. (in {self.__name__})")
        out = _convert_outputs(out)
        if concrete.structured_outputs is None:
            concrete.structured_outputs = function_signature.symbolic_outputs(out)
        return out


_MISSING = object()


def _with_shapes(specs, shapes: list):
    """``specs`` with their TensorSpecs' shapes replaced by ``shapes`` in order (the
    generalised shapes of a relaxed trace, which TF's signature shows), or ``specs``
    where they do not pair up."""
    flat = nest.flatten(specs)
    if sum(isinstance(s, TensorSpec) for s in flat) != len(shapes):
        return specs
    it = iter(shapes)
    out = [TensorSpec(next(it), s.dtype, s.name) if isinstance(s, TensorSpec) else s
           for s in flat]
    return nest.pack_sequence_as(specs, out)


def _size_class(key):
    """A recording key with each input size of 2 or more as -1."""
    out = []
    for e in key:
        if type(e) is tuple and len(e) == 3 and type(e[0]) is torch.Size:
            e = (tuple(d if d < 2 else -1 for d in e[0]),) + e[1:]
        out.append(e)
    return tuple(out)


def _differentiable_input(x):
    if type(x) is Tensor and isinstance(x._t, torch.Tensor) and (
            x._t.is_floating_point() or x._t.is_complex()) and not x._t.requires_grad:
        return wrap(x._t.detach().requires_grad_(True), x._dtype)
    return x


def _same_graph(a, b) -> bool:
    """Whether two traces of one signature made the same nodes (ops, inputs, attributes)."""
    na, nb = a.as_graph_def().node, b.as_graph_def().node
    if len(na) != len(nb):
        return False
    for x, y in zip(na, nb):
        if x.op == "Placeholder" and y.op == "Placeholder":
            continue  # their shapes are the signature's either way
        if x.SerializeToString(deterministic=True) != y.SerializeToString(deterministic=True):
            return False
    return True


# The stand-in values of integer arguments a dry trace tries, in order (_placeholder).
_INT_FILLS = ("zeros", "ones", "shape", "sizes", "iota")


def _placeholder(x, unknown: int = 1, fill: str = "zeros"):
    """A stand-in tensor for a ``TensorSpec`` (unknown dimensions ``unknown``) in a
    dry trace: zeros; for floats with another fill, identity matrices (ones where the
    last two dimensions differ); for integers with ``fill="ones"`` ones, with ``fill="shape"``
    a vector ``[unknown, 1, 1, ...]`` (a shape for the unknown-sized inputs), with
    ``fill="sizes"`` ``[unknown, 0, 0, ...]`` (sizes that add up to one of them); with
    ``fill="iota"`` integers and floats are ``0, 1, 2, ...`` (a permutation, an
    increasing range)."""
    if isinstance(x, TensorSpec):
        dims = x.shape.dims
        shape = () if dims is None else tuple(unknown if d is None else d for d in dims)
        if x.dtype is dtypes.string:
            return to_tensor(np.full(shape, b"", dtype=object), x.dtype)
        if fill == "iota" and (x.dtype.is_integer or x.dtype.is_floating):
            n = int(np.prod(shape, dtype=np.int64))
            return wrap(torch.arange(n, dtype=x.dtype._torch).reshape(shape), x.dtype)
        if fill != "zeros" and (x.dtype.is_floating or x.dtype.is_complex):
            t = torch.ones(shape, dtype=x.dtype._torch)
            if len(shape) >= 2 and shape[-1] == shape[-2]:
                t = torch.eye(shape[-1], dtype=t.dtype).expand(shape).clone()
            return wrap(t, x.dtype)
        if fill != "zeros" and x.dtype.is_integer:
            t = (torch.zeros if fill == "sizes" else torch.ones)(shape, dtype=x.dtype._torch)
            if fill in ("shape", "sizes") and len(shape) == 1 and shape[0]:
                t[0] = unknown
            return wrap(t, x.dtype)
        return wrap(torch.zeros(shape, dtype=x.dtype._torch), x.dtype)
    make = _COMPOSITE_PLACEHOLDERS.get(type(x))
    if make is not None:
        return make(x, unknown)
    return x


def _graph_inputs(args, kwargs):
    """The torch tensors a recording binds, and the key of the recording that fits
    them (exact shapes, devices, grad requirements, aliasing, variables by identity,
    whether a tape records); key None when no recording can take these inputs."""
    flat: list = []
    key: list = [torch.is_grad_enabled()]
    # Composites expand to their component tensors, which the recording binds.
    try:
        leaves = nest.flatten((args, kwargs), expand_composites=True) if (args or kwargs) \
            else ()
    except (AttributeError, TypeError, NotImplementedError):  # e.g. an iterator's spec
        leaves = _leaves_by_reference(args, kwargs)
        if leaves is None:
            return flat, None
    for x in leaves:
        if _is_iterator(x):
            # Bound by reference, as TF passes an iterator's resource: the recording
            # calls next() on whichever iterator of this spec the call passes.
            flat.append(x)
            key.append(("iterator", x._type_spec))
        elif isinstance(x, Tensor):
            t = x._t
            if not isinstance(t, torch.Tensor):
                return flat, None  # a string tensor: its values live in NumPy
            flat.append(t)
            key.append((t.shape, t.device, t.requires_grad))
        elif isinstance(x, Variable):
            # Never reused, unlike id(): a later variable must not hit a dead one's key.
            key.append(("var", getattr(x, "_unique_id", id(x))))
    if len(flat) > 1:
        ids = [id(t) for t in flat]
        if len(set(ids)) != len(ids):
            key.append(tuple(ids.index(i) for i in ids))
    return flat, tuple(key)


def _is_iterator(x) -> bool:
    """Whether ``x`` is a ``tf.data`` iterator (a composite passed by reference): one
    with a type spec whose ``next`` is a host node of traces (``graph_trace.host_op``),
    so that a replay reads the iterator it is given."""
    return hasattr(getattr(type(x), "__next__", None), "__wrapped_host__") and \
        hasattr(x, "element_spec") and getattr(x, "_type_spec", None) is not None


def _leaves_by_reference(args, kwargs) -> list | None:
    """The leaves of the arguments with composites expanded, iterators kept whole;
    None where a composite does not expand."""
    out: list = []
    for x in nest.flatten((args, kwargs)):
        if _is_iterator(x):
            out.append(x)
            continue
        try:
            out.extend(nest.flatten(x, expand_composites=True))
        except (AttributeError, TypeError, NotImplementedError):
            return None
    return out


def _np_to_tensor(x):
    return to_tensor(x) if type(x) is np.ndarray and x.dtype.kind not in "OUS" else x


_LEAF_CONVERT = (int, float, bool, str, bytes, np.ndarray, np.generic, graph_trace._SymInt)


def _convert_outputs(out):
    tp = type(out)
    if tp is Tensor or out is None:
        return out
    if tp in _LEAF_CONVERT:
        return to_tensor(out)
    if nest.is_nested(out):
        return nest.map_structure(
            lambda x: to_tensor(x) if type(x) in _LEAF_CONVERT else x, out)
    return out


def _run_compiled(fn: Function, concrete: ConcreteFunction, args, kwargs):
    compiled = concrete._compiled
    if compiled is None:
        structure: list = []

        def flat(args, kwargs):
            out = fn._call_python(args, kwargs)
            structure[:] = [out]
            leaves = nest.flatten(out)
            return [x._t if isinstance(x, Tensor) else x for x in leaves]

        tape.install_compile_barriers()
        variables.install_compile_barriers()
        compiled = concrete._compiled = (torch.compile(flat, dynamic=False), structure)
    cfn, structure = compiled
    # A frame torch.compile cannot compile runs eagerly (dynamo's own fallback, before
    # that frame executes), so a failed compilation never re-runs side effects.
    try:
        with torch._dynamo.config.patch(suppress_errors=True):
            leaves = cfn(args, kwargs)
    except torch._dynamo.exc.TorchDynamoException:  # pyright: ignore[reportAttributeAccessIssue] - torch._dynamo.exc has no stub
        concrete._compile_failed = True  # later calls run eagerly
        _log.warning("tf.function(jit_compile=True): torch.compile failed for %s; later "
                     "calls run eagerly.", fn.__name__)
        raise
    template = structure[0]
    flat_t = nest.flatten(template)
    out = []
    for t, leaf in zip(flat_t, leaves):
        if isinstance(t, Tensor) and isinstance(leaf, torch.Tensor):
            out.append(wrap(leaf, t._dtype))
        else:
            out.append(leaf)
    return nest.pack_sequence_as(template, out)


@public("torchflow")
def function(func=None, input_signature=None, autograph=True, experimental_implements=None,
             experimental_autograph_options=None, experimental_relax_shapes=False,
             experimental_compile=None, experimental_follow_type_hints=None,
             jit_compile=None, reduce_retracing=False):
    """Compiles a function into a callable TensorFlow function (``tf.function``).

    Args:
      func: The function to wrap (or None to use as a decorator with arguments).
      input_signature: A (nested) list of ``tf.TensorSpec``; if given, calls
        must match it and only one concrete function is traced.
      autograph: Accepted; Python control flow on tensor values makes the
        signature run eagerly (docs/function.md) instead of being converted.
      experimental_implements: Accepted, unused.
      experimental_autograph_options: Accepted, unused.
      experimental_relax_shapes: Generalise shapes after a retrace instead of
        tracing again for every new shape.
      experimental_compile: Old name of ``jit_compile``.
      experimental_follow_type_hints: Accepted, unused.
      jit_compile: Compile each concrete function with ``torch.compile``.
      reduce_retracing: New name of ``experimental_relax_shapes``.

    Returns:
      A ``Function``.

    Raises:
      TypeError: If ``input_signature`` is not a list/tuple of TensorSpecs.

    >>> import torchflow as tf
    >>> @tf.function
    ... def square(x):
    ...     return x * x
    >>> float(square(tf.constant(3.0)))
    9.0
    >>> square.experimental_get_tracing_count()
    1
    """
    jit = jit_compile if jit_compile is not None else bool(experimental_compile)
    relax = bool(experimental_relax_shapes or reduce_retracing)

    def wrap_fn(f):
        if isinstance(f, Function):
            f = f._python_function
        return Function(f, input_signature, jit, relax, autograph=autograph)

    if func is None:
        return wrap_fn
    return wrap_fn(func)


@public("torchflow")
def inside_function() -> bool:
    """True while a ``tf.function`` body runs (in this thread).

    Returns:
      bool: True while a ``tf.function`` traces or runs its Python (also inside
      ``tf.init_scope`` there, as in TF 2.4), False in plain eager code.
    """
    # TF answers True inside init_scope in a function body too.
    return _state.function_depth > 0 or getattr(_state, "lifted_function_depth", 0) > 0


class init_scope:
    """A context manager that lifts code out of ``tf.function`` bodies.

    Inside it ``tf.executing_eagerly()`` is True again (Keras creates its
    variables there). The name scope is cleared, as in TF.
    """

    __slots__ = ("_depth", "_names", "_pause")

    def __enter__(self):
        # Runs once, while tracing: what it does is not recorded.
        self._pause = graph_trace.paused()
        self._pause.__enter__()
        s = _state
        self._depth = s.function_depth
        self._names = list(s.name_scope)
        s.lifted_function_depth = getattr(s, "lifted_function_depth", 0) + self._depth
        s.function_depth = 0
        s.name_scope[:] = []
        return None

    def __exit__(self, *exc):
        s = _state
        s.function_depth = self._depth
        s.lifted_function_depth -= self._depth
        s.name_scope[:] = self._names
        self._pause.__exit__()


public("torchflow")(init_scope)


class control_dependencies:
    """Eager no-op: operations run in program order, so the dependencies already ran.

    Args:
      control_inputs: Tensors/ops (or None); accepted and ignored.
    """

    __slots__ = ()

    def __init__(self, control_inputs):
        if control_inputs is not None and not isinstance(control_inputs, (list, tuple)):
            if not callable(control_inputs):
                raise TypeError(f"control_inputs must be a list or None, got "
                                f"{type(control_inputs).__name__}")

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


public("torchflow")(control_dependencies)
