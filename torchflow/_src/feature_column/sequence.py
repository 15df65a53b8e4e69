"""The sequence columns that ``tf.keras.experimental.SequenceFeatures`` reads:
``sequence_numeric_column`` and the ``sequence_categorical_column_with_*``."""

from __future__ import annotations

import collections

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.feature_column import base, categorical
from torchflow._src.feature_column.numeric import check_shape
from torchflow._src.ops import array_ops, creation_ops, math_ops, reduction_ops, shape_ops
from torchflow._src.ops.parsing_ops import VarLenFeature
from torchflow._src.ops.segment_ops import unsorted_segment_max
from torchflow._src.ops.sparse import sparse_ops
from torchflow._src.util.api import public

_NS = "torchflow.feature_column"


def sequence_length_from_sparse_tensor(sp, num_elements=1):
    """Each row's sequence length: its last used time step plus one (int64),
    counted in groups of ``num_elements`` values."""
    batch = shape_ops.shape(sp, out_type=dtypes.int64)[0]
    rows = sp.indices[:, 0]
    steps = sp.indices[:, 1] + 1
    length = math_ops.maximum(unsorted_segment_max(steps, rows, batch),
                              creation_ops.zeros([], dtypes.int64))
    if num_elements != 1:
        length = math_ops.floordiv(length + (num_elements - 1), num_elements)
    return length


class SequenceNumericColumn(base.SequenceDenseColumn, collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A sequence of real values per example (``sequence_numeric_column``)."""

    __slots__ = ()

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def variable_shape(self):
        return TensorShape(self.shape)

    def transform_feature(self, transformation_cache, state_manager):
        t = transformation_cache.get(self.key, state_manager)
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
        return t

    def get_sequence_dense_tensor(self, transformation_cache, state_manager):
        sp = transformation_cache.get(self, state_manager)
        dense = sparse_ops.to_dense(sp, default_value=self.default_value)
        batch = shape_ops.shape(dense)[:1]
        dense = array_ops.reshape(dense, array_ops.concat(
            [batch, [-1], list(self.variable_shape.as_list())], 0))
        num_elements = self.variable_shape.num_elements() if sp.shape.rank == 2 else 1
        return base.TensorSequenceLengthPair(
            dense, sequence_length_from_sparse_tensor(sp, num_elements))


@public(_NS)
def sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=dtypes.float32,
                            normalizer_fn=None) -> SequenceNumericColumn:
    """A sequence of real values per example, for ``SequenceFeatures``.

    The feature is a SparseTensor ``[batch, time * prod(shape)]`` (or
    ``[batch, time, ...]``); missing steps are ``default_value``.

    Args:
      key: The feature's key (a str).
      shape: The shape of one time step's value (default ``(1,)``).
      default_value: The value of padding steps (default 0.).
      dtype: The feature's type (float or int; default float32).
      normalizer_fn: An optional function applied to the feature.

    Returns:
      A ``SequenceNumericColumn``.

    Raises:
      TypeError: If ``normalizer_fn`` is not callable or ``shape`` not integers.
      ValueError: If ``dtype`` is not numeric or a dimension is not positive.
    """
    shape = check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape, default_value, dtype, normalizer_fn)


class SequenceCategoricalColumn(base.CategoricalColumn, collections.namedtuple(
        "SequenceCategoricalColumn", ("categorical_column",))):
    """A categorical column over sequences: its ids keep a time dimension."""

    __slots__ = ()

    @property
    def name(self):
        return self.categorical_column.name

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def parents(self):
        return [self.categorical_column]

    @property
    def num_buckets(self):
        return self.categorical_column.num_buckets

    def transform_feature(self, transformation_cache, state_manager):
        return self.categorical_column.transform_feature(transformation_cache, state_manager)

    def get_sparse_tensors(self, transformation_cache, state_manager):
        ids, w = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        # A third dimension so that each step's ids are combined on their own.
        shape = shape_ops.shape(ids, out_type=dtypes.int64)
        target = array_ops.concat([shape[:2], array_ops.expand_dims(
            reduction_ops.reduce_prod(shape[2:]), 0)], 0)
        ids = sparse_ops.reshape(ids, target)
        if w is not None:
            w = sparse_ops.reshape(w, target)
        return base.IdWeightPair(ids, w)


@public(_NS)
def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """``categorical_column_with_identity`` over sequences, for ``SequenceFeatures``.

    Args:
      key: The feature's key (a str).
      num_buckets: The range of ids, ``[0, num_buckets)``.
      default_value: The id of out-of-range values, or None.

    Returns:
      A ``SequenceCategoricalColumn``.

    Raises:
      ValueError: As ``categorical_column_with_identity``.
    """
    return SequenceCategoricalColumn(
        categorical.categorical_column_with_identity(key, num_buckets, default_value))


@public(_NS)
def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """``categorical_column_with_hash_bucket`` over sequences.

    Args:
      key: The feature's key (a str).
      hash_bucket_size: The number of buckets (>= 1).
      dtype: The feature's type: string (default) or an integer type.

    Returns:
      A ``SequenceCategoricalColumn``.

    Raises:
      ValueError: As ``categorical_column_with_hash_bucket``.
    """
    return SequenceCategoricalColumn(
        categorical.categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


@public(_NS)
def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                                     num_oov_buckets=0, default_value=None,
                                                     dtype=dtypes.string):
    """``categorical_column_with_vocabulary_file`` over sequences.

    Args:
      key: The feature's key (a str).
      vocabulary_file: The path of the vocabulary file.
      vocabulary_size: The number of lines to use (default: all).
      num_oov_buckets: The number of hash buckets for out-of-vocabulary values.
      default_value: The id of out-of-vocabulary values (default -1).
      dtype: The feature's type: string (default) or an integer type.

    Returns:
      A ``SequenceCategoricalColumn``.

    Raises:
      ValueError: As ``categorical_column_with_vocabulary_file``.
    """
    return SequenceCategoricalColumn(categorical.categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, dtype=dtype, default_value=default_value,
        num_oov_buckets=num_oov_buckets))


@public(_NS)
def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                                     default_value=-1, num_oov_buckets=0):
    """``categorical_column_with_vocabulary_list`` over sequences.

    Args:
      key: The feature's key (a str).
      vocabulary_list: A non-empty list of distinct strings or integers.
      dtype: The feature's type (default: the vocabulary's).
      default_value: The id of out-of-vocabulary values (default -1).
      num_oov_buckets: The number of hash buckets for out-of-vocabulary values.

    Returns:
      A ``SequenceCategoricalColumn``.

    Raises:
      ValueError: As ``categorical_column_with_vocabulary_list``.

    >>> import torchflow as tf
    >>> c = tf.feature_column.sequence_categorical_column_with_vocabulary_list("w", ["a", "b"])
    >>> layer = tf.keras.experimental.SequenceFeatures([tf.feature_column.indicator_column(c)])
    >>> x, length = layer({"w": tf.sparse.from_dense(tf.constant([["a", "b"], ["b", ""]]))})
    >>> x.shape, length.numpy().tolist()
    (TensorShape([2, 2, 2]), [2, 1])
    """
    return SequenceCategoricalColumn(categorical.categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype, default_value, num_oov_buckets))

