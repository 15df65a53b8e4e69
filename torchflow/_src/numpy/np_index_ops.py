"""tnp sorting, searching, indexing and array inspection."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_math as _m
from torchflow._src.numpy.np_array_ops import ravel, stack
from torchflow._src.numpy.np_arrays import asarray, promote
from torchflow._src.numpy.np_creation import arange, tri, zeros
from torchflow._src.ops import numpy_math_ops as _e
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"


# --- sorting, searching, indexing ----------------------------------------------------------
@public(_MOD)
def sort(a, axis=-1, kind="quicksort", order=None):
    """TensorFlow variant of NumPy's ``sort``: a sorted copy.

    Args:
      a: An array-like.
      axis: The axis to sort along; None flattens ``a`` first.
      kind: ``'stable'`` keeps equal elements in order; other kinds sort unstably.
      order: Ignored (no structured arrays).

    Returns:
      A Tensor of ``a``'s dtype.
    """
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    return _k.sort(a, axis, False, kind == "stable")


@public(_MOD)
def argsort(a, axis=-1, kind="quicksort", order=None):
    """TensorFlow variant of NumPy's ``argsort``: the indices that sort ``a``.

    Args:
      a: An array-like.
      axis: The axis to sort along; None flattens ``a`` first.
      kind: ``'stable'`` or ``'mergesort'`` keep equal elements in order.
      order: Ignored (no structured arrays).

    Returns:
      An int64 Tensor.
    """
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    return _k.argsort(a, axis, kind in ("stable", "mergesort"))


@public(_MOD)
def searchsorted(a, v, side="left", sorter=None):
    """Insertion indices of ``v`` into the sorted 1-d ``a``."""
    a, v = promote(a, v)
    if sorter is not None:
        a = take(a, sorter)
    return _k.searchsorted(a, v, side)


@public(_MOD)
def where(condition, x=None, y=None):
    """TensorFlow variant of NumPy's ``where``: ``x`` where ``condition`` holds, else ``y``.

    Args:
      condition: An array-like, taken as bool.
      x: The values where ``condition`` is true, or None.
      y: The values elsewhere, or None; ``x`` and ``y`` are promoted to one dtype and
        broadcast with ``condition``.

    Returns:
      A Tensor; with neither ``x`` nor ``y``, ``nonzero(condition)``.

    Raises:
      ValueError: only one of ``x``, ``y`` is given.
    """
    c = asarray(condition, np.bool_)
    if x is None and y is None:
        return nonzero(c)
    if x is None or y is None:
        raise ValueError("Both x and y must be ndarrays, or both must be None.")
    x, y = promote(x, y)
    return _k.where(c, x, y)


@public(_MOD)
def nonzero(a):
    """TensorFlow variant of NumPy's ``nonzero``: the indices of the nonzero elements.

    Args:
      a: An array-like.

    Returns:
      A tuple of int64 1-D Tensors, one per axis of ``a``.
    """
    return tuple(_k.nonzero(asarray(a)))


@public(_MOD)
def argwhere(a):
    """Indices of the nonzero elements, one row each."""
    idx = nonzero(a)
    return stack(idx, axis=1) if idx else zeros((0, 0), np.int64)


@public(_MOD)
def flatnonzero(a):
    """Indices of the nonzero elements of the flattened array."""
    return nonzero(ravel(a))[0]


@public(_MOD)
def select(condlist, choicelist, default=0):
    """TensorFlow variant of NumPy's ``select``: picks from ``choicelist`` by the first true condition.

    Args:
      condlist: A list of bool array-likes.
      choicelist: A list of array-likes, as many as ``condlist``.
      default: The value where no condition holds.

    Returns:
      A Tensor of the broadcast shape and promoted dtype.

    Raises:
      ValueError: the two lists differ in length.
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    choices = promote(*choicelist, default)
    out = choices[-1]
    for c, v in zip(reversed(condlist), reversed(choices[:-1])):
        out = _k.where(asarray(c, np.bool_), v, out)
    return out


@public(_MOD)
def take(a, indices, axis=None, out=None, mode="clip"):
    """TensorFlow variant of NumPy's ``take``: elements at indices along an axis.

    Args:
      a: An array-like.
      indices: An integer array-like.
      axis: The axis to take along; None takes from the flattened ``a``.
      out: Must be None.
      mode: How out-of-range indices are handled: ``'clip'`` (the default, as TF's) or
        ``'wrap'``; ``'raise'`` is accepted and clips as well.

    Returns:
      A Tensor.

    Raises:
      ValueError: ``out`` is given, or an unknown ``mode``.
    """
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in ("raise", "clip", "wrap"):
        raise ValueError(f"Invalid mode '{mode}' for take")
    return _k.take(asarray(a), asarray(indices, np.int64), axis, mode)


@public(_MOD)
def take_along_axis(arr, indices, axis):
    """TensorFlow variant of NumPy's ``take_along_axis``: elements at matching indices along an axis.

    Args:
      arr: An array-like.
      indices: An integer array-like of ``arr``'s rank, broadcast against it off ``axis``.
      axis: The axis to take along.

    Returns:
      A Tensor of ``indices``' shape along ``axis``.
    """
    return _k.take_along_axis(asarray(arr), asarray(indices, np.int64), axis)


@public(_MOD)
def compress(condition, a, axis=None):
    """TensorFlow variant of NumPy's ``compress``: the slices where a condition holds.

    Args:
      condition: A 1-D bool array-like; entries past the length of the axis are ignored.
      a: An array-like.
      axis: The axis to select along; None flattens ``a`` first.

    Returns:
      A Tensor.

    Unsupported arguments: ``out``.
    """
    c = asarray(condition, np.bool_)
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    idx = nonzero(c)[0]
    n = _k.shape_tuple(a)[axis]
    idx = _k.getitem(idx, _e.less(idx, asarray(n, np.int64)))
    return _k.take(a, idx, axis, "clip")


@public(_MOD)
def extract(condition, arr):
    """Elements of the flattened ``arr`` where ``condition`` is true."""
    return compress(ravel(condition), ravel(arr))


@public(_MOD)
def diag_indices(n, ndim=2):
    """TensorFlow variant of NumPy's ``diag_indices``: indices of the main diagonal.

    Args:
      n: The length of each axis.
      ndim: The number of axes.

    Returns:
      A tuple of ``ndim`` int64 Tensors ``arange(n)``.
    """
    i = arange(n, dtype=np.int64)
    return (i,) * ndim


@public(_MOD)
def tril_indices(n, k=0, m=None):
    """Indices of the lower triangle of an ``(n, m)`` array."""
    return nonzero(tri(n, m, k, dtype=np.bool_))


@public(_MOD)
def triu_indices(n, k=0, m=None):
    """Indices of the upper triangle of an ``(n, m)`` array."""
    return nonzero(_m.logical_not(tri(n, m, k - 1, dtype=np.bool_)))


# --- array inspection ---------------------------------------------------------------------
@public(_MOD)
def ndim(a) -> int:
    """TensorFlow variant of NumPy's ``ndim``: the number of dimensions.

    Args:
      a: An array-like.

    Returns:
      A Python int.
    """
    return asarray(a).ndim


@public(_MOD)
def shape(a) -> tuple:
    """TensorFlow variant of NumPy's ``shape``: the shape.

    Args:
      a: An array-like.

    Returns:
      A tuple of Python ints.
    """
    return _k.shape_tuple(asarray(a))


@public(_MOD)
def size(x, axis=None) -> int:
    """TensorFlow variant of NumPy's ``size``: the number of elements.

    Args:
      x: An array-like.
      axis: None for all elements, else the length along that axis.

    Returns:
      A Python int.
    """
    s = shape(x)
    return int(np.prod(s)) if axis is None else s[axis]


@public(_MOD)
def isscalar(num) -> bool:
    """TensorFlow variant of NumPy's ``isscalar``: whether ``num`` is a scalar.

    Args:
      num: Any object.

    Returns:
      True for Python and NumPy scalars and 0-d Tensors, else False.
    """
    if isinstance(num, Tensor):
        return num.ndim == 0
    return np.isscalar(num)



@public(_MOD)
def ix_(*args):
    """TensorFlow variant of NumPy's ``ix_``: an open mesh of index arrays.

    Args:
      *args: 1-D integer (or bool, taken as the indices of the true entries) sequences.

    Returns:
      A list of Tensors, the ``i``-th of shape 1 except along axis ``i``, so they
      broadcast against each other when indexing.
    """
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if a._dtype is dtypes.bool:
            a = nonzero(a)[0]
        out.append(_k.reshape(a, tuple(-1 if j == i else 1 for j in range(n))))
    return out
