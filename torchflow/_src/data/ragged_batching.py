"""``tf.data.experimental.dense_to_ragged_batch``: batches of differently shaped elements.

Components whose shape is not fully defined are batched into RaggedTensors (each
element becomes one row); fully defined ones are stacked as ``batch`` does, as in
TF 2.4.
"""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import _structure
from torchflow._src.data.batching import _batch_iter, _batch_size, _batched_card
from torchflow._src.data.transforms import UnaryDataset
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensorSpec
from torchflow._src.util.api import public


def _ragged_element_spec(s, splits_dtype, inferred: bool):
    if isinstance(s, TensorSpec) and s.shape.rank and (inferred or
                                                         not s.shape.is_fully_defined()):
        shape = TensorShape([None] * s.shape.rank) if inferred else s.shape
        return RaggedTensorSpec(shape, s.dtype, s.shape.rank - 1, splits_dtype)
    return s


class _DenseToRaggedBatchDataset(UnaryDataset):
    def __init__(self, input_dataset, batch_size, drop_remainder, row_splits_dtype):
        super().__init__(input_dataset)
        self._size = _batch_size(batch_size)
        self._drop = bool(drop_remainder)
        self._splits_dtype = dtypes.as_dtype(row_splits_dtype)

    def _row_spec(self):
        # A spec read off the first element (a map function's output, not traced) has
        # that element's dimensions where TF's traced spec may say None: every
        # component of rank >= 1 may vary, so it is batched as ragged.
        inferred = self._input._spec_inferred()
        return _structure.map_structure(
            lambda s: _ragged_element_spec(s, self._splits_dtype, inferred),
            self._input.element_spec)

    def _cardinality(self):
        return _batched_card(self._input._cardinality(), self._size, self._drop)

    def _compute_spec(self):
        return _structure.batched_spec(self._row_spec(), self._size if self._drop else None)

    def _make_iter(self, ctx):
        flat_spec = _structure.flatten(self._row_spec())
        return _batch_iter(self._input._make_iter(ctx), self._size, self._drop, flat_spec)


@public("torchflow.data.experimental")
def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64):
    """A transformation that batches elements of different shapes into RaggedTensors.

    Use with ``Dataset.apply``. A component whose static shape has an unknown
    dimension becomes a ``tf.RaggedTensor`` with one row per element; the other
    components are stacked as by ``Dataset.batch``.

    Args:
      batch_size: The number of consecutive elements per batch.
      drop_remainder: Whether to drop a last, smaller batch.
      row_splits_dtype: The dtype of the RaggedTensors' row splits.

    Returns:
      A function from a ``Dataset`` to a ``Dataset``.

    Differences from TensorFlow 2.4: after a ``map`` (whose output spec torchflow
    reads off the first element instead of tracing the function) every component
    of rank >= 1 is batched as ragged, also where TF's traced spec would know
    the shape fully.

    >>> import torchflow as tf
    >>> ds = tf.data.Dataset.range(3).map(lambda x: tf.range(x))
    >>> [b.to_list() for b in ds.apply(tf.data.experimental.dense_to_ragged_batch(2))]
    [[[], [0]], [[0, 1]]]
    """
    def apply(dataset):
        return _DenseToRaggedBatchDataset(dataset, batch_size, drop_remainder, row_splits_dtype)

    return apply
