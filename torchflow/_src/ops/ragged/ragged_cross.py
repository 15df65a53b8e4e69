"""``tf.ragged.cross``, ``cross_hashed`` and ``stack_dynamic_partitions``."""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import wrap
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    lengths_to_splits,
    nrows_of,
    splits_tensor,
    take_rows,
)
from torchflow._src.ops.sparse import sparse_cross as spc
from torchflow._src.util.api import public


def _ragged_cross(op: str, inputs, combine, out_dtype) -> RaggedTensor:
    batch, per_input = spc.input_rows(op, inputs)
    rows = spc.crossed_rows(batch, per_input, combine)
    lengths = torch.tensor([len(r) for r in rows], dtype=torch.int64)
    values = spc.flat_values([v for r in rows for v in r], out_dtype)
    return RaggedTensor(values, splits_tensor(lengths_to_splits(lengths)), internal=True)


@public("torchflow.ragged")
def cross(inputs, name=None) -> RaggedTensor:
    """Crosses the features of each row: every combination, joined by ``"_X_"``.

    Args:
      inputs: A list of 2-D RaggedTensors, dense Tensors or SparseTensors (int64,
        int32 or string) with one number of rows.
      name: Unused (eager).

    Returns:
      A 2-D string RaggedTensor: row ``i`` holds the cartesian product of row ``i``
      of each input (the first input varies slowest).

    Raises:
      InvalidArgumentError: Inputs with different numbers of rows.

    >>> import torchflow as tf
    >>> tf.ragged.cross([tf.ragged.constant([["a", "b"], ["c"]]),
    ...                  tf.ragged.constant([["d"], ["e", "f"]])])
    <tf.RaggedTensor [[b'a_X_d', b'b_X_d'], [b'c_X_e', b'c_X_f']]>
    """
    return _ragged_cross("RaggedCross", inputs, spc.join_combiner(None), dtypes.string)


@public("torchflow.ragged")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> RaggedTensor:
    """Crosses the features of each row into hashed int64 values (as ``tf.sparse.cross_hashed``).

    Args:
      inputs: A list of 2-D RaggedTensors, dense Tensors or SparseTensors.
      num_buckets: If > 0, each value is its hash modulo ``num_buckets``.
      hash_key: The key of the fingerprint combination (TF's default when None).
      name: Unused (eager).

    Returns:
      A 2-D int64 RaggedTensor, one row per input row.
    """
    return _ragged_cross("RaggedCross", inputs, spc.hash_combiner(num_buckets, hash_key),
                         dtypes.int64)


@public("torchflow.ragged")
def stack_dynamic_partitions(data, partitions, num_partitions, name=None) -> RaggedTensor:
    """Stacks the rows of ``data`` by partition: row ``i`` of the result holds, in order,
    the rows of ``data`` whose partition is ``i``.

    Args:
      data: A Tensor or RaggedTensor.
      partitions: An int32/int64 vector with one partition in
        ``[0, num_partitions)`` per row of ``data``.
      num_partitions: The number of result rows.
      name: Unused (eager).

    Returns:
      A RaggedTensor of ``num_partitions`` rows (ragged rank one more than ``data``'s).

    Raises:
      InvalidArgumentError: A partition out of range.

    >>> import torchflow as tf
    >>> tf.ragged.stack_dynamic_partitions([1, 2, 3, 4], [1, 0, 1, 1], 2)
    <tf.RaggedTensor [[2], [1, 3, 4]]>
    """
    if not isinstance(data, RaggedTensor):
        data = convert_to_tensor(data)
    p = convert_to_tensor(partitions)
    if p.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"partitions must be int32 or int64; got {p.dtype.name}")
    ids = p._t.reshape(-1).to(torch.int64).cpu()
    n = int(num_partitions)
    if ids.shape[0] != nrows_of(data):
        raise InvalidArgumentError(None, None, f"partitions has {ids.shape[0]} values; data "
                                   f"has {nrows_of(data)} rows")
    if ids.numel() and int(ids.max()) >= n:
        raise InvalidArgumentError(None, None, "partitions must be less than num_partitions")
    if ids.numel() and int(ids.min()) < 0:
        raise InvalidArgumentError(None, None, "partitions must be non-negative")
    order = torch.sort(ids, stable=True).indices
    lengths = torch.bincount(ids, minlength=n)
    # The splits take partitions' dtype (TF matches it to a ragged data's splits dtype).
    sd = data.row_splits_dtype if isinstance(data, RaggedTensor) else p.dtype
    return RaggedTensor(take_rows(data, order), wrap(lengths_to_splits(lengths).to(sd._torch), sd),
                        internal=True)
