"""tnp array creation, shape manipulation, sorting/searching and indexing helpers."""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy import np_dtypes as _d
from torchflow._src.numpy import np_math as _m
from torchflow._src.numpy.np_arrays import array, asarray, promote
from torchflow._src.ops import numpy_math_ops as _e
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"


def _shape(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (numbers.Integral, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _dt(dtype, default=None) -> dtypes.DType:
    if dtype is None:
        dtype = default if default is not None else _d.default_float_type()
    return _d.to_tf(_d.canonicalize(_d.to_np(dtype)))


# --- creation ----------------------------------------------------------------------
@public(_MOD)
def zeros(shape, dtype=float):
    """Array of zeros (float64 by default, float32 under ``prefer_float32``)."""
    d = _dt(dtype)
    return _k.full(_shape(shape), False if d is dtypes.bool else 0, d)


@public(_MOD)
def ones(shape, dtype=float):
    """Array of ones."""
    d = _dt(dtype)
    return _k.full(_shape(shape), True if d is dtypes.bool else 1, d)


@public(_MOD)
def empty(shape, dtype=float):
    """Same as ``zeros`` (tnp has no uninitialized memory)."""
    return zeros(shape, dtype)


@public(_MOD)
def full(shape, fill_value, dtype=None):
    """Array of ``shape`` filled with ``fill_value`` (its dtype unless ``dtype``)."""
    v = asarray(fill_value, dtype)
    return _k.broadcast_to(v, _shape(shape))


def _like(a, dtype):
    a = asarray(a)
    return _k.shape_tuple(a), (a._dtype if dtype is None else _dt(dtype))


@public(_MOD)
def zeros_like(a, dtype=None):
    """Zeros with ``a``'s shape and dtype."""
    s, d = _like(a, dtype)
    return zeros(s, d)


@public(_MOD)
def ones_like(a, dtype=None):
    """Ones with ``a``'s shape and dtype."""
    s, d = _like(a, dtype)
    return ones(s, d)


@public(_MOD)
def empty_like(a, dtype=None):
    """Same as ``zeros_like``."""
    return zeros_like(a, dtype)


@public(_MOD)
def full_like(a, fill_value, dtype=None):
    """``fill_value`` with ``a``'s shape (and dtype unless given)."""
    s, d = _like(a, dtype)
    return full(s, asarray(fill_value, d), d)


@public(_MOD)
def arange(start, stop=None, step=1, dtype=None):
    """Evenly spaced values in ``[start, stop)``; dtype by NumPy promotion of the
    arguments (Python ints give int64, floats the default float)."""
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
    """``num`` evenly spaced samples over ``[start, stop]``."""
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
    """``base ** linspace(start, stop)``."""
    r = _m.power(asarray(base, _d.default_float_type()),
                 linspace(start, stop, num, endpoint, axis=axis))
    return r if dtype is None else asarray(r, dtype)


@public(_MOD)
def geomspace(start, stop, num=50, endpoint=True, dtype=float, axis=0):
    """Samples evenly spaced on a log scale (a geometric progression)."""
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
    """2-D array with ones on diagonal ``k``."""
    return _k.eye(int(N), None if M is None else int(M), int(k), _dt(dtype))


@public(_MOD)
def identity(n, dtype=float):
    """Square identity matrix."""
    return eye(n, dtype=dtype)


@public(_MOD)
def tri(N, M=None, k=0, dtype=None):
    """Ones at and below diagonal ``k``."""
    return _k.tri(int(N), int(N if M is None else M), int(k), _dt(dtype))


def _tri_mask(m, k, lower):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Argument to tril/triu must have rank at least 2")
    return (_k.tril if lower else _k.triu)(m, int(k))


@public(_MOD)
def tril(m, k=0):
    """Lower triangle of the last two axes."""
    return _tri_mask(m, k, True)


@public(_MOD)
def triu(m, k=0):
    """Upper triangle of the last two axes."""
    return _tri_mask(m, k, False)


@public(_MOD)
def copy(a):
    """A copy of ``a``."""
    return array(a, copy=True)


@public(_MOD)
def diag(v, k=0):
    """Diagonal of a matrix, or a matrix with ``v`` on diagonal ``k``.

    Raises:
      ValueError: ``v`` is not 1-d or 2-d.
    """
    v = asarray(v)
    if v.ndim not in (1, 2):
        raise ValueError(f"Input to diag must be 1-d or 2-d only. Received {v.ndim}-d")
    return _k.diag(v, int(k))


@public(_MOD)
def diagflat(v, k=0):
    """2-d array with the flattened ``v`` on diagonal ``k``."""
    return _k.diag(_k.reshape(asarray(v), (-1,)), int(k))


@public(_MOD)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of ``a`` over ``axis1``/``axis2`` (appended as the last axis)."""
    return _k.diagonal(asarray(a), int(offset), int(axis1), int(axis2))


@public(_MOD)
def vander(x, N=None, increasing=False):
    """Vandermonde matrix of the 1-d ``x``."""
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
    """Coordinate matrices from coordinate vectors (``indexing='xy'`` or ``'ij'``)."""
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


@public(_MOD)
def ix_(*args):
    """Open mesh of index arrays (each reshaped to broadcast against the others)."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if a._dtype is dtypes.bool:
            a = nonzero(a)[0]
        out.append(_k.reshape(a, tuple(-1 if j == i else 1 for j in range(n))))
    return out


# --- shape manipulation -----------------------------------------------------------------
@public(_MOD)
def reshape(a, newshape, order="C"):
    """``a`` with a new shape (one ``-1`` is inferred). Only order 'C' is supported."""
    if order != "C":
        raise ValueError("tnp.reshape: only order='C' is supported")
    return _k.reshape(asarray(a), _shape(newshape))


@public(_MOD)
def ravel(a):
    """The flattened array."""
    return _k.reshape(asarray(a), (-1,))


@public(_MOD)
def flatten(a, order="C"):
    """Same as ``ravel``."""
    return ravel(a)


@public(_MOD)
def transpose(a, axes=None):
    """Permutes axes (reverses them by default)."""
    a = asarray(a)
    if axes is None:
        axes = tuple(range(a.ndim - 1, -1, -1))
    return _k.transpose(a, _shape(axes))


@public(_MOD)
def swapaxes(a, axis1, axis2):
    """Interchanges two axes."""
    a = asarray(a)
    p = list(range(a.ndim))
    p[axis1], p[axis2] = p[axis2], p[axis1]
    return _k.transpose(a, tuple(p))


@public(_MOD)
def moveaxis(a, source, destination):
    """Moves axes to new positions."""
    return _k.moveaxis(asarray(a), source if isinstance(source, int) else tuple(source),
                destination if isinstance(destination, int) else tuple(destination))


@public(_MOD)
def expand_dims(a, axis):
    """Inserts a length-1 axis at ``axis``."""
    a = asarray(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    n = a.ndim + len(axes)
    for x in axes:  # TF's ExpandDims range, not Python's modulo wrap-around
        if not -n <= x < n:
            raise InvalidArgumentError(
                None, None, f"Tried to expand dim index {x} for tensor with {a.ndim} "
                            f"dimensions. [Op:ExpandDims]")
    axes = sorted(x % n for x in axes)
    for x in axes:
        a = _k.expand_dims(a, x)
    return a


@public(_MOD)
def squeeze(a, axis=None):
    """Removes length-1 axes (only ``axis`` when given).

    Raises:
      InvalidArgumentError: an ``axis`` out of range or of length other than 1 (TF's
        Squeeze messages).
    """
    a = asarray(a)
    if axis is None:
        return _k.reshape(a, tuple(s for s in _k.shape_tuple(a) if s != 1))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    shape = _k.shape_tuple(a)
    for x in axes:  # TF's Squeeze kernel: range, then size, axis by axis
        if not -a.ndim <= x < a.ndim:
            raise InvalidArgumentError(None, None, f"Tried to squeeze dim index {x} for tensor "
                                                   f"with {a.ndim} dimensions. [Op:Squeeze]")
        if shape[x] != 1:
            raise InvalidArgumentError(None, None, f"Can not squeeze dim[{x % a.ndim}], expected "
                                                   f"a dimension of 1, got {shape[x]} "
                                                   f"[Op:Squeeze]")
    return _k.squeeze(a, tuple(x % a.ndim for x in axes))


@public(_MOD)
def broadcast_to(array, shape):
    """``array`` broadcast to ``shape``."""
    return _k.broadcast_to(asarray(array), _shape(shape))


@public(_MOD)
def broadcast_arrays(*args, **kwargs):
    """Broadcasts the arrays against each other."""
    xs = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*[_k.shape_tuple(x) for x in xs])
    return [_k.broadcast_to(x, shape) for x in xs]


def _atleast(n, arys):
    out = []
    for a in arys:
        a = asarray(a)
        if a.ndim < n:
            if n == 3 and a.ndim == 2:
                a = _k.reshape(a, _k.shape_tuple(a) + (1,))
            elif n == 3 and a.ndim == 1:
                a = _k.reshape(a, (1, _k.shape_tuple(a)[0], 1))
            else:
                a = _k.reshape(a, (1,) * (n - a.ndim) + _k.shape_tuple(a))
        out.append(a)
    return out[0] if len(out) == 1 else out


@public(_MOD)
def atleast_1d(*arys):
    """Views with at least one dimension."""
    return _atleast(1, arys)


@public(_MOD)
def atleast_2d(*arys):
    """Views with at least two dimensions."""
    return _atleast(2, arys)


@public(_MOD)
def atleast_3d(*arys):
    """Views with at least three dimensions (NumPy's placement of the new axes)."""
    return _atleast(3, arys)


@public(_MOD)
def concatenate(arys, axis=0):
    """Joins arrays along an existing axis (NumPy promotion across them).

    Raises:
      ValueError: no arrays.
    """
    if not arys:
        raise ValueError("Need at least one array to concatenate.")
    xs = promote(*arys)
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    return _k.concatenate(xs, axis)


@public(_MOD)
def stack(arrays, axis=0):
    """Joins arrays along a new axis."""
    if isinstance(arrays, Tensor):
        arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    return _k.stack(promote(*arrays), axis)


@public(_MOD)
def hstack(tup):
    """Stacks column-wise (along axis 1, or 0 for 1-d)."""
    xs = [atleast_1d(a) for a in tup]
    return concatenate(xs, 0 if xs[0].ndim == 1 else 1)


@public(_MOD)
def vstack(tup):
    """Stacks row-wise (after ``atleast_2d``)."""
    return concatenate([atleast_2d(a) for a in tup], 0)


@public(_MOD)
def dstack(tup):
    """Stacks along the third axis (after ``atleast_3d``)."""
    return concatenate([atleast_3d(a) for a in tup], 2)


@public(_MOD)
def column_stack(tup):
    """Stacks 1-d arrays as columns of a 2-d array."""
    xs = [asarray(a) for a in tup]
    xs = [_k.reshape(x, (-1, 1)) if x.ndim < 2 else x for x in xs]
    return concatenate(xs, 1)


@public(_MOD)
def append(arr, values, axis=None):
    """``arr`` with ``values`` appended (both flattened when ``axis`` is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


def _split_sizes(n, indices_or_sections, strict):
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if strict and n % k:
            raise ValueError("array split does not result in an equal division")
        q, r = divmod(n, k)
        return [q + 1] * r + [q] * (k - r)
    bounds = [0] + [builtins.min(builtins.max(int(i) if i >= 0 else n + int(i), 0), n)
                    for i in indices_or_sections] + [n]
    return [builtins.max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]


@public(_MOD)
def split(ary, indices_or_sections, axis=0):
    """Splits into equal sections or at the given indices.

    Raises:
      ValueError: an integer number of sections that does not divide the axis.
    """
    a = asarray(ary)
    if not -a.ndim <= axis < a.ndim:
        raise InvalidArgumentError(None, None, f"-input rank(-{a.ndim}) <= split_dim < input "
                                               f"rank ({a.ndim}), but got {axis} [Op:Split]")
    sizes = _split_sizes(_k.shape_tuple(a)[axis], indices_or_sections, True)
    return _k.split(a, sizes, axis)


@public(_MOD)
def array_split(ary, indices_or_sections, axis=0):
    """Like ``split`` but allows unequal sections."""
    a = asarray(ary)
    return _k.split(a, _split_sizes(_k.shape_tuple(a)[axis], indices_or_sections, False), axis)


@public(_MOD)
def hsplit(ary, indices_or_sections):
    """``split`` along axis 1 (0 for 1-d)."""
    a = asarray(ary)
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


@public(_MOD)
def vsplit(ary, indices_or_sections):
    """``split`` along axis 0 (arrays of rank >= 2)."""
    return split(ary, indices_or_sections, 0)


@public(_MOD)
def dsplit(ary, indices_or_sections):
    """``split`` along axis 2 (arrays of rank >= 3)."""
    return split(ary, indices_or_sections, 2)


@public(_MOD)
def tile(a, reps):
    """``a`` repeated ``reps`` times per axis."""
    return _k.tile(asarray(a), _shape(reps))


@public(_MOD)
def repeat(a, repeats, axis=None):
    """Repeats each element ``repeats`` times (flattened when ``axis`` is None)."""
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    r = repeats if isinstance(repeats, (int, np.integer)) else asarray(repeats, np.int64)
    return _k.repeat(a, int(r) if isinstance(r, (int, np.integer)) else r, axis)


@public(_MOD)
def pad(array, pad_width, mode="constant", constant_values=0):
    """Pads with NumPy's modes ``constant``, ``edge``, ``reflect``, ``symmetric``, ``wrap``.

    Raises:
      ValueError: an unsupported mode.
    """
    a = asarray(array)
    pw = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (a.ndim, 2)).tolist()
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        raise ValueError(f"Unsupported padding mode: {mode}")
    return _k.pad(a, pw, mode, constant_values)


@public(_MOD)
def roll(a, shift, axis=None):
    """Rolls elements along ``axis`` (the flattened array when None)."""
    a = asarray(a)
    return _k.roll(a, shift if isinstance(shift, int) else tuple(shift),
                axis if axis is None or isinstance(axis, int) else tuple(axis))


@public(_MOD)
def rot90(m, k=1, axes=(0, 1)):
    """Rotates by 90 degrees ``k`` times in the plane of ``axes``."""
    return _k.rot90(asarray(m), int(k), list(axes))


@public(_MOD)
def flip(m, axis=None):
    """Reverses the order of elements along ``axis`` (all axes when None)."""
    m = asarray(m)
    axes = tuple(range(m.ndim)) if axis is None else (
        (axis,) if isinstance(axis, int) else tuple(axis))
    return _k.flip(m, axes)


@public(_MOD)
def fliplr(m):
    """Flips axis 1."""
    return flip(m, 1)


@public(_MOD)
def flipud(m):
    """Flips axis 0."""
    return flip(m, 0)


# --- sorting, searching, indexing ----------------------------------------------------------
@public(_MOD)
def sort(a, axis=-1, kind="quicksort", order=None):
    """Sorted copy along ``axis`` (flattened when None)."""
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    return _k.sort(a, axis, False, kind == "stable")


@public(_MOD)
def argsort(a, axis=-1, kind="quicksort", order=None):
    """Indices that sort ``a`` along ``axis`` (int64)."""
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
    """``x`` where ``condition`` else ``y`` (promoted); ``nonzero(condition)`` alone.

    Raises:
      ValueError: only one of ``x``, ``y``.
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
    """Tuple of index arrays (int64), one per axis, of the nonzero elements."""
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
    """Elements from ``choicelist`` by the first true condition in ``condlist``."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    choices = promote(*choicelist, default)
    out = choices[-1]
    for c, v in zip(reversed(condlist), reversed(choices[:-1])):
        out = _k.where(asarray(c, np.bool_), v, out)
    return out


@public(_MOD)
def take(a, indices, axis=None, out=None, mode="clip"):
    """Elements of ``a`` at ``indices`` along ``axis``; out-of-range indices are
    clipped ('clip', TF's default) or wrapped ('wrap').

    Raises:
      ValueError: an unsupported mode or ``out``.
    """
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in ("raise", "clip", "wrap"):
        raise ValueError(f"Invalid mode '{mode}' for take")
    return _k.take(asarray(a), asarray(indices, np.int64), axis, mode)


@public(_MOD)
def take_along_axis(arr, indices, axis):
    """Elements of ``arr`` at the matching ``indices`` along ``axis``."""
    return _k.take_along_axis(asarray(arr), asarray(indices, np.int64), axis)


@public(_MOD)
def compress(condition, a, axis=None):
    """Slices of ``a`` along ``axis`` where the 1-d ``condition`` is true."""
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
    """Indices of the main diagonal of an ``n x ... x n`` array."""
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
    """Number of dimensions."""
    return asarray(a).ndim


@public(_MOD)
def shape(a) -> tuple:
    """Shape as a tuple of ints."""
    return _k.shape_tuple(asarray(a))


@public(_MOD)
def size(x, axis=None) -> int:
    """Number of elements (along ``axis`` when given)."""
    s = shape(x)
    return int(np.prod(s)) if axis is None else s[axis]


@public(_MOD)
def isscalar(num) -> bool:
    """True for Python/NumPy scalars and 0-d tensors."""
    if isinstance(num, Tensor):
        return num.ndim == 0
    return np.isscalar(num)
