"""Batching transformations: batch, padded_batch, unbatch, window."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import _structure
from torchflow._src.data._runtime import close_iter
from torchflow._src.data.dataset_ops import INFINITE, UNKNOWN, int64_arg
from torchflow._src.data.sources import ListDataset
from torchflow._src.data.transforms import UnaryDataset
from torchflow._src.ops import data_ops


def _batch_size(n, what="batch_size", message="Batch size") -> int:
    n = int64_arg(n, what)
    if n <= 0:
        raise InvalidArgumentError(None, None, f"{message} must be greater than zero.")
    return n


def _batched_card(n, size, drop):
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


class BatchDataset(UnaryDataset):
    _batches = True  # elements of ``_size`` rows but the last (_fn_spec.batch_rows)

    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(input_dataset)
        self._size = _batch_size(batch_size)
        self._drop = bool(drop_remainder)

    def _cardinality(self):
        return _batched_card(self._input._cardinality(), self._size, self._drop)

    def _compute_spec(self):
        dim = self._size if self._drop else None
        return _structure.batched_spec(self._input.element_spec, dim)

    def _make_iter(self, ctx):
        flat_spec = _structure.flatten(self._input.element_spec)
        if any(_structure.is_composite_spec(s) for s in flat_spec):  # tf.RaggedTensor parts
            return _batch_iter(self._input._make_iter(ctx), self._size, self._drop,
                               flat_spec)
        # cycle: rowwise fuses map/shuffle/batch chains and stacks with this module.
        from torchflow._src.data import rowwise

        fused = rowwise.fused_batch_iter(self, ctx)
        if fused is not None:
            return fused
        return _batch_iter(self._input._make_iter(ctx), self._size, self._drop)


def _stack_by_spec(elements, flat_spec):
    """A batch of elements some of whose components are composite (by their specs)."""
    flats = [_structure.flatten(e) for e in elements]
    out = []
    for i, (s, parts) in enumerate(zip(flat_spec, zip(*flats))):
        if _structure.is_composite_spec(s):
            out.append(data_ops.batch_composite(list(parts), s))
        else:
            out.append(data_ops.stack(list(parts), i))
    return _structure.pack_as(elements[0], out)


def stack_elements(elements, flat_spec=None):
    """One batch element from a list of elements of the same structure (``flat_spec``:
    the element's flat spec, given when a component is composite)."""
    if flat_spec is not None:
        return _stack_by_spec(elements, flat_spec)
    e0 = elements[0]
    t0 = type(e0)
    stack = data_ops.stack
    if t0 is tuple and all(type(e) is tuple for e in elements):
        flat0 = _structure.flatten(e0)
        # Flat only when no part is itself nested ({"f": x}, y) flattens to 2 too.
        if len(flat0) == len(e0) and not any(_structure.is_nested(p) for p in e0):
            return tuple(stack(list(parts), i) for i, parts in enumerate(zip(*elements)))
    if not _structure.is_nested(e0):
        return stack(elements, 0)
    flats = [_structure.flatten(e) for e in elements]
    n = len(flats[0])
    for f in flats:
        if len(f) != n:
            raise InvalidArgumentError(None, None, "Cannot batch elements of different "
                                       "structures.")
    return _structure.pack_as(e0, [stack(list(parts), i) for i, parts in enumerate(zip(*flats))])


def _batch_iter(it, size, drop, flat_spec=None):
    buf = []
    try:
        for element in it:
            buf.append(element)
            if len(buf) == size:
                yield stack_elements(buf, flat_spec)
                buf = []
        if buf and not drop:
            yield stack_elements(buf, flat_spec)
    finally:
        close_iter(it)


class PaddedBatchDataset(UnaryDataset):
    _batches = True  # elements of ``_size`` rows but the last (_fn_spec.batch_rows)

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop):
        super().__init__(input_dataset)
        self._size = _batch_size(batch_size)
        self._drop = bool(drop)
        spec = input_dataset.element_spec
        flat_spec = _structure.flatten(spec)
        for sp in flat_spec:
            if _structure.is_composite_spec(sp):  # TF 2.4's message, a tuple's str
                raise TypeError("Padded batching of components of type ", type(sp),
                                " is not supported.")
        self._pad_given = padded_shapes is not None
        if padded_shapes is None:
            shapes = [s.shape for s in flat_spec]
            for s in shapes:
                if s.rank is None:
                    raise ValueError("You must provide `padded_shapes` argument because "
                                     "component has unknown rank.")
            if input_dataset._spec_inferred():
                # The spec's dimensions are the first element's (no tracing): they may
                # vary where TF's traced spec says None, so pad to each batch's longest.
                shapes = [TensorShape([None] * s.rank) for s in shapes]
        else:
            shapes = [TensorShape(s) if not hasattr(s, "numpy") else
                      TensorShape([None if d < 0 else d for d in s.numpy().tolist()])
                      for s in _flatten_like(spec, padded_shapes)]
        for s, sp in zip(shapes, flat_spec):
            if sp.shape.rank is not None and s.rank is not None and s.rank != sp.shape.rank:
                raise ValueError(f"The padded shape {s} is not compatible with the "
                                 f"corresponding input component shape {sp.shape}.")
        self._shapes = [None if s.rank is None else s.as_list() for s in shapes]
        if padding_values is None:
            values = [b"" if sp.dtype == dtypes.string else 0 for sp in flat_spec]
        else:
            values = _flatten_like(spec, padding_values)
        self._values = [data_ops.as_tensor(v, sp.dtype) if not hasattr(v, "dtype") else v
                        for v, sp in zip(values, flat_spec)]
        for v, sp in zip(self._values, flat_spec):
            if v.dtype != sp.dtype:
                raise TypeError(f"Padding value dtype {v.dtype!r} does not match the "
                                f"component dtype {sp.dtype!r}.")
        self._spec_struct = spec

    def _cardinality(self):
        return _batched_card(self._input._cardinality(), self._size, self._drop)

    def _compute_spec(self):
        dim = self._size if self._drop else None
        flat = _structure.flatten(self._spec_struct)
        out = [TensorSpec(TensorShape([dim]).concatenate(TensorShape(s)), sp.dtype)
               for s, sp in zip(self._shapes, flat)]
        return _structure.pack_as(self._spec_struct, out)

    def _make_iter(self, ctx):
        return _padded_iter(self._input._make_iter(ctx), self._size, self._drop,
                            self._spec_struct, self._shapes, self._values)


def _flatten_like(spec, value) -> list:
    """Flattens ``value`` (given per component or once for all) to ``spec``'s leaves."""
    if not _structure.is_nested(spec):
        return [value]
    if isinstance(spec, dict):
        return [x for k in sorted(spec) for x in _flatten_like(spec[k], value[k])]
    if isinstance(value, (tuple, list)) and len(value) == len(spec):
        return [x for s, v in zip(spec, value) for x in _flatten_like(s, v)]
    raise ValueError(f"The structure of {value!r} does not match the element structure {spec}.")


def _padded_iter(it, size, drop, spec, shapes, values):
    buf = []

    def emit():
        flats = [_structure.flatten(e) for e in buf]
        parts = [data_ops.padded_stack([f[i] for f in flats], shapes[i], values[i], i)
                 for i in range(len(shapes))]
        return _structure.pack_as(spec, parts)

    try:
        for element in it:
            buf.append(element)
            if len(buf) == size:
                yield emit()
                buf = []
        if buf and not drop:
            yield emit()
    finally:
        close_iter(it)


class UnbatchDataset(UnaryDataset):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        for s in _structure.flatten(input_dataset.element_spec):
            if s.shape.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")

    def _cardinality(self):
        n = self._input._cardinality()
        return INFINITE if n == INFINITE else UNKNOWN

    def _compute_spec(self):
        return _structure.unbatched_spec(self._input.element_spec)

    def _make_iter(self, ctx):
        return _unbatch_iter(self._input._make_iter(ctx))


def _unbatch_iter(it):
    try:
        for element in it:
            flat = _structure.flatten(element)
            n = data_ops.rows(flat[0])
            for t in flat[1:]:
                if data_ops.rows(t) != n:
                    raise InvalidArgumentError(
                        None, None, "Input element must have the same batch size in each "
                        f"component. Component 0 had size {n} but component had size "
                        f"{data_ops.rows(t)}.")
            cols = [data_ops.unstack_range(t, 0, n) for t in flat]
            if len(flat) == 1 and not _structure.is_nested(element):
                yield from cols[0]
            elif type(element) is tuple and len(flat) == len(element):
                yield from zip(*cols)
            else:
                for parts in zip(*cols):
                    yield _structure.pack_as(element, list(parts))
    finally:
        close_iter(it)


class WindowDataset(UnaryDataset):
    """``window``: elements are (structures of) datasets of consecutive elements."""

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        super().__init__(input_dataset)
        self._size = _batch_size(size, "size", "Window size")
        self._shift = self._size if shift is None else _batch_size(shift, "shift",
                                                                   "Window shift")
        self._stride = _batch_size(stride, "stride", "Window stride")
        self._drop = bool(drop_remainder)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        span = (self._size - 1) * self._stride + 1
        if self._drop:
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _compute_spec(self):
        spec = self._input.element_spec
        inferred = self._input._spec_inferred()
        return _structure.map_structure(lambda s: ListDataset([], s, inferred), spec)

    def _make_iter(self, ctx):
        spec = self._input.element_spec  # first: its computation's iterator is reused
        return _window_iter(self._input._make_iter(ctx), self._size, self._shift,
                            self._stride, self._drop, spec, self._input._spec_inferred())


def _window_iter(it, size, shift, stride, drop, spec, inferred=False):
    span = (size - 1) * stride + 1
    buf: list = []
    done = False
    try:
        while True:
            while len(buf) < span and not done:
                try:
                    buf.append(next(it))
                except StopIteration:
                    done = True
            if not buf:
                return
            window = buf[:span:stride]
            if done and len(window) < size and drop:
                return
            flat_spec = _structure.flatten(spec)
            cols = list(zip(*[_structure.flatten(e) for e in window])) or [[]] * len(flat_spec)
            yield _structure.pack_as(spec, [ListDataset(list(c), s, inferred)
                                            for c, s in zip(cols, flat_spec)])
            if len(buf) >= shift:
                del buf[:shift]
            else:
                skip = shift - len(buf)
                buf = []
                while skip and not done:
                    try:
                        next(it)
                        skip -= 1
                    except StopIteration:
                        done = True
            if done and not buf:
                return
    finally:
        close_iter(it)
