"""Dense <-> ragged: ``RaggedTensor.from_tensor``, ``to_tensor`` and ``merge_dims``.

Installed on ``RaggedTensor`` at import (as ``tensor_operators`` installs the
Tensor operators), so the class module stays one concept.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import as_shape
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    lengths_to_splits,
    rowids_of,
    splits_tensor,
)

_STR = dtypes.string


def _default_arg(rt: RaggedTensor, default_value):
    if default_value is None:
        return None
    d = convert_to_tensor(default_value, dtype=rt.dtype)
    inner = rt.flat_values.shape.as_list()[1:]
    if len(d._t.shape) > len(inner):
        raise ValueError(f"Shape {d.shape} must have rank at most {len(inner)}")
    return d._t


def _dense(rt, default):
    """The dense array (torch, or NumPy for strings) of ``rt``, padded with ``default``."""
    if not isinstance(rt, RaggedTensor):
        return rt._t
    inner = _dense(rt._values, default)
    s = rt._row_splits._t.to(torch.int64).cpu()
    lengths = s[1:] - s[:-1]
    width = int(lengths.max()) if lengths.shape[0] else 0
    shape = [lengths.shape[0], width] + list(inner.shape[1:])
    rows = rowids_of(s)
    pos = torch.arange(int(s[-1])) - s[:-1][rows]
    if isinstance(inner, np.ndarray):
        out = np.empty(shape, dtype=object)
        out[...] = b"" if default is None else default
        out[rows.numpy(), pos.numpy()] = inner
        return out
    out = torch.zeros(shape, dtype=inner.dtype, device=inner.device)
    if default is not None:
        out[...] = default
    dev = inner.device
    return out.index_put((rows.to(dev), pos.to(dev)), inner)


def _fit(a, shape, default):
    """``a`` cut or padded (with ``default``) to ``shape`` (None dims keep their size)."""
    target = [a.shape[i] if d is None else d for i, d in enumerate(shape)]
    if list(a.shape) == target:
        return a
    region = tuple(slice(0, min(x, y)) for x, y in zip(a.shape, target))
    if isinstance(a, np.ndarray):
        out = np.empty(target, dtype=object)
        out[...] = b"" if default is None else default
        out[region] = a[region]
        return out
    out = torch.zeros(target, dtype=a.dtype, device=a.device)
    if default is not None:
        out[...] = default
    out[region] = a[region]
    return out


def to_tensor(self, default_value=None, name=None, shape=None) -> Tensor:
    """Converts this ``RaggedTensor`` into a dense ``tf.Tensor``.

    Rows shorter than the longest are padded with ``default_value``.

    Args:
      default_value: The padding value (default zero, or ``b''`` for strings); a
        scalar or a tensor broadcastable to the inner shape.
      name: Unused (eager).
      shape: Optional shape of the result: values outside it are dropped,
        missing ones padded.

    Returns:
      A Tensor of the ragged tensor's dtype with shape ``bounding_shape()`` (or ``shape``).

    Raises:
      ValueError: If ``shape`` has a different rank.

    >>> import torchflow as tf
    >>> tf.ragged.constant([[1, 2], [3]]).to_tensor().numpy()
    array([[1, 2],
           [3, 0]], dtype=int32)
    """
    default = _default_arg(self, default_value)
    dense = _dense(self, default)
    if shape is not None:
        shape = as_shape(shape)
        if shape.rank is not None:
            if shape.rank != len(dense.shape):
                raise ValueError(f"Shape {shape} must have rank {len(dense.shape)}")
            dense = _fit(dense, shape.as_list(), default)
    return wrap(dense, self.dtype)


def _rank1_from_tensor(t: Tensor, lengths, padding, splits_dtype) -> RaggedTensor:
    a = t._t
    nrows, ncols = a.shape[0], a.shape[1]
    uniform = None
    if padding is not None:
        p = convert_to_tensor(padding, dtype=t._dtype)._t
        if isinstance(a, np.ndarray):
            eq = np.asarray(a == p, dtype=bool)
            eq = eq.reshape(nrows, ncols, -1).all(-1)
            nondefault = torch.from_numpy(~eq)
        else:
            nondefault = ~(a == p).reshape(nrows, ncols, -1).all(-1).cpu()
        cols = torch.arange(1, ncols + 1).expand(nrows, ncols)
        row_lengths = (cols * nondefault).max(1).values if ncols else torch.zeros(nrows,
                                                                                 dtype=torch.int64)
    elif lengths is not None:
        row_lengths = convert_to_tensor(lengths)._t.to(torch.int64).cpu()
        if row_lengths.shape[0] != nrows:
            raise ValueError(f"lengths must have {nrows} elements, got {row_lengths.shape[0]}")
        row_lengths = row_lengths.clamp(0, ncols)
    else:
        row_lengths = torch.full((nrows,), ncols, dtype=torch.int64)
        uniform = ncols
    mask = torch.arange(ncols)[None, :] < row_lengths[:, None]
    if isinstance(a, np.ndarray):
        values = wrap(a[mask.numpy()], _STR)
    else:
        values = wrap(a[mask.to(a.device)], t._dtype)
    return RaggedTensor(values, splits_tensor(lengths_to_splits(row_lengths), splits_dtype),
                        internal=True, uniform_row_length=uniform)


def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                row_splits_dtype=dtypes.int64) -> RaggedTensor:
    """Converts a dense ``tf.Tensor`` into a ``RaggedTensor``.

    Args:
      tensor: A Tensor of rank ``ragged_rank + 1`` or more.
      lengths: Optional 1-D lengths of the rows (of the innermost ragged dimension).
      padding: Optional padding value: trailing values equal to it are dropped.
      ragged_rank: The number of ragged dimensions (1 or more, below the rank).
      name: Unused (eager).
      row_splits_dtype: int32 or int64.

    Returns:
      A RaggedTensor with the same values.

    Raises:
      ValueError: If both ``lengths`` and ``padding`` are given or ``ragged_rank``
        is out of range.

    >>> import torchflow as tf
    >>> tf.RaggedTensor.from_tensor([[1, 0], [2, 3]], padding=0)
    <tf.RaggedTensor [[1], [2, 3]]>
    """
    splits_dtype = dtypes.as_dtype(row_splits_dtype)
    t = convert_to_tensor(tensor)
    rank = len(t._t.shape)
    if not isinstance(ragged_rank, int):
        raise TypeError(f"ragged_rank expected int, got {ragged_rank!r}")
    if ragged_rank <= 0:
        raise ValueError(f"ragged_rank must be greater than 0; got {ragged_rank}")
    if ragged_rank >= rank:
        raise ValueError(f"Expected tensor to have rank at least {ragged_rank + 1}; "
                         f"got shape {t.shape}")
    if lengths is not None and padding is not None:
        raise ValueError("Specify lengths or padding, but not both")
    if ragged_rank == 1:
        return _rank1_from_tensor(t, lengths, padding, splits_dtype)
    dims = list(t._t.shape)
    flat = wrap(t._t.reshape([dims[0] * dims[1]] + dims[2:]), t._dtype)
    inner = from_tensor(cls, flat, lengths, padding, ragged_rank - 1,
                        row_splits_dtype=splits_dtype)
    outer = torch.arange(dims[0] + 1, dtype=torch.int64) * dims[1]
    return RaggedTensor(inner, splits_tensor(outer, splits_dtype), internal=True,
                        uniform_row_length=dims[1])


def _merge_dense(t: Tensor, outer: int, inner: int) -> Tensor:
    dims = list(t._t.shape)
    n = 1
    for d in dims[outer:inner + 1]:
        n *= d
    return wrap(t._t.reshape(dims[:outer] + [n] + dims[inner + 1:]), t._dtype)


def _merge(rt, outer: int, inner: int):
    if not isinstance(rt, RaggedTensor):
        return _merge_dense(rt, outer, inner)
    if outer == 0:
        v = rt
        for _ in range(inner):
            v = v._values if isinstance(v, RaggedTensor) else _merge_dense(v, 0, 1)
        return v
    if outer > 1:
        return RaggedTensor(_merge(rt._values, outer - 1, inner - 1), rt._row_splits,
                            internal=True)
    s = rt._row_splits._t.to(torch.int64)
    v = rt._values
    for _ in range(inner - 1):
        if isinstance(v, RaggedTensor):
            s = v._row_splits._t.to(torch.int64)[s]
            v = v._values
        else:
            s = s * v._t.shape[1]
            v = _merge_dense(v, 0, 1)
    return RaggedTensor(v, splits_tensor(s, rt.row_splits_dtype), internal=True)


def merge_dims(self, outer_axis, inner_axis):
    """Merges dimensions ``outer_axis`` through ``inner_axis`` (inclusive) into one.

    Args:
      outer_axis: The first dimension to merge (negative counts from the end).
      inner_axis: The last dimension to merge.

    Returns:
      A RaggedTensor (or a Tensor when no ragged dimension is left).

    Raises:
      ValueError: If ``outer_axis > inner_axis`` or an axis is out of range.

    >>> import torchflow as tf
    >>> tf.ragged.constant([[[1, 2], [3]], [[4]]]).merge_dims(0, 1)
    <tf.RaggedTensor [[1, 2], [3], [4]]>
    """
    rank = self.shape.rank
    outer = outer_axis + rank if outer_axis < 0 else outer_axis
    inner = inner_axis + rank if inner_axis < 0 else inner_axis
    if not (0 <= outer < rank and 0 <= inner < rank):
        raise ValueError(f"axis {outer_axis if not 0 <= outer < rank else inner_axis} is out "
                         f"of bounds for a tensor of rank {rank}")
    if outer > inner:
        raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to "
                         f"inner_axis ({inner_axis})")
    if outer == inner:
        return self
    return _merge(self, outer, inner)


RaggedTensor.to_tensor = to_tensor
RaggedTensor.from_tensor = classmethod(from_tensor)  # pyright: ignore[reportAttributeAccessIssue] - a classmethod installed on the class
RaggedTensor.merge_dims = merge_dims
