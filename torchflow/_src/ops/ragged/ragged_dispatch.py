"""Ragged dispatch: TF ops that accept ``tf.RaggedTensor`` arguments.

Registered in ``_dispatch.COMPOSITE`` under ``RaggedTensor``. The shared op
helpers (``binary_op``, ``unary_op``, comparisons, reductions, ``concat``,
``stack``, ``gather``, ``where``, ``cast``) look a non-Tensor argument's type up
there on their slow path only, so dense eager ops pay nothing; this module then
computes the op on the flat values (elementwise ops) or through segment
reductions (``reduce_*`` over a ragged axis), as TF's ragged dispatch does.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import _dispatch, gather_ops
from torchflow._src.ops import comparison_ops as cmp
from torchflow._src.ops import math_ops as m
from torchflow._src.ops import unary_math_ops as um
from torchflow._src.ops.ragged import ragged_factory as rf
from torchflow._src.ops.ragged import ragged_more_ops
from torchflow._src.ops.ragged.ragged_gather import flat_index, gather, gather_nd
from torchflow._src.ops.ragged.ragged_reduce import axes_of, reduce
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    RaggedTensorSpec,
    lengths_to_splits,
    rank_of,
    rowids_of,
    take_rows,
)
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor

_BOOL = dtypes.bool
_PY = (int, float, bool, complex, str, bytes)


# --- elementwise ------------------------------------------------------------------
def _broadcast_to_flat(rt: RaggedTensor, dense: Tensor) -> Tensor:
    """``dense`` (rank above the uniform inner rank) laid out like ``rt.flat_values``."""
    rank = rank_of(rt)
    if rank_of(dense) > rank:
        raise ValueError(f"Shapes {rt.shape} and {dense.shape} are incompatible")
    a = dense._t
    shape = [1] * (rank - rank_of(dense)) + list(a.shape)
    a = a.reshape(shape)
    idx = flat_index(rt)
    index = []
    for d, ix in enumerate(idx):
        if shape[d] == 1:
            index.append(torch.zeros_like(ix))
        else:
            if ix.numel() and int(ix.max()) >= shape[d]:
                raise InvalidArgumentError(None, None, "Unable to broadcast: dimension size "
                                           f"mismatch in dimension {d}")
            if d == 0 and shape[0] != rt._nrows():
                raise InvalidArgumentError(None, None, "Unable to broadcast: dimension size "
                                           "mismatch in dimension 0")
            index.append(ix)
    if isinstance(a, np.ndarray):
        return wrap(a[tuple(i.numpy() for i in index)], dense._dtype)
    return wrap(a[tuple(i.to(a.device) for i in index)], dense._dtype)


def elementwise(f, x, y):
    """``f(x, y)`` (an op on Tensors) with at least one RaggedTensor operand.

    Raises:
      ValueError: Two RaggedTensors whose row partitions differ.
    """
    xr, yr = isinstance(x, RaggedTensor), isinstance(y, RaggedTensor)
    if xr and yr:
        if not rf.same_partition(x, y):
            raise InvalidArgumentError(None, None, "Inputs must have identical ragged "
                                       f"splits. Input received: {x}, {y}")
        return x.with_flat_values(f(x.flat_values, y.flat_values))
    rt, other = (x, y) if xr else (y, x)
    flat = rt.flat_values
    if not isinstance(other, _PY):
        other = other if isinstance(other, Tensor) else convert_to_tensor(
            other, dtype=None if isinstance(other, np.ndarray) else rt.dtype)
        if other.shape.rank > flat.shape.rank - 1:
            other = _broadcast_to_flat(rt, other)
    return rt.with_flat_values(f(flat, other) if xr else f(other, flat))


def unary(f, x: RaggedTensor):
    """``f`` applied to the flat values of ``x``."""
    return x.with_flat_values(f(x.flat_values))


# --- structural ops --------------------------------------------------------------
def is_ragged_list(values) -> bool:
    return type(values) in (list, tuple) and any(isinstance(v, RaggedTensor) for v in values)


def concat(values, axis):
    return rf.concat(values, axis)


def stack(values, axis):
    return rf.stack(values, axis)


def where(condition, x, y):
    """``tf.where(condition, x, y)`` with ragged arguments of one row partition."""
    if x is None and y is None:
        return ragged_more_ops.where_coordinates(condition)
    args = [condition, x, y]
    ragged = [a for a in args if isinstance(a, RaggedTensor)]
    for r in ragged[1:]:
        if not rf.same_partition(ragged[0], r):
            raise ValueError("Inputs must have identical ragged splits")
    from_gather = ragged[0]
    flats = [a.flat_values if isinstance(a, RaggedTensor) else _broadcast_to_flat(
        from_gather, convert_to_tensor(a)) if convert_to_tensor(a).shape.rank else a
        for a in args]
    return from_gather.with_flat_values(gather_ops.where(*flats))


def tile(rt, multiples, dense_tile):
    """``tf.tile`` of a RaggedTensor: row contents repeat along ragged dimensions."""
    m = [int(v) for v in (multiples.numpy().tolist() if isinstance(multiples, Tensor)
                          else multiples)]
    if len(m) != rt.shape.rank:
        raise InvalidArgumentError(None, None, f"Expected multiples argument to be a vector "
                                   f"of length {rt.shape.rank} but got length {len(m)}")
    return _tile(rt, m, dense_tile)


def _tile(rt, m: list, dense_tile):
    if not isinstance(rt, RaggedTensor):
        return dense_tile(rt, m)
    inner = _tile(rt._values, [1] + m[2:], dense_tile)
    s = rt._row_splits._t.to(torch.int64).cpu()
    lengths = s[1:] - s[:-1]
    k = m[1]
    starts = torch.repeat_interleave(s[:-1], lengths * k)
    new_splits = lengths_to_splits(lengths * k)
    pos = torch.arange(int(new_splits[-1])) - torch.repeat_interleave(new_splits[:-1],
                                                                      lengths * k)
    within = pos % torch.repeat_interleave(lengths, lengths * k).clamp(min=1)
    rows = RaggedTensor(take_rows(inner, starts + within),
                        wrap(new_splits.to(rt.row_splits_dtype._torch), rt.row_splits_dtype),
                        internal=True)
    if m[0] == 1:
        return rows
    return rows._gather_rows(torch.arange(rt._nrows()).repeat(m[0]))


def reverse(rt, axis, dense_reverse):
    """``tf.reverse`` of a RaggedTensor: rows (axis 0), or each row's items (a ragged axis)."""
    axes = axes_of(rt, axis.numpy().tolist() if isinstance(axis, Tensor) else axis)
    out = rt
    for a in axes:
        out = _reverse_one(out, a, dense_reverse)
    return out


def _reverse_one(rt, a: int, dense_reverse):
    if not isinstance(rt, RaggedTensor):
        return dense_reverse(rt, [a])
    if a == 0:
        return rt._gather_rows(torch.arange(rt._nrows() - 1, -1, -1))
    if a > 1:
        return rt.with_values(_reverse_one(rt._values, a - 1, dense_reverse))
    s = rt._row_splits._t.to(torch.int64).cpu()
    rows = rowids_of(s)
    pos = torch.arange(int(s[-1]))
    return rt.with_values(take_rows(rt._values, s[1:][rows] - 1 - (pos - s[:-1][rows])))


def map_fn(fn, elems: RaggedTensor, sig, dense_stack):
    """``tf.map_fn`` over the rows of a RaggedTensor.

    Without ``fn_output_signature`` the result has ``elems``' type (TF 2.4): the
    rows ``fn`` returns become the rows of a RaggedTensor. A ``RaggedTensorSpec``
    signature does the same; a dtype or ``TensorSpec`` stacks dense results.
    """
    rows = [fn(elems[i]) for i in range(elems._nrows())]
    if sig is None or isinstance(sig, RaggedTensorSpec):
        rr = elems.ragged_rank - 1 if sig is None else sig.ragged_rank  # of one row
        if not rows:
            return elems
        return rf.batch_rows(rows, rr, elems.row_splits_dtype)
    return dense_stack(rows)


def expand_dims(rt: RaggedTensor, axis, dense_expand):
    """``tf.expand_dims`` of a RaggedTensor (the new dimension has size 1)."""
    rank = rank_of(rt)
    a = int(axis.numpy()) if isinstance(axis, Tensor) else int(axis)
    if not -rank - 1 <= a <= rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank - 1}<=axis<{rank + 1}")
    return _expand_dims(rt, a + rank + 1 if a < 0 else a, dense_expand)


def _expand_dims(rt, a: int, dense_expand):
    if not isinstance(rt, RaggedTensor):
        return dense_expand(rt, a)
    n = rt._nrows()
    d = rt.row_splits_dtype
    if a == 0:
        return RaggedTensor(rt, wrap(torch.tensor([0, n], dtype=d._torch), d), internal=True,
                            uniform_row_length=n)
    if a == 1:
        return RaggedTensor(rt, wrap(torch.arange(n + 1, dtype=d._torch), d), internal=True,
                            uniform_row_length=1)
    return rt.with_values(_expand_dims(rt._values, a - 1, dense_expand))


def shape(rt: RaggedTensor, out_type):
    """``tf.shape`` of a RaggedTensor: TF 2.4 has no ragged form of it (no
    ``DynamicRaggedShape``, added in later versions) and fails converting the
    argument to a Tensor, with this message."""
    raise ValueError("TypeError: object of type 'RaggedTensor' has no len()")


def size(rt: RaggedTensor, out_type):
    """``tf.size``: the number of values (TF 2.4's ragged ``size``)."""
    n = rt.flat_values._t
    count = n.size if isinstance(n, np.ndarray) else n.numel()
    return wrap(torch.tensor(count, dtype=out_type._torch), out_type)


def rank(rt: RaggedTensor):
    """``tf.rank``: an int32 scalar (TF 2.4's ragged ``rank``)."""
    return wrap(torch.tensor(rank_of(rt), dtype=torch.int32), dtypes.int32)


def cast(x: RaggedTensor, dtype, fn):
    return x.with_flat_values(fn(x.flat_values, dtype))


# --- sparse <-> ragged ---------------------------------------------------------------
def to_sparse(self, name=None) -> SparseTensor:
    """Converts this ``RaggedTensor`` into a ``tf.sparse.SparseTensor``.

    Args:
      name: A name for the operation (optional).

    Returns:
      A SparseTensor of shape ``bounding_shape()`` holding every value at its
      position (row-major order).

    >>> import torchflow as tf
    >>> tf.ragged.constant([[1, 2], [3]]).to_sparse().indices.numpy()
    array([[0, 0],
           [0, 1],
           [1, 0]])
    """
    flat = self.flat_values
    idx = flat_index(self)
    inner = list(flat._t.shape[1:])
    n_inner = 1
    for d in inner:
        n_inner *= int(d)
    cols = [ix.repeat_interleave(n_inner) for ix in idx]
    if inner:
        grid = torch.stack(torch.meshgrid(*[torch.arange(int(d)) for d in inner],
                                          indexing="ij"), -1).reshape(-1, len(inner))
        cols += [grid[:, j].repeat(idx[0].shape[0]) for j in range(len(inner))]
    indices = torch.stack(cols, 1) if cols[0].numel() else torch.zeros(
        (0, len(cols)), dtype=torch.int64)
    values = flat._t.reshape(-1)
    shape = self.bounding_shape(out_type=dtypes.int64)
    return SparseTensor(wrap(indices, dtypes.int64), wrap(values, flat._dtype), shape)


def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64) -> RaggedTensor:
    """A 2-D RaggedTensor from a 2-D ``SparseTensor`` with row-major, left-aligned indices.

    Args:
      st_input: A 2-D ``tf.sparse.SparseTensor``.
      name: A name for the operation (optional).
      row_splits_dtype: ``tf.int64`` (default) or ``tf.int32``, the row splits' dtype.

    Returns:
      A RaggedTensor whose row ``i`` holds row ``i``'s values.

    Raises:
      TypeError: If ``st_input`` is not a SparseTensor.
      ValueError: If it is not 2-D.
      InvalidArgumentError: If its indices are not right-ragged (each row's
        columns ``0, 1, ...`` in order, as TF checks).
    """
    if not isinstance(st_input, SparseTensor):
        raise TypeError(f"Expected SparseTensor, got {type(st_input).__name__}")
    if st_input.shape.rank != 2:
        raise ValueError("rank(st_input) must be 2")
    ind = st_input.indices._t.to(torch.int64).cpu()
    if ind.shape[0]:
        new_row = ind[1:, 0] != ind[:-1, 0]
        ok = torch.where(new_row, ind[1:, 1] == 0, ind[1:, 1] == ind[:-1, 1] + 1)
        if int(ind[0, 1]) != 0 or not bool(ok.all()):
            raise InvalidArgumentError(None, None, "SparseTensor is not right-ragged")
    rows = st_input.indices._t[:, 0]
    nrows = int(st_input.dense_shape._t[0])
    return cls.from_value_rowids(st_input.values, wrap(rows, dtypes.int64), nrows,
                                 validate=False).with_row_splits_dtype(row_splits_dtype)


# --- operators ---------------------------------------------------------------------
def _reflect(fn):
    def rop(self, other):
        return fn(other, self)
    return rop


def install() -> None:
    """Installs the Python operators on RaggedTensor and registers the dispatch."""
    ops = {"add": m.add, "sub": m.subtract, "mul": m.multiply, "truediv": m.truediv,
           "floordiv": m.floordiv, "mod": m.floormod, "pow": m.pow,
           "and": cmp.logical_and, "or": cmp.logical_or, "xor": cmp.logical_xor}
    for name, fn in ops.items():
        setattr(RaggedTensor, f"__{name}__", fn)
        setattr(RaggedTensor, f"__r{name}__", _reflect(fn))
    RaggedTensor.__div__ = m.truediv
    RaggedTensor.__lt__ = cmp.less
    RaggedTensor.__le__ = cmp.less_equal
    RaggedTensor.__gt__ = cmp.greater
    RaggedTensor.__ge__ = cmp.greater_equal
    RaggedTensor.__neg__ = um.negative
    RaggedTensor.__abs__ = um.abs
    RaggedTensor.__invert__ = cmp.logical_not
    RaggedTensor.to_sparse = to_sparse
    RaggedTensor.from_sparse = classmethod(from_sparse)  # pyright: ignore[reportAttributeAccessIssue] - a classmethod installed on the class
    _dispatch.COMPOSITE[RaggedTensor] = _Handler


class _Handler:
    """What the op helpers call for a RaggedTensor argument (see ``_dispatch.COMPOSITE``)."""

    elementwise = staticmethod(elementwise)
    unary = staticmethod(unary)
    reduce = staticmethod(reduce)
    concat = staticmethod(concat)
    stack = staticmethod(stack)
    gather = staticmethod(gather)
    gather_nd = staticmethod(gather_nd)
    where = staticmethod(where)
    cast = staticmethod(cast)
    tile = staticmethod(tile)
    reverse = staticmethod(reverse)
    map_fn = staticmethod(map_fn)
    expand_dims = staticmethod(expand_dims)
    shape = staticmethod(shape)
    size = staticmethod(size)
    rank = staticmethod(rank)
    one_hot = staticmethod(ragged_more_ops.one_hot)
    squeeze = staticmethod(ragged_more_ops.squeeze)
    unsorted_segment = staticmethod(ragged_more_ops.unsorted_segment)
    dynamic_partition = staticmethod(ragged_more_ops.dynamic_partition)
    values_op = staticmethod(ragged_more_ops.values_op)
    add_n = staticmethod(ragged_more_ops.add_n)


install()
