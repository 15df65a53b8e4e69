"""Source datasets: tensors, ranges, Python generators, zip and concatenate."""

from __future__ import annotations

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.composite_tensor import CompositeTensor, TypeSpec
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import _structure
from torchflow._src.data._runtime import close_iter
from torchflow._src.data.dataset_ops import INFINITE, UNKNOWN, DatasetV2
from torchflow._src.ops import data_ops

_CHUNK = 1024  # elements sliced per torch call: cheap start, little per-element work


def _normalize_source(value):
    if isinstance(value, DatasetV2):
        raise TypeError("A Dataset cannot be an element of from_tensors/from_tensor_slices.")
    return _structure.normalize(value)


class TensorDataset(DatasetV2):
    """``from_tensors``: one element."""

    def __init__(self, tensors):
        self._element = _normalize_source(tensors)

    def _make_iter(self, ctx):
        return iter((self._element,))

    def _cardinality(self):
        return 1

    def _compute_spec(self):
        return _structure.spec_of(self._element)


class TensorSliceDataset(DatasetV2):
    """``from_tensor_slices``: rows of each component along dimension 0."""

    def __init__(self, tensors):
        self._structure = _normalize_source(tensors)
        self._flat = _structure.flatten(self._structure)
        if not self._flat:
            raise ValueError("Expected at least one tensor in from_tensor_slices.")
        n = None
        for t in self._flat:
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            rows = data_ops.rows(t)
            if n is not None and rows != n:
                raise ValueError(f"Dimensions {n} and {rows} are not compatible")
            n = rows
        self._n = n

    def _make_iter(self, ctx):
        return _slice_iter(self._structure, self._flat, self._n, 0)

    def _cardinality(self):
        return self._n

    def _compute_spec(self):
        return _structure.unbatched_spec(_structure.spec_of(self._structure))


def _slice_iter(structure, flat, n, start):
    kind = 0 if type(structure) is not tuple and not _structure.is_nested(structure) else (
        1 if type(structure) is tuple and len(flat) == len(structure)
        and not any(_structure.is_nested(p) for p in structure) else 2)
    unstack = data_ops.unstack_range
    for s in range(start, n, _CHUNK):
        e = min(s + _CHUNK, n)
        if kind == 0:
            yield from unstack(flat[0], s, e)
        elif kind == 1:
            yield from zip(*[unstack(t, s, e) for t in flat])
        else:
            pack = _structure.pack_as
            for parts in zip(*[unstack(t, s, e) for t in flat]):
                yield pack(structure, list(parts))


class ListDataset(DatasetV2):
    """A dataset over an in-memory list of elements (windows, groups)."""

    def __init__(self, elements, spec, inferred=False):
        self._elements = elements
        self._spec = spec
        self._inferred = inferred

    def _spec_inferred(self) -> bool:
        return self._inferred

    def _make_iter(self, ctx):
        return iter(self._elements)

    def _cardinality(self):
        return len(self._elements)

    def _compute_spec(self):
        return self._spec


class RangeDataset(DatasetV2):
    _range_cache = None

    def __init__(self, args, dtype):
        self._dtype = dtype
        if graph_trace.active() is not None and any(isinstance(a, Tensor) for a in args):
            # Made in a traced function (a flat_map/interleave map_func): the bounds are
            # that trace's tensors, read when the dataset is iterated, so that a replay's
            # copy of this dataset reads its own (traced_fn.DatasetFunction).
            self._args = tuple(args)
            return
        r = self._range_cache = _make_range(args)
        self._args = (r.start, r.stop, r.step)  # what a copy without the cache reads

    @property
    def _range(self):
        r = self._range_cache
        if r is None:
            r = self._range_cache = _make_range(self._args)
        return r

    @_range.setter
    def _range(self, r):  # a split of the range (tf.data service, service/splits.py)
        self._range_cache = r
        self._args = (r.start, r.stop, r.step)

    def _make_iter(self, ctx):
        r, d = self._range, self._dtype
        n = len(r)
        if n <= 64 or d is dtypes.string:
            return (data_ops.scalar(v, d) for v in r)
        return _range_chunks(r, d)

    def _cardinality(self):
        return len(self._range)

    def _compute_spec(self):
        return TensorSpec([], self._dtype)


def _make_range(args):
    vals = [int(a) for a in args]
    if len(vals) == 1:
        start, stop, step = 0, vals[0], 1
    elif len(vals) == 2:
        start, stop, step = vals[0], vals[1], 1
    elif len(vals) == 3:
        start, stop, step = vals
    else:
        raise ValueError(f"Invalid arguments to RangeDataset: {args}")
    if step == 0:
        raise InvalidArgumentError(None, None, "step must be a non-zero integer.")
    return range(start, stop, step)


def _range_chunks(r, d):
    step = r.step
    for i in range(0, len(r), _CHUNK):
        sub = r[i:i + _CHUNK]
        yield from data_ops.int_range(sub.start, sub.stop, step, d)


def _signature_from(output_types, output_shapes):
    if output_shapes is None:
        return _structure.map_structure(
            lambda t: TensorSpec(None, t), _as_dtype_structure(output_types))
    types = _as_dtype_structure(output_types)
    flat_t = _structure.flatten(types)
    shapes = _shape_structure(output_shapes, types)
    return _structure.pack_as(types, [TensorSpec(s, t) for t, s in zip(flat_t, shapes)])


def _as_dtype_structure(types):
    if isinstance(types, dict):
        return {k: _as_dtype_structure(v) for k, v in types.items()}
    if isinstance(types, (tuple, list)):
        return tuple(_as_dtype_structure(v) for v in types)
    return dtypes.as_dtype(types)


def _shape_structure(shapes, types) -> list:
    """Flat shapes matching ``types`` (a shape is a TensorShape, list of ints, or None)."""
    if isinstance(types, dict):
        out = []
        for k in sorted(types):
            out.extend(_shape_structure(shapes[k], types[k]))
        return out
    if isinstance(types, tuple):
        out = []
        for s, t in zip(shapes, types):
            out.extend(_shape_structure(s, t))
        return out
    return [TensorShape(shapes)]


class GeneratorDataset(DatasetV2):
    """``from_generator``: elements a Python generator yields, checked against a signature."""

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("The `output_types` and `output_shapes` arguments can not be "
                                "used together with the `output_signature` argument.")
            for s in _structure.flatten(output_signature):
                if not isinstance(s, TypeSpec):
                    raise TypeError(f"`output_signature` must contain objects that are subclass "
                                    f"of `tf.TypeSpec` but found {type(s)} which is not.")
            spec = output_signature
        else:
            if output_types is None:
                raise TypeError("The `output_types` argument can not be None when "
                                "`output_signature` is not specified.")
            spec = _signature_from(output_types, output_shapes)
        self._gen = generator
        self._args = tuple(args) if args is not None else ()
        self._spec = spec
        self._flat_spec = _structure.flatten(spec)

    def _make_iter(self, ctx):
        args = tuple(data_ops.as_tensor(a) for a in self._args)
        return _gen_iter(self._gen(*args), self._spec, self._flat_spec)

    def _compute_spec(self):
        return self._spec


def _gen_iter(gen_it, spec, flat_spec):
    it = iter(gen_it)
    nested = _structure.is_nested(spec)
    try:
        for value in it:
            if nested:
                if isinstance(value, list) and isinstance(spec, tuple):
                    value = tuple(value)
                if not _structure.same_structure(spec, value):
                    raise InvalidArgumentError(
                        None, None, "TypeError: `generator` yielded an element that did not "
                        f"match the expected structure. The expected structure was {spec}, "
                        f"but the yielded element was {value}.")
                flat = _structure.flatten(value)
            else:
                flat = [value]
            out = [_check_component(v, s) for v, s in zip(flat, flat_spec)]
            yield _structure.pack_as(spec, out) if nested else out[0]
    finally:
        close_iter(it)


def _check_composite(value, spec):
    """A yielded value for a ``RaggedTensorSpec``/``SparseTensorSpec`` (TF's check)."""
    if not isinstance(value, CompositeTensor):
        value = data_ops.as_tensor(value)
    got = value._type_spec if isinstance(value, CompositeTensor) else TensorSpec(
        value.shape, value.dtype)
    if not spec.is_compatible_with(got):
        raise InvalidArgumentError(
            None, None, f"TypeError: `generator` yielded an element of {got!r} where an "
            f"element of {spec!r} was expected.")
    return value


def _check_component(value, spec):
    if not isinstance(spec, TensorSpec):
        return _check_composite(value, spec)
    try:
        t = data_ops.as_tensor(value, spec.dtype)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            None, None, "TypeError: `generator` yielded an element that could not be converted "
            f"to the expected type. The expected type was {spec.dtype.name}, but the yielded "
            f"element was {value}.") from None
    if t.dtype != spec.dtype:
        if t.dtype == dtypes.string or spec.dtype == dtypes.string:
            raise InvalidArgumentError(
                None, None, "TypeError: `generator` yielded an element that could not be "
                f"converted to the expected type. The expected type was {spec.dtype.name}, but "
                f"the yielded element was {value}.")
        t = data_ops.cast_to(t, spec.dtype)
    if not spec.shape.is_compatible_with(t.shape):
        raise InvalidArgumentError(
            None, None, f"TypeError: `generator` yielded an element of shape "
            f"{tuple(t.shape.as_list())} where an element of shape "
            f"{tuple(spec.shape.as_list()) if spec.shape.rank is not None else None} "
            f"was expected.")
    return t


class ZipDataset(DatasetV2):
    def __init__(self, datasets):
        flat = _structure.flatten(datasets) if _structure.is_nested(datasets) else [datasets]
        for d in flat:
            if not isinstance(d, DatasetV2):
                raise TypeError(f"Invalid `datasets`. `datasets` is expected to be a (nested) "
                                f"structure of `tf.data.Dataset` objects. Encountered object "
                                f"with type {type(d)}.")
        self._structure = datasets
        self._flat = flat

    def _inputs(self):
        return list(self._flat)

    def _make_iter(self, ctx):
        its = [d._make_iter(ctx) for d in self._flat]
        return _zip_iter(self._structure, its)

    def _cardinality(self):
        cards = [d._cardinality() for d in self._flat]
        if UNKNOWN in cards:
            return UNKNOWN
        finite = [c for c in cards if c >= 0]
        return min(finite) if finite else INFINITE

    def _compute_spec(self):
        return _structure.pack_as(self._structure, [d.element_spec for d in self._flat])


def _zip_iter(structure, its):
    try:
        if type(structure) is tuple and len(structure) == len(its) and not any(
                _structure.is_nested(s) for s in structure):
            yield from zip(*its)
        else:
            for parts in zip(*its):
                yield _structure.pack_as(structure, list(parts))
    finally:
        for it in its:
            close_iter(it)


class ConcatenateDataset(DatasetV2):
    def __init__(self, first, second):
        if not isinstance(second, DatasetV2):
            raise TypeError(f"`dataset` must be a tf.data.Dataset, got {type(second)}.")
        a, b = first.element_spec, second.element_spec
        if not _structure.same_structure(a, b):
            raise TypeError(f"Incompatible dataset elements:\n  {a} vs.   {b}")
        for x, y in zip(_structure.flatten(a), _structure.flatten(b)):
            if x.dtype != y.dtype:
                raise TypeError(f"Incompatible dataset elements:\n  {a} vs.   {b}")
        self._a, self._b = first, second

    def _inputs(self):
        return [self._a, self._b]

    def _make_iter(self, ctx):
        return _concat_iter(self._a, self._b, ctx)

    def _cardinality(self):
        a, b = self._a._cardinality(), self._b._cardinality()
        if a == INFINITE or b == INFINITE:
            return INFINITE
        if a == UNKNOWN or b == UNKNOWN:
            return UNKNOWN
        return a + b

    def _compute_spec(self):
        return _structure.merge_specs(self._a.element_spec, self._b.element_spec)


def _concat_iter(a, b, ctx):
    for d in (a, b):
        it = d._make_iter(ctx)
        try:
            yield from it
        finally:
            close_iter(it)
