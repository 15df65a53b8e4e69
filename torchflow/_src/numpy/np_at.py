"""Functional item assignment: ``x.at[idx].set(v)`` and ``tnp.put``-style helpers.

Tensors are immutable, so these return a NEW tensor with the update applied and
leave ``x`` unchanged (JAX's ``.at`` API). They are differentiable with respect to
``x`` and ``v`` under ``tf.GradientTape``. ``tnp.at(x)`` works always;
``x.at`` as a property exists while ``experimental_enable_numpy_behavior`` is on.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_array_ops as ao
from torchflow._src.numpy import np_creation as cr
from torchflow._src.numpy.np_arrays import asarray
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"


class _IndexUpdate:
    __slots__ = ("_x", "_key")

    def __init__(self, x, key):
        self._x = x
        self._key = key

    def _do(self, v, how):
        x = self._x
        v = asarray(v, x._dtype) if not (type(v) is Tensor and v._dtype is x._dtype) else v
        return _k.index_update(x, self._key, v, how)

    def set(self, values):
        """``x`` with ``x[idx] = values``."""
        return self._do(values, "set")

    def add(self, values):
        """``x`` with ``x[idx] += values`` (repeated integer indices accumulate)."""
        return self._do(values, "add")

    def multiply(self, values):
        """``x`` with ``x[idx] *= values``."""
        return self._do(values, "multiply")

    def min(self, values):
        """``x`` with ``x[idx] = minimum(x[idx], values)``."""
        return self._do(values, "min")

    def max(self, values):
        """``x`` with ``x[idx] = maximum(x[idx], values)``."""
        return self._do(values, "max")

    def get(self):
        """``x[idx]`` with NumPy indexing."""
        return _k.getitem(self._x, self._key)


class _AtIndexer:
    __slots__ = ("_x",)

    def __init__(self, x):
        self._x = x

    def __getitem__(self, key):
        return _IndexUpdate(self._x, key)


@public(_MOD)
def at(x):
    """The functional-update helper of ``x``: ``tnp.at(x)[idx].set(v)``.

    >>> import torchflow.experimental.numpy as tnp
    >>> x = tnp.zeros(3)
    >>> tnp.at(x)[1].set(5.).numpy().tolist()
    [0.0, 5.0, 0.0]
    """
    return _AtIndexer(asarray(x))


@public(_MOD)
def put(a, ind, v, mode="raise"):
    """Functional ``np.put``: a new array, ``a`` flattened with ``a.flat[ind] = v``.

    Differences from NumPy: returns the result instead of updating ``a`` in place.
    """
    a = asarray(a)
    ind = asarray(ind, np.int64)
    n = _k.num_elements(a)
    if mode == "wrap":
        ind = asarray(ind.numpy() % n)
    elif mode == "clip":
        ind = asarray(np.clip(ind.numpy(), 0, n - 1))
    flat = _k.reshape(a, (-1,))
    vals = asarray(v, a._dtype)
    nind = _k.num_elements(ind)
    vals = _k.reshape(vals, (-1,))
    nvals = _k.num_elements(vals)
    if nvals != nind and nvals:
        reps = -(-nind // nvals)
        vals = _k.getitem(_k.tile(vals, (reps,)), slice(0, nind))
    out = _k.index_update(flat, _k.reshape(ind, (-1,)), vals, "set")
    return _k.reshape(out, _k.shape_tuple(a))


@public(_MOD)
def put_along_axis(arr, indices, values, axis):
    """Functional ``np.put_along_axis``: returns the updated copy of ``arr``."""
    arr = asarray(arr)
    idx = asarray(indices, np.int64)
    grids = list(cr.indices(_k.shape_tuple(idx), sparse=True))
    grids[axis] = idx
    vals = ao.broadcast_to(asarray(values, arr._dtype), _k.shape_tuple(idx))
    return _k.index_update(arr, tuple(grids), vals, "set")


@public(_MOD)
def index_update(x, idx, y):
    """``x`` with ``x[idx] = y`` (a new tensor)."""
    return at(x)[idx].set(y)


@public(_MOD)
def index_add(x, idx, y):
    """``x`` with ``x[idx] += y`` (a new tensor)."""
    return at(x)[idx].add(y)
