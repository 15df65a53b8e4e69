"""``tf.keras.experimental.SequenceFeatures``: sequence columns to a padded
``[batch, time, features]`` tensor and the sequence lengths."""

from __future__ import annotations

from torchflow._src.feature_column import base as fc
from torchflow._src.keras.layers.dense_features import BaseFeaturesLayer
from torchflow._src.ops import array_ops
from torchflow._src.ops.debugging_ops import assert_equal
from torchflow._src.util.api import public


@public("torchflow.keras.experimental")
class SequenceFeatures(BaseFeaturesLayer):
    """A layer for sequence input: feature columns to a padded sequence tensor.

    Each column gives ``[batch, time, num_elements]`` values (steps past a
    row's length are padding: zeros, or a numeric column's default); they are
    concatenated along the last axis in the order of the columns' names, for an
    RNN layer to read with the sequence lengths as its mask.

    Args:
      feature_columns: An iterable of sequence dense columns
        (``sequence_numeric_column``, ``embedding_column`` or
        ``indicator_column`` of a ``sequence_categorical_column_with_*``).
      trainable: Whether the columns' variables are trained.
      name: The layer's name (default ``sequence_features``).
      **kwargs: Base ``Layer`` arguments.

    Call arguments:
      features: A dict from feature key to SparseTensor.
      training: Unused by the built-in columns.

    Returns:
      A tuple ``(sequence_input, sequence_length)``: float32 ``[batch, T, D]``
      and int64 ``[batch]``.

    Raises:
      ValueError: If a column is not a sequence dense column or the features
        are not a dict.
      InvalidArgumentError: If the columns' sequence lengths differ.

    >>> import torchflow as tf
    >>> col = tf.feature_column.sequence_numeric_column("x")
    >>> seq, length = tf.keras.experimental.SequenceFeatures([col])(
    ...     {"x": tf.sparse.from_dense(tf.constant([[1., 2.], [3., 0.]]))})
    >>> seq.shape, length.numpy().tolist()
    (TensorShape([2, 2, 1]), [2, 1])
    """

    def __init__(self, feature_columns, trainable=True, name=None, **kwargs):
        super().__init__(feature_columns, fc.SequenceDenseColumn, "SequenceDenseColumn",
                         trainable=trainable, name=name, **kwargs)

    def call(self, features, training=None):
        cache = self._check_features(features)
        outputs, lengths = [], []
        for column in self._feature_columns:
            dense, length = column.get_sequence_dense_tensor(cache, self._state_manager)
            outputs.append(self._flatten_column(column, dense, keep_time=True))
            lengths.append(length)
        for other in lengths[1:]:
            assert_equal(lengths[0], other)
        return array_ops.concat(outputs, -1), lengths[0]
