"""``tf.data.experimental.dense_to_sparse_batch``: batches of differently shaped dense
elements as one ``tf.SparseTensor`` each."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data._runtime import close_iter
from torchflow._src.data.batching import _batch_size, _batched_card
from torchflow._src.data.transforms import UnaryDataset
from torchflow._src.ops import data_ops
from torchflow._src.ops.sparse import sparse_data
from torchflow._src.ops.sparse.sparse_tensor import SparseTensorSpec
from torchflow._src.util.api import public


def _row_shape(row_shape) -> list:
    if isinstance(row_shape, TensorShape) or row_shape is None:
        return as_shape(row_shape).as_list()
    vals = data_ops.as_tensor(row_shape).numpy().reshape(-1).tolist()
    return [None if v is None or v < 0 else int(v) for v in vals]


class _DenseToSparseBatchDataset(UnaryDataset):
    def __init__(self, input_dataset, batch_size, row_shape):
        super().__init__(input_dataset)
        self._size = _batch_size(batch_size)
        self._row_shape = _row_shape(row_shape)
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec):
            raise TypeError("dense_to_sparse_batch needs a dataset of single dense tensors, "
                            f"got element_spec {spec}")

    def _cardinality(self):
        return _batched_card(self._input._cardinality(), self._size, False)

    def _compute_spec(self):
        spec = self._input.element_spec
        return SparseTensorSpec(TensorShape([None] + self._row_shape), spec.dtype)

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        size, row_shape = self._size, self._row_shape
        buf = []
        try:
            for element in it:
                buf.append(element)
                if len(buf) == size:
                    yield sparse_data.dense_batch(buf, row_shape)
                    buf = []
            if buf:
                yield sparse_data.dense_batch(buf, row_shape)
        finally:
            close_iter(it)


@public("torchflow.data.experimental")
def dense_to_sparse_batch(batch_size, row_shape):
    """A transformation that batches dense elements of different shapes into SparseTensors.

    Use with ``Dataset.apply``. Every entry of each element is kept (zeros too):
    element ``b``'s entry at ``[i, j, ...]`` is at ``[b, i, j, ...]`` of a
    SparseTensor of dense shape ``[batch] + row_shape``.

    Args:
      batch_size: The number of consecutive elements per batch.
      row_shape: A ``tf.TensorShape`` or int64 vector: the dense shape of one row.
        Elements must have its rank and fit in it; an unknown dimension (None or
        -1) is the largest of the batch.

    Returns:
      A function from a ``Dataset`` to a ``Dataset``.

    >>> import torchflow as tf
    >>> ds = tf.data.Dataset.range(1, 3).map(lambda x: tf.fill([x], x))
    >>> b = next(iter(ds.apply(tf.data.experimental.dense_to_sparse_batch(2, [3]))))
    >>> b.indices.numpy().tolist(), b.dense_shape.numpy().tolist()
    ([[0, 0], [1, 0], [1, 1]], [2, 3])
    """
    def apply(dataset):
        return _DenseToSparseBatchDataset(dataset, batch_size, row_shape)

    return apply
