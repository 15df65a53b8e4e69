"""``tf.sets``: set operations along the last dimension of dense and sparse tensors.

Each position of the leading dimensions (a "group") holds one set: the values of
the last dimension (a dense row, duplicates counted once) or the values a
SparseTensor lists there. Results are SparseTensors in row-major order, each
group's elements sorted ascending (bytewise for strings), and the last dimension
as long as the largest result set, as TF's set kernels write them.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InternalError, InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.sparse import _sparse_common as sc
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public

_VALID_DTYPES = frozenset((dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
                           dtypes.uint8, dtypes.uint16, dtypes.string))


def _values_list(t: Tensor) -> list:
    """The elements of a values tensor as hashable Python values."""
    if t._dtype is dtypes.string:
        return list(np.asarray(t._t, dtype=object).reshape(-1))
    return t._t.reshape(-1).tolist()


def _check_rank(op: str, shape: list[int]) -> None:
    if len(shape) < 2:
        raise InvalidArgumentError(
            None, None, f"Shape {sc.fmt(shape)} has rank {len(shape)} < 2 [Op:{op}]")


def _check_last_index(op: str, ind: torch.Tensor, shape: list[int]) -> None:
    """TF's check of unvalidated indices: the last index must be below the last dim
    (TF's kernels report it as an InternalError)."""
    bad = torch.nonzero(ind[:, -1] >= shape[-1])
    if bad.shape[0]:
        i = int(bad[0, 0])
        raise InternalError(None, None, f"indices[{i}, {len(shape) - 1}] expected < {shape[-1]}, "
                                f"got {int(ind[i, -1])}. [Op:{op}]")


def _sparse_groups(op: str, x: SparseTensor, validate: bool) -> tuple[list[int], dict]:
    shape = sc.shape_list(x)
    if len(shape) < 2:
        raise InvalidArgumentError(None, None, f"Invalid rank {len(shape)}. [Op:{op}]")
    ind = sc.idx(x)
    if validate:
        sc.validate(op, ind, shape)
    elif ind.shape[0]:
        _check_last_index(op, ind, shape)
    out: dict = {}
    limits = shape[:-1]
    for key, v in zip(ind[:, :-1].tolist(), _values_list(x.values)):
        if all(0 <= k < d for k, d in zip(key, limits)):
            out.setdefault(tuple(key), set()).add(v)
    return limits, out


def _groups(op: str, x, validate: bool) -> tuple[list[int], dict]:
    """``(group_shape, {group index tuple: set of values})`` of a dense or sparse input."""
    if isinstance(x, SparseTensor):
        return _sparse_groups(op, x, validate)
    shape = x.shape.as_list()
    _check_rank(op, shape)
    vals = _values_list(x)
    last = shape[-1]
    out = {}
    for g, key in enumerate(np.ndindex(*shape[:-1])):
        row = vals[g * last:(g + 1) * last]
        if row:
            out[key] = set(row)
    return shape[:-1], out


def _result(groups: dict, group_shape: list[int], dtype: dtypes.DType) -> SparseTensor:
    rows, vals = [], []
    width = 0
    for key in sorted(groups):
        elems = sorted(groups[key])
        width = max(width, len(elems))
        for j, v in enumerate(elems):
            rows.append(list(key) + [j])
            vals.append(v)
    rank = len(group_shape) + 1
    ind = torch.tensor(rows, dtype=torch.int64).reshape(len(rows), rank)
    if dtype is dtypes.string:
        values = wrap(np.array(vals, dtype=object).reshape(len(vals)), dtype)
    else:
        values = wrap(torch.tensor(vals, dtype=dtype.torch_dtype).reshape(len(vals)), dtype)
    return sc.make(ind, values, group_shape + [width])


def _as_input(x):
    if isinstance(x, SparseTensor):
        return x
    if all(hasattr(x, a) for a in ("indices", "values", "dense_shape")) \
            and not isinstance(x, Tensor):
        return SparseTensor.from_value(x)
    return tensor_arg(x)


def _convert_pair(a, b):
    """Both inputs converted and checked; a sparse-dense pair is flipped to dense-sparse."""
    a = _as_input(a)
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' invalid dtype {a.dtype}.")
    b = _as_input(b)
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, kind: str, validate_indices) -> SparseTensor:
    if isinstance(a, SparseTensor):
        op = "SparseToSparseSetOperation"
    elif isinstance(b, SparseTensor):
        op = "DenseToSparseSetOperation"
    else:
        op = "DenseToDenseSetOperation"
    validate = bool(validate_indices)
    if isinstance(b, SparseTensor):  # TF's kernels check the sparse input first
        shape_b, gb = _groups(op, b, validate)
        shape_a, ga = _groups(op, a, validate)
    else:
        shape_a, ga = _groups(op, a, validate)
        shape_b, gb = _groups(op, b, validate)
    if shape_a != shape_b:
        raise InvalidArgumentError(
            None, None, f"Mismatched shapes {sc.fmt(shape_a)} vs {sc.fmt(shape_b)} [Op:{op}]")
    empty: set = set()
    out = {}
    for key in set(ga) | set(gb):
        sa, sb = ga.get(key, empty), gb.get(key, empty)
        if kind == "intersection":
            r = sa & sb
        elif kind == "union":
            r = sa | sb
        elif kind == "a-b":
            r = sa - sb
        else:
            r = sb - sa
        if r:
            out[key] = r
    return _result(out, shape_a, a.dtype)


@public("torchflow.sets")
def size(a, validate_indices=True) -> Tensor:
    """The number of unique elements along the last dimension of a SparseTensor.

    Args:
      a: A SparseTensor of int8, int16, int32, int64, uint8, uint16 or string
        values, of rank at least 2, indices in row-major order.
      validate_indices: Whether to check that the indices are in bounds and
        row-major sorted.

    Returns:
      An int32 Tensor of shape ``a.dense_shape[:-1]``: the size of each set.

    Raises:
      TypeError: If ``a`` is not a SparseTensor, or its dtype is not supported.
      InvalidArgumentError: If ``a`` has rank below 2, or (with
        ``validate_indices``) its indices are out of bounds or out of order.

    >>> import torchflow as tf
    >>> a = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [7, 7, 3], [2, 3])
    >>> tf.sets.size(a).numpy()
    array([1, 1], dtype=int32)
    """
    a = _as_input(a)
    if not isinstance(a, SparseTensor):
        raise TypeError("Expected `SparseTensor`, got %s." % (a,))
    if a.values.dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype {a.values.dtype}.")
    group_shape, groups = _sparse_groups("SetSize", a, bool(validate_indices))
    counts = torch.zeros(group_shape, dtype=torch.int32)
    for key, s in groups.items():
        counts[key] = len(s)
    return wrap(counts, dtypes.int32)


@public("torchflow.sets")
def intersection(a, b, validate_indices=True) -> SparseTensor:
    """The set intersection of the last dimensions of ``a`` and ``b``.

    All but the last dimension of ``a`` and ``b`` must match; each position of
    those dimensions is one set. ``a`` and ``b`` may be dense Tensors or
    SparseTensors (a sparse ``a`` with a dense ``b`` is flipped, since the
    operation is symmetric).

    Args:
      a: A Tensor or SparseTensor of int8, int16, int32, int64, uint8, uint16 or
        string values, rank at least 2 (sparse indices in row-major order).
      b: A Tensor or SparseTensor of the same dtype as ``a``.
      validate_indices: Whether to check that sparse indices are in bounds and
        row-major sorted.

    Returns:
      A SparseTensor of ``a``'s rank: each set's elements sorted ascending
      along the last dimension, whose size is the largest set's.

    Raises:
      TypeError: If the dtypes are not supported or do not match.
      InvalidArgumentError: If a rank is below 2, the leading dimensions differ,
        or sparse indices are invalid.

    >>> import torchflow as tf
    >>> r = tf.sets.intersection([[1, 2, 3], [4, 5, 6]], [[3, 2, 9], [7, 7, 7]])
    >>> r.values.numpy()
    array([2, 3], dtype=int32)
    >>> r.dense_shape.numpy()
    array([2, 2])
    """
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


@public("torchflow.sets")
def difference(a, b, aminusb=True, validate_indices=True) -> SparseTensor:
    """The set difference of the last dimensions of ``a`` and ``b``.

    All but the last dimension of ``a`` and ``b`` must match; each position of
    those dimensions is one set. A dense ``b`` with a sparse ``a`` is supported
    (TF flips the pair and the direction).

    Args:
      a: A Tensor or SparseTensor of int8, int16, int32, int64, uint8, uint16 or
        string values, rank at least 2 (sparse indices in row-major order).
      b: A Tensor or SparseTensor of the same dtype as ``a``.
      aminusb: If True, ``a - b``; otherwise ``b - a``.
      validate_indices: Whether to check that sparse indices are in bounds and
        row-major sorted.

    Returns:
      A SparseTensor of ``a``'s rank: each set's elements sorted ascending
      along the last dimension, whose size is the largest set's.

    Raises:
      TypeError: If the dtypes are not supported or do not match.
      InvalidArgumentError: If a rank is below 2, the leading dimensions differ,
        or sparse indices are invalid.

    >>> import torchflow as tf
    >>> r = tf.sets.difference([[1, 2, 3]], [[2, 5, 5]])
    >>> r.values.numpy()
    array([1, 3], dtype=int32)
    """
    a, b, flipped = _convert_pair(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


@public("torchflow.sets")
def union(a, b, validate_indices=True) -> SparseTensor:
    """The set union of the last dimensions of ``a`` and ``b``.

    All but the last dimension of ``a`` and ``b`` must match; each position of
    those dimensions is one set. ``a`` and ``b`` may be dense Tensors or
    SparseTensors.

    Args:
      a: A Tensor or SparseTensor of int8, int16, int32, int64, uint8, uint16 or
        string values, rank at least 2 (sparse indices in row-major order).
      b: A Tensor or SparseTensor of the same dtype as ``a``.
      validate_indices: Whether to check that sparse indices are in bounds and
        row-major sorted.

    Returns:
      A SparseTensor of ``a``'s rank: each set's elements sorted ascending
      along the last dimension, whose size is the largest set's.

    Raises:
      TypeError: If the dtypes are not supported or do not match.
      InvalidArgumentError: If a rank is below 2, the leading dimensions differ,
        or sparse indices are invalid.

    >>> import torchflow as tf
    >>> r = tf.sets.union([[b"b", b"a"]], [[b"c", b"a"]])
    >>> r.values.numpy()
    array([b'a', b'b', b'c'], dtype=object)
    """
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "union", validate_indices)
