"""``tf.io.serialize_sparse`` / ``serialize_many_sparse`` / ``deserialize_many_sparse``:
SparseTensors as serialized ``TensorProto`` triples (indices, values, dense_shape)."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.sparse import _sparse_common as sc
from torchflow._src.ops.sparse import sparse_data
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.ops.tensor_proto_ops import parse_tensor, serialize_tensor
from torchflow._src.util.api import public


def _out_type(out_type) -> None:
    if dtypes.as_dtype(out_type) is not dtypes.string:
        raise TypeError(f"out_type must be tf.string in torchflow, got {out_type!r}")


def _bytes(t: Tensor) -> bytes:
    v = serialize_tensor(t).numpy()
    return v if isinstance(v, bytes) else np.asarray(v, dtype=object).item()


def _triple(st: SparseTensor) -> list:
    return [_bytes(st.indices), _bytes(st.values), _bytes(st.dense_shape)]


def _strings(rows: list, shape: list) -> Tensor:
    arr = np.empty(len(rows) * 3, dtype=object)
    arr[:] = [b for r in rows for b in r]
    return wrap(arr.reshape(shape), dtypes.string)


@public("torchflow.io")
def serialize_sparse(sp_input, out_type=dtypes.string, name=None) -> Tensor:
    """A SparseTensor as a string vector of 3 serialized TensorProtos.

    Args:
      sp_input: A SparseTensor.
      out_type: ``tf.string``.
      name: Unused (eager).

    Returns:
      A string Tensor ``[3]``: indices, values, dense_shape.

    Raises:
      TypeError: If ``sp_input`` is not a SparseTensor.

    Differences from TensorFlow 2.4: ``out_type=tf.variant`` is not supported;
    string values are written as ``string_val`` entries where TF writes
    ``tensor_content`` (other bytes, the same tensor when parsed).

    >>> import torchflow as tf
    >>> tf.io.serialize_sparse(tf.sparse.SparseTensor([[0]], [1], [2])).shape
    TensorShape([3])
    """
    _out_type(out_type)
    return _strings([_triple(sc.sparse_arg(sp_input))], [3])


@public("torchflow.io")
def serialize_many_sparse(sp_input, out_type=dtypes.string, name=None) -> Tensor:
    """Each row (dimension 0) of a SparseTensor as 3 serialized TensorProtos.

    Args:
      sp_input: A SparseTensor of rank >= 2.
      out_type: ``tf.string``.
      name: Unused (eager).

    Returns:
      A string Tensor ``[N, 3]`` (N the size of dimension 0).

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1, 2], [3, 2])
    >>> tf.io.serialize_many_sparse(st).shape
    TensorShape([3, 3])
    """
    _out_type(out_type)
    st = sc.sparse_arg(sp_input)
    if len(sc.shape_list(st)) < 2:
        raise InvalidArgumentError(None, None, "SparseTensor must have rank at least 2 "
                                               "[Op:SerializeManySparse]")
    n = sparse_data.nrows(st)
    return _strings([_triple(r) for r in sparse_data.rows(st, 0, n)], [n, 3])


@public("torchflow.io")
def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None) -> SparseTensor:
    """The SparseTensor whose rows ``serialize_many_sparse`` (or ``serialize_sparse`` of
    same-rank tensors, stacked) serialized; each dense dimension is the largest row's.

    Args:
      serialized_sparse: A string Tensor ``[N, 3]``.
      dtype: The values' dtype.
      rank: Optional rank of the result (checked).
      name: Unused (eager).

    Returns:
      A SparseTensor of rank ``row rank + 1``.

    Raises:
      InvalidArgumentError: If the strings are not ``[N, 3]`` TensorProtos or the
        rows' ranks differ.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1, 2], [3, 2])
    >>> back = tf.io.deserialize_many_sparse(tf.io.serialize_many_sparse(st), tf.int32)
    >>> back.indices.numpy().tolist()
    [[0, 1], [2, 0]]
    """
    t = tensor_arg(serialized_sparse, dtypes.string)
    if t.shape.rank != 2 or t.shape[1] != 3:
        raise InvalidArgumentError(None, None, "Serialized sparse should be a matrix with 3 "
                                               "columns [Op:DeserializeManySparse]")
    d = dtypes.as_dtype(dtype)
    arr = np.asarray(t.numpy(), dtype=object)
    rows = []
    for r in arr:
        ind = parse_tensor(wrap(np.asarray(r[0], dtype=object), dtypes.string), dtypes.int64)
        val = parse_tensor(wrap(np.asarray(r[1], dtype=object), dtypes.string), d)
        shp = parse_tensor(wrap(np.asarray(r[2], dtype=object), dtypes.string), dtypes.int64)
        rows.append(SparseTensor(ind, val, shp))
    if not rows:
        raise InvalidArgumentError(None, None, "Serialized sparse is empty "
                                               "[Op:DeserializeManySparse]")
    out = sparse_data.batch(rows)
    if rank is not None and len(sc.shape_list(out)) != int(rank):
        raise InvalidArgumentError(None, None, f"Expected rank {int(rank)} but got "
                                               f"{len(sc.shape_list(out))}")
    return out
