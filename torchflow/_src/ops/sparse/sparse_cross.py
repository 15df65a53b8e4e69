"""``tf.sparse.cross`` and ``tf.sparse.cross_hashed``: per-row feature crosses.

For each batch row, the cartesian product of the row's values of every input
(the first input varies slowest). ``cross`` joins the values as strings;
``cross_hashed`` combines their 64-bit fingerprints with FarmHash's
``FingerprintCat64``, as TF's SparseCross kernel does (strings hash with
``Fingerprint64``, int64 values are their own hash).
"""

from __future__ import annotations

import itertools

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.sparse import _sparse_common as sc
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.ops.string_hash_ops import fingerprint64
from torchflow._src.util.api import public

_M64 = (1 << 64) - 1
_KMUL = 0xC6A4A7935BD1E995
_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_INT64_MAX = (1 << 63) - 1


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _fingerprint_cat64(fp1: int, fp2: int) -> int:
    r = fp1 ^ _KMUL
    r ^= (_shift_mix((fp2 * _KMUL) & _M64) * _KMUL) & _M64
    r = (r * _KMUL) & _M64
    r = (_shift_mix(r) * _KMUL) & _M64
    return _shift_mix(r)


def input_rows(op: str, inputs) -> tuple[int, list[list[list]]]:
    """Per input, per batch row, the Python values of that row."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    per_input, batch = [], None
    for x in inputs:
        if isinstance(x, RaggedTensor):  # tf.ragged.cross: the rows of a 2-D RaggedTensor
            if x.shape.rank != 2:
                raise ValueError(f"tf.ragged.cross inputs must be 2-D; got shape {x.shape}")
            d = x.dtype
            rows = x.to_list()
            n = len(rows)
        elif isinstance(x, SparseTensor):
            d = x.dtype
            vals = x.values.numpy().tolist()
            rows_of = sc.idx(x)[:, 0].tolist()
            n = sc.shape_list(x)[0]
            rows: list[list] = [[] for _ in range(n)]
            for r, v in zip(rows_of, vals):
                rows[r].append(v)
        else:
            t = tensor_arg(x)
            d = t.dtype
            if t.shape.rank != 2:
                raise InvalidArgumentError(None, None, f"Dense inputs should be a matrix but "
                                                       f"received shape {t.shape} [Op:{op}]")
            arr = t.numpy()
            n = arr.shape[0]
            rows = [list(r) for r in arr.tolist()]
        if d not in (dtypes.int64, dtypes.string, dtypes.int32):
            raise TypeError(f"Input values must be int64 or string, got {d.name}")
        if batch is None:
            batch = n
        elif n != batch:
            msg = ("inputs must all have the same batch dimension size." if op == "RaggedCross"
                   else f"Expected batch size {batch} got {n}")
            raise InvalidArgumentError(None, None, f"{msg} [Op:{op}]")
        per_input.append(rows)
    return batch or 0, per_input


def crossed_rows(batch: int, per_input, combine) -> list[list]:
    """Per batch row, ``combine`` of each tuple of the cartesian product of the inputs' rows."""
    return [[combine(p) for p in itertools.product(*[rows[b] for rows in per_input])]
            for b in range(batch)]


def flat_values(vals: list, out_dtype):
    if out_dtype is dtypes.string:
        return wrap(np.array(vals, dtype=object).reshape(-1), dtypes.string)
    return wrap(torch.tensor(vals, dtype=torch.int64).reshape(-1), dtypes.int64)


def _build(batch: int, per_input, combine, out_dtype) -> SparseTensor:
    ind, vals = [], []
    width = 0
    for b, crossed in enumerate(crossed_rows(batch, per_input, combine)):
        width = max(width, len(crossed))
        ind.extend([b, j] for j in range(len(crossed)))
        vals.extend(crossed)
    ind_t = torch.tensor(ind, dtype=torch.int64).reshape(-1, 2)
    return sc.make(ind_t, flat_values(vals, out_dtype), [batch, width])


def join_combiner(separator):
    sep = (b"_X_" if separator is None else
           separator.encode() if isinstance(separator, str) else bytes(separator))
    return lambda p: sep.join(_as_bytes(v) for v in p)


def hash_combiner(num_buckets, hash_key):
    n = int(num_buckets)
    key = _DEFAULT_HASH_KEY if hash_key is None else int(hash_key) & _M64

    def combine(p):
        h = key
        for v in p:
            h = _fingerprint_cat64(h, fingerprint64(v) if isinstance(v, bytes) else int(v) & _M64)
        return h % n if n > 0 else h % _INT64_MAX
    return combine


def _sparse_first(inputs):
    """TF's SparseCross kernels cross the SparseTensor inputs first, then the dense
    ones (each group in the order given), whatever order the list has."""
    if not isinstance(inputs, (list, tuple)):
        return inputs
    return ([x for x in inputs if isinstance(x, SparseTensor)]
            + [x for x in inputs if not isinstance(x, SparseTensor)])


def _as_bytes(v) -> bytes:
    return v if isinstance(v, bytes) else str(int(v)).encode()


@public("torchflow.sparse")
def cross(inputs, name=None, separator=None) -> SparseTensor:
    """Crosses sparse and dense features into string features.

    Args:
      inputs: A list of rank-2 SparseTensors or dense Tensors (int64 or string)
        with one batch size.
      name: Unused (eager).
      separator: The string joining the crossed values (default ``"_X_"``).

    Returns:
      A string SparseTensor of shape ``[batch, max crosses per row]``.

    >>> import torchflow as tf
    >>> a = tf.sparse.SparseTensor([[0, 0], [0, 1]], [b"a", b"b"], [1, 2])
    >>> tf.sparse.cross([a, tf.constant([[b"x"]])]).values.numpy().tolist()
    [b'a_X_x', b'b_X_x']
    """
    batch, per_input = input_rows("SparseCrossV2", _sparse_first(inputs))
    return _build(batch, per_input, join_combiner(separator), dtypes.string)


@public("torchflow.sparse")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> SparseTensor:
    """Crosses sparse and dense features into hashed int64 features.

    Args:
      inputs: A list of rank-2 SparseTensors or dense Tensors (int64 or string).
      num_buckets: If > 0, outputs are ``hash % num_buckets``; else
        ``hash % (2**63 - 1)``.
      hash_key: The key of the fingerprint combination (TF's default when None).
      name: Unused (eager).

    Returns:
      An int64 SparseTensor of shape ``[batch, max crosses per row]``.

    >>> import torchflow as tf
    >>> a = tf.sparse.SparseTensor([[0, 0]], [b"a"], [1, 1])
    >>> b = tf.constant([[1]], tf.int64)
    >>> tf.sparse.cross_hashed([a, b], num_buckets=100, hash_key=7).values.numpy().tolist()
    [77]
    """
    batch, per_input = input_rows("SparseCross", _sparse_first(inputs))
    return _build(batch, per_input, hash_combiner(num_buckets, hash_key), dtypes.int64)
