"""tnp array creation: zeros, ones, full, ranges, identity and triangular matrices, grids."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_dtypes as _d
from torchflow._src.numpy import np_math as _m
from torchflow._src.numpy.np_array_ops import _shape, moveaxis, stack
from torchflow._src.numpy.np_arrays import array, asarray
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"


def _dt(dtype, default=None) -> dtypes.DType:
    if dtype is None:
        dtype = default if default is not None else _d.default_float_type()
    return _d.to_tf(_d.canonicalize(_d.to_np(dtype)))


# --- creation ----------------------------------------------------------------------
@public(_MOD)
def zeros(shape, dtype=float):
    """TensorFlow variant of NumPy's ``zeros``: an array of zeros.

    Args:
      shape: An int or a sequence of ints (or a 1-D int Tensor), the shape.
      dtype: The dtype; the default ``float`` is float64 (float32 under
        ``tf.experimental.numpy.experimental_enable_numpy_behavior(prefer_float32=True)``).

    Returns:
      A Tensor of ``shape`` and ``dtype``.

    Unsupported arguments: ``order``, ``like``.
    """
    d = _dt(dtype)
    return _k.full(_shape(shape), False if d is dtypes.bool else 0, d)


@public(_MOD)
def ones(shape, dtype=float):
    """TensorFlow variant of NumPy's ``ones``: an array of ones.

    Args:
      shape: An int or a sequence of ints, the shape.
      dtype: The dtype; the default ``float`` is the default float type (float64).

    Returns:
      A Tensor of ``shape`` and ``dtype``.

    Unsupported arguments: ``order``, ``like``.
    """
    d = _dt(dtype)
    return _k.full(_shape(shape), True if d is dtypes.bool else 1, d)


@public(_MOD)
def empty(shape, dtype=float):
    """TensorFlow variant of NumPy's ``empty``: the same as ``zeros`` (no uninitialized memory).

    Args:
      shape: An int or a sequence of ints, the shape.
      dtype: The dtype; the default ``float`` is the default float type (float64).

    Returns:
      A Tensor of zeros.

    Unsupported arguments: ``order``, ``like``.
    """
    return zeros(shape, dtype)


@public(_MOD)
def full(shape, fill_value, dtype=None):
    """TensorFlow variant of NumPy's ``full``: an array filled with ``fill_value``.

    Args:
      shape: An int or a sequence of ints, the shape.
      fill_value: A scalar, or an array-like broadcastable to ``shape``.
      dtype: The dtype; None takes ``fill_value``'s.

    Returns:
      A Tensor of ``shape``.

    Unsupported arguments: ``order``, ``like``.
    """
    v = asarray(fill_value, dtype)
    return _k.broadcast_to(v, _shape(shape))


def _like(a, dtype):
    a = asarray(a)
    return _k.shape_tuple(a), (a._dtype if dtype is None else _dt(dtype))


@public(_MOD)
def zeros_like(a, dtype=None):
    """TensorFlow variant of NumPy's ``zeros_like``: zeros with the shape (and dtype) of ``a``.

    Args:
      a: An array-like giving the shape.
      dtype: The dtype; None takes ``a``'s.

    Returns:
      A Tensor of zeros.

    Unsupported arguments: ``order``, ``subok``, ``shape``.
    """
    s, d = _like(a, dtype)
    return zeros(s, d)


@public(_MOD)
def ones_like(a, dtype=None):
    """TensorFlow variant of NumPy's ``ones_like``: ones with the shape (and dtype) of ``a``.

    Args:
      a: An array-like giving the shape.
      dtype: The dtype; None takes ``a``'s.

    Returns:
      A Tensor of ones.

    Unsupported arguments: ``order``, ``subok``, ``shape``.
    """
    s, d = _like(a, dtype)
    return ones(s, d)


@public(_MOD)
def empty_like(a, dtype=None):
    """TensorFlow variant of NumPy's ``empty_like``: the same as ``zeros_like``.

    Args:
      a: An array-like giving the shape.
      dtype: The dtype; None takes ``a``'s.

    Returns:
      A Tensor of zeros.

    Unsupported arguments: ``order``, ``subok``, ``shape``.
    """
    return zeros_like(a, dtype)


@public(_MOD)
def full_like(a, fill_value, dtype=None):
    """TensorFlow variant of NumPy's ``full_like``: ``fill_value`` with the shape of ``a``.

    Args:
      a: An array-like giving the shape.
      fill_value: A scalar, or an array-like broadcastable to ``a``'s shape.
      dtype: The dtype; None takes ``a``'s.

    Returns:
      A Tensor of ``a``'s shape.

    Unsupported arguments: ``order``, ``subok``, ``shape``.
    """
    s, d = _like(a, dtype)
    return full(s, asarray(fill_value, d), d)


@public(_MOD)
def arange(start, stop=None, step=1, dtype=None):
    """TensorFlow variant of NumPy's ``arange``: evenly spaced values in ``[start, stop)``.

    Args:
      start: The first value; the end when ``stop`` is None (then the start is 0).
      stop: The end (exclusive), or None.
      step: The spacing, not 0.
      dtype: The dtype; None promotes the arguments as NumPy does (Python ints give
        int64, floats the default float type).

    Returns:
      A 1-D Tensor.

    Raises:
      ValueError: ``step`` is 0.

    Unsupported arguments: ``like``.
    """
    if stop is None:
        start, stop = 0, start
    vals = [v.numpy().item() if isinstance(v, Tensor) else v for v in (start, stop, step)]
    if step == 0:
        raise ValueError("arange's step must not be 0.")
    d = _dt(dtype) if dtype is not None else _d.to_tf(_d.result_type(*vals))
    if d is dtypes.bool or d.is_complex:
        return asarray(np.arange(*vals), d)
    return _k.arange(*vals, d)


@public(_MOD)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """TensorFlow variant of NumPy's ``linspace``: ``num`` evenly spaced samples over an interval.

    Args:
      start: The first value (a scalar or an array-like of starts).
      stop: The last value (included when ``endpoint``).
      num: The number of samples, at least 0.
      endpoint: Whether ``stop`` is the last sample.
      retstep: If True, also returns the spacing.
      dtype: The dtype; ``float`` (or None) infers it from ``start``, ``stop`` and ``num``.
      axis: Where the samples go when ``start``/``stop`` are arrays.

    Returns:
      A Tensor, or ``(samples, step)`` when ``retstep``.

    Raises:
      ValueError: ``num`` is negative.
    """
    if dtype is float or dtype is None:  # TF infers from start, stop and float(num)
        d = _d.to_tf(_d.result_type(start, stop, float(num)))
    else:
        d = _dt(dtype)
    if num < 0:
        raise ValueError(f"Number of samples {num} must be non-negative.")
    s0, s1 = asarray(start), asarray(stop)
    if s0.ndim == 0 and s1.ndim == 0 and d.is_floating:
        r = _k.linspace(float(s0), float(s1), int(num), bool(endpoint), d)
    else:
        r = asarray(np.linspace(s0.numpy(), s1.numpy(), num, endpoint, axis=0), d)
        if axis != 0:
            r = moveaxis(r, 0, axis)
    if retstep:
        div = (num - 1) if endpoint else num
        step = (float(s1) - float(s0)) / div if div > 0 else float("nan")
        return r, step
    return r


@public(_MOD)
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """TensorFlow variant of NumPy's ``logspace``: ``base ** linspace(start, stop, num)``.

    Args:
      start: The first exponent.
      stop: The last exponent (included when ``endpoint``).
      num: The number of samples.
      endpoint: Whether ``base ** stop`` is the last sample.
      base: The base of the powers.
      dtype: The dtype; None keeps the computed (default float) type.
      axis: Where the samples go when ``start``/``stop`` are arrays.

    Returns:
      A Tensor.
    """
    r = _m.power(asarray(base, _d.default_float_type()),
                 linspace(start, stop, num, endpoint, axis=axis))
    return r if dtype is None else asarray(r, dtype)


@public(_MOD)
def geomspace(start, stop, num=50, endpoint=True, dtype=float, axis=0):
    """TensorFlow variant of NumPy's ``geomspace``: samples evenly spaced on a log scale.

    Args:
      start: The first value, not 0.
      stop: The last value (included when ``endpoint``), not 0.
      num: The number of samples.
      endpoint: Whether ``stop`` is the last sample.
      dtype: The dtype; ``float`` is the default float type.
      axis: Where the samples go.

    Returns:
      A Tensor; the first (and last) samples are exactly ``start`` (and ``stop``).

    Raises:
      ValueError: ``start`` or ``stop`` is 0.
    """
    if float(start) == 0 or float(stop) == 0:
        raise ValueError("Geometric sequence cannot include zero")
    sign = -1.0 if float(start) < 0 and float(stop) < 0 else 1.0
    r = logspace(np.log10(abs(float(start))), np.log10(abs(float(stop))), num, endpoint,
                 axis=axis)
    r = _m.multiply(r, sign)
    if num > 0:
        vals = r.numpy()
        vals[0] = float(start)
        if endpoint and num > 1:
            vals[-1] = float(stop)
        r = asarray(vals)
    return asarray(r, _dt(dtype))


@public(_MOD)
def eye(N, M=None, k=0, dtype=float):
    """TensorFlow variant of NumPy's ``eye``: a 2-D array with ones on diagonal ``k``.

    Args:
      N: The number of rows.
      M: The number of columns; None means ``N``.
      k: The diagonal: 0 the main one, positive above it, negative below.
      dtype: The dtype; ``float`` is the default float type.

    Returns:
      A Tensor of shape ``(N, M)``.

    Unsupported arguments: ``order``, ``like``.
    """
    return _k.eye(int(N), None if M is None else int(M), int(k), _dt(dtype))


@public(_MOD)
def identity(n, dtype=float):
    """TensorFlow variant of NumPy's ``identity``: the square identity matrix.

    Args:
      n: The number of rows and columns.
      dtype: The dtype; ``float`` is the default float type.

    Returns:
      A Tensor of shape ``(n, n)``.

    Unsupported arguments: ``like``.
    """
    return eye(n, dtype=dtype)


@public(_MOD)
def tri(N, M=None, k=0, dtype=None):
    """TensorFlow variant of NumPy's ``tri``: ones at and below diagonal ``k``, zeros above.

    Args:
      N: The number of rows.
      M: The number of columns; None means ``N``.
      k: The diagonal: 0 the main one, positive above it, negative below.
      dtype: The dtype; None is the default float type.

    Returns:
      A Tensor of shape ``(N, M)``.

    Unsupported arguments: ``like``.
    """
    return _k.tri(int(N), int(N if M is None else M), int(k), _dt(dtype))


def _tri_mask(m, k, lower):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Argument to tril/triu must have rank at least 2")
    return (_k.tril if lower else _k.triu)(m, int(k))


@public(_MOD)
def tril(m, k=0):
    """TensorFlow variant of NumPy's ``tril``: the lower triangle of the last two axes.

    Args:
      m: An array-like of rank at least 2.
      k: The diagonal above which elements are zeroed (0 the main one).

    Returns:
      A Tensor of ``m``'s shape and dtype.

    Raises:
      ValueError: ``m`` has rank below 2.
    """
    return _tri_mask(m, k, True)


@public(_MOD)
def triu(m, k=0):
    """TensorFlow variant of NumPy's ``triu``: the upper triangle of the last two axes.

    Args:
      m: An array-like of rank at least 2.
      k: The diagonal below which elements are zeroed (0 the main one).

    Returns:
      A Tensor of ``m``'s shape and dtype.

    Raises:
      ValueError: ``m`` has rank below 2.
    """
    return _tri_mask(m, k, False)


@public(_MOD)
def copy(a):
    """TensorFlow variant of NumPy's ``copy``: a copy of ``a`` as a Tensor.

    Args:
      a: An array-like.

    Returns:
      A Tensor with ``a``'s values.

    Unsupported arguments: ``order``, ``subok``.
    """
    return array(a, copy=True)


@public(_MOD)
def diag(v, k=0):
    """TensorFlow variant of NumPy's ``diag``: a diagonal of a matrix, or a diagonal matrix.

    Args:
      v: A 1-D array-like (the result is a matrix with ``v`` on diagonal ``k``) or a
        2-D one (the result is its diagonal ``k``).
      k: The diagonal: 0 the main one, positive above it, negative below.

    Returns:
      A Tensor: 2-D for 1-D ``v``, 1-D for 2-D ``v``.

    Raises:
      ValueError: ``v`` is not 1-d or 2-d.
    """
    v = asarray(v)
    if v.ndim not in (1, 2):
        raise ValueError(f"Input to diag must be 1-d or 2-d only. Received {v.ndim}-d")
    return _k.diag(v, int(k))


@public(_MOD)
def diagflat(v, k=0):
    """TensorFlow variant of NumPy's ``diagflat``: a matrix with the flattened ``v`` on diagonal ``k``.

    Args:
      v: An array-like, flattened first.
      k: The diagonal: 0 the main one, positive above it, negative below.

    Returns:
      A 2-D Tensor.
    """
    return _k.diag(_k.reshape(asarray(v), (-1,)), int(k))


@public(_MOD)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """TensorFlow variant of NumPy's ``diagonal``: the diagonal over two axes.

    Args:
      a: An array-like of rank at least 2.
      offset: The diagonal's offset from the main one (positive above it).
      axis1: The first axis of the 2-D planes.
      axis2: The second axis of the 2-D planes.

    Returns:
      A Tensor: ``a`` without ``axis1`` and ``axis2``, the diagonal as the last axis.
    """
    return _k.diagonal(asarray(a), int(offset), int(axis1), int(axis2))


@public(_MOD)
def vander(x, N=None, increasing=False):
    """TensorFlow variant of NumPy's ``vander``: the Vandermonde matrix of ``x``.

    Args:
      x: A 1-D array-like.
      N: The number of columns; None means ``len(x)``.
      increasing: If True, the powers increase left to right (``x**0`` first).

    Returns:
      A Tensor of shape ``(len(x), N)``.

    Raises:
      ValueError: ``x`` is not 1-D.
    """
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError(f"x must be a one-dimensional array or sequence, got {x.ndim}-d")
    n = x.shape[0] if N is None else int(N)
    cols = [_m.power(x, i) for i in range(n)]
    if not increasing:
        cols = cols[::-1]
    return stack(cols, axis=1) if cols else zeros((x.shape[0], 0), x.dtype)


@public(_MOD)
def meshgrid(*xi, **kwargs):
    """TensorFlow variant of NumPy's ``meshgrid``: coordinate matrices from coordinate vectors.

    Args:
      *xi: The 1-D coordinate arrays (others are flattened).
      **kwargs: ``indexing``: ``'xy'`` (Cartesian, the default) or ``'ij'`` (matrix).

    Returns:
      A list of Tensors, one per input, each of the grid's shape.

    Raises:
      ValueError: ``indexing`` is neither ``'xy'`` nor ``'ij'``.

    Unsupported arguments: ``copy``, ``sparse`` (ignored).
    """
    indexing = kwargs.get("indexing", "xy")
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = [_k.reshape(asarray(x), (-1,)) for x in xi]
    shape = [x.shape[0] for x in xs]
    if indexing == "xy" and len(xs) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        ax = i
        if indexing == "xy" and len(xs) > 1 and i < 2:
            ax = 1 - i
        s = [1] * len(xs)
        s[ax] = -1
        out.append(_k.broadcast_to(_k.reshape(x, tuple(s)), tuple(shape)))
    return out


@public(_MOD)
def indices(dimensions, dtype=int, sparse=False):
    """Index grids for an array of shape ``dimensions``."""
    d = _dt(dtype, np.int64)
    grids = meshgrid(*[arange(n, dtype=d) for n in dimensions], indexing="ij")
    if sparse:
        n = len(dimensions)
        return tuple(_k.reshape(arange(s, dtype=d), tuple(s if i == j else 1 for j in range(
            n))) for i, s in enumerate(dimensions))
    return stack(grids) if grids else zeros((0,), d)
