"""Engine functions for ``tf.experimental.numpy`` (the only torch the NumPy layer reaches).

``_src/numpy`` decides dtypes (NumPy promotion) and argument handling without
importing torch or touching a tensor's internals; it then calls the named, typed
functions below (and the elementwise kernels of ``numpy_math_ops``) with tensors
already cast to the result dtype. Each is a torch function or a small adapter,
so it is differentiable under ``GradientTape`` and traceable by ``torch.compile``;
torch failures become TF errors naming ``tnp.<function>``.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.errors import InvalidArgumentError, translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import _numpy_checks as _c

Axis = Optional[Union[int, Sequence[int]]]
Shape = Sequence[int]
_BY_TORCH = dtypes._BY_TORCH


def _unwrap(a):
    t = type(a)
    if t is Tensor:
        return a._t
    if t is list:
        return [x._t if type(x) is Tensor else x for x in a]
    if t is tuple:
        return tuple(x._t if type(x) is Tensor else x for x in a)
    return a


def _wrap_out(r):
    if isinstance(r, torch.Tensor):
        return wrap(r, _BY_TORCH[r.dtype])
    if isinstance(r, (tuple, list)):
        return [_wrap_out(x) for x in r]
    return r


def _run(op: str, fn: Callable, *args, **kwargs) -> Any:
    """``fn`` on the torch tensors behind ``args``; wraps tensor results, TF errors."""
    try:
        r = fn(*[_unwrap(a) for a in args], **kwargs)
    except (TypeError, ValueError) as e:
        if isinstance(e, TypeError) and "argument" not in str(e):
            raise
        raise translate(op, RuntimeError(str(e))) from None
    except Exception as e:  # torch kernel errors become TF errors  # noqa: BLE001 (re-raised as the TF error)
        raise translate(op, e) from None
    return _wrap_out(r)


# --- tensor facts -------------------------------------------------------------------------
def shape_tuple(x: Tensor) -> tuple:
    """``x``'s shape as a tuple of ints."""
    return tuple(x._t.shape)


def num_elements(x: Tensor) -> int:
    """The number of elements of ``x``."""
    return x._t.numel()


def cast(x: Tensor, dtype: dtypes.DType) -> Tensor:
    if x._dtype is dtype:
        return x
    t = x._t
    if t.is_complex() and not dtype.is_complex:
        t = t.real
    return wrap(t.to(dtype._torch), dtype)


def from_numpy(arr: np.ndarray, dtype: dtypes.DType) -> Tensor:
    """Tensor sharing ``arr``'s memory when it is a C-contiguous CPU array of ``dtype``."""
    dev = context.default_device()
    if arr.dtype != dtype.as_numpy_dtype or dtype is dtypes.bfloat16:
        arr = arr.astype(dtype.as_numpy_dtype) if dtype is not dtypes.bfloat16 else arr
    if dtype is dtypes.bfloat16:
        t = torch.from_numpy(np.ascontiguousarray(arr, np.float32)).to(torch.bfloat16)
    else:
        if not arr.flags.writeable or arr.dtype.byteorder not in "=|":
            arr = np.array(arr, dtype=arr.dtype.newbyteorder("="))
        t = torch.from_numpy(np.ascontiguousarray(arr)) if arr.ndim else torch.tensor(arr[()])
    return wrap(t.to(dev) if t.device != dev else t, dtype)


def _dev():
    return context.default_device()


def _full(shape, value, dtype):
    return torch.full(tuple(shape), value, dtype=dtype, device=_dev())


def _arange(start, stop, step, dtype):
    return torch.arange(start, stop, step, dtype=dtype, device=_dev())


def _linspace(start, stop, num, endpoint, dtype):
    if num == 1 or endpoint:
        return torch.linspace(start, stop, num, dtype=torch.float64, device=_dev()).to(dtype)
    step = (stop - start) / num
    return (torch.arange(num, dtype=torch.float64, device=_dev()) * step + start).to(dtype)


def _eye(n, m, k, dtype):
    m = n if m is None else m
    if k == 0:
        return torch.eye(n, m, dtype=dtype, device=_dev())
    return torch.ones(n, m, dtype=torch.bool, device=_dev()).tril(k).triu(k).to(dtype)


def _tri(n, m, k, dtype):
    return torch.ones(n, m, dtype=torch.bool, device=_dev()).tril(k).to(dtype)


def _where(c, x, y):
    return torch.where(c, x, y)


def _pad(x, pads, mode, value):
    if mode == "constant":
        flat = [p for pair in reversed(pads) for p in pair]
        return torch.nn.functional.pad(x, flat, value=value)
    idx_mode = {"reflect": "reflect", "symmetric": "symmetric", "edge": "edge", "wrap": "wrap"}[mode]
    for ax, (lo, hi) in enumerate(pads):
        if lo == 0 and hi == 0:
            continue
        n = x.shape[ax]
        idx = np.arange(-lo, n + hi)
        if idx_mode == "edge":
            idx = np.clip(idx, 0, n - 1)
        elif idx_mode == "wrap":
            idx = idx % n
        elif idx_mode == "reflect":
            period = 2 * (n - 1) if n > 1 else 1
            idx = np.abs(idx) % period
            idx = np.where(idx >= n, period - idx, idx)
        else:  # symmetric
            period = 2 * n
            idx = idx % period
            idx = np.where(idx >= n, period - 1 - idx, idx)
        x = x.index_select(ax, torch.as_tensor(idx, device=x.device))
    return x


def _take(x, idx, axis, mode):
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    n = x.shape[axis]
    if mode == "wrap":
        idx = idx % n
    else:  # TF's tnp clips (mode='clip' and the default)
        idx = idx.clamp(-n if mode == "raise" else 0, n - 1) if n else idx
        idx = torch.where(idx < 0, idx + n, idx)
    return x.index_select(axis, idx.reshape(-1)).reshape(
        x.shape[:axis] + idx.shape + x.shape[axis + 1:])


def _take_along_axis(x, idx, axis):
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    shape = torch.broadcast_shapes(
        tuple(1 if i == axis else s for i, s in enumerate(x.shape)),
        tuple(1 if i == axis else s for i, s in enumerate(idx.shape)))
    xs = list(shape)
    xs[axis] = x.shape[axis]
    ins = list(shape)
    ins[axis] = idx.shape[axis]
    n = x.shape[axis]
    idx = torch.where(idx < 0, idx + n, idx)
    return torch.gather(x.expand(xs), axis, idx.expand(ins))


def _key(k):
    tk = type(k)
    if tk is Tensor:
        return k._t
    if tk is tuple:
        return tuple(_key(i) for i in k)
    if tk is list or tk is np.ndarray:
        a = np.asarray(k)
        if a.dtype == object:
            return [_key(i) for i in k]
        return torch.as_tensor(a, device=context.default_device())
    if hasattr(k, "_tf_value"):
        return k._tf_value(None)._t
    return k


def _neg_steps(t, key):
    """torch slices need positive steps: flip the axes that NumPy walks backwards."""
    ks = key if type(key) is tuple else (key,)
    if not builtins.any(type(k) is slice and k.step is not None and k.step < 0  # pyright: ignore[reportOperatorIssue] - slice steps are untyped
                        for k in ks):
        return t, key
    used = builtins.sum(k.ndim if isinstance(k, torch.Tensor) and k.dtype == torch.bool else (
        0 if k is None or k is Ellipsis else 1) for k in ks)
    out, dim = [], 0
    for k in ks:
        if k is Ellipsis:
            dim += t.ndim - used
        elif k is None:
            pass
        elif isinstance(k, torch.Tensor) and k.dtype == torch.bool:
            dim += k.ndim
        else:
            if type(k) is slice and k.step is not None and k.step < 0:
                n = t.shape[dim]
                r = range(*k.indices(n))
                t = t.flip(dim)
                k = slice(n - 1 - r.start, n - 1 - r.start + len(r) * -k.step, -k.step) if len(
                    r) else slice(0, 0)
            dim += 1
        out.append(k)
    return t, tuple(out)


def _index_update(x, key, v, how):
    """Functional ``x[key] op= v`` (the ``.at[]`` API): returns a new tensor."""
    out = x.clone()
    if how == "set":
        out[key] = v
        return out
    if how == "add" and not isinstance(key, (slice, int)) and _advanced(key):
        return out.index_put(_as_index_tuple(out, key), torch.as_tensor(v, dtype=x.dtype).expand(
            out[key].shape) if not isinstance(v, torch.Tensor) else v.expand(out[key].shape),
            accumulate=True)
    cur = out[key]
    if how == "add":
        new = cur + v
    elif how == "multiply":
        new = cur * v
    elif how == "min":
        new = torch.minimum(cur, torch.as_tensor(v, dtype=x.dtype, device=x.device))
    elif how == "max":
        new = torch.maximum(cur, torch.as_tensor(v, dtype=x.dtype, device=x.device))
    else:
        raise ValueError(f"unknown update {how!r}")
    out[key] = new
    return out


def _advanced(key):
    ks = key if isinstance(key, tuple) else (key,)
    return builtins.any(isinstance(k, torch.Tensor) and k.dtype != torch.bool and k.ndim > 0 for k in ks)


def _as_index_tuple(x, key):
    ks = key if isinstance(key, tuple) else (key,)
    if builtins.all(isinstance(k, torch.Tensor) for k in ks) and len(ks) <= x.ndim:
        return tuple(ks)
    raise ValueError(".at[...].add with mixed advanced/basic indices is not supported")


def _split(x, sizes, axis):
    return list(torch.split(x, sizes, dim=axis))


def _sort(x, axis, descending, stable):
    return torch.sort(x, dim=axis, descending=descending, stable=stable)[0]


def _argsort(x, axis, stable):
    return torch.sort(x, dim=axis, stable=stable)[1]


def _nonzero(x):
    return list(torch.nonzero(x, as_tuple=True)) if x.ndim else [torch.nonzero(x.reshape(1))[:, 0]]


def _reduce(fn, keep_dtype=False):
    def f(x, axis, keepdims, **kw):
        if keep_dtype:
            kw["dtype"] = x.dtype
        if axis is None:
            r = fn(x, **kw)
            return r.reshape((1,) * x.ndim) if keepdims else r
        return fn(x, dim=axis, keepdim=keepdims, **kw)
    return f


def _amax(x, dim=None, keepdim=False):
    return torch.amax(x, dim=() if dim is None else dim, keepdim=keepdim)


def _amin(x, dim=None, keepdim=False):
    return torch.amin(x, dim=() if dim is None else dim, keepdim=keepdim)


def _arg(fn):
    def f(x, axis):
        if axis is None:
            return fn(x.reshape(-1))
        return fn(x, dim=axis)
    return f


def _cum(fn):
    def f(x, axis):
        if axis is None:
            x = x.reshape(-1)
            axis = 0
        return fn(x, dim=axis, dtype=x.dtype)
    return f


def _var(x, axis, keepdims, ddof):
    if axis is None:
        axis = tuple(range(x.ndim))
    return torch.var(x, dim=axis, keepdim=keepdims, correction=ddof)


def _std(x, axis, keepdims, ddof):
    if axis is None:
        axis = tuple(range(x.ndim))
    return torch.std(x, dim=axis, keepdim=keepdims, correction=ddof)


def _tensordot(a, b, axes):
    return torch.tensordot(a, b, dims=axes)


def _diag(x, k):
    return torch.diag(x, k)


def _diagonal(x, offset, axis1, axis2):
    return torch.diagonal(x, offset, axis1, axis2)


def _cross(a, b, axis):
    return torch.linalg.cross(a, b, dim=axis)


def _matmul(a, b):
    return torch.matmul(a, b)


def _clip(x, lo, hi):
    return torch.clamp(x, lo, hi)


def _round(x, decimals):
    return torch.round(x, decimals=decimals) if decimals else torch.round(x)


def _count_nonzero(x, axis):
    return torch.count_nonzero(x, dim=axis)


def _roll(x, shift, axis):
    if axis is None:
        return torch.roll(x.reshape(-1), shift).reshape(x.shape)
    return torch.roll(x, shift, axis)


def _repeat(x, repeats, axis):
    return torch.repeat_interleave(x, repeats, dim=axis)


def _nan_reduce(fn, fill):
    def f(x, axis, keepdims, **kw):
        x = torch.where(torch.isnan(x), torch.full((), fill, dtype=x.dtype, device=x.device), x)
        return _reduce(fn)(x, axis, keepdims, **kw)
    return f


def _nanmean(x, axis, keepdims):
    return torch.nanmean(x, dim=axis, keepdim=keepdims)


def _vander(x, n, increasing):
    return torch.linalg.vander(x, N=n) if increasing else torch.linalg.vander(x, N=n).flip(-1)


def _searchsorted(a, v, side):
    return torch.searchsorted(a, v, side=side)


_WIDE_U = (torch.uint16, torch.uint32, torch.uint64)


def _via_int64(fn):
    """torch lacks CPU sums/products for wide unsigned ints: compute modulo 2**64."""
    def f(x, *a, **k):
        if x.dtype in _WIDE_U:
            return fn(x.to(torch.int64), *a, **k).to(x.dtype)
        return fn(x, *a, **k)
    return f


def _prod(x, axis, keepdims):
    if axis is None:
        r = torch.prod(x, dtype=x.dtype)
        return r.reshape((1,) * x.ndim) if keepdims else r
    if isinstance(axis, int):
        axis = (axis,)
    for a in sorted((a % max(x.ndim, 1) for a in axis), reverse=True):
        x = torch.prod(x, dim=a, keepdim=keepdims, dtype=x.dtype)
    return x


def _nanprod(x, axis, keepdims):
    return _prod(torch.where(torch.isnan(x), torch.ones((), dtype=x.dtype, device=x.device), x),
                 axis, keepdims)


_sum = _via_int64(_reduce(torch.sum, True))
_prod_wide = _via_int64(_prod)
_mean = _reduce(torch.mean)
_all = _reduce(torch.all)
_any = _reduce(torch.any)
_argmax = _arg(torch.argmax)
_argmin = _arg(torch.argmin)
_cumsum = _via_int64(_cum(torch.cumsum))
_cumprod = _via_int64(_cum(torch.cumprod))
_nansum = _nan_reduce(torch.sum, 0.0)


# --- creation -----------------------------------------------------------------------------
def full(shape: Shape, value, dtype: dtypes.DType) -> Tensor:
    """A ``dtype`` tensor of ``shape`` filled with the Python number ``value``."""
    return _run("tnp.full", _full, shape, value, dtype._torch)


def arange(start, stop, step, dtype: dtypes.DType) -> Tensor:
    """``[start, stop)`` in steps of ``step`` (Python numbers) as ``dtype``."""
    return _run("tnp.arange", _arange, start, stop, step, dtype._torch)


def linspace(start: float, stop: float, num: int, endpoint: bool, dtype: dtypes.DType) -> Tensor:
    """``num`` evenly spaced floats over ``[start, stop]`` (computed in float64)."""
    return _run("tnp.linspace", _linspace, start, stop, num, endpoint, dtype._torch)


def eye(n: int, m: Optional[int], k: int, dtype: dtypes.DType) -> Tensor:
    """``n x m`` (``n x n`` when ``m`` is None) with ones on diagonal ``k``."""
    return _run("tnp.eye", _eye, n, m, k, dtype._torch)


def tri(n: int, m: int, k: int, dtype: dtypes.DType) -> Tensor:
    """``n x m`` with ones at and below diagonal ``k``."""
    return _run("tnp.tri", _tri, n, m, k, dtype._torch)


def clone(x: Tensor) -> Tensor:
    """A copy of ``x`` (its own memory)."""
    return _run("tnp.clone", torch.clone, x)


# --- shape and order ----------------------------------------------------------------------
def reshape(x: Tensor, shape: Shape) -> Tensor:
    """``x`` with a new shape (one ``-1`` is inferred)."""
    _c.reshape(x._t.numel(), shape)
    return _run("tnp.reshape", torch.reshape, x, shape)


def broadcast_to(x: Tensor, shape: Shape) -> Tensor:
    """``x`` broadcast to ``shape``."""
    _c.broadcast_to(tuple(x._t.shape), shape)
    return _run("tnp.broadcast_to", torch.broadcast_to, x, shape)


def transpose(x: Tensor, axes: Shape) -> Tensor:
    """``x`` with its axes permuted to ``axes``."""
    _c.each_axis("Transpose", x._t.dim(), axes, "{a} is out of range [0 .. {n})")
    return _run("tnp.permute", torch.permute, x, axes)


def moveaxis(x: Tensor, source: Union[int, Shape], destination: Union[int, Shape]) -> Tensor:
    """``x`` with axes ``source`` moved to ``destination``."""
    n = x._t.dim()
    for a in (source, destination):
        if not builtins.all(-n <= i < n for i in ((a,) if isinstance(a, int) else a)):
            # TF's moveaxis builds an out-of-range permutation and Transpose rejects it.
            raise InvalidArgumentError(None, None, f"transpose expects a vector of size {n}. "
                                                   f"But input(1) is a vector of size {n + 1} "
                                                   f"[Op:Transpose]")
    return _run("tnp.movedim", torch.movedim, x, source, destination)


def expand_dims(x: Tensor, axis: int) -> Tensor:
    """``x`` with a length-1 axis inserted at ``axis``."""
    return _run("tnp.unsqueeze", torch.unsqueeze, x, axis)


def squeeze(x: Tensor, axes: Shape) -> Tensor:
    """``x`` without the length-1 axes ``axes``."""
    return _run("tnp.squeeze", torch.squeeze, x, axes)


def flip(x: Tensor, axes: Shape) -> Tensor:
    """``x`` reversed along ``axes``."""
    _c.each_axis("ReverseV2", x._t.dim(), axes, "'axis'[{i}] = {a} is out of valid range [0, {m}")
    return _run("tnp.flip", torch.flip, x, axes)


def rot90(x: Tensor, k: int, axes: Sequence[int]) -> Tensor:
    """``x`` rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    return _run("tnp.rot90", torch.rot90, x, k, axes)


def roll(x: Tensor, shift: Union[int, Shape], axis: Axis) -> Tensor:
    """``x`` rolled by ``shift`` along ``axis`` (the flattened tensor when None)."""
    _c.each_axis("Roll", x._t.dim(), axis, "axis {a} is out of range")
    return _run("tnp.roll", _roll, x, shift, axis)


def tril(x: Tensor, k: int) -> Tensor:
    """The lower triangle (at and below diagonal ``k``) of the last two axes."""
    return _run("tnp.tril", torch.tril, x, k)


def triu(x: Tensor, k: int) -> Tensor:
    """The upper triangle (at and above diagonal ``k``) of the last two axes."""
    return _run("tnp.triu", torch.triu, x, k)


def concatenate(xs: Sequence[Tensor], axis: int) -> Tensor:
    """The tensors ``xs`` (one dtype) joined along ``axis``."""
    if xs:
        _c.concat_shapes([tuple(x._t.shape) for x in xs], axis)
    return _run("tnp.cat", torch.cat, list(xs), axis)


def stack(xs: Sequence[Tensor], axis: int) -> Tensor:
    """The tensors ``xs`` (one dtype and shape) joined along a new axis ``axis``."""
    if xs:
        _c.stack_axis(xs[0]._t.dim(), axis)
    return _run("tnp.stack", torch.stack, list(xs), axis)


def split(x: Tensor, sizes: Sequence[int], axis: int) -> list:
    """``x`` cut along ``axis`` into pieces of ``sizes``."""
    return _run("tnp.split", _split, x, sizes, axis)


def tile(x: Tensor, reps: Shape) -> Tensor:
    """``x`` repeated ``reps`` times per axis."""
    _c.tile(x._t.dim(), reps)
    return _run("tnp.tile", torch.tile, x, reps)


def repeat(x: Tensor, repeats: Union[int, Tensor], axis: int) -> Tensor:
    """Each element of ``x`` repeated ``repeats`` times along ``axis``."""
    if axis is not None and not -x._t.dim() <= axis < x._t.dim():
        raise IndexError("list index out of range")  # TF's tnp.repeat indexes the shape
    return _run("tnp.repeat", _repeat, x, repeats, axis)


def pad(x: Tensor, pads: Sequence[Sequence[int]], mode: str, value) -> Tensor:
    """``x`` padded by ``pads`` (per axis ``[before, after]``) in NumPy's ``mode``."""
    return _run("tnp.pad", _pad, x, pads, mode, value)


def diag(x: Tensor, k: int) -> Tensor:
    """Diagonal ``k`` of a matrix, or a matrix with the 1-d ``x`` on diagonal ``k``."""
    return _run("tnp.diag", torch.diag, x, k)


def diagonal(x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    """The diagonal over ``axis1``/``axis2``, appended as the last axis."""
    _c.each_axis("Transpose", x._t.dim(), (axis1, axis2), "transpose expects a vector of size "
                 "{n}. But input(1) is a vector of size " + str(x._t.dim() + 1))
    return _run("tnp.diagonal", torch.diagonal, x, offset, axis1, axis2)


# --- sorting, searching, selecting --------------------------------------------------------
def sort(x: Tensor, axis: int, descending: bool, stable: bool) -> Tensor:
    """``x`` sorted along ``axis``."""
    _c.each_axis("StridedSlice", x._t.dim(), axis, "slice index {c} of dimension 0 out of bounds.")
    return _run("tnp.sort", _sort, x, axis, descending, stable)


def argsort(x: Tensor, axis: int, stable: bool) -> Tensor:
    """The int64 indices that sort ``x`` along ``axis``."""
    _c.each_axis("StridedSlice", x._t.dim(), axis, "slice index {c} of dimension 0 out of bounds.")
    return _run("tnp.argsort", _argsort, x, axis, stable)


def searchsorted(a: Tensor, v: Tensor, side: str) -> Tensor:
    """Insertion indices of ``v`` into the sorted 1-d ``a``."""
    return _run("tnp.searchsorted", _searchsorted, a, v, side)


def where(condition: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """``x`` where the bool ``condition`` holds, else ``y`` (``x``, ``y`` of one dtype)."""
    return _run("tnp.where", torch.where, condition, x, y)


def nonzero(x: Tensor) -> list:
    """One int64 index tensor per axis of ``x``'s nonzero elements."""
    return _run("tnp.nonzero", _nonzero, x)


def take(x: Tensor, indices: Tensor, axis: Optional[int], mode: str) -> Tensor:
    """Elements of ``x`` at the int64 ``indices`` along ``axis`` (clipped or wrapped)."""
    _c.each_axis("StridedSlice", x._t.dim(), axis, "slice index {c} of dimension 0 out of bounds.")
    return _run("tnp.take", _take, x, indices, axis, mode)


def take_along_axis(x: Tensor, indices: Tensor, axis: Optional[int]) -> Tensor:
    """Elements of ``x`` at the matching int64 ``indices`` along ``axis``."""
    return _run("tnp.take_along_axis", _take_along_axis, x, indices, axis)


# --- reductions ---------------------------------------------------------------------------
def sum(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:  # noqa: A001 - NumPy's name
    """Sum over ``axis`` (all axes when None) in ``x``'s dtype."""
    _c.reduction_axes("Sum", x._t.dim(), axis)
    return _run("tnp.sum", _sum, x, axis, keepdims)


def prod(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:
    """Product over ``axis`` in ``x``'s dtype."""
    _c.reduction_axes("Prod", x._t.dim(), axis)
    return _run("tnp.prod", _prod_wide, x, axis, keepdims)


def mean(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:
    """Mean over ``axis`` of a floating-point ``x``."""
    _c.reduction_axes("Mean", x._t.dim(), axis)
    return _run("tnp.mean", _mean, x, axis, keepdims)


def var(x: Tensor, axis: Axis, keepdims: bool, ddof: int) -> Tensor:
    """Variance over ``axis`` with ``ddof`` degrees of freedom removed."""
    _c.reduction_axes("Mean", x._t.dim(), axis)
    return _run("tnp.var", _var, x, axis, keepdims, ddof)


def std(x: Tensor, axis: Axis, keepdims: bool, ddof: int) -> Tensor:
    """Standard deviation over ``axis`` with ``ddof`` degrees of freedom removed."""
    _c.reduction_axes("Mean", x._t.dim(), axis)
    return _run("tnp.std", _std, x, axis, keepdims, ddof)


def amax(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:
    """Maximum over ``axis`` (NaN propagates)."""
    _c.reduction_axes("Max", x._t.dim(), axis)
    return _run("tnp.amax", _amax, x, axis, keepdims)


def amin(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:
    """Minimum over ``axis`` (NaN propagates)."""
    _c.reduction_axes("Min", x._t.dim(), axis)
    return _run("tnp.amin", _amin, x, axis, keepdims)


def all(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:  # noqa: A001 - NumPy's name
    """Logical AND over ``axis`` of a bool ``x``."""
    _c.reduction_axes("All", x._t.dim(), axis)
    return _run("tnp.all", _all, x, axis, keepdims)


def any(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:  # noqa: A001 - NumPy's name
    """Logical OR over ``axis`` of a bool ``x``."""
    _c.reduction_axes("Any", x._t.dim(), axis)
    return _run("tnp.any", _any, x, axis, keepdims)


def argmax(x: Tensor, axis: Optional[int]) -> Tensor:
    """Index of the first maximum along ``axis`` (of the flattened ``x`` when None)."""
    _c.one_axis("ArgMax", x._t.dim(), axis, "Expected dimension")
    return _run("tnp.argmax", _argmax, x, axis)


def argmin(x: Tensor, axis: Optional[int]) -> Tensor:
    """Index of the first minimum along ``axis`` (of the flattened ``x`` when None)."""
    _c.one_axis("ArgMin", x._t.dim(), axis, "Expected dimension")
    return _run("tnp.argmin", _argmin, x, axis)


def cumsum(x: Tensor, axis: Optional[int]) -> Tensor:
    """Cumulative sum along ``axis`` (the flattened ``x`` when None) in ``x``'s dtype."""
    _c.one_axis("Cumsum", x._t.dim(), axis, "ScanOp: Expected scan axis")
    return _run("tnp.cumsum_ax", _cumsum, x, axis)


def cumprod(x: Tensor, axis: Optional[int]) -> Tensor:
    """Cumulative product along ``axis`` (the flattened ``x`` when None)."""
    _c.one_axis("Cumprod", x._t.dim(), axis, "ScanOp: Expected scan axis")
    return _run("tnp.cumprod_ax", _cumprod, x, axis)


def nansum(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:
    """Sum over ``axis`` counting NaN as zero."""
    return _run("tnp.nansum", _nansum, x, axis, keepdims)


def nanprod(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:
    """Product over ``axis`` counting NaN as one."""
    return _run("tnp.nanprod", _nanprod, x, axis, keepdims)


def nanmean(x: Tensor, axis: Axis, keepdims: bool) -> Tensor:
    """Mean over ``axis`` ignoring NaN."""
    _c.reduction_axes("Mean", x._t.dim(), axis)
    return _run("tnp.nanmean", _nanmean, x, axis, keepdims)


def count_nonzero(x: Tensor, axis: Axis) -> Tensor:
    """The number of nonzero elements over ``axis`` (int64)."""
    _c.reduction_axes("Sum", x._t.dim(), axis)
    return _run("tnp.count_nonzero", _count_nonzero, x, axis)


# --- products and other ---------------------------------------------------------------
def matmul(a: Tensor, b: Tensor) -> Tensor:
    """The matrix product, broadcasting batch axes."""
    return _run("tnp.matmul", torch.matmul, a, b)


def tensordot(a: Tensor, b: Tensor, axes) -> Tensor:
    """The sum of products over the axis pairs ``axes`` (an int or two lists)."""
    return _run("tnp.tensordot", _tensordot, a, b, axes)


def outer(a: Tensor, b: Tensor) -> Tensor:
    """The outer product of two 1-d tensors."""
    return _run("tnp.outer", torch.outer, a, b)


def kron(a: Tensor, b: Tensor) -> Tensor:
    """The Kronecker product."""
    return _run("tnp.kron", torch.kron, a, b)


def cross(a: Tensor, b: Tensor, axis: int) -> Tensor:
    """The cross product of 3-vectors along ``axis`` (shapes already broadcast)."""
    return _run("tnp.cross", _cross, a, b, axis)


def einsum(subscripts: str, *operands: Tensor) -> Tensor:
    """Einstein summation over ``operands`` (one dtype)."""
    return _run("tnp.einsum", torch.einsum, subscripts, *operands)


def isclose(a: Tensor, b: Tensor, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (bool)."""
    return _run("tnp.isclose", torch.isclose, a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def round(x: Tensor, decimals: int) -> Tensor:  # noqa: A001 - NumPy's name
    """Rounds half to even to ``decimals`` digits."""
    return _run("tnp.round", _round, x, decimals)


def getitem(x: Tensor, key) -> Tensor:
    """NumPy indexing: ints, slices, None, ..., int arrays and bool masks."""
    try:
        t, k = _neg_steps(x._t, _key(key))
        r = t[k]
    except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
        raise translate("tnp.getitem", e) from None
    return wrap(r, x._dtype)


def index_update(x: Tensor, key, v, how: str) -> Tensor:
    """Functional ``x[key] = v`` / ``+= v`` ...: a new tensor, ``x`` unchanged."""
    vt = v._t if type(v) is Tensor else v
    try:
        r = _index_update(x._t, _key(key), vt, how)
    except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
        raise translate(f"tnp.at[].{how}", e) from None
    return wrap(r, x._dtype)



def shares_memory(a: Tensor, b) -> bool:
    """True when ``a`` and the NumPy array / Tensor ``b`` use the same buffer."""
    pa = a._t.data_ptr()
    if isinstance(b, Tensor):
        return pa == b._t.data_ptr()
    return pa == b.__array_interface__["data"][0]
