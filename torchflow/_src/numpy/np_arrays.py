"""Conversion to tnp arrays (``tnp.ndarray`` is ``tf.Tensor``) and dtype promotion helpers.

Zero-copy: ``asarray`` of a C-contiguous CPU NumPy array whose dtype is already the
result dtype shares the array's memory (as NumPy's ``asarray`` does); ``array``
copies unless ``copy=False``. A float64 array copies when ``prefer_float32`` turns
it into float32, and every array copies onto a non-CPU default device.
"""

from __future__ import annotations

import numbers

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_dtypes as _d
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

ndarray = Tensor
_cast = _k.cast


def _contains_tensor(v) -> bool:
    return any(isinstance(x, Tensor) or hasattr(x, "_tf_value") or
               (isinstance(x, (list, tuple)) and _contains_tensor(x)) for x in v)


def _np_value_dtype(a) -> np.dtype:
    """NumPy dtype tnp gives a non-tensor value (Python scalars by kind, canonicalized)."""
    if isinstance(a, bool):
        return np.dtype(np.bool_)
    if isinstance(a, int):
        return np.dtype(np.int64)
    if isinstance(a, float):
        return _d.default_float_type()
    if isinstance(a, complex):
        return _d.canonicalize(np.dtype(np.complex64 if _d.CONFIG.prefer_float32 else np.complex128))
    d = _d.canonicalize(np.asarray(a).dtype)
    if _d.CONFIG.prefer_float32 and isinstance(a, (list, tuple)):
        return _d.canonicalize_python(d)
    return d


@public("torchflow.experimental.numpy")
def asarray(a, dtype=None) -> Tensor:
    """Converts ``a`` to a tnp array (a Tensor); a Tensor of that dtype is returned as is.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      dtype: None (default: inferred by NumPy's rules) or a dtype.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.

    >>> import torchflow.experimental.numpy as tnp
    >>> tnp.asarray([1, 2]).dtype
    tf.int64
    """
    if type(a) is Tensor:
        if dtype is None:
            return a
        return _cast(a, _d.to_tf(_d.canonicalize(_d.to_np(dtype))))
    conv = getattr(a, "_tf_value", None)
    if conv is not None:
        return asarray(conv(None), dtype)
    if dtype is not None:
        d = _d.canonicalize(_d.to_np(dtype))
    if isinstance(a, (list, tuple)) and a and _contains_tensor(a):
        parts = [asarray(x) for x in a]
        if dtype is None:
            d = _d.result_type(*parts)
        return _k.stack([asarray(p, d) for p in parts], 0)
    if dtype is None:
        d = _np_value_dtype(a)
    if isinstance(a, (str, bytes)) or d.kind in "SUO":
        return to_tensor(np.asarray(a))
    arr = a if isinstance(a, np.ndarray) and a.dtype == d else np.asarray(a, dtype=d)
    return _k.from_numpy(arr, _d.to_tf(d))


@public("torchflow.experimental.numpy")
def array(val, dtype=None, copy=True, ndmin=0) -> Tensor:
    """Creates a tnp array from ``val``; copies unless ``copy=False``.

    Args:
      val: array-like (Tensor, NumPy array, nested lists, scalars).
      dtype: optional result dtype; otherwise tnp infers it (Python floats are
        float64 unless ``prefer_float32``).
      copy: copy the data (default), even when ``val`` is already a Tensor.
      ndmin: minimum number of dimensions (leading 1s are added).

    Returns:
      A Tensor.
    """
    if isinstance(val, np.ndarray) and copy:
        val = val.copy()
    r = asarray(val, dtype)
    if copy and r is val:
        r = _k.clone(r)
    if ndmin > r.ndim:
        r = _k.reshape(r, (1,) * (ndmin - r.ndim) + _k.shape_tuple(r))
    return r


@public("torchflow.experimental.numpy")
def asanyarray(a, dtype=None) -> Tensor:
    """Same as ``asarray`` (tnp has no array subclasses).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      dtype: None (default: inferred by NumPy's rules) or a dtype.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return asarray(a, dtype)


@public("torchflow.experimental.numpy")
def ascontiguousarray(a, dtype=None) -> Tensor:
    """``asarray`` with at least one dimension (tensors are always contiguous).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      dtype: None (default: inferred by NumPy's rules) or a dtype.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return array(a, dtype, copy=False, ndmin=1)


def dtype_of(x) -> np.dtype:
    if isinstance(x, Tensor):
        return np.dtype(x._dtype.as_numpy_dtype)
    return _np_value_dtype(x)


def promote(*args) -> list:
    """Converts ``args`` to Tensors of their NumPy result type."""
    ts = [type(a) is Tensor for a in args]
    if all(ts):
        d0 = args[0]._dtype
        if all(a._dtype is d0 for a in args):
            return list(args)
    weak = [a if isinstance(a, numbers.Number) and not isinstance(a, np.generic)
            else (a if type(a) is Tensor or hasattr(a, "_tf_value") else asarray(a)) for a in args]
    d = _d.to_tf(_d.result_type(*weak))
    return [asarray(a, d) if type(a) is not Tensor else _cast(a, d) for a in weak]


def promote_with(d: dtypes.DType, x) -> Tensor:
    return _cast(x, d) if type(x) is Tensor else asarray(x, d)


def to_float(x: Tensor) -> Tensor:
    """Casts integer/bool tensors to the default float type (tnp's promote_to_float)."""
    if x._dtype.is_floating or x._dtype.is_complex:
        return x
    return _cast(x, _d.to_tf(_d.default_float_type()))
