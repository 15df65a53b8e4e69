"""Trace once, replay: the recorder behind ``tf.function``.

The first call of a ``tf.function`` with a new signature runs its Python body once,
for real, while a ``torch`` function mode records every torch call the body makes
(``Recorder``). Tensors are identified by object: the inputs, the tensors each call
produced (slots), and tensors that existed before (captured by reference: variable
storage, constants). The recording becomes one generated Python function of
straight-line torch calls (``Graph``); later calls with the same signature run it,
so no Python of the body runs again, as in TF.

What must run on every call although it is not a torch call is recorded as one
*host node* instead of its torch calls: variable writes (their copy-on-write choice
depends on who else holds the buffer at that moment), ``tf.print``,
``py_function``, tf.data ``get_next``, the optimizers' fused update (it reads the
step count on the host). Such functions are marked with ``host_op``; inside a host
node nothing is recorded.

A trace the recording cannot replay faithfully is marked *eager* (the signature
keeps running its Python body on every call, the behaviour before this module):
when the body reads a tensor value that depends on the inputs, on variables or on
random ops into Python (``bool``, ``int``, ``.numpy()``: data-dependent Python
control flow, which TF's AutoGraph would have converted), iterates a dataset, or
uses string tensors computed from inputs.
"""

from __future__ import annotations

import functools
import math
import re
import sys
import threading
import types
import weakref

import torch
from torch.overrides import TorchFunctionMode

from torchflow._src.core import graph_shapes
from torchflow._src.core import tensor as _tensor_mod
from torchflow._src.core.errors import FailedPreconditionError, OperatorNotAllowedInGraphError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.util import nest

_get_ident = threading.get_ident
_LOCK = threading.Lock()

# The recorder tracing in each thread (torch function modes are per thread, too);
# _ACTIVE is one of them, or None when no thread traces: the cheap check hot paths
# make before looking up their own thread's.
_BY_THREAD: "dict[int, Recorder]" = {}
_ACTIVE: "Recorder | None" = None

# Value reads into Python: a trace whose Python used such a value of an input-,
# variable- or random-dependent tensor cannot be replayed.
_READS = frozenset({
    "__bool__", "item", "tolist", "numpy", "__int__", "__float__", "__index__",
    "__array__", "__complex__", "__len__", "__iter__", "__format__", "__repr__",
    "__str__", "__contains__", "__reversed__", "equal", "allclose", "data_ptr",
})
# Python reads of a tensor's size (``t.shape`` is a descriptor's ``__get__``).
_SIZE_READS = frozenset({"__get__", "size", "numel"})


def _is_size_read(func, name: str) -> bool:
    if name != "__get__":
        return True
    return getattr(getattr(func, "__self__", None), "__name__", None) == "shape"


# Calls whose result differs between calls with equal inputs.
_RANDOM = frozenset({
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
    "normal", "bernoulli", "multinomial", "poisson", "dropout", "alpha_dropout",
    "feature_alpha_dropout", "uniform_", "normal_", "bernoulli_", "random_",
    "exponential_", "geometric_", "cauchy_", "log_normal_", "_standard_gamma",
    "_sample_dirichlet", "binomial", "rrelu", "rrelu_", "dropout_", "native_dropout",
})
# Calls that change an argument without returning a tensor.
_MUTATORS = frozenset({"__setitem__", "__set__", "backward", "set_", "record_stream"})
_SIMPLE = (bool, int, str, type(None))
# Factories of fresh tensors from Python values: with no dynamic argument their result
# is a constant the recording keeps instead of making it again on every call.
_FRESH_CONSTANTS = frozenset({
    "tensor", "as_tensor", "scalar_tensor", "zeros", "ones", "full", "arange", "eye",
    "linspace", "logspace", "zeros_like", "ones_like", "full_like",
})
_CONST_MARK = "#C# "

# .tracer: the export-graph tracer this thread runs (op_graph.capture_calls sets it);
# its ._stack is non-empty inside an op call whose lowering stands for the whole op.
OP_CAPTURE = threading.local()

# Variable storages (torch leaves) alive, by id: reads of them are not constant.
_LEAVES: "dict[int, weakref.ref]" = {}


_SymInt = graph_shapes.SymInt
StaleRecording = graph_shapes.StaleRecording


def shape_value(t: torch.Tensor, dtype: torch.dtype, size: bool = False):
    """``tf.shape`` (``tf.size`` with ``size``) of ``t`` recorded as a node that reads
    its size on every replay, where ``t`` is input-dependent in this thread's trace;
    None otherwise (the size is a constant of the recording)."""
    r = active()
    if r is None or id(t) not in r.dynamic:
        return None
    return graph_shapes.shape_node(
        r, graph_shapes.tensor_size if size else graph_shapes.tensor_shape, t, dtype)


def register_leaf(t: torch.Tensor) -> None:
    """Records ``t`` as a variable's storage (its reads are not constants)."""
    key = id(t)
    _LEAVES[key] = weakref.ref(t, lambda _r, k=key: _LEAVES.pop(k, None))


def _is_leaf(t: torch.Tensor) -> bool:
    r = _LEAVES.get(id(t))
    return r is not None and r() is t


class LoopCapped(Exception):
    """A recorded ``tf.while_loop`` ran past its namespace's ``_loop_cap``."""


class TraceUnsafe(BaseException):
    """Internal: the body did something a recording cannot replay (a BaseException,
    so that a user's ``except Exception`` around the call does not swallow it when a
    dry trace must stop)."""


RUN = "run"  # host_op(dry=RUN): a dry trace runs the function anyway


_SERIAL = __import__("itertools").count()


def serial() -> int:
    """A number that grows with every call: what was made inside a trace has a
    larger one than the trace's recorder (``Recorder.born``)."""
    return next(_SERIAL)


def made_in_trace(born: int) -> bool:
    """Whether an object of serial ``born`` was made while this thread's current
    recorder traces."""
    r = _BY_THREAD.get(_get_ident()) if _ACTIVE is not None else None
    return r is not None and born > r.born


def cannot_dry_run(*args, **kwargs):
    """``host_op(dry=...)`` of functions a dry trace cannot stand in for."""
    raise TraceUnsafe("a host op that a trace without execution cannot stand in for")


def active() -> "Recorder | None":
    """The recorder of this thread, or None (also inside a host node)."""
    if _ACTIVE is None:
        return None
    r = _BY_THREAD.get(_get_ident())
    if r is not None and r.paused == 0:
        return r
    return None


def mark_eager(reason: str) -> None:
    """Tells the tracing ``tf.function`` (if any) that it must run eagerly."""
    r = active()
    if r is not None:
        r.mark_unsafe(reason)


def tracing_recorder() -> "Recorder | None":
    """This thread's recorder, paused or not (what ``borrowed`` lends another thread)."""
    return _BY_THREAD.get(_get_ident()) if _ACTIVE is not None else None


class borrowed:
    """Within it, this thread records into ``r``: the recorder of a thread that waits
    meanwhile (a MirroredStrategy replica's thread, while the caller that traces
    waits for it; the replicas take turns, so one thread records at a time).
    ``r`` None: nothing happens."""

    __slots__ = ("_r", "_prev")

    def __init__(self, r: "Recorder | None"):
        self._r = r
        self._prev = None

    def __enter__(self):
        r = self._r
        if r is None or r.done:
            self._r = None
            return self
        ident = _get_ident()
        with _LOCK:
            self._prev = _BY_THREAD.get(ident)
            _BY_THREAD[ident] = r
            r.threads.add(ident)
        torch.overrides._push_mode(r)  # torch function modes are per thread
        return self

    def __exit__(self, *exc):
        if self._r is None:
            return
        torch.overrides._pop_mode()
        ident = _get_ident()
        with _LOCK:
            self._r.threads.discard(ident)
            if self._prev is None:
                _BY_THREAD.pop(ident, None)
            else:
                _BY_THREAD[ident] = self._prev


class paused:
    """Within it, this thread's torch calls are not recorded (the code runs once, at
    trace time: ``init_scope``, variable creation)."""

    __slots__ = ("_r",)

    def __enter__(self):
        r = _BY_THREAD.get(_get_ident()) if _ACTIVE is not None else None
        if r is not None:
            r.paused += 1
        self._r = r

    def __exit__(self, *exc):
        if self._r is not None:
            self._r.paused -= 1


def note_variable(var) -> None:
    """A variable read while tracing: the recording holds it weakly, as TF's
    functions do, and a replay after it was deleted raises TF's error."""
    r = active()
    if r is not None:
        r.variable_ref(var)


def _alive(ref, name: str, fn: str):
    var = ref()
    if var is None:
        raise FailedPreconditionError(
            None, None, f"Could not find variable {name}. This could mean that the variable "
            f"has been deleted. In TF1, it can also mean the variable is uninitialized. "
            f"[Op:__inference_{fn}]")
    return var


# The host nodes a replay ran, in order (``Graph.run``): when a guard then fails
# (StaleRecording) the body traces again, and that trace takes these results instead
# of running the nodes a second time (an iterator's next element is not lost).
_HOST_LOG = threading.local()


def _same_host_args(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:
            continue
        if isinstance(x, (torch.Tensor, Tensor)) and type(x) is type(y):
            continue
        if type(x) in _SIMPLE and type(x) is type(y) and x == y:
            continue
        if type(x) in (list, tuple) and type(x) is type(y) and _same_host_args(x, y):
            continue
        if type(x) is types.FunctionType and type(y) is types.FunctionType and \
                x.__code__ is y.__code__:
            continue  # the same def, made again by the body (a py_function's func)
        return False
    return True


def take_resumed(wrapper, args, kwargs):
    """``(result,)`` of this host call in the replay that failed, when this run of
    the body is its rerun (a retrace, or the Python fallback after a kernel rejected
    a value) and the call is the next one that replay made; else None."""
    resume = getattr(_HOST_LOG, "resume", None)
    if not resume:
        return None
    w, a, kw, res = resume[0]
    if w is wrapper and _same_host_args(a, args) and kw.keys() == kwargs.keys() and \
            _same_host_args(tuple(kw.values()), tuple(kwargs.values())):
        resume.pop(0)
        return (res,)
    _HOST_LOG.resume = None  # another call: the rest runs as it comes
    return None


def host_op(fn=None, *, dry=None, pure=False):
    """Marks ``fn`` as one host node of traced functions: while a ``tf.function``
    traces, a call of it is recorded as a call (run again on every later call of
    the function) instead of the torch calls it makes.

    ``dry`` is what a trace that must not execute anything (``get_concrete_function``)
    does instead: a function of the same arguments giving a stand-in result, ``RUN``
    to run ``fn`` anyway, or None (the stand-in result is None). ``pure``: ``fn`` has
    no effects (a TensorArray op), so a rerun of the body after a failed replay runs
    it again rather than taking the replay's result, and it counts as no effect.

    A result of ``fn`` that is a *host value* (a class with ``_host_value = True``,
    such as ``tf.TensorArray``) is known to the recording by the replay's local that
    holds it, so later host nodes, loops and conds are handed this call's value."""
    if fn is None:
        return functools.partial(host_op, dry=dry, pure=pure)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if _ACTIVE is not None:
            r = _BY_THREAD.get(_get_ident())
            if r is not None and r.paused == 0:
                return r.host_call(call, fn, args, kwargs, dry, pure)
        if pure:
            return fn(*args, **kwargs)
        resumed = take_resumed(call, args, kwargs) if getattr(_HOST_LOG, "resume", None) \
            else None
        out = resumed[0] if resumed is not None else fn(*args, **kwargs)
        log = getattr(_HOST_LOG, "log", None)
        if log is not None:
            log.append((call, args, kwargs, out))
        return out

    call.__wrapped_host__ = fn  # pyright: ignore[reportAttributeAccessIssue] - a marker attribute on the wrapper
    return call


def new_host_value(obj, factory, args: tuple) -> bool:
    """While a ``tf.function`` traces (not inside a host node): records that its
    replays make the host value ``obj`` (a ``tf.TensorArray`` being constructed) as
    ``factory(*args)``, and returns True; else False."""
    if _ACTIVE is None:
        return False
    r = _BY_THREAD.get(_get_ident())
    if r is None or r.paused:
        return False
    r.new_value(obj, factory, args)
    return True


def is_host_value(x) -> bool:
    """Whether ``x`` is a host value (``host_op``): a ``tf.TensorArray``."""
    return getattr(type(x), "_host_value", False)


def _has_tensor(x) -> bool:
    if isinstance(x, torch.Tensor):
        return True
    if type(x) in (tuple, list) or isinstance(x, tuple):
        return any(isinstance(e, torch.Tensor) for e in x)
    return False


class Recorder(TorchFunctionMode):
    """Records the torch calls of one trace into code (see the module docstring)."""

    def __init__(self, name: str, dry: bool = False, autograph: bool = True):
        super().__init__()
        self.name = name
        self.autograph = autograph
        self.dry = dry  # host nodes are recorded, not run (get_concrete_function)
        # Sizes of stand-in results whose real sizes come from values (a decoded image
        # of the stand-in string): dimensions of these sizes count as unknown.
        self.stand_in_sizes: set[int] = set()
        self.lines: list[str] = []
        # _loop_cap: the most iterations of a recorded tf.while_loop; unbounded but in
        # graph_out_shapes' replays on stand-in values, which need not end a loop.
        self.ns: dict = {"_wrap": wrap, "_sg": torch._C._set_grad_enabled,
                         "_loop_cap": sys.maxsize, "_LoopCapped": LoopCapped}
        self.slots: dict[int, str] = {}
        self.dynamic: set[int] = set()
        self.keep: list = []
        self.objs: dict[int, str] = {}
        # Host values (``host_op``) that the replay makes: id -> the local holding it.
        self.values: dict[int, str] = {}
        # The sizes of the input dimensions the signature leaves unknown.
        self.unknown_sizes: set[int] = set()
        self.unsafe: str | None = None
        # The first reason of ``unsafe`` that arose outside an op call the export graph
        # records as one node (OP_CAPTURE): its lowering takes the op's inputs as graph
        # inputs, so what the op's own code reads does not make its node wrong.
        self.unsafe_outside_ops: str | None = None
        # len(slots) when the body first read an input-dependent value into Python
        # outside an op the export graph records (OP_CAPTURE).
        self.tainted_from: int | None = None
        self.paused = 0
        self.thread = _get_ident()
        self.threads = {self.thread}  # and those that borrow it (``borrowed``)
        self.entry_grad = torch.is_grad_enabled()
        self.grad = self.entry_grad
        self.ops: list[tuple[str, str]] = []  # (type, name) per node, for Graph views
        self.const_values: dict[str, torch.Tensor] = {}  # constants the trace made
        self.mutated: set[int] = set()  # tensors written in place
        self.escaped: set[int] = set()  # tensors handed to host nodes
        self.row_gathers = False  # a custom Function marked ``_sparse_rows`` ran (tape.py)
        # Sizes as run-time values (graph_shapes): tensors that depend on the inputs'
        # sizes only, tensors whose sizes depend on values, side effects so far, and
        # whether the recording holds for its own sizes only.
        self.shape_only: set[int] = set()
        self.vshape: set[int] = set()
        self.effects = 0
        self.size_bound = False
        # For replays that only measure shapes (graph_out_shapes): each host node's
        # stand-in without effects, by its name in ``ns``, and whether the recording
        # writes a tensor it did not make (a capture) in place.
        self.dry_of: dict = {}
        self.ref_inputs: dict = {}  # input name -> object passed by reference
        # States of stateful nodes (a seeded random op's Philox counter) by (key,
        # occurrence in the trace); tf.function shares one dict between the traces of
        # a concrete function, so that its recordings share the node, as TF's graph.
        self.node_states: dict = {}
        self._occurrences: dict = {}
        self.writes_captures = False
        self.done = False
        self._n = 0
        self._prev: "Recorder | None" = None
        self.born = serial()

    # --- lifetime -------------------------------------------------------------
    def __enter__(self):
        global _ACTIVE
        with _LOCK:
            self._prev = _BY_THREAD.get(self.thread)
            _BY_THREAD[self.thread] = self
            _ACTIVE = self
            _install_apply_hook()
        return super().__enter__()

    def __exit__(self, *exc):
        global _ACTIVE
        _HOST_LOG.resume = None
        with _LOCK:
            if self._prev is None:
                _BY_THREAD.pop(self.thread, None)
            else:
                _BY_THREAD[self.thread] = self._prev
            _ACTIVE = next(iter(_BY_THREAD.values()), None)
            if _ACTIVE is None:
                _remove_apply_hook()
        self.done = True
        return super().__exit__(*exc)

    def apply_call(self, cls, args, kwargs):
        """A custom ``torch.autograd.Function`` (whose ``apply`` no torch function
        mode sees): one node, run again with its forward and backward on replays."""
        self._grad_line()
        if getattr(cls, "_sparse_rows", False):
            self.row_gathers = True
        self.paused += 1
        try:
            out = _ORIG_APPLY(cls, *args, **kwargs)
        finally:
            self.paused -= 1
        call = self._call_expr(self._obj(_hooked_apply), (cls, *args), kwargs)
        self.ops.append((cls.__name__, call))
        if isinstance(out, torch.Tensor):
            self.lines.append(f"{self._slot(out, True)} = {call}")
        elif _has_tensor(out):
            tmp = self._fresh("t")
            self.lines.append(f"{tmp} = {call}")
            for k, e in enumerate(out):
                if isinstance(e, torch.Tensor):
                    self.lines.append(f"{self._slot(e, True)} = {tmp}[{k}]")
        else:
            self.lines.append(call)
        return out

    # --- names ----------------------------------------------------------------
    def _fresh(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def _obj(self, x) -> str:
        name = self.objs.get(id(x))
        if name is None:
            name = self._fresh("c")
            self.objs[id(x)] = name
            self.ns[name] = x
            self.keep.append(x)
        return name

    def node_state(self, key, make):
        """The state of this trace's next node of ``key`` (``make()`` the first time)."""
        k = self._occurrences.get(key, 0)
        self._occurrences[key] = k + 1
        state = self.node_states.get((key, k))
        if state is None:
            state = self.node_states[(key, k)] = make()
        return state

    def variable_ref(self, var) -> str:
        """An expression for ``var`` that checks it is still alive (weakly held)."""
        key = ("var", id(var))
        name = self.objs.get(key)  # pyright: ignore[reportCallIssue, reportArgumentType] - keys are ids or ("var", id) pairs
        if name is None:
            name = self._fresh("v")
            self.objs[key] = name  # pyright: ignore[reportArgumentType] - see above
            self.ns[name] = weakref.ref(var)
            self.ns["_alive"] = _alive
            self.lines.append(f"_alive({name}, {var.name!r}, {self.name!r})")
        return f"_alive({name}, {var.name!r}, {self.name!r})"

    def tainted(self) -> set:
        """Ids of the tensors made since the body first read an input-dependent value
        into Python outside a recorded op (none if it never did)."""
        if self.tainted_from is None:
            return set()
        return set(list(self.slots)[self.tainted_from:])

    def input(self, t) -> str:
        name = self._fresh("i")
        if not isinstance(t, torch.Tensor):  # an object passed by reference (an iterator)
            self.objs[id(t)] = name
            self.ref_inputs[name] = t
            self.keep.append(t)
            return name
        self.slots[id(t)] = name
        self.dynamic.add(id(t))
        self.keep.append(t)
        return name

    def _slot(self, t: torch.Tensor, dynamic: bool) -> str:
        name = self.slots.get(id(t))
        if name is None:
            name = self._fresh("s")
            self.slots[id(t)] = name
            self.keep.append(t)
        if dynamic:
            self.dynamic.add(id(t))
        return name

    def _is_dynamic(self, x) -> bool:
        if isinstance(x, torch.Tensor):
            i = id(x)
            return i in self.dynamic or (i not in self.slots and _is_leaf(x))
        if type(x) in (tuple, list):
            return any(self._is_dynamic(e) for e in x)
        if type(x) is _SymInt:
            return True
        if type(x) is dict:
            return any(self._is_dynamic(e) for e in x.values())
        return False

    def _expr(self, x) -> str:
        tp = type(x)
        if tp in _SIMPLE:
            return repr(x)
        if tp is _SymInt:
            return x.expr_for(self)
        if tp is float:
            return repr(x) if math.isfinite(x) else self._obj(x)
        if isinstance(x, torch.Tensor):
            name = self.slots.get(id(x))
            return name if name is not None else self._obj(x)
        if tp is tuple:
            if not x:
                return "()"
            return "(" + ", ".join(self._expr(e) for e in x) + ",)"
        if tp is list:
            return "[" + ", ".join(self._expr(e) for e in x) + "]"
        if tp is dict and all(type(k) is str for k in x):
            return "{" + ", ".join(f"{k!r}: {self._expr(v)}" for k, v in x.items()) + "}"
        if x is Ellipsis:
            return "..."
        if tp is slice and not _has_tensor((x.start, x.stop, x.step)):
            return f"slice({self._expr(x.start)}, {self._expr(x.stop)}, {self._expr(x.step)})"
        return self._obj(x)

    def mark_unsafe(self, reason: str) -> None:
        """Notes that the recording cannot replay the body (the first ``reason`` stays)."""
        if self.unsafe is None:
            self.unsafe = reason
        tracer = getattr(OP_CAPTURE, "tracer", None)
        if self.unsafe_outside_ops is None and (tracer is None or not tracer._stack):
            self.unsafe_outside_ops = reason

    def _grad_line(self) -> None:
        g = torch.is_grad_enabled()
        if g is not self.grad:
            self.lines.append(f"_sg({g})")
            self.grad = g

    # --- torch calls ----------------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if self.paused:
            return func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        if name in _READS:
            if (self.unsafe is None or self.tainted_from is None) and self._is_dynamic(args):
                t = args[0] if args else None
                if isinstance(t, torch.Tensor) and id(t) in self.shape_only and \
                        self._only_shapes(args[1:]) and self._only_shapes(kwargs):
                    if self.unsafe is None:
                        return graph_shapes.read(self, func, name, args, kwargs,
                                                 self.slots[id(t)])
                    return func(*args, **kwargs)
                self.mark_unsafe(f"the body reads a tensor value into Python ({name})")
                tracer = getattr(OP_CAPTURE, "tracer", None)
                if self.tainted_from is None and tracer is not None and not tracer._stack:
                    self.tainted_from = len(self.slots)
            return func(*args, **kwargs)
        out = func(*args, **kwargs)
        if _has_tensor(out) or name in _MUTATORS or (name.endswith("_") and
                                                    not name.endswith("__")):
            self._emit(func, name, args, kwargs, out)
        elif name in _SIZE_READS and self.unsafe is None and args and self.vshape and \
                id(args[0]) in self.vshape and _is_size_read(func, name):
            # A size that depends on values (nonzero, boolean masks) read into Python:
            # ints that replay as that tensor's size then, never a literal of this call.
            return self._value_size(args, out)
        return out

    def _value_size(self, args, out):
        slot = self.slots.get(id(args[0]))
        if slot is None:
            return out
        if isinstance(out, torch.Size):
            return torch.Size(_SymInt(v, f"{slot}.shape[{k}]", self) for k, v in enumerate(out))
        if len(args) == 2 and type(args[1]) is int:  # t.size(dim)
            return _SymInt(out, f"{slot}.shape[{args[1]}]", self)
        if len(args) == 1 and type(out) is int:  # t.numel()
            return _SymInt(out, f"{slot}.numel()", self)
        return out

    def _emit(self, func, name, args, kwargs, out) -> None:
        self._grad_line()
        if func is torch.autograd.grad:
            func = _replay_grad
        dyn = name in _RANDOM or "generator" in kwargs or self._is_dynamic(args) or \
            self._is_dynamic(kwargs)
        call = self._call_expr(self._obj(func), args, kwargs)
        self.ops.append((name, call))
        inplace = (name.endswith("_") and not name.endswith("__")) or name in _MUTATORS
        if inplace and args and isinstance(args[0], torch.Tensor):
            self.mutated.add(id(args[0]))
            if not self.slots.get(id(args[0]), "i").startswith("s"):
                self.effects += 1  # an input or a captured tensor written
            if id(args[0]) not in self.slots or args[0]._is_view():
                self.writes_captures = True
        if dyn:
            graph_shapes.note_shapes(self, name, args, kwargs, out, inplace, _RANDOM)
        if not dyn and not inplace and name in _FRESH_CONSTANTS and \
                isinstance(out, torch.Tensor) and id(out) not in self.slots:
            # A constant made from Python values: kept from the trace, unless written
            # in place or handed on later (Graph decides).
            slot = self._slot(out, False)
            self.const_values[slot] = out
            self.lines.append(f"{_CONST_MARK}{slot} = {call}")
            return
        if isinstance(out, torch.Tensor):
            self.lines.append(f"{self._slot(out, dyn)} = {call}")
        elif _has_tensor(out):
            tmp = self._fresh("t")
            self.lines.append(f"{tmp} = {call}")
            for k, e in enumerate(out):
                if isinstance(e, torch.Tensor):
                    self.lines.append(f"{self._slot(e, dyn)} = {tmp}[{k}]")
        else:
            self.lines.append(call)
            if dyn and args and isinstance(args[0], torch.Tensor):
                self.dynamic.add(id(args[0]))  # written in place from dynamic values

    def _only_shapes(self, x) -> bool:
        return graph_shapes.only_shapes(self, x)

    def _call_expr(self, fname: str, args, kwargs) -> str:
        parts = [self._expr(a) for a in args]
        parts += [f"{k}={self._expr(v)}" for k, v in kwargs.items()]
        return f"{fname}({', '.join(parts)})"

    # --- host nodes -----------------------------------------------------------
    def _host_expr(self, x) -> str:
        name = self.values.get(id(x))
        if name is not None:
            return name
        tp = type(x)
        if getattr(x, "_leaf", None) is not None and hasattr(x, "assign_add"):
            try:
                return self.variable_ref(x)  # a tf.Variable: held weakly
            except TypeError:
                return self._obj(x)
        if tp is Tensor or isinstance(x, Tensor):
            t = x._t
            if isinstance(t, torch.Tensor) and id(t) in self.slots:
                self.escaped.add(id(t))
                return f"_wrap({self.slots[id(t)]}, {self._obj(x._dtype)})"
            return self._obj(x)
        if tp is tuple:
            return "(" + ", ".join(self._host_expr(e) for e in x) + ",)" if x else "()"
        if tp is list:
            return "[" + ", ".join(self._host_expr(e) for e in x) + "]"
        if tp is dict and all(type(k) is str for k in x):
            return "{" + ", ".join(f"{k!r}: {self._host_expr(v)}" for k, v in x.items()) + "}"
        if tp in _SIMPLE or (tp is float and math.isfinite(x)):
            return repr(x)
        if tp is slice:  # (an index with tensor bounds)
            return f"slice({self._host_expr(x.start)}, {self._host_expr(x.stop)}, " \
                   f"{self._host_expr(x.step)})"
        if isinstance(x, torch.Tensor) or tp is _SymInt:
            return self._expr(x)
        if hasattr(tp, "_type_spec") and not hasattr(x, "assign_add"):
            # A composite value (RaggedTensor, SparseTensor, IndexedSlices): rebuilt
            # around this call's component tensors.
            comps = _components(x)
            if comps and all(isinstance(c, Tensor) for c in comps):
                self.ns["_pack"] = _pack_composite
                parts = ", ".join(self._host_expr(c) for c in comps)
                return f"_pack({self._obj(x)}, [{parts}])"
        if tp is zip or tp is map or tp is filter or (
                hasattr(x, "__next__") and hasattr(x, "__iter__") and tp.__module__ == "builtins"):
            raise TraceUnsafe("a one-shot iterator is passed to a host op")
        return self._obj(x)

    def bind_value(self, obj) -> str:
        """A fresh local of the replay that holds the host value ``obj`` from now on."""
        name = self._fresh("L")
        self.values[id(obj)] = name
        self.keep.append(obj)
        return name

    def new_value(self, obj, factory, args: tuple) -> None:
        """Records ``factory(*args)`` making the host value ``obj`` (``new_host_value``)."""
        self._grad_line()
        try:
            call = self._call_host(factory, args, {})
        except TraceUnsafe as e:
            self.mark_unsafe(str(e))
            return
        self.ops.append((getattr(factory, "__name__", "host"), call))
        self.lines.append(f"{self.bind_value(obj)} = {call}")

    def host_call(self, wrapper, fn, args, kwargs, dry=None, pure=False):
        """Runs ``fn`` now (not recorded inside) and records one call of ``wrapper``."""
        if any(type(a) in (zip, map, filter) for a in args):
            args = tuple(list(a) if type(a) in (zip, map, filter) else a for a in args)
        self._grad_line()
        try:
            call = self._call_host(wrapper, args, kwargs)
        except TraceUnsafe as e:
            self.mark_unsafe(str(e))
            call = None
        resumed = None if pure else self._resumed(wrapper, args, kwargs)
        if resumed is not None:
            out = resumed[0]
        elif self.dry and dry is not RUN:
            if call is None:
                raise TraceUnsafe(self.unsafe)
            out = dry(*args, **kwargs) if dry is not None else None
        else:
            self.paused += 1
            try:
                out = fn(*args, **kwargs)
            finally:
                self.paused -= 1
        if call is None:
            return out
        self.dry_of[self.objs[id(wrapper)]] = dry
        if not pure:
            self.effects += 1
        self.ops.append((getattr(fn, "__name__", "host"), call))
        if is_host_value(out):
            self.lines.append(f"{self.bind_value(out)} = {call}")
            return out
        tensors = _flat_tensors(out)
        if not tensors:
            self.lines.append(call)
            return out
        tmp = self._fresh("h")
        self.lines.append(f"{tmp} = _flat({call})")
        self.ns["_flat"] = _flat_tensors
        for k, t in enumerate(tensors):
            if isinstance(t._t, torch.Tensor):
                self.lines.append(f"{self._slot(t._t, True)} = {tmp}[{k}]._t")
        return out

    def _resumed(self, wrapper, args, kwargs):
        return None if self.dry else take_resumed(wrapper, args, kwargs)

    def _call_host(self, wrapper, args, kwargs) -> str:
        parts = [self._host_expr(a) for a in args]
        parts += [f"{k}={self._host_expr(v)}" for k, v in kwargs.items()]
        return f"{self._obj(wrapper)}({', '.join(parts)})"

    def add_line(self, code: str, **names) -> None:
        """Records a line of host code (``names`` are the objects it refers to)."""
        self._grad_line()
        self.ns.update(names)
        self.keep.extend(names.values())
        self.lines.append(code)


_ENGINE = getattr(getattr(torch.autograd, "Variable", None), "_execution_engine", None)


_LOCAL = re.compile(r"\b[sthoL]\d+\b")
_ASSIGNED = re.compile(r"^\s*([sthoL]\d+) = ")


def _release_dead(lines: list, outputs: set) -> list:
    """``lines`` with each local set to None after the statement that last uses it,
    so that a tensor the replay no longer needs is freed as eager code frees it: a
    variable write then sees no other holder of a read value's buffer and writes in
    place instead of copying (copy-on-write)."""
    groups, i = [], 0
    while i < len(lines):  # a statement with the lines indented under it
        j = i + 1
        while j < len(lines) and (lines[j].startswith(" ") or lines[j].startswith("else:")):
            j += 1
        groups.append((i, j))
        i = j
    assigned = {m.group(1) for line in lines if (m := _ASSIGNED.match(line))}
    last: dict = {}
    for k, (a, b) in enumerate(groups):
        for line in lines[a:b]:
            for name in _LOCAL.findall(line):
                last[name] = k
    dead_after: dict = {}
    for name, k in last.items():
        if name in assigned and name not in outputs:
            dead_after.setdefault(k, []).append(name)
    out = []
    for k, (a, b) in enumerate(groups):
        out.extend(lines[a:b])
        dead = dead_after.get(k)
        if dead:
            out.append(" = ".join(sorted(dead)) + " = None")
    return out


def _fold_constants(rec: Recorder, out_ids: set) -> list:
    """The recording's lines, with the constants it may keep from the trace bound
    in its namespace instead of made again (not written in place, not handed to a
    host node, not returned)."""
    # Names assigned by other lines stay local to the replay: those are not folded.
    assigned = set()
    for line in rec.lines:
        stripped = line.lstrip(" ")
        if not stripped.startswith(_CONST_MARK) and " = " in stripped:
            assigned.add(stripped.split(" = ", 1)[0])
    lines = []
    for line in rec.lines:
        stripped = line.lstrip(" ")
        if not stripped.startswith(_CONST_MARK):
            lines.append(line)
            continue
        indent = line[:len(line) - len(stripped)]
        code = stripped[len(_CONST_MARK):]
        slot = code.split(" = ", 1)[0]
        t = rec.const_values.get(slot)
        if t is None or slot in assigned or id(t) in rec.mutated or id(t) in rec.escaped \
                or id(t) in out_ids:
            lines.append(indent + code)
        else:
            rec.ns[slot] = t
    return graph_shapes.drop_idle_grad_toggles(lines)


def _replay_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                 only_inputs=True, allow_unused=None, is_grads_batched=False,
                 materialize_grads=False):
    """``torch.autograd.grad`` as a replay calls it: the trace validated the
    arguments already, so unbatched calls go to the engine directly (~20 us less)."""
    gouts = grad_outputs if type(grad_outputs) in (tuple, list) else None
    if (_ENGINE is None or is_grads_batched or materialize_grads or active() is not None
            or type(outputs) not in (tuple, list) or gouts is None
            or type(inputs) not in (tuple, list) or any(g is None for g in gouts)):
        return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph=retain_graph,
                                   create_graph=create_graph, allow_unused=allow_unused,
                                   is_grads_batched=is_grads_batched,
                                   materialize_grads=materialize_grads)
    if retain_graph is None:
        retain_graph = create_graph
    r = engine_grad(outputs, inputs, gouts, retain_graph, create_graph, bool(allow_unused))
    if r is None:
        return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph=retain_graph,
                                   create_graph=create_graph, allow_unused=allow_unused)
    return r


def engine_grad(outs, inputs, gouts, retain: bool, create: bool, allow_unused: bool):
    """torch's autograd engine called directly with arguments already valid
    (``torch.autograd.grad`` re-validates them in Python, ~20 us); None where this
    torch's engine has another signature (then call ``torch.autograd.grad``)."""
    if _ENGINE is None:
        return None
    try:
        return _ENGINE.run_backward(tuple(outs), tuple(gouts), retain, create, tuple(inputs),
                                    allow_unused, False)
    except TypeError:
        return None


def _pack_composite(template, components: list):
    return nest.pack_sequence_as(template, components, expand_composites=True)


def _check_bool(t) -> None:
    r = active()
    if r is not None and not r.autograph and isinstance(t._t, torch.Tensor) and \
            r._is_dynamic(t._t):
        raise OperatorNotAllowedInGraphError(
            "using a `tf.Tensor` as a Python `bool` is not allowed: AutoGraph is disabled "
            "in this function. Try decorating it directly with @tf.function.")


_tensor_mod._graph_bool_check = _check_bool

_ORIG_APPLY = torch.autograd.Function.apply.__func__  # pyright: ignore[reportFunctionMemberAccess] - a classmethod's function


def _hooked_apply(cls, *args, **kwargs):
    r = active()
    if r is not None:
        return r.apply_call(cls, args, kwargs)
    return _ORIG_APPLY(cls, *args, **kwargs)


def _install_apply_hook() -> None:
    if torch.autograd.Function.__dict__.get("apply") is not _HOOK:
        torch.autograd.Function.apply = _HOOK  # pyright: ignore[reportAttributeAccessIssue] - restored by _remove_apply_hook


def _remove_apply_hook() -> None:
    if torch.autograd.Function.__dict__.get("apply") is _HOOK:
        torch.autograd.Function.apply = _ORIG_APPLY_CM  # pyright: ignore[reportAttributeAccessIssue] - the original classmethod


_ORIG_APPLY_CM = torch.autograd.Function.__dict__["apply"]
_HOOK = classmethod(_hooked_apply)


def _flat_tensors(out) -> list:
    if isinstance(out, Tensor):
        return [out]
    if out is None or type(out) in (bool, int, float, str):
        return []
    try:
        leaves = nest.flatten(out, expand_composites=True)
    except (AttributeError, TypeError, NotImplementedError):  # a spec without components
        leaves = nest.flatten(out)
    return [x for x in leaves if isinstance(x, Tensor)]


def _components(x) -> list | None:
    """The component tensors of a composite value, or None (an iterator, whose spec has
    no components: it is passed by reference)."""
    try:
        return nest.flatten(x, expand_composites=True)
    except (AttributeError, TypeError, NotImplementedError):
        return None


class Graph:
    """A replayable recording: ``run(inputs)`` returns the flat output leaves."""

    def __init__(self, rec: Recorder, input_names: list[str], out):
        self._single = isinstance(out, Tensor)
        self._expand = _components(out) is not None
        out_leaves = [out] if self._single else nest.flatten(out, expand_composites=self._expand)
        self._structure = out
        self.ops = rec.ops
        self.entry_grad = rec.entry_grad
        self.dry_of = rec.dry_of
        self.writes_captures = rec.writes_captures
        # Outputs whose sizes depend on the inputs' values (tf.boolean_mask, ...).
        self.value_sized = [isinstance(x, Tensor) and id(x._t) in rec.vshape
                            for x in out_leaves]
        self.size_bound = rec.size_bound
        self.captures = [x for x in rec.keep if isinstance(x, torch.Tensor)
                         and id(x) not in rec.slots]
        outs = []
        self._templates = []
        for leaf in out_leaves:
            t = leaf._t if isinstance(leaf, Tensor) else None
            if isinstance(t, torch.Tensor) and id(t) in rec.slots:
                outs.append(rec.slots[id(t)])
                self._templates.append(leaf._dtype)
            elif id(leaf) in rec.values:  # a TensorArray the replay makes
                outs.append(rec.values[id(leaf)])
                self._templates.append(None)
            else:
                outs.append(rec._obj(leaf))
                self._templates.append(None)
        out_ids = {id(leaf._t) for leaf in out_leaves if isinstance(leaf, Tensor)}
        body = _release_dead(_fold_constants(rec, out_ids), set(outs))
        if rec.grad is not rec.entry_grad:
            body.append(f"_sg({rec.entry_grad})")
        body.append("return (" + ", ".join(outs) + ",)" if outs else "return ()")
        src = f"def _replay({', '.join(input_names)}):\n    " + "\n    ".join(body) + "\n"
        self.source = src
        ns = dict(rec.ns)
        exec(compile(src, f"<tf.function {rec.name}>", "exec"), ns)  # the code generated above
        self._fn = ns["_replay"]
        self._ns = ns
        self._jit = None

    def same_as(self, other: "Graph") -> bool:
        """Whether ``other`` is the same code over equal objects: two recordings of
        one signature, made at different sizes of its unknown dimensions, that are
        the same have baked none of those sizes in (a size read into Python shows as
        a literal, a constant of that size, or a Python output)."""
        if self._templates != other._templates:
            return False
        src_a, ns_a = graph_shapes.canonical(self.source, self._ns)
        src_b, ns_b = graph_shapes.canonical(other.source, other._ns)
        if src_a != src_b or ns_a.keys() != ns_b.keys():
            return False
        for k, x in ns_a.items():
            y = ns_b[k]
            if x is y or k in ("_replay", "__builtins__"):
                continue
            if isinstance(x, torch.Tensor):
                if not (isinstance(y, torch.Tensor) and x.shape == y.shape and
                        x.dtype == y.dtype and x.device == y.device and torch.equal(x, y)):
                    return False
                continue
            try:
                eq = x == y
            except Exception:  # noqa: BLE001 - not comparable: not the same recording
                return False
            if eq is not True:
                return False
        return True

    def pack(self, leaves: list):
        """The function's output structure around the leaves ``run`` returned."""
        if self._single:
            return leaves[0]
        return nest.pack_sequence_as(self._structure, leaves, expand_composites=self._expand)

    def _compiled_fn(self):
        """The recording handed to ``torch.compile`` (``jit_compile=True``); the plain
        replay where it cannot compile."""
        if self._jit is None:
            try:
                self._jit = torch.compile(self._fn, dynamic=False)
            except Exception:  # noqa: BLE001 - no compiler here: replay uncompiled
                self._jit = self._fn
        return self._jit

    def run(self, flat_inputs: list, jit: bool = False) -> list:
        fn = self._fn
        if jit and self._jit is not self._fn:
            fn = self._compiled_fn()
        if _ACTIVE is None:
            _HOST_LOG.resume = None  # a new call: what an earlier one left is stale
        outer = getattr(_HOST_LOG, "log", None)
        log = _HOST_LOG.log = []
        try:
            try:
                leaves = fn(*flat_inputs)
            except torch._dynamo.exc.TorchDynamoException:  # pyright: ignore[reportAttributeAccessIssue] - torch._dynamo.exc has no stub
                self._jit = self._fn  # compiling failed before anything ran
                leaves = self._fn(*flat_inputs)
        except StaleRecording:
            _HOST_LOG.resume = log if log else None
            raise
        finally:
            _HOST_LOG.log = outer
            if outer is not None:
                outer.extend(log)
            if torch.is_grad_enabled() is not self.entry_grad:
                torch._C._set_grad_enabled(self.entry_grad)
        out = []
        for leaf, dt in zip(leaves, self._templates):
            out.append(wrap(leaf, dt) if dt is not None else leaf)
        return out
