"""Static output shapes of a traced signature whose input dimensions are unknown.

TF's shape inference keeps a dimension unknown (``None``) where it depends on an
unknown input dimension, and static where it does not: ``x * 2`` of a ``[None]``
signature is ``(None,)``, ``tf.reduce_sum(x, keepdims=True)`` is ``(1,)``. A trace
here runs at one size of those dimensions (a dry trace at 1, a call at its own), so
the sizes it saw do not say which dimensions are static. The recording does: its
code is run once more (``replay_shapes``) on inputs one larger in every unknown
dimension, with every host node replaced by its effect-free stand-in and the random
state put back afterwards. An output dimension that moved depends on the unknown
sizes; one that did not is static. Outputs whose sizes depend on values
(``tf.boolean_mask``, ``tf.where``) have their first dimension unknown, as TF's do.

A second such run at size 0 finds the dimensions that only looked static (a slice
``x[:1]`` of an unknown dimension, which TF leaves unknown: it may be empty).

Where the recording cannot be run so (no recording, a guard made for these sizes
only, a capture written in place), every output dimension equal to one of the
trace's unknown sizes counts as unknown.
"""

from __future__ import annotations

import warnings

import torch

from torchflow._src.core import context, graph_trace
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.util import nest


def _no_effect(*args, **kwargs):
    return None


def unknown_dims(specs: list, flat: list) -> list | None:
    """The unknown dimensions of each flat input (a tuple per input) under ``specs``
    (the signature's TensorSpecs, one per input); None if they do not pair up."""
    if len(specs) != len(flat):
        return None
    out = []
    for s, t in zip(specs, flat):
        dims = s.shape.as_list() if s.shape.rank is not None else [None] * t.ndim
        if len(dims) != t.ndim:
            return None
        out.append(tuple(k for k, d in enumerate(dims) if d is None))
    return out


def _grown(t: torch.Tensor, dims: tuple, empty: bool) -> torch.Tensor:
    """``t`` one larger along each of ``dims``: its first slice repeated (values stay
    those the trace saw: indices stay in range), zeros where it was empty; with
    ``empty``, ``t`` with none of those slices."""
    x = t.detach()
    for d in dims:
        if empty:
            x = x.narrow(d, 0, 0)
        elif x.shape[d] == 0:
            shape = list(x.shape)
            shape[d] = 1
            x = torch.zeros(shape, dtype=x.dtype, device=x.device)
        else:
            x = torch.cat([x, x.narrow(d, 0, 1)], d)
    x = x.clone()
    if t.requires_grad:
        x.requires_grad_(True)
    return x


def _rng_state():
    cpu = torch.random.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    streams = dict(context.GLOBAL.random_streams)
    return cpu, cuda, streams


def _restore(state, gens) -> None:
    cpu, cuda, streams = state
    torch.random.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)
    context.GLOBAL.random_streams.clear()
    context.GLOBAL.random_streams.update(streams)
    for g, st in gens:
        g.set_state(st)


_REPLAY_LOOP_CAP = 1000  # iterations of one recorded loop in a shape replay


def replay_shapes(graph, flat: list, unknown: list, empty: bool = False) -> list | None:
    """The output leaves' shapes when ``graph``'s code runs on ``flat`` grown by one
    along its ``unknown`` dimensions (with ``empty``: of size 0 there), without
    effects; None where it cannot run so."""
    if graph.writes_captures:
        return None
    ns = dict(graph._ns)
    ns["_loop_cap"] = _REPLAY_LOOP_CAP  # zeros that a loop doubles never end it
    for name, dry in graph.dry_of.items():
        if dry is graph_trace.cannot_dry_run:
            return None
        if dry is not graph_trace.RUN:
            ns[name] = dry if dry is not None else _no_effect
    try:
        exec(compile(graph.source, "<tf.function shapes>", "exec"), ns)  # the recording's code
    except SyntaxError:
        return None
    inputs = [_grown(t, dims, empty) for t, dims in zip(flat, unknown)]
    gens = [g for g in list(ns.values()) + list(context.GLOBAL.random_streams.values())
            if isinstance(g, torch.Generator)]
    saved_gens = [(g, g.get_state()) for g in gens]
    state = _rng_state()
    s = context.thread_state()
    prev_grad = torch.is_grad_enabled()
    s.function_depth += 1
    try:
        with graph_trace.paused(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's about empty reductions
            torch._C._set_grad_enabled(graph.entry_grad)
            leaves = ns["_replay"](*inputs)
    except (Exception, graph_trace.TraceUnsafe):  # noqa: BLE001 - any failure: no answer
        return None
    finally:
        s.function_depth -= 1
        torch._C._set_grad_enabled(prev_grad)
        _restore(state, saved_gens)
    return [tuple(x.shape) if isinstance(x, torch.Tensor) else None for x in leaves]


def static_shapes(graph, out, flat: list, unknown: list,
                  stand_in_sizes: "set[int] | frozenset[int]" = frozenset()) -> dict:
    """``{id(output Tensor): TensorShape}`` for the tensors of ``out`` (the trace's
    result, whose recording is ``graph``, or None where it has none);
    ``stand_in_sizes``: sizes of stand-in results (``Recorder.stand_in_sizes``), whose
    dimensions count as unknown where there is no recording."""
    leaves = nest.flatten(out, expand_composites=bool(graph is not None and graph._expand))
    sizes = {t.shape[d] for t, dims in zip(flat, unknown) for d in dims}
    if graph is None:
        sizes |= set(stand_in_sizes)
    ranked = [x for x in leaves if isinstance(x, Tensor) and x.shape.rank]
    if not ranked:
        sizes = set()  # scalars only (a loss): no dimension to find out about
    after = replay_shapes(graph, flat, unknown) if graph is not None and sizes else None
    # Sizes 0 too, where they run: a slice x[:1] of an unknown dimension is unknown.
    # Only where some dimension stayed put (a candidate for a static one).
    stayed = after is not None and any(
        isinstance(x, Tensor) and a is not None and any(
            d == e and d for d, e in zip(x.shape.as_list(), a))
        for x, a in zip(leaves, after))
    zero = replay_shapes(graph, flat, unknown, True) if stayed and 0 not in sizes else None
    vsized = graph.value_sized if graph is not None else [False] * len(leaves)
    result = {}
    for k, leaf in enumerate(leaves):
        if not isinstance(leaf, Tensor) or leaf.shape.rank is None:
            continue
        dims = leaf.shape.as_list()
        if after is not None and k < len(after) and after[k] is not None:
            if len(after[k]) != len(dims):
                result[id(leaf)] = TensorShape(None)
                continue
            dims = [d if d == e else None for d, e in zip(dims, after[k])]
            if zero is not None and k < len(zero) and zero[k] is not None and \
                    len(zero[k]) == len(dims):
                dims = [d if d == e else None for d, e in zip(dims, zero[k])]
        elif sizes:
            dims = [None if d in sizes else d for d in dims]
        if k < len(vsized) and vsized[k] and dims:
            dims[0] = None
        result[id(leaf)] = TensorShape(dims)
    return result
