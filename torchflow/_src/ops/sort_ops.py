"""Sorting and set-like ops: sort, argsort, unique, unique_with_counts, searchsorted."""

from __future__ import annotations

import collections

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import (
    _NATIVE,
    int_value,
    is_str,
    op_error,
    tensor_of,
    tfname,
)
from torchflow._src.util.api import public

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _sortable(x: Tensor, op: str):
    d = x._dtype
    if d._kind not in "fiu":
        raise op_error(op, f"Value for attr 'T' of {tfname(d)} is not in the list of allowed "
                           f"values: bfloat16, half, float, double, int8, int16, int32, int64")
    return x._t.to(torch.int64) if d in _NATIVE else x._t


def _sort_args(values, axis, direction, op):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    x = tensor_of(values)
    t = _sortable(x, op)
    rank = t.ndim
    a = int_value(axis, "axis")
    if not -rank <= a < rank:
        raise op_error("StridedSlice", f"slice index {a} of dimension 0 out of bounds.")
    return x, t, a, direction == "DESCENDING"


@public("torchflow")
def sort(values, axis=-1, direction="ASCENDING", name=None) -> Tensor:
    """Sorts a tensor along ``axis``.

    Args:
      values: A numeric Tensor (not bool, complex or string).
      axis: The dimension to sort (default last).
      direction: "ASCENDING" or "DESCENDING".
      name: Unused (eager).

    Returns:
      The sorted Tensor (same dtype and shape).

    Raises:
      ValueError: For an unknown ``direction``.
      InvalidArgumentError: For an unsupported dtype or axis out of range.

    >>> import torchflow as tf
    >>> tf.sort([3, 1, 2], direction="DESCENDING").numpy()
    array([3, 2, 1], dtype=int32)
    """
    x, t, a, desc = _sort_args(values, axis, direction, "Sort")
    out = torch.sort(t, dim=a, descending=desc, stable=True).values
    return wrap(out.to(x._t.dtype) if x._dtype in _NATIVE else out, x._dtype)


@public("torchflow")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None) -> Tensor:
    """Indices (int32) that sort ``values`` along ``axis``; ties keep their order.

    Args:
      values: A numeric tensor.
      axis: int, default -1: the dimension to sort along.
      direction: ``'ASCENDING'`` (default) or ``'DESCENDING'``.
      stable: bool, default False; the sort here is always stable.
      name: Unused (eager).

    Returns:
      An int32 tensor of ``values``' shape.

    Raises:
      ValueError: For an unknown ``direction``.
      InvalidArgumentError: For an unsupported dtype or axis out of range.
    """
    x, t, a, desc = _sort_args(values, axis, direction, "ArgSort")
    idx = torch.sort(t, dim=a, descending=desc, stable=True).indices
    return wrap(idx.to(torch.int32), dtypes.int32)


def _unique(values, out_idx, op):
    x = tensor_of(values)
    od = dtypes.as_dtype(out_idx)
    if od not in (dtypes.int32, dtypes.int64):
        raise op_error(op, f"Value for attr 'out_idx' of {tfname(od)} is not in the list of "
                           f"allowed values: int32, int64")
    if x._t.ndim != 1:
        raise op_error(op, "unique expects a 1D vector.")
    t = x._t
    if is_str(t):
        first = {}
        inv = np.empty(t.size, dtype=np.int64)
        counts = []
        for i, v in enumerate(t):
            j = first.get(v)
            if j is None:
                j = first[v] = len(first)
                counts.append(0)
            counts[j] += 1
            inv[i] = j
        y = np.empty(len(first), dtype=object)
        for v, j in first.items():
            y[j] = v
        return (wrap(y, dtypes.string), wrap(torch.from_numpy(inv).to(od._torch), od),
                wrap(torch.tensor(counts, dtype=od._torch), od))
    src = t.to(torch.int64) if x._dtype in _NATIVE else t
    try:
        u, inv, cnt = torch.unique(src, sorted=True, return_inverse=True, return_counts=True)
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None
    n = src.shape[0]
    pos = torch.arange(n, device=src.device)
    first = torch.full((u.shape[0],), n, dtype=torch.int64, device=src.device)
    first = first.scatter_reduce(0, inv, pos, "amin", include_self=True)
    order = torch.argsort(first)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.shape[0], device=src.device)
    y = u[order]
    if x._dtype in _NATIVE:
        y = y.to(t.dtype)
    return (wrap(y, x._dtype), wrap(rank[inv].to(od._torch), od),
            wrap(cnt[order].to(od._torch), od))


@public("torchflow")
def unique(x, out_idx=dtypes.int32, name=None) -> Unique:
    """Finds the unique elements of a 1-D tensor, in order of first appearance.

    Args:
      x: A 1-D tensor.
      out_idx: ``tf.int32`` (default) or ``tf.int64``: the dtype of ``idx``.
      name: Unused (eager).

    Returns:
      ``Unique(y, idx)``: ``y`` holds the unique values and ``x == gather(y, idx)``.

    Raises:
      InvalidArgumentError: If ``x`` is not 1-D.

    >>> import torchflow as tf
    >>> tf.unique([1, 1, 4, 2, 4]).y.numpy()
    array([1, 4, 2], dtype=int32)
    """
    y, idx, _ = _unique(x, out_idx, "Unique")
    return Unique(y, idx)


@public("torchflow")
def unique_with_counts(x, out_idx=dtypes.int32, name=None) -> UniqueWithCounts:
    """Like ``unique``, also returning how often each unique value occurs.

    Args:
      x: A 1-D tensor.
      out_idx: ``tf.int32`` (default) or ``tf.int64``: the dtype of ``idx``.
      name: Unused (eager).

    Returns:
      ``UniqueWithCounts(y, idx, count)``: the unique values, the index of each ``x``
        element in ``y``, and each value's count (``out_idx`` dtype).

    Raises:
      InvalidArgumentError: If ``x`` is not 1-D.
    """
    return UniqueWithCounts(*_unique(x, out_idx, "UniqueWithCounts"))


@public("torchflow")
def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32,
                 name=None) -> Tensor:
    """Finds where ``values`` would be inserted in the innermost dimension of
    ``sorted_sequence`` to keep it sorted.

    Args:
      sorted_sequence: N-D tensor sorted along its last dimension.
      values: N-D tensor with the same leading dimensions.
      side: "left" (first suitable position) or "right" (last).
      out_type: int32 (default) or int64.
      name: Unused (eager).

    Returns:
      A Tensor of ``values``' shape.

    Raises:
      ValueError: For an unknown ``side``.
      InvalidArgumentError: If the leading dimensions differ.
    """
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = {side}.")
    s = tensor_of(sorted_sequence)
    v = tensor_of(values, s._dtype) if not isinstance(values, Tensor) else values
    if v._dtype is not s._dtype:
        raise op_error("LowerBound", f"cannot compute LowerBound as input #1(zero-based) was "
                                     f"expected to be a {s._dtype.name} tensor but is a "
                                     f"{v._dtype.name} tensor")
    od = dtypes.as_dtype(out_type)
    st, vt = _sortable(s, "LowerBound"), _sortable(v, "LowerBound")
    if st.ndim == 0 or vt.ndim == 0 or tuple(st.shape[:-1]) != tuple(vt.shape[:-1]):
        raise op_error("UpperBound" if side == "right" else "LowerBound",
                       f"Leading dim_size of both tensors must match. sorted_inputs shape "
                       f"{list(st.shape)}, values shape {list(vt.shape)}")
    try:
        r = torch.searchsorted(st.contiguous(), vt.contiguous(), right=side == "right")
    except Exception as e:  # noqa: BLE001
        raise translate("LowerBound", e) from None
    return wrap(r.to(od._torch), od)


__all__ = ["sort", "argsort", "unique", "unique_with_counts", "searchsorted", "Unique",
           "UniqueWithCounts"]
