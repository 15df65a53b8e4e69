"""Shared helpers of the sparse ops: argument checks, TF's index validation,
row-major ordering, and value gathering that works for string values (NumPy
object arrays) as well as torch tensors."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor

_ORDER_HINT = (" is out of order. Many sparse ops require sorted indices.\n"
               "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n")


def sparse_arg(sp_input) -> SparseTensor:
    """``sp_input`` as a SparseTensor (TypeError as TF's ``_convert_to_sparse_tensor``)."""
    if isinstance(sp_input, SparseTensor):
        return sp_input
    if all(hasattr(sp_input, a) for a in ("indices", "values", "dense_shape")) \
            and not isinstance(sp_input, Tensor):
        return SparseTensor.from_value(sp_input)
    raise TypeError("Input must be a SparseTensor.")


def idx(sp: SparseTensor) -> torch.Tensor:
    return sp.indices._t


def shape_list(sp: SparseTensor) -> list[int]:
    # tolist() gives ints (in a trace, ints that replay as the call's sizes: no int()).
    return list(sp.dense_shape._t.tolist())


def raw(t: Tensor):
    return t._t


def is_str(t: Tensor) -> bool:
    return t._dtype is dtypes.string


def take(values: Tensor, pos: torch.Tensor) -> Tensor:
    """``values[pos]`` (pos a 1-D int64 torch tensor)."""
    v = values._t
    if isinstance(v, np.ndarray):
        return wrap(v[pos.cpu().numpy()], values._dtype)
    return wrap(v[pos.to(v.device)], values._dtype)


def cat_values(parts: list[Tensor], dtype: dtypes.DType) -> Tensor:
    if dtype is dtypes.string:
        return wrap(np.concatenate([np.asarray(p._t, dtype=object).reshape(-1) for p in parts]),
                    dtype)
    return wrap(torch.cat([p._t.reshape(-1) for p in parts]), dtype)


def full_values(n: int, value, like: Tensor) -> Tensor:
    """``n`` copies of the scalar ``value`` in ``like``'s dtype."""
    if is_str(like):
        v = tensor_arg(value, dtypes.string)._t
        return wrap(np.full([n], np.asarray(v).reshape(()).item(), dtype=object), dtypes.string)
    v = tensor_arg(value, like._dtype)._t
    return wrap(v.reshape(()).to(like._t.device).expand(n).clone(), like._dtype)


def make(indices: torch.Tensor, values: Tensor, shape) -> SparseTensor:
    """A SparseTensor from int64 torch indices, a values Tensor and a shape list/tensor."""
    if not isinstance(shape, torch.Tensor):
        shape = torch.tensor(list(shape), dtype=torch.int64, device=indices.device)
    return SparseTensor._from_parts(wrap(indices.to(torch.int64), dtypes.int64), values,
                                    wrap(shape.to(torch.int64), dtypes.int64))


def fmt(row) -> str:
    """An index or shape as TF's kernels print it: ``[0,5]``."""
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def lex_compare(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Per row: -1, 0 or 1 as row ``a[i]`` is before, equal to or after ``b[i]``."""
    out = torch.zeros(a.shape[0], dtype=torch.int64, device=a.device)
    for c in range(a.shape[1] - 1, -1, -1):
        d = torch.sign(a[:, c] - b[:, c])
        out = torch.where(d != 0, d, out)
    return out


def lex_order(ind: torch.Tensor, cols=None) -> torch.Tensor:
    """The stable permutation that sorts the rows of ``ind`` row-major (by ``cols``)."""
    n = ind.shape[0]
    perm = torch.arange(n, device=ind.device)
    cols = range(ind.shape[1]) if cols is None else cols
    for c in reversed(list(cols)):
        key = ind[perm, c]
        perm = perm[torch.sort(key, stable=True).indices]
    return perm


@graph_trace.host_op
def validate(op: str, ind: torch.Tensor, shape: list[int], ordered: bool = True) -> None:
    """TF's SparseTensor::IndicesValid: bounds, then order and repeats, first bad row.

    A host node of traced functions: a replay checks each call's indices, as TF's
    kernels do at run time."""
    n = ind.shape[0]
    if n == 0:
        return
    lim = torch.tensor(shape, dtype=torch.int64, device=ind.device)
    bad_bound = ((ind < 0) | (ind >= lim)).any(1)
    bad = bad_bound.clone()
    cmp = None
    if ordered and n > 1:
        cmp = lex_compare(ind[1:], ind[:-1])
        bad[1:] |= cmp <= 0
    if not bool(bad.any()):
        return
    i = int(torch.nonzero(bad)[0, 0])
    row = fmt(ind[i].tolist())
    if bool(bad_bound[i]):
        msg = f"indices[{i}] = {row} is out of bounds: need 0 <= index < {fmt(shape)}"
    elif cmp is not None and int(cmp[i - 1]) == 0:
        msg = f"indices[{i}] = {row} is repeated"
    else:
        msg = f"indices[{i}] = {row}{_ORDER_HINT}"
    raise InvalidArgumentError(None, None, f"{msg} [Op:{op}]")


def is_ordered(ind: torch.Tensor) -> bool:
    if ind.shape[0] < 2:
        return True
    return bool((lex_compare(ind[1:], ind[:-1]) > 0).all())


def linear(ind: torch.Tensor, shape: list[int]) -> torch.Tensor:
    """Row-major linear positions of the rows of ``ind`` in ``shape``."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    if not strides:
        return torch.zeros(ind.shape[0], dtype=torch.int64, device=ind.device)
    return (ind * torch.tensor(strides, dtype=torch.int64, device=ind.device)).sum(1)


def unravel(lin: torch.Tensor, shape: list[int]) -> torch.Tensor:
    cols = []
    rest = lin
    for d in reversed(shape):
        d = max(d, 1)
        cols.append(rest % d)
        rest = torch.div(rest, d, rounding_mode="floor")
    cols.reverse()
    if not cols:
        return torch.zeros([lin.shape[0], 0], dtype=torch.int64, device=lin.device)
    return torch.stack(cols, 1)


def same_shape(op: str, a: list[int], b: list[int]) -> None:
    if len(a) != len(b):
        raise InvalidArgumentError(
            None, None, f"Operands do not have the same ranks; got shapes: {fmt(a)} and "
                        f"{fmt(b)} [Op:{op}]")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            raise InvalidArgumentError(
                None, None, f"Operands' shapes do not match: got {x} and {y} for dimension "
                            f"{i} [Op:{op}]")
