"""TF strided-slice indexing: ``Tensor.__getitem__``, ``tf.slice``, ``tf.strided_slice``.

Indices follow TF's ``_slice_helper``: ints (and scalar int32/int64 tensors),
slices (any step but 0), ``...`` and ``tf.newaxis``; a list is read like a
tuple. An int outside its dimension is an ``InvalidArgumentError`` (no
clamping, unlike slices). Integer-array indexing is a ``TypeError``, as in TF.

Differences from TensorFlow 2.4: a boolean tensor (or NumPy bool array) as the
whole index selects with ``tf.boolean_mask``, as TF 2.5+ does; TF 2.4 raised
TypeError for it.

Importing this module installs ``__getitem__`` on ``tf.Tensor``.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import _NATIVE, int_list, op_error, tensor_of
from torchflow._src.ops.gather_ops import boolean_mask
from torchflow._src.util.api import public

_INDEX_TYPES = (dtypes.int32, dtypes.int64)
_TTensor = torch.Tensor
_pyslice = builtins.slice
# The fast paths' dtype test, by name: a DType's __hash__ is Python code (~0.1 us).
_NATIVE_NAMES = frozenset(d.name for d in _NATIVE)


def _bad_index(k):
    return TypeError(
        "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
        f"tf.int32/tf.int64 tensors are valid indices, got {k!r}")


def _as_int(k):
    """The int an index item stands for, or raise TypeError like TF."""
    if isinstance(k, numbers.Integral):
        return int(k)
    if isinstance(k, Tensor) or hasattr(k, "_tf_value"):
        t = tensor_of(k)
        if t._dtype in _INDEX_TYPES and t._t.ndim == 0:
            return int(t._t.item())
        raise _bad_index(t)
    if isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu":
        return int(k)
    raise _bad_index(k)


def _bound(v):
    return None if v is None else (v if type(v) is int else _as_int(v))


def _norm(k):
    tk = type(k)
    if tk is int or k is None or k is Ellipsis:
        return k
    if tk is _pyslice:
        return _pyslice(_bound(k.start), _bound(k.stop), _bound(k.step))
    return _as_int(k)


def _oob(i: int, n: int, dim: int):
    return op_error("StridedSlice", f"slice index {i + n if i < 0 else i} of dimension {dim} "
                                    f"out of bounds.")


def _apply(x: Tensor, items) -> Tensor:  # noqa: C901 (one flat dispatch on the hot path)
    """Applies normalized index items (int / slice / None / Ellipsis) to ``x``."""
    t = x._t
    shape = t.shape
    rank = len(shape)
    n_ell = 0
    consumed = 0
    for k in items:
        if k is Ellipsis:
            n_ell += 1
        elif k is not None:
            consumed += 1
    if n_ell > 1:
        raise op_error("StridedSlice", "Multiple ellipses in slice spec not allowed")
    if consumed and rank == 0:
        raise op_error("StridedSlice", "Attempting to slice scalar input.")
    if consumed > rank:
        raise op_error("StridedSlice", f"Index out of range using input dim {rank}; input has "
                                       f"only {rank} dims")
    key = []
    flips = []
    dim = 0
    for pos, k in enumerate(items):
        if k is None:
            key.append(None)
        elif k is Ellipsis:
            for _ in range(rank - consumed):
                key.append(_pyslice(None))
                dim += 1
        elif type(k) is int:
            n = shape[dim]
            if not -n <= k < n:
                raise _oob(k, n, dim)
            key.append(k)
            dim += 1
        else:
            step = k.step
            if step == 0:
                raise op_error("StridedSlice", f"strides[{pos}] must be non-zero")
            if step is None or step > 0:
                key.append(k)
            else:
                n = shape[dim]
                start, stop, step = k.indices(n)
                count = len(range(start, stop, step))
                if count:
                    s = n - 1 - start
                    key.append(_pyslice(s, s + (count - 1) * -step + 1, -step))
                else:
                    key.append(_pyslice(0, 0))
                flips.append(dim)
            dim += 1
    key = tuple(key)
    if isinstance(t, np.ndarray):
        if flips:
            t = np.flip(t, flips)
        r = t[key]
        return wrap(r if isinstance(r, np.ndarray) else np.array(r, dtype=object),
                    dtypes.string)
    nt = _NATIVE.get(x._dtype)
    if nt is not None:
        t = t.view(nt)
    if flips:
        t = t.flip(flips)
    r = t[key]
    return wrap(r if nt is None else r.view(x._dtype._torch), x._dtype)


def getitem(self: Tensor, key) -> Tensor:
    """``tensor[key]`` with TF's strided-slice semantics."""
    tk = type(key)
    t = self._t
    if type(t) is _TTensor and self._dtype._name not in _NATIVE_NAMES:
        # Fast paths: x[i] and x[a:b] (positive or no step).
        if tk is int:
            if t.ndim:
                n = t.shape[0]
                if -n <= key < n:
                    return wrap(t[key], self._dtype)
        elif tk is _pyslice:
            st = key.step
            if (st is None or (type(st) is int and st > 0)) and t.ndim and \
                    (key.start is None or type(key.start) is int) and \
                    (key.stop is None or type(key.stop) is int):
                return wrap(t[key], self._dtype)
    if tk is tuple and type(t) is _TTensor and self._dtype._name not in _NATIVE_NAMES and \
            len(key) <= t.ndim:
        # Fast path: ints in range and slices with int bounds and positive steps.
        shape = t.shape
        for i, k in enumerate(key):
            tk = type(k)
            if tk is int:
                if not -shape[i] <= k < shape[i]:
                    break
            elif tk is _pyslice:
                st, a, b = k.step, k.start, k.stop
                if not ((st is None or (type(st) is int and st > 0))
                        and (a is None or type(a) is int) and (b is None or type(b) is int)):
                    break
            else:
                break
        else:
            return wrap(t[key], self._dtype)
        tk = tuple
    if isinstance(key, Tensor) and key._dtype is dtypes.bool or (
            isinstance(key, np.ndarray) and key.dtype == np.bool_):
        return boolean_mask(self, key)
    if graph_trace._ACTIVE is not None and _tensor_items(key):
        # Tensor indices in a traced function: read on every call of the replay.
        return _indexed_node(self, key)
    return _indexed(self, key)


def _indexed(x: Tensor, key) -> Tensor:
    items = [_norm(k) for k in key] if type(key) in (tuple, list) else [_norm(key)]
    return _apply(x, items)


@graph_trace.host_op(dry=graph_trace.RUN, pure=True)
def _indexed_node(x: Tensor, key) -> Tensor:
    return _indexed(x, key)


def _is_tensor_item(k) -> bool:
    if type(k) is _pyslice:
        return any(_is_tensor_item(b) for b in (k.start, k.stop, k.step))
    return isinstance(k, Tensor) or hasattr(k, "_tf_value")


def _tensor_items(key) -> bool:
    if type(key) in (tuple, list):
        return any(_is_tensor_item(k) for k in key)
    return _is_tensor_item(key)


Tensor.__getitem__ = getitem  # pyright: ignore[reportAttributeAccessIssue] - installed on Tensor here


@public("torchflow")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None) -> Tensor:
    """Extracts a strided slice of a tensor (what ``tensor[...]`` does).

    Bit ``i`` of each mask refers to entry ``i`` of ``begin``/``end``/``strides``:
    ``begin_mask``/``end_mask`` ignore the bound (full range),
    ``ellipsis_mask`` makes the entry ``...``, ``new_axis_mask`` a new
    dimension of size 1, and ``shrink_axis_mask`` takes the single index
    ``begin[i]`` and removes the dimension.

    Args:
      input_: A tensor.
      begin: A 1-D int32/int64 list or tensor of start indices.
      end: A 1-D int list or tensor of (exclusive) end indices, as long as ``begin``.
      strides: None (default: all 1) or a 1-D int list of non-zero steps.
      begin_mask: int bitmask, default 0.
      end_mask: int bitmask, default 0.
      ellipsis_mask: int bitmask, default 0.
      new_axis_mask: int bitmask, default 0.
      shrink_axis_mask: int bitmask, default 0.
      var: None (default); the variable being sliced, for sliced assignment.
      name: Unused (eager).

    Returns:
      A tensor of ``input_``'s dtype.

    Raises:
      InvalidArgumentError: For a zero stride, several ellipses, mismatched
        lengths, or a shrink index out of range.

    >>> import torchflow as tf
    >>> tf.strided_slice(tf.range(10), [1], [8], [3]).numpy()
    array([1, 4, 7], dtype=int32)
    """
    x = tensor_of(input_)
    b = int_list(begin, "begin")
    e = int_list(end, "end")
    s = [1] * len(b) if strides is None else int_list(strides, "strides")
    if not len(b) == len(e) == len(s):
        raise op_error("StridedSlice", f"Expected begin, end, and strides to be 1D equal size "
                                       f"tensors, but got shapes [{len(b)}], [{len(e)}], and "
                                       f"[{len(s)}] instead.")
    items = []
    for i in range(len(b)):
        bit = 1 << i
        if ellipsis_mask & bit:
            items.append(Ellipsis)
        elif new_axis_mask & bit:
            items.append(None)
        elif shrink_axis_mask & bit:
            items.append(b[i])
        else:
            items.append(_pyslice(None if begin_mask & bit else b[i],
                               None if end_mask & bit else e[i], s[i]))
    for i, st in enumerate(s):
        if st == 0:
            raise op_error("StridedSlice", f"strides[{i}] must be non-zero")
    return _apply(x, items)


@public("torchflow")
def slice(input_, begin, size, name=None) -> Tensor:  # noqa: A001 - TF's name
    """Extracts the block starting at ``begin`` of extent ``size`` (-1: to the end).

    Args:
      input_: A tensor.
      begin: A 1-D int32/int64 list or tensor of ``rank(input_)`` start indices.
      size: A 1-D int list or tensor of ``rank(input_)`` extents; -1 takes the rest of the
        dimension.
      name: Unused (eager).

    Returns:
      A tensor of ``input_``'s dtype and shape ``size`` (with -1 resolved).

    Raises:
      InvalidArgumentError: If ``begin``/``size`` do not fit the tensor.

    >>> import torchflow as tf
    >>> tf.slice([[1, 2, 3], [4, 5, 6]], [1, 0], [1, 2]).numpy()
    array([[4, 5]], dtype=int32)
    """
    x = tensor_of(input_)
    b = int_list(begin, "begin")
    sz = int_list(size, "size")
    shape = list(x._t.shape)
    rank = len(shape)
    if len(b) != rank or len(sz) != rank:
        raise op_error("Slice", f"Expected begin and size arguments to be 1-D tensors of size "
                                f"{rank}, but got shapes [{len(b)}] and [{len(sz)}] instead.")
    items = []
    for i in range(rank):
        n = shape[i]
        if not 0 <= b[i] <= n:
            raise op_error("Slice", f"Expected begin[{i}] in [0, {n}], but got {b[i]}")
        s = n - b[i] if sz[i] == -1 else sz[i]
        if not 0 <= s <= n - b[i]:
            raise op_error("Slice", f"Expected size[{i}] in [0, {n - b[i]}], but got {sz[i]}")
        items.append(_pyslice(b[i], b[i] + s))
    return _apply(x, items)


__all__ = ["getitem", "strided_slice", "slice"]
