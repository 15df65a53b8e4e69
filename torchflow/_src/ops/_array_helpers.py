"""Helpers shared by the array op families (shape arguments, axes, string tensors).

String tensors hold NumPy object arrays; the shape-only ops run on them through
``via_index``: the op is applied to a tensor of flat positions and the result
picks the strings, so one torch implementation serves every dtype.
uint16/32/64 have few torch kernels; ``as_native``/``from_native`` reinterpret
them as the signed type of the same width for ops that only move elements.
"""

from __future__ import annotations

import numbers

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.graph_shapes import SymInt
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.ops._dispatch import tf_type_name as tfname

_NATIVE = {
    dtypes.uint16: torch.int16,
    dtypes.uint32: torch.int32,
    dtypes.uint64: torch.int64,
}


def tensor_of(x, dtype=None) -> Tensor:
    """An op input as a Tensor (fast path for Tensors)."""
    if type(x) is Tensor:
        return x
    return to_tensor(x, dtype)


def is_str(t) -> bool:
    return isinstance(t, np.ndarray)


def as_native(x: Tensor):
    """``x._t``, reinterpreted as a signed dtype when torch lacks kernels for it."""
    nt = _NATIVE.get(x._dtype)
    return x._t if nt is None else x._t.view(nt)


def from_native(t, dtype: dtypes.DType) -> Tensor:
    nt = _NATIVE.get(dtype)
    return wrap(t if nt is None else t.view(dtype._torch), dtype)


def op_error(op: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op}]")


def via_index(fn, arr: np.ndarray) -> np.ndarray:
    """Applies an element-moving torch function ``fn`` to a string array."""
    idx = torch.arange(arr.size, dtype=torch.int64).reshape(arr.shape)
    out = fn(idx)
    flat = arr.reshape(-1)
    pos = out.numpy()
    res = np.empty(pos.shape, dtype=object)
    if pos.size:
        res.reshape(-1)[:] = flat[pos.reshape(-1)]
    return res


def positions_of(arrays):
    """Index tensors for several string arrays sharing one flat pool."""
    pool = np.concatenate([a.reshape(-1) for a in arrays]) if arrays else np.empty(0, object)
    idx, off = [], 0
    for a in arrays:
        idx.append(torch.arange(off, off + a.size, dtype=torch.int64).reshape(a.shape))
        off += a.size
    return pool, idx


def gather_pool(pool: np.ndarray, pos: torch.Tensor) -> np.ndarray:
    p = pos.numpy()
    res = np.empty(p.shape, dtype=object)
    if p.size:
        res.reshape(-1)[:] = pool[p.reshape(-1)]
    return res


def int_value(x, what: str = "value") -> int:
    """A Python int from an int, NumPy integer or scalar integer tensor."""
    if type(x) is int or type(x) is SymInt:
        return x
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, Tensor) or hasattr(x, "_tf_value"):
        t = tensor_of(x)
        if not (t._dtype.is_integer and t._t.ndim == 0):
            raise TypeError(f"Expected an integer scalar for `{what}`, got {t!r}")
        v = t._t.item()
        return v if type(v) is SymInt else int(v)  # a traced size stays one (graph_shapes)
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iu":
        return int(x)
    raise TypeError(f"Expected an integer for `{what}`, got {x!r} of type {type(x).__name__}")


def as_int(v) -> int:
    """``int(v)``, keeping a size read while a function traces symbolic (graph_shapes)."""
    return v if type(v) is SymInt else int(v)


def int_list(x, what: str = "shape") -> list:
    """A list of Python ints from a list/tuple/TensorShape/1-D integer tensor."""
    if type(x) in (list, tuple):
        if all(type(v) is int for v in x):
            return list(x)
        return [int_value(v, what) for v in x]
    if isinstance(x, TensorShape):
        return x.as_list()
    if isinstance(x, Tensor) or hasattr(x, "_tf_value"):
        t = tensor_of(x)
        if not t._dtype.is_integer:
            raise TypeError(f"Expected int32 or int64 for `{what}`, got {t._dtype.name}")
        if t._t.ndim > 1:
            raise op_error(what, f"{what} must be a vector, got shape {list(t._t.shape)}")
        return t._t.reshape(-1).tolist()  # ints (a traced size stays one: graph_shapes)
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "iu":
            raise TypeError(f"Expected int32 or int64 for `{what}`, got {x.dtype}")
        return [int(v) for v in x.reshape(-1)]
    if isinstance(x, numbers.Integral):
        return [int(x)]
    raise TypeError(f"Expected a list of integers for `{what}`, got {x!r}")


def norm_axis(axis, rank: int, op: str) -> int:
    a = int_value(axis, "axis")
    if not -rank <= a < rank:
        raise op_error(op, f"Expected axis in the range [{-rank}, {rank}), but got {a}")
    return a + rank if a < 0 else a


def same_dtype(op: str, tensors) -> dtypes.DType:
    d = tensors[0]._dtype
    for i, t in enumerate(tensors):
        if t._dtype is not d:
            raise InvalidArgumentError(
                None, None,
                f"cannot compute {op} as input #{i}(zero-based) was expected to be a "
                f"{tfname(d)} tensor but is a {tfname(t._dtype)} tensor [Op:{op}]")
    return d


def tensor_list(values, op: str):
    """Converts a list of op inputs the way TF matches them to one dtype.

    The first tensor's dtype wins; without tensors the first converted value
    decides. Python values that do not fit raise TypeError; NumPy arrays are
    cast, as in TF.
    """
    d = None
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "_tf_value"):
            d = tensor_of(v)._dtype
            break
    out = []
    for v in values:
        if type(v) is Tensor:
            out.append(v)
        else:
            t = to_tensor(v, d)
            out.append(t)
            if d is None:
                d = t._dtype
    if out:
        same_dtype(op, out)
    return out
