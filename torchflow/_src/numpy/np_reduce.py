"""tnp reductions, scans and linear algebra.

Result dtypes follow TF 2.4's tnp: ``sum``/``prod``/``cumsum``/``cumprod`` widen
bool and narrow integers to int64 (uint64 for unsigned); ``mean``/``std``/``var``/
``average`` compute integers in the default float type; ``max``/``min`` keep the
dtype; ``argmax``/``argmin`` return int64.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_dtypes as _d
from torchflow._src.numpy import np_math as _m
from torchflow._src.numpy import np_math_unary as _mu
from torchflow._src.numpy.np_array_ops import moveaxis, pad
from torchflow._src.numpy.np_arrays import asarray, promote, to_float
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"
_SIGNED_NARROW = frozenset((dtypes.bool, dtypes.int8, dtypes.int16, dtypes.int32))
_UNSIGNED_NARROW = frozenset((dtypes.uint8, dtypes.uint16, dtypes.uint32))


def _axis(axis):
    if isinstance(axis, list):
        return tuple(axis)
    if isinstance(axis, Tensor):
        v = axis.numpy()
        return tuple(int(i) for i in v) if v.ndim else int(v)
    return axis


def _to_int(a: Tensor, dtype):
    if dtype is not None:
        return _k.cast(a, _d.to_tf(_d.canonicalize(_d.to_np(dtype))))
    if a._dtype in _SIGNED_NARROW:
        return _k.cast(a, dtypes.int64)
    if a._dtype in _UNSIGNED_NARROW:
        return _k.cast(a, dtypes.uint64)
    return a


def _to_float_dtype(a: Tensor, dtype):
    if dtype is not None:
        return _k.cast(a, _d.to_tf(_d.canonicalize(_d.to_np(dtype))))
    return to_float(a)


@public(_MOD)
def sum(a, axis=None, dtype=None, keepdims=False):  # noqa: A001
    """Sum over ``axis`` (all axes by default); bool/narrow ints sum in int64.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.

    >>> import torchflow.experimental.numpy as tnp
    >>> int(tnp.sum([[1, 2], [3, 4]]))
    10
    """
    return _k.sum(_to_int(asarray(a), dtype), _axis(axis), bool(keepdims))


@public(_MOD)
def prod(a, axis=None, dtype=None, keepdims=False):
    """Product over ``axis``; bool/narrow ints multiply in int64.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return _k.prod(_to_int(asarray(a), dtype), _axis(axis), bool(keepdims))


@public(_MOD)
def mean(a, axis=None, dtype=None, keepdims=False):
    """Arithmetic mean over ``axis`` (integers in the default float type).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return _k.mean(_to_float_dtype(asarray(a), dtype), _axis(axis), bool(keepdims))


@public(_MOD)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.
      out: Must be None (tnp arrays are immutable).
      ddof: int, default 0: the delta degrees of freedom (divisor ``N - ddof``).
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    if out is not None:
        raise ValueError("tnp.var: `out` is not supported (tensors are immutable).")
    a = _to_float_dtype(asarray(a), dtype)
    if a._dtype.is_complex:
        m = mean(a, axis, keepdims=True)
        d = _m.subtract(a, m)
        sq = _m.real(_m.multiply(d, _mu.conj(d)))
        n = _k.num_elements(a) if axis is None else int(np.prod([a.shape[i] for i in np.atleast_1d(
            _axis(axis))]))
        return _m.true_divide(sum(sq, axis, keepdims=keepdims), max(n - ddof, 0))
    return _k.var(a, _axis(axis), bool(keepdims), ddof)


@public(_MOD)
def std(a, axis=None, keepdims=None, ddof=0):
    """Standard deviation over ``axis``.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      keepdims: None/False (default) or True: keep reduced axes with length 1.
      ddof: int, default 0: the delta degrees of freedom (divisor ``N - ddof``).

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return _k.std(to_float(asarray(a)), _axis(axis), bool(keepdims), ddof)


@public(_MOD)
def amax(a, axis=None, out=None, keepdims=None):
    """Maximum over ``axis`` (dtype kept).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      out: Must be None (tnp arrays are immutable).
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = asarray(a)
    if a._dtype is dtypes.bool:
        return any(a, axis, keepdims=keepdims)
    return _k.amax(a, _axis(axis), bool(keepdims))


@public(_MOD)
def amin(a, axis=None, out=None, keepdims=None):
    """Minimum over ``axis`` (dtype kept).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      out: Must be None (tnp arrays are immutable).
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = asarray(a)
    if a._dtype is dtypes.bool:
        return all(a, axis, keepdims=keepdims)
    return _k.amin(a, _axis(axis), bool(keepdims))


max = amax  # noqa: A001
min = amin  # noqa: A001


@public(_MOD)
def all(a, axis=None, keepdims=None):  # noqa: A001
    """True where all elements along ``axis`` are truthy.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = asarray(a, np.bool_)
    return _k.all(a, _axis(axis), bool(keepdims))


@public(_MOD)
def any(a, axis=None, keepdims=None):  # noqa: A001
    """True where any element along ``axis`` is truthy.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return _k.any(asarray(a, np.bool_), _axis(axis), bool(keepdims))


@public(_MOD)
def argmax(a, axis=None):
    """Index of the maximum (of the flattened array when ``axis`` is None), int64.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = asarray(a)
    if a._dtype is dtypes.bool:
        a = _k.cast(a, dtypes.int8)
    return _k.argmax(a, _axis(axis))


@public(_MOD)
def argmin(a, axis=None):
    """Index of the minimum, int64.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = asarray(a)
    if a._dtype is dtypes.bool:
        a = _k.cast(a, dtypes.int8)
    return _k.argmin(a, _axis(axis))


def _cum_dtype(a: Tensor, dtype):
    # TF 2.4: integers promote with Python int (uint8/uint32 -> int64, uint64 ->
    # float64); bool, which TF's kernel rejects, sums in int64 as NumPy does.
    if dtype is not None:
        return _k.cast(a, _d.to_tf(_d.canonicalize(_d.to_np(dtype))))
    if a._dtype is dtypes.bool:
        return _k.cast(a, dtypes.int64)
    if a._dtype.is_integer:
        return _k.cast(a, _d.to_tf(np.promote_types(a._dtype.as_numpy_dtype, np.int64)))
    return a


@public(_MOD)
def cumsum(a, axis=None, dtype=None):
    """Cumulative sum along ``axis`` (flattened when None).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return _k.cumsum(_cum_dtype(asarray(a), dtype), _axis(axis))


@public(_MOD)
def cumprod(a, axis=None, dtype=None):
    """Cumulative product along ``axis`` (flattened when None).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return _k.cumprod(_cum_dtype(asarray(a), dtype), _axis(axis))


@public(_MOD)
def nansum(a, axis=None, dtype=None, keepdims=False):
    """``sum`` treating NaN as 0.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = asarray(a)
    if not a._dtype.is_floating:
        return sum(a, axis, dtype, keepdims)
    return _k.nansum(_to_int(a, dtype), _axis(axis), bool(keepdims))


@public(_MOD)
def nanprod(a, axis=None, dtype=None, keepdims=False):
    """``prod`` treating NaN as 1.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = asarray(a)
    if not a._dtype.is_floating:
        return prod(a, axis, dtype, keepdims)
    return _k.nanprod(_to_int(a, dtype), _axis(axis), bool(keepdims))


@public(_MOD)
def nanmean(a, axis=None, dtype=None, keepdims=None):
    """``mean`` ignoring NaNs.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      dtype: None (default: inferred by NumPy's rules) or a dtype.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = _to_float_dtype(asarray(a), dtype)
    return _k.nanmean(a, _axis(axis), bool(keepdims))


@public(_MOD)
def count_nonzero(a, axis=None):
    """Number of nonzero elements along ``axis``, int64.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
    """
    return _k.count_nonzero(asarray(a), _axis(axis))


@public(_MOD)
def average(a, axis=None, weights=None, returned=False):
    """Weighted mean along ``axis``; ``returned=True`` also gives the weight sum.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      weights: None (default: equal weights) or an array-like of weights.
      returned: bool, default False: also return the sum of weights.
    """
    a = to_float(asarray(a))
    if weights is None:
        avg = mean(a, axis)
        n = _k.num_elements(a) if axis is None else a.shape[_axis(axis)]
        wsum = asarray(n, a.dtype.as_numpy_dtype)
    else:
        a, w = promote(a, weights)
        if w.ndim != a.ndim:
            shape = [1] * a.ndim
            shape[_axis(axis)] = -1
            w = _k.reshape(w, tuple(shape))
        wsum = sum(_k.broadcast_to(w, _k.shape_tuple(a)), axis)
        avg = _m.true_divide(sum(_m.multiply(a, w), axis), wsum)
    if returned:
        return avg, _k.broadcast_to(wsum, _k.shape_tuple(avg))
    return avg


@public(_MOD)
def ptp(a, axis=None, keepdims=None):
    """Range (max - min) along ``axis``.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.
      keepdims: None/False (default) or True: keep reduced axes with length 1.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    return _m.subtract(amax(a, axis, keepdims=keepdims), amin(a, axis, keepdims=keepdims))


# --- linear algebra ---------------------------------------------------------------

def _as_float_ok(a, b):
    a, b = promote(a, b)
    if a._dtype is dtypes.bool:
        a, b = _k.cast(a, dtypes.int64), _k.cast(b, dtypes.int64)
    return a, b


@public(_MOD)
def matmul(x1, x2):
    """Matrix product with NumPy broadcasting (scalars are rejected).

    Args:
      x1: An array-like (converted with ``tnp.asarray``).
      x2: An array-like, broadcastable with ``x1``.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.

    Raises:
      ValueError: a 0-d operand, or inner dimensions that differ.
    """
    a, b = _as_float_ok(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    ka, kb = _k.shape_tuple(a)[-1], _k.shape_tuple(b)[-2 if b.ndim > 1 else 0]
    if ka != kb:  # TF checks static shapes and raises ValueError before running
        raise ValueError(f"matmul: Dimensions must be equal, but are {ka} and {kb} for "
                         f"shapes {list(_k.shape_tuple(a))} and {list(_k.shape_tuple(b))}")
    return _k.matmul(a, b)


@public(_MOD)
def dot(a, b):
    """NumPy ``dot``: scalars multiply, 1-d·1-d is inner, N-d·M-d contracts the last
    axis of ``a`` with the second-to-last of ``b``.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      b: An array-like, broadcastable with ``a``.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a, b = _as_float_ok(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _m.multiply(a, b)
    if b.ndim <= 2:
        return _k.matmul(a, b)
    return _k.tensordot(a, b, ([a.ndim - 1], [b.ndim - 2]))


@public(_MOD)
def vdot(a, b):
    """Dot product of the flattened inputs, conjugating ``a``.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      b: An array-like, broadcastable with ``a``.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a, b = _as_float_ok(a, b)
    a = _mu.conj(a) if a._dtype.is_complex else a
    return _k.sum(_m.multiply(_k.reshape(a, (-1,)), _k.reshape(b, (-1,))), None, False)


@public(_MOD)
def inner(a, b):
    """Inner product over the last axes.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      b: An array-like, broadcastable with ``a``.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a, b = _as_float_ok(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _m.multiply(a, b)
    return _k.tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))


@public(_MOD)
def outer(a, b):
    """Outer product of the flattened inputs.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      b: An array-like, broadcastable with ``a``.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a, b = _as_float_ok(a, b)
    return _k.outer(_k.reshape(a, (-1,)), _k.reshape(b, (-1,)))


@public(_MOD)
def tensordot(a, b, axes=2):
    """Sum of products over ``axes`` (an int or a pair of axis lists).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      b: An array-like, broadcastable with ``a``.
      axes: An int or sequence of ints: the axes.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a, b = _as_float_ok(a, b)
    if not isinstance(axes, int):
        axes = [list(np.atleast_1d(axes[0])), list(np.atleast_1d(axes[1]))]
    return _k.tensordot(a, b, axes)


@public(_MOD)
def kron(a, b):
    """Kronecker product.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      b: An array-like, broadcastable with ``a``.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a, b = _as_float_ok(a, b)
    return _k.kron(a, b)


@public(_MOD)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (2-vectors are padded with a zero z).

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      b: An array-like, broadcastable with ``a``.
      axisa: int, default -1: the vector axis of ``a``.
      axisb: int, default -1: the vector axis of ``b``.
      axisc: int, default -1: the vector axis of the result.
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _as_float_ok(a, b)
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    two = a.shape[-1] == 2 and b.shape[-1] == 2
    if a.shape[-1] == 2:
        a = pad(a, [(0, 0)] * (a.ndim - 1) + [(0, 1)])
    if b.shape[-1] == 2:
        b = pad(b, [(0, 0)] * (b.ndim - 1) + [(0, 1)])
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    r = _k.cross(_k.broadcast_to(a, shape), _k.broadcast_to(b, shape), -1)
    if two:
        return r[..., 2]
    return moveaxis(r, -1, axisc)


@public(_MOD)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """Sum along a diagonal.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      offset: int, default 0: the diagonal offset.
      axis1: int: the first axis.
      axis2: int: the second axis.
      dtype: None (default: inferred by NumPy's rules) or a dtype.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    d = _k.diagonal(asarray(a), offset, axis1, axis2)
    return sum(d, -1, dtype)


@public(_MOD)
def einsum(subscripts, *operands, **kwargs):
    """Einstein summation (NumPy promotion across the operands).

    Args:
      subscripts: str: the Einstein summation subscripts.
      *operands: The array-likes.
      **kwargs: NumPy's keyword options that tnp supports.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    ops = promote(*operands)
    return _k.einsum(subscripts, *ops)


@public(_MOD)
def polyval(p, x):
    """Evaluates the polynomial with coefficients ``p`` (highest first) at ``x``.

    Args:
      p: An array-like of polynomial coefficients (highest power first).
      x: An array-like (converted with ``tnp.asarray``).

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    p, x = promote(p, x)
    r = _m.multiply(x, 0)
    for i in range(p.shape[0]):
        r = _m.add(_m.multiply(r, x), p[i])
    return r


@public(_MOD)
def diff(a, n=1, axis=-1):
    """n-th discrete difference along ``axis``.

    Args:
      a: An array-like (converted with ``tnp.asarray``).
      n: int.
      axis: None or an int (or tuple of ints where NumPy allows): the axis; see NumPy for
        the default's meaning.

    Returns:
      A tnp array (``tf.Tensor``), as NumPy's function returns an ndarray.
    """
    a = asarray(a)
    if not -a.ndim <= axis < a.ndim:  # TF's check, not Python's modulo wrap-around
        raise ValueError(f"Argument `axis` (received axis={axis}) is out of bounds for input "
                         f"{a.numpy()} of rank {a.ndim}.")
    for _ in range(n):
        nd = a.ndim
        ax = axis % nd
        lo = tuple(slice(1, None) if i == ax else slice(None) for i in range(nd))
        hi = tuple(slice(None, -1) if i == ax else slice(None) for i in range(nd))
        x1, x0 = _k.getitem(a, lo), _k.getitem(a, hi)
        a = _m.not_equal(x1, x0) if a._dtype is dtypes.bool else _m.subtract(x1, x0)
    return a
