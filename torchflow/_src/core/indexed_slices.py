"""``tf.IndexedSlices``: a sparse set of rows of a dense tensor, and the sparse
gradients of row gathers.

As in TF, ``GradientTape.gradient`` of a variable (or watched tensor) used only
through row gathers (``tf.gather`` on axis 0, ``tf.nn.embedding_lookup``, Keras
``Embedding``) is an ``IndexedSlices`` of the gathered rows' gradients; a source
also used densely gets the dense sum. Mechanism: a recording gather of a tensor
that requires grad runs ``gather_rows`` (a ``torch.autograd.Function``). While a
tape's ``gradient()`` runs its backward pass it opens a ``RowCollector`` for its
sources; the gather's backward then hands its rows' gradient to the collector
instead of scattering it into a dense tensor, and ``RowCollector.result``
assembles each source's gradient. Every other backward pass (jacobians, higher
order, tapes of other sources) gets the dense scatter, so values never differ.

An ``IndexedSlices`` converts to a dense tensor wherever a Tensor is expected
(duplicate indices sum, as ``tf.convert_to_tensor`` of one does in TF).
"""

from __future__ import annotations

import itertools
import math
import threading
import warnings

import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.composite_tensor import CompositeTensor, TypeSpec
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.util.api import public

# TF's threshold for its warning on densifying large IndexedSlices.
_LARGE_SPARSE_NUM_ELEMENTS = 100000000


@public("torchflow")
class IndexedSlices(CompositeTensor):
    """A sparse representation of a set of tensor slices at given indices.

    ``values[i]`` is row ``indices[i]`` of the dense tensor of shape
    ``dense_shape``.

    Args:
      values: A Tensor of any dtype, shape ``[N, d1, ..., dn]``.
      indices: A 1-D integer Tensor of shape ``[N]``.
      dense_shape: Optional 1-D integer Tensor: the shape of the dense tensor.

    >>> import torchflow as tf
    >>> s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]),
    ...                      tf.constant([3, 2]))
    >>> tf.convert_to_tensor(s).numpy()
    array([[0., 0.],
           [1., 2.],
           [0., 0.]], dtype=float32)
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)
        self._static: tuple | None = None  # the dense shape as ints, when known without a read

    @property
    def values(self) -> Tensor:
        """The values of the slices."""
        return self._values

    @property
    def indices(self) -> Tensor:
        """The row indices of the slices."""
        return self._indices

    @property
    def dense_shape(self):
        """The dense shape (a 1-D Tensor), or None."""
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense shape as a ``TensorShape`` (unknown rows without ``dense_shape``)."""
        if self._dense_shape is None:
            return TensorShape([None] + self._values.shape.as_list()[1:])
        return TensorShape(list(self._dense_ints()))

    def _dense_ints(self) -> tuple:
        if self._static is None:
            self._static = tuple(int(d) for d in self._dense_shape.numpy())  # pyright: ignore[reportOptionalMemberAccess] - callers check dense_shape
        return self._static

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def _type_spec(self) -> IndexedSlicesSpec:
        ds = self._dense_shape
        shape = self.shape if ds is not None else \
            TensorShape([None] + self._values.shape.as_list()[1:])
        return IndexedSlicesSpec(shape, self.dtype, self._indices.dtype,
                                 None if ds is None else ds.dtype, self._indices.shape)

    def _tf_value(self, dtype=None) -> Tensor:
        if self._dense_shape is None:
            raise ValueError(f"Tensor conversion requested for IndexedSlices without "
                             f"dense_shape: {self!r}")
        v = self._values._t
        shape = list(self._dense_ints())
        if graph_trace._ACTIVE is not None:  # TF warns while building a graph, not eagerly
            n = math.prod(shape)
            if n >= _LARGE_SPARSE_NUM_ELEMENTS:
                warnings.warn(f"Converting sparse IndexedSlices to a dense Tensor with {n} "
                              "elements. This may consume a large amount of memory.",
                              stacklevel=2)
        out = torch.zeros(shape, dtype=v.dtype, device=v.device)
        out.index_add_(0, self._indices._t.long().to(v.device), v)
        return wrap(out, self._values.dtype)

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)  # pyright: ignore[reportOperatorIssue] - ops/tensor_operators installs Tensor's operators

    def __repr__(self) -> str:
        return (f"IndexedSlices(indices={self._indices!r}, values={self._values!r}"
                + (f", dense_shape={self._dense_shape!r})" if self._dense_shape is not None
                   else ")"))


@public("torchflow")
class IndexedSlicesSpec(TypeSpec):
    """The type of a ``tf.IndexedSlices``.

    Args:
      shape: The dense shape (dims may be None).
      dtype: The values' dtype.
      indices_dtype: The indices' dtype (int32 or int64).
      dense_shape_dtype: The dense shape's dtype, or None for slices without one.
      indices_shape: The indices' shape (1-D, default ``[None]``).

    >>> import torchflow as tf
    >>> tf.IndexedSlicesSpec([None, 2], tf.float32)
    IndexedSlicesSpec(TensorShape([None, 2]), tf.float32, tf.int64, None, TensorShape([None]))
    """

    __slots__ = ("_shape", "_values_dtype", "_indices_dtype", "_dense_shape_dtype",
                 "_indices_shape")

    def __init__(self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64,
                 dense_shape_dtype=None, indices_shape=None):
        self._shape = as_shape(shape)
        self._values_dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else \
            dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = as_shape([None] if indices_shape is None else indices_shape)

    @property
    def value_type(self):
        return IndexedSlices

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self):
        return self._values_dtype

    def _serialize(self) -> tuple:
        return (self._shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)

    @property
    def _component_specs(self):
        inner = self._shape[1:] if self._shape.rank else TensorShape(None)
        specs = [TensorSpec(self._indices_shape.concatenate(inner), self._values_dtype),
                 TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.rank], self._dense_shape_dtype))
        return specs

    def _to_components(self, value: IndexedSlices) -> list:
        out: list = [value.values, value.indices]
        if self._dense_shape_dtype is not None:
            out.append(value.dense_shape)
        return out

    def _from_components(self, components) -> IndexedSlices:
        if self._dense_shape_dtype is None:
            values, indices = components
            return IndexedSlices(values, indices)
        values, indices, dense_shape = components
        return IndexedSlices(values, indices, dense_shape)


# --- sparse gradients of row gathers -------------------------------------------
_SEQ = itertools.count()
_ACTIVE: list = []  # open RowCollectors (backward may run on torch's device threads)
_LOCK = threading.Lock()


def _source_id(p: torch.Tensor) -> int:
    """The tensor a gradient is asked for when ``p`` is gathered: ``p`` itself, or
    the variable leaf of which ``p`` is a full view (a variable read)."""
    b = p._base
    if b is not None and b.shape == p.shape and b.stride() == p.stride() \
            and b.storage_offset() == p.storage_offset():
        return id(b)
    return id(p)


class _GatherRows(torch.autograd.Function):
    _sparse_rows = True  # a trace's gradients of it are assembled by a host node (tape.py)

    @staticmethod
    def forward(ctx, p, idx, ids_dtype):  # pyright: ignore[reportIncompatibleMethodOverride] - torch's Function protocol
        ctx.save_for_backward(idx)
        ctx.src, ctx.seq, ctx.shape, ctx.ids_dtype = _source_id(p), next(_SEQ), p.shape, ids_dtype
        return p.index_select(0, idx.reshape(-1)).reshape(tuple(idx.shape) + tuple(p.shape[1:]))

    @staticmethod
    def backward(ctx, g):  # pyright: ignore[reportIncompatibleMethodOverride] - torch's Function protocol
        (idx,) = ctx.saved_tensors
        rows = g.reshape((-1,) + tuple(ctx.shape[1:]))
        flat = idx.reshape(-1)
        with _LOCK:
            col = next((c for c in reversed(_ACTIVE) if ctx.src in c.sources), None)
            if col is not None:
                col.rows.setdefault(ctx.src, []).append((ctx.seq, flat, rows, ctx.ids_dtype))
                return None, None, None
        dense = torch.zeros(ctx.shape, dtype=g.dtype, device=g.device)
        return dense.index_add(0, flat.to(g.device), rows), None, None


def gather_rows(p: torch.Tensor, idx: torch.Tensor, ids_dtype) -> torch.Tensor:
    """``p[idx]`` (rows of dim 0) whose gradient can come back as an IndexedSlices.

    Call it only when ``p.requires_grad`` and grad mode is on; ``idx`` is an
    int64 tensor of valid row ids on ``p``'s device, ``ids_dtype`` the DType of
    the user's ids (the dtype of the slices' ``indices``).
    """
    return _GatherRows.apply(p, idx, ids_dtype)


class RowCollector:
    """Collects the row gradients of gathers of ``sources`` during one backward pass."""

    __slots__ = ("sources", "rows")

    def __init__(self, sources):
        self.sources = {id(s): s for s in sources}
        self.rows: dict = {}

    def __enter__(self) -> RowCollector:
        with _LOCK:
            _ACTIVE.append(self)
        return self

    def __exit__(self, *exc) -> None:
        with _LOCK:
            _ACTIVE.remove(self)

    def result(self, src: torch.Tensor, dense, dtype):
        """The gradient of ``src``: its dense gradient ``dense`` (torch or None) plus the
        collected rows; an IndexedSlices when there is no dense part."""
        parts = self.rows.get(id(src))
        if not parts:
            return dense
        parts.sort(key=lambda r: r[0])  # in the order the gathers ran, as TF aggregates
        idx = torch.cat([r[1] for r in parts])
        vals = torch.cat([r[2] for r in parts])
        if dense is not None:
            return dense.index_add(0, idx.to(dense.device), vals.to(dense.dtype))
        ids_dtype = parts[0][3]
        shape = torch.tensor(list(src.shape), dtype=torch.int32)
        out = IndexedSlices(wrap(vals, dtype), wrap(idx.to(ids_dtype._torch), ids_dtype),
                            wrap(shape, dtypes.int32))
        out._static = tuple(src.shape)
        return out
