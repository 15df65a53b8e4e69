"""The output signature of a ``tf.function`` for an input signature, from dry traces.

TF traces a function passed to ``tf.data``'s ``map`` (and friends) with symbolic
tensors of the input's ``element_spec`` and reads the output spec off the trace:
unknown dimensions stay unknown, sizes that depend on values (``tf.range(x)``,
``tf.unique``, ``tf.boolean_mask``, a ``py_function``'s result) are unknown, the
rest is static. Here a trace runs on stand-in tensors, without effects (variable
writes, ``tf.print`` and ``py_function`` do not run: a ``py_function`` gives zeros of
its ``Tout``), so the same answer comes from two runs: a dry trace on zeros (unknown
dimensions 2), and, only where the answer could depend on it (an unknown input
dimension, a string input, a size read from a value, a ``py_function``, a value-sized
output), a second run on other values (unknown dimensions 3; a ``py_function`` of
rank 1). Output dimensions that differ between the two are unknown; ranks that
differ, an unknown rank. The second run replays the first's recording where it can
(under a dry recorder, so its host nodes still give stand-ins), so the body's
Python runs once; where it cannot (a value read into Python: ``tf.range(x)``), the
body is traced again, on two more sets of values, so that value-dependent sizes are
unlikely to agree by chance (such a body runs its Python for every element anyway).

The first trace's recording is kept in the function's concrete function for the
signature, as ``get_concrete_function`` keeps its own: later calls with matching
inputs replay it, so the body's Python runs at this trace only, as in TF. The random
state is put back afterwards.
"""

from __future__ import annotations

import random
import threading

import numpy as np
import torch

from torchflow._src.core import context, dtypes, function, graph_trace
from torchflow._src.core import tensor as _tensor
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.util import nest

_SIZES = (2, 3, 4, 1, 0)  # the stand-in size of an unknown dimension in each variant
_local = threading.local()


class SpecTraceUnavailable(Exception):
    """The function cannot be traced on stand-ins of this signature (an op with no
    stand-in, an input of unknown rank, a composite input)."""


_HINT_LIMIT = 1 << 22  # elements: a stand-in larger than this uses size 2 instead


def _first_stand_in(spec, rows):
    """``spec`` with its unknown first dimension ``rows`` (the batch size its elements
    mostly have), so the first trace's recording serves the real elements."""
    if rows is None or not isinstance(spec, TensorSpec) or not spec.shape.rank or \
            spec.shape.as_list()[0] is not None:
        return spec
    dims = [rows] + [d if d is not None else _SIZES[0] for d in spec.shape.as_list()[1:]]
    if int(np.prod(dims, dtype=np.int64)) > _HINT_LIMIT:
        return spec
    return TensorSpec(TensorShape([rows] + spec.shape.as_list()[1:]), spec.dtype)


def _stand_in(spec, variant: int):
    """A stand-in value of ``spec`` in trace ``variant``: zeros (``b"0"``), then 5, 10,
    15, ... (``b"5 5"``, ...), then 3, 10, 17, ... (also in variants 3 and 4, of sizes 1
    and 0 where unknown): sizes that follow values differ."""
    if isinstance(spec, TensorSpec):
        if spec.shape.rank is None:
            raise SpecTraceUnavailable("an input of unknown rank")
        shape = tuple(_SIZES[variant] if d is None else d for d in spec.shape.as_list())
        n = int(np.prod(shape, dtype=np.int64))
        vals = (np.zeros(n, np.int64), 5 * np.arange(1, n + 1),
                3 + 7 * np.arange(n))[min(variant, 2)].reshape(shape)
        if spec.dtype == dtypes.string:  # "0"; "5 5", "10 10 10": lengths, word counts vary
            words = np.vectorize(lambda v: " ".join([str(v)] * (v % 4 + 1)).encode(),
                                 otypes=[object])(vals) if n else vals.astype(object)
            return to_tensor(words, dtypes.string)
        # On the device elements are made on, so the recording serves them.
        if spec.dtype == dtypes.bool:
            vals = (vals % 2).astype(bool)
        t = torch.from_numpy(vals).to(device=context.default_device(), dtype=spec.dtype._torch)
        return wrap(t, spec.dtype)
    if isinstance(spec, TypeSpec):
        make = function._COMPOSITE_PLACEHOLDERS.get(type(spec))
        if make is None:
            raise SpecTraceUnavailable(f"an input of type {type(spec).__name__}")
        return make(spec, _SIZES[variant])
    return spec


def _has_unknown(args_spec) -> bool:
    for s in nest.flatten(args_spec):
        shape = getattr(s, "shape", None)
        if shape is not None and (shape.rank is None or None in shape.as_list()):
            return True
    return False


def _needs_second(args_spec, rec, out) -> bool:
    if _has_unknown(args_spec):
        return True
    for s in nest.flatten(args_spec):
        if getattr(s, "dtype", None) == dtypes.string:
            return True  # string ops compute in NumPy, out of the recorder's sight
    if rec.unsafe is not None or _local.host_stand_ins:
        return True  # a value was read into Python, or a py_function ran: sizes may follow
    for leaf in nest.flatten(out, expand_composites=True):
        if isinstance(leaf, Tensor) and id(leaf._t) in rec.vshape:
            return True
    return False


class _Variant:
    """Within it, dry traces and replays use the stand-ins of ``variant``;
    ``py_rank`` is the rank of ``py_function`` stand-ins."""

    def __init__(self, variant: int, py_rank: int):
        self._v = (variant, py_rank)

    _FIELDS = ("variant", "py_rank", "host_stand_ins", "declared", "py_outs")

    def __enter__(self):
        # Saved whole: a trace may ask for another dataset's spec (a nested trace).
        self._old = [getattr(_local, k, None) for k in self._FIELDS]
        _local.variant, _local.py_rank = self._v
        _local.host_stand_ins = False
        _local.declared = []  # (tensor, shape) of each set_shape call
        _local.py_outs = []  # the py_function stand-ins made
        return self

    def __exit__(self, *exc):
        for k, v in zip(self._FIELDS, self._old):
            setattr(_local, k, v)


def _dry_run(fn: function.Function, concrete, args):
    flat, gkey = function._graph_inputs(args, {})
    rec = graph_trace.Recorder(fn.__name__, dry=True, autograph=fn._autograph)
    names = [rec.input(t) for t in flat]
    try:
        with rec:
            out = fn._run_python(concrete, args, {}, fn._calls == 0)
    except graph_trace.TraceUnsafe as e:
        raise SpecTraceUnavailable(str(e)) from None
    graph = None
    if rec.unsafe is None and gkey is not None:
        if gkey in concrete._graphs:  # an earlier call's (None: that call ran eagerly)
            graph = concrete._graphs[gkey]
        else:
            graph = concrete._graphs[gkey] = graph_trace.Graph(rec, names, out)
            concrete._note_recording(gkey, graph)
    return out, rec, graph


def _replay(graph, rec0, args):
    """``graph`` (the first trace's recording) run on ``args`` without effects (under a
    dry recorder its host nodes give their stand-ins), or None where it cannot run so:
    the body's Python does not run again."""
    if graph is None or any(i not in rec0.slots for i in rec0.mutated):
        return None  # no recording, or one that writes a captured tensor in place
    flat, _ = function._graph_inputs(args, {})
    rec = graph_trace.Recorder("element_spec", dry=True, autograph=False)
    for t in flat:
        rec.input(t)
    try:
        with rec:
            return graph.pack(graph.run(flat))
    except (Exception, graph_trace.TraceUnsafe):  # noqa: BLE001 - no answer: trace again
        return None


def _random_state():
    streams = {k: (v, v.getstate() if isinstance(v, random.Random) else None)
               for k, v in context.GLOBAL.random_streams.items()}
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    return torch.random.get_rng_state(), cuda, streams


def _restore_random(state) -> None:
    cpu, cuda, streams = state
    torch.random.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)
    for k, (v, st) in streams.items():
        if st is not None:
            v.setstate(st)
        context.GLOBAL.random_streams[k] = v


def trace_outputs(fn: function.Function, args_spec: tuple, rows=None) -> tuple:
    """The outputs of dry traces of ``fn`` on stand-ins of ``args_spec`` (a tuple of
    positional argument specs): shapes that differ between them are the ones the
    signature leaves unknown (see the module docstring). The first trace's recording
    gives the second answer where it can (no Python runs then); the random state is
    left as it was. ``rows``: the size most elements have in an unknown first
    dimension (a batch size), used for it in the first trace.

    Returns:
      ``(outputs, sized, declared, held)``: the outputs of each trace; the ids of the
      first outputs' tensors whose sizes depend on values (``tf.boolean_mask``,
      ``tf.unique``: TF leaves their first dimension unknown); ``{id: TensorShape}``
      of the first trace's tensors given a shape by ``set_shape`` (TF's shape is the
      traced one merged with it); and what keeps those ids valid.

    Raises:
      SpecTraceUnavailable: If ``fn`` cannot be traced on stand-ins.
      Exception: What the body raises for the stand-ins.
    """
    if fn.input_signature is not None:
        raise SpecTraceUnavailable("a function with an input_signature")
    args, kwargs = fn._canonicalize(tuple(args_spec), {})
    if kwargs:
        raise SpecTraceUnavailable("keyword arguments")
    concrete = fn._lookup(args, kwargs, trace=True)
    state = _random_state()
    try:
        with _Variant(0, 0):
            out, rec, graph = _dry_run(fn, concrete, nest.map_structure(
                lambda s: _stand_in(_first_stand_in(s, rows), 0), args))
            second = _needs_second(args, rec, out)
            held = _local.declared  # (tensor, shape) pairs: keeps their ids valid
        sized = {id(x) for x in nest.flatten(out, expand_composites=True)
                 if isinstance(x, Tensor) and id(x._t) in rec.vshape}
        declared: dict = {}
        for t, shape in held:
            declared[id(t)] = declared[id(t)].merge_with(shape) if id(t) in declared \
                else shape
        if not second:
            return [out], sized, declared, held
        # (Another first dimension than the first trace's, which may have been 3.)
        alt = _SIZES[2] if rows == _SIZES[1] else None
        other = nest.map_structure(lambda s: _stand_in(_first_stand_in(s, alt), 1), args)
        for py_rank in (1, 0):  # a py_function's rank first, then its sizes only
            with _Variant(1, py_rank):
                got = _replay(graph, rec, other)
            if got is not None:
                outs = [out, got]
                for small in ((3, 4) if _has_unknown(args) else ()):
                    # Sizes 1 and 0 too, where the recording holds for them: a slice to
                    # a constant length (x[:2]) or a squeeze then differs, as TF leaves
                    # it unknown.
                    with _Variant(small, py_rank):
                        got = _replay(graph, rec, nest.map_structure(
                            lambda s, v=small: _stand_in(s, v), args))
                    if got is not None:
                        outs.append(got)
                return outs, sized, declared, held
        # The body runs again (it read a value, or its recording cannot be replayed):
        # twice, so that a size that follows values is unlikely to agree by chance.
        outs = [out]
        for variant in (1, 2):
            with _Variant(variant, 1):
                outs.append(_dry_run(fn, concrete, nest.map_structure(
                    lambda s, v=variant: _stand_in(s, v), args))[0])
        return outs, sized, declared, held
    finally:
        _restore_random(state)


def py_function_stand_in(func, inp, Tout, name=None):
    """What ``tf.py_function`` / ``tf.numpy_function`` give in a dry trace: in a trace
    of ``trace_outputs``, zeros of ``Tout``'s dtypes of rank 0 in the first trace and
    rank 1 in the second (TF: a shape of unknown rank); elsewhere no stand-in.

    Raises:
      TraceUnsafe: Outside ``trace_outputs`` (the dry trace cannot go on).
    """
    variant = getattr(_local, "variant", None)
    rec = graph_trace.active()
    if variant is None or rec is None:
        return graph_trace.cannot_dry_run()
    _local.host_stand_ins = True
    if Tout is None:
        return None
    single = not isinstance(Tout, (list, tuple))
    outs = []
    for d in ([Tout] if single else list(Tout)):
        d = dtypes.as_dtype(d)
        shape = (variant + 1,) * _local.py_rank if variant else ()
        if d == dtypes.string:
            t = to_tensor(np.full(shape, b"", dtype=object), d)
        else:
            t = wrap(torch.zeros(shape, dtype=d._torch, device=context.default_device()), d)
        outs.append(t)
    _local.py_outs.extend(outs)
    return outs[0] if single else outs


def _note_set_shape(t, shape) -> bool:
    """``Tensor.set_shape`` during a spec trace: notes the shape; a ``py_function``
    stand-in takes any (its real shape is unknown until it runs, as in TF)."""
    if getattr(_local, "variant", None) is None:
        return False
    shape = TensorShape(shape)
    _local.declared.append((t, shape))
    return any(t is p for p in _local.py_outs) and shape.rank is not None


_tensor._set_shape_hook = _note_set_shape
