"""Engine helpers for ``tf.data``: slicing, stacking and padding element components.

``_src/data`` may not import torch; the few torch calls its runtime needs on
its hot path (unbinding a source into elements, stacking a batch, padding) live
here. String components hold NumPy object arrays and take the NumPy path.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops.ragged.ragged_factory import batch_rows
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from torchflow._src.ops.sparse import sparse_data
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor, SparseTensorSpec

_STRING = dtypes.string


def init_worker_thread() -> None:
    """Prepares a thread that tf.data starts: torch grad mode off (it defaults on)."""
    torch.set_grad_enabled(False)


def as_tensor(value, dtype=None) -> Tensor:
    """``value`` as a Tensor (already one: unchanged)."""
    if type(value) is Tensor:
        return value
    return to_tensor(value, dtype)


def rows(t: Tensor) -> int:
    """The size of dimension 0 (raises InvalidArgumentError for scalars)."""
    if type(t) is RaggedTensor:
        return t._nrows()
    if type(t) is SparseTensor:
        return sparse_data.nrows(t)
    if t._t.ndim == 0:
        raise InvalidArgumentError(None, None, "Unbatching a tensor is only supported for "
                                   "rank >= 1")
    return t._t.shape[0]


def shape_of(t: Tensor) -> tuple:
    return tuple(t._t.shape)


def unstack_range(t: Tensor, start: int, stop: int) -> list:
    """Elements ``start..stop-1`` of ``t`` along dimension 0, as Tensors (views)."""
    if type(t) is RaggedTensor:  # rows of a RaggedTensor: Tensors or RaggedTensors
        return [t[i] for i in range(start, stop)]
    if type(t) is SparseTensor:  # rows of a SparseTensor: SparseTensors of one rank less
        return sparse_data.rows(t, start, stop)
    d = t._dtype
    x = t._t
    if d is _STRING:
        part = x[start:stop]
        return [wrap(np.asarray(part[i], dtype=object) if part.ndim == 1 else part[i], d)
                for i in range(part.shape[0])]
    return [wrap(v, d) for v in x[start:stop].unbind(0)]


def slice_rows(t: Tensor, start: int, stop: int) -> Tensor:
    """Rows ``start..stop-1`` of ``t`` as one Tensor (a view)."""
    return wrap(t._t[start:stop], t._dtype)


def row(t: Tensor, i: int) -> Tensor:
    x = t._t
    if t._dtype is _STRING:
        v = x[i]
        return wrap(np.asarray(v, dtype=object) if x.ndim == 1 else v, _STRING)
    return wrap(x[i], t._dtype)


def _shape_error(component: int, first, i: int, other) -> InvalidArgumentError:
    return InvalidArgumentError(
        None, None,
        f"Cannot batch tensors with different shapes in component {component}. First element "
        f"had shape {list(first)} and element {i} had shape {list(other)}.")


def batch_composite(parts: list, spec):
    """One batch of composite values (or Tensors whose spec is a ``RaggedTensorSpec`` of
    ragged rank 0) of ``spec``: a RaggedTensor one ragged rank up, as TF batches them.

    Raises:
      TypeError: For a spec torchflow cannot batch.
    """
    if isinstance(spec, RaggedTensorSpec):
        return batch_rows(parts, spec.ragged_rank, spec.row_splits_dtype)
    if isinstance(spec, SparseTensorSpec):
        return sparse_data.batch(parts)
    raise TypeError(f"Batching elements of {spec!r} is not supported.")


def stack(parts: list, component: int = 0) -> Tensor:
    """Stacks equally shaped Tensors along a new dimension 0 (``batch``)."""
    p0 = parts[0]
    d = p0._dtype
    if d is _STRING:
        s0 = p0._t.shape
        for i, p in enumerate(parts):
            if p._t.shape != s0:
                raise _shape_error(component, s0, i, p._t.shape)
        return wrap(np.stack([p._t for p in parts]), d)
    try:
        return wrap(torch.stack([p._t for p in parts]), d)
    except RuntimeError:
        s0 = p0._t.shape
        for i, p in enumerate(parts):
            if p._t.shape != s0:
                raise _shape_error(component, s0, i, p._t.shape) from None
        raise


def padded_stack(parts: list, padded_shape, padding_value, component: int = 0) -> Tensor:
    """Stacks Tensors after padding each to ``padded_shape`` (None dims: the batch max)."""
    p0 = parts[0]
    d = p0._dtype
    rank = p0._t.ndim
    for i, p in enumerate(parts):
        if p._t.ndim != rank:
            raise _shape_error(component, p0._t.shape, i, p._t.shape)
    if padded_shape is None:
        padded_shape = [None] * rank
    if len(padded_shape) != rank:
        raise InvalidArgumentError(
            None, None, f"The padded shape {list(padded_shape)} is not compatible with the "
            f"shape {list(p0._t.shape)} of component {component}.")
    target = []
    for k, want in enumerate(padded_shape):
        big = max(p._t.shape[k] for p in parts)
        if want is None or want == -1:
            target.append(big)
        else:
            if big > want:
                raise InvalidArgumentError(
                    None, None, f"Attempted to pad to a smaller size than the input element: "
                    f"component {component} has dimension {k} of size {big} > {want}.")
            target.append(want)
    pv = padding_value._t if isinstance(padding_value, Tensor) else padding_value
    if d is _STRING:
        fill = pv.reshape(()).item() if isinstance(pv, np.ndarray) else (pv or b"")
        out = np.empty([len(parts)] + target, dtype=object)
        out.fill(fill)
        for i, p in enumerate(parts):
            out[(i,) + tuple(slice(0, s) for s in p._t.shape)] = p._t
        return wrap(out, d)
    if isinstance(pv, torch.Tensor):
        pv = pv.item()
    x0 = p0._t
    out = torch.full([len(parts)] + target, pv, dtype=x0.dtype, device=x0.device)
    for i, p in enumerate(parts):
        out[(i,) + tuple(slice(0, s) for s in p._t.shape)] = p._t
    return wrap(out, d)


def concat(parts: list) -> Tensor:
    """Concatenates Tensors along dimension 0."""
    d = parts[0]._dtype
    if d is _STRING:
        return wrap(np.concatenate([p._t for p in parts]), d)
    return wrap(torch.cat([p._t for p in parts]), d)


def gather_rows(t: Tensor, index) -> Tensor:
    """Rows ``index`` (a list of ints) of ``t``."""
    if t._dtype is _STRING:
        return wrap(t._t[np.asarray(index, dtype=np.int64)], _STRING)
    return wrap(t._t[torch.as_tensor(index, dtype=torch.long, device=t._t.device)], t._dtype)


def scalar(value, dtype) -> Tensor:
    """A scalar Tensor of ``dtype`` (fast path for Python ints, e.g. ``range``)."""
    if dtype is _STRING:
        return wrap(np.asarray(value, dtype=object), _STRING)
    return wrap(torch.tensor(value, dtype=dtype._torch), dtype)


def int_range(start: int, stop: int, step: int, dtype) -> list:
    """``range`` elements as scalar Tensors, made in one torch call."""
    return [wrap(v, dtype) for v in torch.arange(start, stop, step, dtype=dtype._torch).unbind(0)]


def to_python(t: Tensor):
    """A Python scalar (or nested list) for a Tensor's value."""
    x = t._t
    if isinstance(x, np.ndarray):
        return x.tolist()
    return x.tolist()


def bytes_tensor(values, shape=None) -> Tensor:
    """A string Tensor from a list of ``bytes``."""
    a = np.empty(len(values), dtype=object)
    a[:] = values
    if shape is not None:
        a = a.reshape(shape)
    return wrap(a, _STRING)


def from_numpy(a: np.ndarray, dtype) -> Tensor:
    """A Tensor of ``dtype`` that owns a copy of ``a``."""
    if dtype is _STRING:
        return wrap(np.asarray(a, dtype=object), _STRING)
    return wrap(torch.from_numpy(np.array(a, dtype=dtype.as_numpy_dtype)), dtype)


def cast_to(t: Tensor, dtype) -> Tensor:
    if t._dtype is dtype:
        return t
    return wrap(t._t.to(dtype._torch), dtype)


def gather_groups(chunks: list, rows: list, positions: list, n: int) -> Tensor:
    """A ``[n, ...]`` Tensor whose row ``positions[g][k]`` is row ``rows[g][k]`` of
    ``chunks[g]`` (one component of a fused shuffle+batch)."""
    c0 = chunks[0]
    if c0._dtype is _STRING:
        out = np.empty((n,) + c0._t.shape[1:], dtype=object)
        for c, r, p in zip(chunks, rows, positions):
            out[np.asarray(p, dtype=np.int64)] = c._t[np.asarray(r, dtype=np.int64)]
        return wrap(out, _STRING)
    x0 = c0._t
    if len(chunks) == 1 and positions[0] == list(range(n)):
        return wrap(x0[torch.tensor(rows[0], dtype=torch.long, device=x0.device)], c0._dtype)
    out = torch.empty((n,) + tuple(x0.shape[1:]), dtype=x0.dtype, device=x0.device)
    for c, r, p in zip(chunks, rows, positions):
        out[torch.tensor(p, dtype=torch.long, device=x0.device)] = c._t[
            torch.tensor(r, dtype=torch.long, device=x0.device)]
    return wrap(out, c0._dtype)


def arena_like(t: Tensor, rows: int):
    """Uninitialized storage for ``rows`` rows shaped like the rows of ``t``."""
    x = t._t
    if t._dtype is _STRING:
        return wrap(np.empty((rows,) + x.shape[1:], dtype=object), _STRING)
    return wrap(torch.empty((rows,) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device),
                t._dtype)


def rows_fit(arena: Tensor, t: Tensor) -> bool:
    return arena._dtype is t._dtype and tuple(arena._t.shape[1:]) == tuple(t._t.shape[1:])


def put_rows(arena: Tensor, slots: list, t: Tensor) -> None:
    """Writes the rows of ``t`` into rows ``slots`` of ``arena`` (engine-owned storage)."""
    if arena._dtype is _STRING:
        arena._t[np.asarray(slots, dtype=np.int64)] = t._t
        return
    x = arena._t
    x.index_copy_(0, torch.tensor(slots, dtype=torch.long, device=x.device), t._t)


def take_rows(arena: Tensor, slots: list) -> Tensor:
    """A new Tensor of rows ``slots`` of ``arena``."""
    if arena._dtype is _STRING:
        return wrap(arena._t[np.asarray(slots, dtype=np.int64)], _STRING)
    x = arena._t
    return wrap(x.index_select(0, torch.tensor(slots, dtype=torch.long, device=x.device)),
                arena._dtype)


def expand_row(t: Tensor) -> Tensor:
    """``t`` with a leading dimension of 1."""
    if t._dtype is _STRING:
        return wrap(t._t[None], _STRING)
    return wrap(t._t.unsqueeze(0), t._dtype)
