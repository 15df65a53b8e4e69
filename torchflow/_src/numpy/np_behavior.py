"""``tnp.experimental_enable_numpy_behavior``: NumPy methods and operators on tf.Tensor.

Off by default. Switching it on:

* sets the float preference: ``prefer_float32=True`` makes Python floats/complex
  count as float32/complex64 in promotion and makes the default float type
  (``zeros``, ``sin`` of ints, ``mean`` of ints ...) float32 (TF 2.4's rule;
  explicit float64 arrays stay float64);
* replaces the Python operators of ``tf.Tensor`` (``+ - * / // % ** @ & | ^ ~``,
  unary ``-``/``abs``, ``< <= > >= == !=``) with the tnp functions, so they use NumPy
  type promotion (``int32_tensor + 1.5`` is float64) instead of TF's "same dtype only"
  rule;
* replaces ``tf.Tensor.__getitem__`` with NumPy indexing (integer arrays, boolean
  masks, lists, mixed with slices/None/...);
* adds NumPy attributes and methods to ``tf.Tensor``: ``T``, ``size``, ``itemsize``,
  ``nbytes``, ``data``, ``at``, ``astype``, ``reshape``, ``ravel``, ``flatten``,
  ``transpose``, ``swapaxes``, ``squeeze``, ``clip``, ``tolist``, ``item``, ``sum``,
  ``prod``, ``mean``, ``std``, ``var``, ``max``, ``min``, ``argmax``, ``argmin``,
  ``all``, ``any``, ``cumsum``, ``cumprod``, ``round``, ``conj``, ``real``, ``imag``,
  ``nonzero``, ``diagonal``, ``trace``, ``sort``, ``argsort``, ``repeat``, ``take``,
  ``dot``, ``copy``, ``fill``-free (tensors stay immutable; use ``.at``).

``_disable_numpy_behavior()`` (private, for tests) restores everything saved.
"""

from __future__ import annotations

from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_array_ops as ao
from torchflow._src.numpy import np_creation as cr
from torchflow._src.numpy import np_dtypes as _d
from torchflow._src.numpy import np_index_ops as ix
from torchflow._src.numpy import np_math as m
from torchflow._src.numpy import np_math_unary as mu
from torchflow._src.numpy import np_reduce as r
from torchflow._src.numpy.np_arrays import asarray
from torchflow._src.numpy.np_at import _AtIndexer
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

_SAVED: dict = {}
_MISSING = object()


def _rev(f):
    return lambda self, other: f(other, self)


def _eq(self, other):
    if other is None:
        return False
    return m.equal(self, other)


def _ne(self, other):
    if other is None:
        return True
    return m.not_equal(self, other)


def _reshape(self, *shape, order="C"):
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    return ao.reshape(self, shape, order)


def _transpose(self, *axes):
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = axes[0]
    return ao.transpose(self, axes or None)


def _item(self, *args):
    a = self.numpy()
    return a.item(*args) if hasattr(a, "item") else a


def _tolist(self):
    a = self.numpy()
    return a.tolist() if hasattr(a, "tolist") else a


_METHODS = {
    "__add__": m.add, "__radd__": _rev(m.add),
    "__sub__": m.subtract, "__rsub__": _rev(m.subtract),
    "__mul__": m.multiply, "__rmul__": _rev(m.multiply),
    "__truediv__": m.true_divide, "__rtruediv__": _rev(m.true_divide),
    "__floordiv__": m.floor_divide, "__rfloordiv__": _rev(m.floor_divide),
    "__mod__": m.mod, "__rmod__": _rev(m.mod),
    "__pow__": m.power, "__rpow__": _rev(m.power),
    "__matmul__": r.matmul, "__rmatmul__": _rev(r.matmul),
    "__and__": m.bitwise_and, "__rand__": _rev(m.bitwise_and),
    "__or__": m.bitwise_or, "__ror__": _rev(m.bitwise_or),
    "__xor__": m.bitwise_xor, "__rxor__": _rev(m.bitwise_xor),
    "__invert__": lambda s: m.logical_not(s) if s._dtype.is_bool else mu.bitwise_not(s),
    "__neg__": mu.negative, "__abs__": mu.abs, "__pos__": mu.positive,
    "__lt__": m.less, "__le__": m.less_equal, "__gt__": m.greater,
    "__ge__": m.greater_equal, "__eq__": _eq, "__ne__": _ne,
    "__getitem__": _k.getitem,
    "T": property(lambda s: ao.transpose(s)),
    "size": property(_k.num_elements),
    "itemsize": property(lambda s: s._dtype.size),
    "nbytes": property(lambda s: _k.num_elements(s) * s._dtype.size),
    "data": property(lambda s: s),
    "at": property(_AtIndexer),
    "astype": lambda s, dtype: asarray(s, dtype),
    "reshape": _reshape,
    "ravel": ao.ravel, "flatten": ao.ravel,
    "transpose": _transpose,
    "swapaxes": ao.swapaxes, "squeeze": ao.squeeze,
    "clip": lambda s, a_min=None, a_max=None: m.clip(s, a_min, a_max),
    "tolist": _tolist, "item": _item,
    "sum": r.sum, "prod": r.prod, "mean": r.mean, "std": r.std, "var": r.var,
    "max": r.amax, "min": r.amin, "argmax": r.argmax, "argmin": r.argmin,
    "all": r.all, "any": r.any, "cumsum": r.cumsum, "cumprod": r.cumprod,
    "round": m.around, "conj": mu.conj, "real": property(m.real), "imag": property(m.imag),
    "nonzero": ix.nonzero, "diagonal": cr.diagonal, "trace": r.trace,
    "sort": ix.sort, "argsort": ix.argsort, "repeat": ao.repeat, "take": ix.take,
    "dot": r.dot, "copy": cr.copy,
}


@public("torchflow.experimental.numpy")
def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Adds NumPy methods, NumPy indexing and NumPy-promoting operators to ``tf.Tensor``.

    Calling it again updates ``prefer_float32``. See the module docstring (and
    ``docs/numpy.md``) for the complete list of what it switches.

    Args:
      prefer_float32: make Python floats float32 and canonicalize 64-bit float
        results to 32-bit.
      dtype_conversion_mode: accepted for newer TF's signature; only "legacy".
    """
    _d.CONFIG.prefer_float32 = bool(prefer_float32)
    if _d.CONFIG.numpy_behavior:
        return
    for name, fn in _METHODS.items():
        _SAVED[name] = Tensor.__dict__.get(name, _MISSING)
        setattr(Tensor, name, fn)
    _d.CONFIG.numpy_behavior = True


def _disable_numpy_behavior():
    """Restores tf.Tensor and the float preference (for tests)."""
    _d.CONFIG.allow_float64 = True
    _d.CONFIG.prefer_float32 = False
    if not _d.CONFIG.numpy_behavior:
        return
    for name, orig in _SAVED.items():
        if orig is _MISSING:
            delattr(Tensor, name)
        else:
            setattr(Tensor, name, orig)
    _SAVED.clear()
    _d.CONFIG.numpy_behavior = False
