"""The ``element_spec`` of a transformation's output, from its function's trace.

TF traces the function of ``map`` (``filter``, ``scan``, the grouping functions ...)
with symbolic tensors of the input's ``element_spec``; the output spec is the trace's:
unknown dimensions stay unknown and value-dependent sizes are unknown, so a batch
of ``map(lambda x: tf.range(x))`` pads. Here ``function_spec.trace_outputs`` dry-traces
the function on stand-ins (no effects; its recordings serve the later calls, so the
body's Python does not run again for them) and this module reads the element spec
off the outputs. Where the function cannot be traced on stand-ins, callers fall
back to the first element's spec (``transforms.function_output_spec``).
"""

from __future__ import annotations

import functools

from torchflow._src.core import function as _function
from torchflow._src.core import function_spec
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import _structure


def args_of(input_spec) -> tuple:
    """The positional arguments a function gets for an element: a tuple element's
    components, as ``transforms.call_fn`` passes them, or the element."""
    return tuple(input_spec) if type(input_spec) is tuple else (input_spec,)


def _merge_leaf(a, b):
    if type(a) is not type(b):
        raise ValueError("the traces return different types")
    if a.dtype != b.dtype:
        raise ValueError("the traces return different dtypes")
    if isinstance(a, TensorSpec):
        sa, sb = a.shape, b.shape
        if sa.rank is None or sb.rank is None or sa.rank != sb.rank:
            return TensorSpec(TensorShape(None), a.dtype)
        return TensorSpec(TensorShape([x if x == y else None for x, y in
                                       zip(sa.as_list(), sb.as_list())]), a.dtype)
    return a.most_specific_compatible_type(b)


def merge(a, b):
    """The spec both traces' output specs ``a`` and ``b`` fit: dimensions that differ
    are unknown, ranks that differ make the rank unknown."""
    if not _structure.same_structure(a, b):
        raise ValueError("the traces return different structures")
    return _structure.pack_as(a, [_merge_leaf(x, y) for x, y in
                                  zip(_structure.flatten(a), _structure.flatten(b))])


def batch_rows(ds):
    """The batch size of ``ds``'s elements (all but maybe the last) where it batches
    (through transformations that keep elements), else None."""
    while getattr(ds, "_same_elements", False):
        ds = ds._input
    return ds._size if getattr(ds, "_batches", False) else None


def traced_outputs(fn, args_spec, rows=None):
    """``function_spec.trace_outputs(fn, args_spec)`` (the traces' outputs and what
    the first noted), or None where ``fn`` cannot be traced on stand-ins (its body's
    error included: a stand-in's value may be one the real elements never have)."""
    if not isinstance(fn, _function.Function):
        return None
    lock = getattr(fn, "_first", None)
    try:
        if lock is None:
            return function_spec.trace_outputs(fn, args_spec, rows)
        with lock:
            return function_spec.trace_outputs(fn, args_spec, rows)
    except Exception:  # noqa: BLE001 - the first element's spec is used instead
        return None


def _first_unknown(spec):
    if isinstance(spec, TensorSpec) and spec.shape.rank:
        return TensorSpec(TensorShape([None] + spec.shape.as_list()[1:]), spec.dtype)
    return spec


def output_spec(fn, args_spec, normalize, rows=None):
    """The spec of ``normalize(fn(*args))`` for arguments of specs ``args_spec`` (a
    tuple), from ``fn``'s trace; None where it cannot be traced. ``rows``: see
    ``batch_rows``."""
    got = traced_outputs(fn, args_spec, rows)
    if got is None:
        return None
    outs, sized, declared, _ = got
    try:
        elements = [normalize(o) for o in outs]
        spec = functools.reduce(merge, [_structure.spec_of(e) for e in elements])
        firsts = _structure.flatten(elements[0])
        leaves = [_refined(s, id(x) in sized, declared.get(id(x)))
                  for s, x in zip(_structure.flatten(spec), firsts)]
    except (TypeError, ValueError, AttributeError):
        return None
    return _structure.pack_as(spec, leaves)


def _refined(spec, value_sized: bool, declared):
    """A leaf's traced spec with TF's rules: a value-sized tensor's first dimension is
    unknown; a shape given by ``set_shape`` is merged in."""
    if value_sized:
        spec = _first_unknown(spec)
    if declared is not None and isinstance(spec, TensorSpec):
        spec = TensorSpec(spec.shape.merge_with(declared), spec.dtype)
    return spec
