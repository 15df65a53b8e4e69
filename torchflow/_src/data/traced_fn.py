"""User functions of ``tf.data`` transformations, traced as TF traces them.

TF traces a function passed to ``map``/``filter`` (and ``reduce``, ``scan``,
``take_while``, the grouping functions ...) once, as a graph, and runs the
graph for every element: its Python (``print``, appends to a list) runs at
tracing only, ``tf.print`` and ``tf.py_function`` inside run for every element,
and ``tf.executing_eagerly()`` is False there. Here the function becomes a
``tf.function`` whose signature generalises shapes (``experimental_relax_shapes``),
so a pipeline of equally shaped elements traces once and replays; a new element
shape records again (its Python runs again then) until two recordings of other sizes
are the same code, which then serves all sizes (docs/function.md), and a trace that
cannot be replayed (string tensors, values read into Python) runs its Python for
every element, as before. Functions that return a dataset (``flat_map``,
``interleave``, ``group_by_window``'s ``reduce_func``) are ``DatasetFunction``s,
described further down.
"""

from __future__ import annotations

import functools
import threading
import types

from torchflow._src.core import autograph_convert, graph_trace
from torchflow._src.core import function as _function
from torchflow._src.core.composite_tensor import CompositeTensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.data import _fn_spec, _structure
from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.util import nest


class _ElementFunction(_function.Function):
    """A map/filter function: its first call (the trace) runs in one thread at a
    time, so a parallel map traces once, as TF does; later calls run in parallel."""

    def __init__(self, fn, autograph=True):
        super().__init__(fn, reduce_retracing=True, autograph=autograph)
        self._first = threading.Lock()
        self._warm = False

    _checks_arguments = False  # (TF traces it on the element's spec)

    def _canonicalize(self, args, kwargs):
        # Traced on the element's structure: the defaults of its other parameters are
        # the function's own, not part of its signature (a list default it appends to
        # does not retrace it).
        return args, kwargs

    def __reduce__(self):
        # A pipeline sent to a tf.data service worker: the function, traced again there.
        return (_ElementFunction, (self._python_function,))

    def __call__(self, *args, **kwargs):
        if self._warm:
            return super().__call__(*args, **kwargs)
        with self._first:
            out = super().__call__(*args, **kwargs)
            self._warm = True
        return out


def traced(fn):
    """``fn`` as a traced element function (already-traced ``tf.function``s as they are)."""
    if isinstance(fn, _function.Function):
        return fn
    return _ElementFunction(fn)


# --- functions that return datasets (flat_map, interleave, group_by_window) ------------
# TF traces these too: the Python body runs once per trace and builds a graph that makes
# the dataset from the element's tensors. Here a trace runs the body once and keeps the
# dataset it returned as a *template*; the recording computes the template's tensors
# from the element. A later element replays the recording (no Python of the body runs)
# and gets a copy of the template with its tensors (and the dataset arguments: a
# window) replaced by this element's. Where a tensor of the trace hides where a copy
# cannot replace it (a closure of an inner function, a composite), the trace is marked
# eager: the body then runs for every element, as before.

# Per-dataset caches a copy starts without (they hold what the template computed).
_RESET = ("_spec_cache", "_range_cache")
_DROP = ("_primed",)


class _DatasetArg:
    """Stands for a dataset argument in a traced call: equal for equal positions and
    element specs, so windows of one spec share a trace."""

    __slots__ = ("index", "key")

    def __init__(self, index, spec):
        self.index = index
        self.key = (index, repr(spec))

    def __eq__(self, other):
        return type(other) is _DatasetArg and other.key == self.key

    def __hash__(self):
        return hash(self.key)


class _Template:
    """The dataset a trace returned, the tensors in it and the dataset arguments used."""

    __slots__ = ("dataset", "leaves", "args", "plan")

    def __init__(self, dataset, leaves, args):
        self.dataset = dataset
        self.leaves = leaves
        self.args = args
        self.plan: dict = {}  # id(dataset node) -> the attributes a copy must rebuild

    def instantiate(self, leaves, args):
        """A copy of the template dataset holding ``leaves`` and ``args`` in place of
        its own tensors and dataset arguments."""
        subs = {id(a): b for a, b in zip(self.leaves, leaves)}
        subs.update((id(a), b) for a, b in zip(self.args, args))
        return _copy(self.dataset, subs, {}, self.plan)


def _copy(x, subs, memo, plan):
    got = subs.get(id(x))
    if got is not None:
        return got
    if isinstance(x, DatasetV2):
        done = memo.get(id(x))
        if done is not None:
            return done
        new = object.__new__(type(x))
        memo[id(x)] = new
        state = vars(x)
        keys = plan.get(id(x))
        if keys is None:
            keys = plan[id(x)] = [k for k, v in state.items() if _holds_parts(v)]
        state = dict(state)
        for k in keys:
            state[k] = _copy(state[k], subs, memo, plan)
        for k in _RESET:
            if k in state:
                state[k] = None
        for k in _DROP:
            state.pop(k, None)
        new.__dict__.update(state)
        return new
    tp = type(x)
    if tp is tuple or tp is list:
        return tp(_copy(e, subs, memo, plan) for e in x)
    if tp is dict:
        return {k: _copy(v, subs, memo, plan) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(tp, "_fields"):
        return tp(*[_copy(e, subs, memo, plan) for e in x])
    if isinstance(x, CompositeTensor):  # a RaggedTensor, SparseTensor: its components
        parts = nest.flatten(x, expand_composites=True)
        return nest.pack_sequence_as(x, [_copy(e, subs, memo, plan) for e in parts],
                                     expand_composites=True)
    return x


def _holds_parts(v) -> bool:
    """Whether a dataset attribute holds tensors or datasets (what a copy replaces)."""
    if isinstance(v, (Tensor, DatasetV2, CompositeTensor)):
        return True
    if isinstance(v, (tuple, list)):
        return any(_holds_parts(e) for e in v)
    if type(v) is dict:
        return any(_holds_parts(e) for e in v.values())
    return False


def _collect(x, leaves: dict, args: set, seen: set) -> bool:
    """Adds the tensors of dataset ``x`` (outside the dataset arguments) to ``leaves``;
    False where a tensor hides where ``_copy`` cannot replace it."""
    if type(x) is Tensor:
        leaves.setdefault(id(x), x)
        return True
    if isinstance(x, DatasetV2):
        if id(x) in seen or id(x) in args:
            return True
        seen.add(id(x))
        return all(_collect(v, leaves, args, seen) for k, v in vars(x).items()
                   if k not in _RESET and k not in _DROP)
    if type(x) in (tuple, list) or (isinstance(x, tuple) and hasattr(type(x), "_fields")):
        return all(_collect(e, leaves, args, seen) for e in x)
    if type(x) is dict:
        return all(_collect(v, leaves, args, seen) for v in x.values())
    if isinstance(x, CompositeTensor):
        return all(_collect(v, leaves, args, seen)
                   for v in nest.flatten(x, expand_composites=True))
    return not _hides_tensor(x, 0, set())


def _hides_tensor(x, depth: int, seen: set) -> bool:
    """Whether a tensor (or dataset) is reachable from ``x`` (a function, an object)
    where ``_copy`` does not look: closures, defaults, attributes."""
    if depth > 4 or id(x) in seen or x is None or type(x) in (bool, int, float, str, bytes):
        return False
    seen.add(id(x))
    if isinstance(x, (Tensor, DatasetV2)):
        return True
    if type(x) in (tuple, list, set, frozenset):
        return any(_hides_tensor(e, depth + 1, seen) for e in x)
    if type(x) is dict:
        return any(_hides_tensor(e, depth + 1, seen) for e in x.values())
    if isinstance(x, types.ModuleType) or isinstance(x, type):
        return False
    parts: list = []
    if isinstance(x, (_function.Function, DatasetFunction)):
        # Its traces' bookkeeping holds tensors of its own; what can hold the
        # element is the Python function.
        parts.append(x.python_function)
    elif isinstance(x, types.FunctionType):
        parts.extend(c.cell_contents for c in (x.__closure__ or ()) if _filled(c))
        parts.extend(x.__defaults__ or ())
        parts.extend((x.__kwdefaults__ or {}).values())
    elif isinstance(x, types.MethodType):
        parts.extend((x.__self__, x.__func__))
    elif isinstance(x, functools.partial):
        parts.extend((x.func, *x.args, *x.keywords.values()))
    else:
        parts.extend(getattr(x, "__dict__", {}).values())
        for name in getattr(type(x), "__slots__", ()):
            parts.append(getattr(x, name, None))
    return any(_hides_tensor(p, depth + 1, seen) for p in parts)


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises ValueError
    except ValueError:
        return False
    return True


class DatasetFunction:
    """A user function returning a ``Dataset`` (``flat_map``, ``interleave``,
    ``group_by_window``'s ``reduce_func``), traced: see the section comment above."""

    def __init__(self, fn, what: str = "map_func"):
        self._python_function = fn
        self._what = what
        self._local = threading.local()
        self._converted = None

        # A function of its own (not a bound method): the retracing warning counts
        # traces per function.
        def body(keyed):  # one argument: a call binds no signature
            return self._body(keyed)

        body.__name__ = getattr(fn, "__name__", "map_func")
        # AutoGraph converts the user's function (in _body), not this wrapper.
        self._traced = _ElementFunction(body, autograph=False)

    @property
    def python_function(self):
        return self._python_function

    _checks_arguments = False  # (TF traces it on the element's spec)

    def _canonicalize(self, args, kwargs):
        # Traced on the element's structure: the defaults of its other parameters are
        # the function's own, not part of its signature (a list default it appends to
        # does not retrace it).
        return args, kwargs

    def __reduce__(self):
        return (DatasetFunction, (self._python_function, self._what))

    def __call__(self, *args):
        datasets: list = []

        def stand_in(x):
            if isinstance(x, DatasetV2):
                datasets.append(x)
                return _DatasetArg(len(datasets) - 1, x.element_spec)
            return x

        keyed = tuple(_structure.map_structure(stand_in, a) for a in args)
        self._local.datasets = datasets
        try:
            out = self._traced(keyed)
        finally:
            self._local.datasets = None
        return out[0].instantiate(out[1:], datasets)

    def output_spec(self, input_spec):
        """The ``element_spec`` of the datasets this function returns for elements of
        ``input_spec``, from its trace (its recordings serve the later calls); None
        where it cannot be traced on stand-ins."""
        datasets: list = []

        def stand_in(x):
            if isinstance(x, DatasetV2):
                datasets.append(x)
                return _DatasetArg(len(datasets) - 1, x.element_spec)
            return x

        keyed = tuple(_structure.map_structure(stand_in, a)
                      for a in _fn_spec.args_of(input_spec))
        self._local.datasets = datasets
        try:
            outs = _fn_spec.traced_outputs(self._traced, (keyed,))
        finally:
            self._local.datasets = None
        if outs is None:
            return None
        try:
            specs = [out[0].dataset.element_spec for out in outs[0]]
            return functools.reduce(_fn_spec.merge, specs)
        except Exception:  # noqa: BLE001 - the first element's spec is used instead
            return None

    def _body(self, keyed):
        datasets = self._local.datasets
        args = [_structure.map_structure(
            lambda x: datasets[x.index] if type(x) is _DatasetArg else x, a) for a in keyed]
        fn = self._converted
        if fn is None:
            fn = self._converted = autograph_convert.convert(self._python_function)
        ds = fn(*args)
        if not isinstance(ds, DatasetV2):
            # TF 2.4's texts (flat_map/interleave name the output's spec class).
            if self._what == "reduce_func":
                raise TypeError("`reduce_func` must return a `Dataset` object.")
            got = type(_structure.spec_of(ds)) if _is_value(ds) else type(ds)
            raise TypeError(f"`{self._what}` must return a `Dataset` object. Got {got}")
        leaves: dict = {}
        if not _collect(ds, leaves, {id(d) for d in datasets}, set()):
            graph_trace.mark_eager("the dataset it returns holds a tensor where a copy "
                                   "cannot replace it")
        flat = list(leaves.values())
        return (_Template(ds, flat, list(datasets)), *flat)


def _is_value(x) -> bool:
    try:
        _structure.spec_of(x)
    except (TypeError, ValueError, AttributeError):
        return False
    return True


def traced_dataset_fn(fn, what: str = "map_func"):
    """``fn`` (returning a Dataset) as a ``DatasetFunction``."""
    if isinstance(fn, DatasetFunction):
        return fn
    if isinstance(fn, _function.Function):
        fn = fn.python_function
    return DatasetFunction(fn, what)
