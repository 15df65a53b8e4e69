"""Engine kernels for ``tf.experimental.numpy`` (the only torch the NumPy layer reaches).

``_src/numpy`` decides dtypes (NumPy promotion) and argument handling without
importing torch; it then calls :func:`run` with a kernel name from the table below
and tensors already cast to the result dtype. Kernels are torch functions (or tiny
adapters around them), so they are differentiable under ``GradientTape`` and
traceable by ``torch.compile``.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.errors import translate
from torchflow._src.core.tensor import Tensor, wrap

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


def run(name: str, *args, **kwargs):
    """Runs kernel ``name`` on unwrapped ``args``; wraps tensor results."""
    fn = _KERNELS[name]
    try:
        r = fn(*[_unwrap(a) for a in args], **kwargs)
    except (TypeError, ValueError) as e:
        if isinstance(e, TypeError) and "argument" not in str(e):
            raise
        raise translate(f"tnp.{name}", RuntimeError(str(e))) from None
    except Exception as e:  # torch kernel errors become TF errors  # noqa: BLE001 (re-raised as the TF error)
        raise translate(f"tnp.{name}", e) from None
    return _wrap_out(r)


def binary_kernel(name: str):
    """A fast two-tensor kernel: ``f(x, y)`` with x, y Tensors of one dtype."""
    fn = _KERNELS[name]
    op = f"tnp.{name}"

    def f(x, y):
        try:
            r = fn(x._t, y._t)
        except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
            raise translate(op, e) from None
        return wrap(r, _BY_TORCH[r.dtype])

    return f


def scalar_kernel(name: str):
    """``f(x, s)``: Tensor ``x`` with a Python scalar ``s`` already known to keep x's dtype."""
    fn = _KERNELS[name]
    op = f"tnp.{name}"

    def f(x, s):
        t = x._t
        try:
            r = fn(t, s)
        except TypeError:  # kernels without a scalar overload (maximum, atan2 ...)
            try:
                r = fn(t, torch.tensor(s, dtype=t.dtype, device=t.device))
            except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
                raise translate(op, e) from None
        except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
            raise translate(op, e) from None
        return wrap(r, _BY_TORCH[r.dtype])

    return f


def unary_kernel(name: str):
    fn = _KERNELS[name]
    op = f"tnp.{name}"

    def f(x):
        try:
            r = fn(x._t)
        except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
            raise translate(op, e) from None
        return wrap(r, _BY_TORCH[r.dtype])

    return f


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


def _getitem(x, key):
    return x[key]


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
    if not any(type(k) is slice and k.step is not None and k.step < 0 for k in ks):
        return t, key
    used = sum(k.ndim if isinstance(k, torch.Tensor) and k.dtype == torch.bool else (
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
    return any(isinstance(k, torch.Tensor) and k.dtype != torch.bool and k.ndim > 0 for k in ks)


def _as_index_tuple(x, key):
    ks = key if isinstance(key, tuple) else (key,)
    if all(isinstance(k, torch.Tensor) for k in ks) and len(ks) <= x.ndim:
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


def _rng(seed):
    return None


def _float_power(a, b):
    return torch.pow(a, b)


def _divmod(a, b):
    return [torch.floor_divide(a, b), torch.remainder(a, b)]


def _heaviside(a, b):
    return torch.where(a == 0, b, (a > 0).to(a.dtype))


def _to_bool_nonzero(a):
    return a != 0


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


_T = torch
_KERNELS = {
    # elementwise
    **{n: getattr(_T, n) for n in (
        "abs sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp exp2 "
        "expm1 log log2 log10 log1p sqrt square reciprocal sign ceil floor trunc negative "
        "positive conj real imag angle isnan isinf isfinite isposinf isneginf signbit "
        "logical_not bitwise_not deg2rad rad2deg sinc add subtract multiply true_divide "
        "floor_divide remainder fmod maximum minimum atan2 hypot logaddexp logaddexp2 nextafter "
        "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift gcd lcm "
        "logical_and logical_or logical_xor eq ne lt le gt ge pow copysign "
        "reshape permute broadcast_to squeeze unsqueeze movedim flip tril triu kron "
        "outer inner vdot einsum stack cat tile rot90 cumsum cumprod diagflat isclose "
        "real_if_complex").split() if hasattr(_T, n)},
    "cbrt": lambda x: torch.sign(x) * torch.abs(x).pow(1.0 / 3),
    "float_power": _float_power,
    "divmod": _divmod,
    "heaviside": _heaviside,
    "nonzero_mask": _to_bool_nonzero,
    "where": _where,
    "clip": _clip,
    "round": _round,
    "cast": None,  # handled by cast()
    # creation
    "full": _full,
    "arange": _arange,
    "linspace": _linspace,
    "eye": _eye,
    "tri": _tri,
    # shape / indexing
    "pad": _pad,
    "take": _take,
    "take_along_axis": _take_along_axis,
    "getitem": _getitem,
    "index_update": _index_update,
    "split": _split,
    "sort": _sort,
    "argsort": _argsort,
    "nonzero": _nonzero,
    "roll": _roll,
    "repeat": _repeat,
    "diag": _diag,
    "diagonal": _diagonal,
    "cross": _cross,
    "matmul": _matmul,
    "tensordot": _tensordot,
    "vander": _vander,
    "searchsorted": _searchsorted,
    "contiguous": lambda x: x.contiguous(),
    "clone": lambda x: x.clone(),
    # reductions
    "sum": _via_int64(_reduce(torch.sum, True)),
    "prod": _via_int64(lambda x, axis, keepdims: _prod(x, axis, keepdims)),
    "mean": _reduce(torch.mean),
    "amax": _amax,
    "amin": _amin,
    "all": _reduce(torch.all),
    "any": _reduce(torch.any),
    "argmax": _arg(torch.argmax),
    "argmin": _arg(torch.argmin),
    "cumsum_ax": _via_int64(_cum(torch.cumsum)),
    "cumprod_ax": _via_int64(_cum(torch.cumprod)),
    "var": _var,
    "std": _std,
    "nansum": _nan_reduce(torch.sum, 0.0),
    "nanprod": lambda x, axis, keepdims: _prod(
        torch.where(torch.isnan(x), torch.ones((), dtype=x.dtype, device=x.device), x),
        axis, keepdims),
    "nanmean": _nanmean,
    "count_nonzero": _count_nonzero,
}


def _prod(x, axis, keepdims):
    if axis is None:
        r = torch.prod(x, dtype=x.dtype)
        return r.reshape((1,) * x.ndim) if keepdims else r
    if isinstance(axis, int):
        axis = (axis,)
    for a in sorted((a % max(x.ndim, 1) for a in axis), reverse=True):
        x = torch.prod(x, dim=a, keepdim=keepdims, dtype=x.dtype)
    return x


_KERNELS["amax_r"] = _KERNELS["amax"]


def shares_memory(a: Tensor, b) -> bool:
    """True when ``a`` and the NumPy array / Tensor ``b`` use the same buffer."""
    pa = a._t.data_ptr()
    if isinstance(b, Tensor):
        return pa == b._t.data_ptr()
    return pa == b.__array_interface__["data"][0]
