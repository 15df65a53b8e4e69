"""The dense views of categorical columns: ``embedding_column``,
``shared_embeddings`` and ``indicator_column``."""

from __future__ import annotations

import collections
import math

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import executing_eagerly
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.variables import Variable
from torchflow._src.feature_column import base, sequence
from torchflow._src.ops import (
    array_ops,
    comparison_ops,
    creation_ops,
    gather_ops,
    random_ops,
)
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.sparse.sparse_embedding import (
    embedding_lookup_sparse,
    safe_embedding_lookup_sparse,
)
from torchflow._src.train.checkpoint_management import load_variable
from torchflow._src.util.api import public

_NS = "torchflow.feature_column"
_FIX_A = ("Suggested fix A: If you wish to use DenseFeatures, use a non-sequence "
          "categorical_column_with_*. Suggested fix B: If you wish to create sequence input, use "
          "SequenceFeatures instead of DenseFeatures.")
_FIX_SEQ = "Suggested fix: Use one of sequence_categorical_column_with_*."


class TruncatedNormal:
    """The embedding columns' default initializer: a normal distribution of
    ``mean`` and ``stddev`` (1/sqrt(dimension)) cut at two standard deviations."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        del partition_info
        return random_ops.truncated_normal(list(shape), self.mean, self.stddev,
                                           dtypes.as_dtype(dtype or self.dtype), seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _check_embedding_args(dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
                          what):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified.{what}")
    return initializer or TruncatedNormal(stddev=1 / math.sqrt(dimension))


def _initial_value(initializer, ckpt, tensor_name, shape):
    if ckpt is not None:
        return lambda shape, dtype=None: load_variable(ckpt, tensor_name)
    return initializer


def _lookup(column, weights, pair):
    lookup = safe_embedding_lookup_sparse if column.use_safe_embedding_lookup else \
        embedding_lookup_sparse
    return lookup(weights, pair.id_tensor, pair.weight_tensor, combiner=column.combiner,
                  max_norm=column.max_norm)


class EmbeddingColumn(base.DenseColumn, base.SequenceDenseColumn, collections.namedtuple(
        "EmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer",
                            "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                            "trainable", "use_safe_embedding_lookup"))):
    """A trainable dense embedding of a categorical column (``embedding_column``)."""

    __slots__ = ()

    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def parents(self):
        return [self.categorical_column]

    @property
    def variable_shape(self):
        return TensorShape([self.dimension])

    def create_state(self, state_manager):
        state_manager.create_variable(
            self, name="embedding_weights",
            shape=(self.categorical_column.num_buckets, self.dimension), dtype=dtypes.float32,
            trainable=self.trainable, use_resource=True,
            initializer=_initial_value(self.initializer, self.ckpt_to_load_from,
                                       self.tensor_name_in_ckpt, None))

    def transform_feature(self, transformation_cache, state_manager):
        return self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)

    def get_dense_tensor(self, transformation_cache, state_manager):
        if isinstance(self.categorical_column, sequence.SequenceCategoricalColumn):
            raise ValueError(f"In embedding_column: {self.name}. categorical_column must not be "
                             f"of type SequenceCategoricalColumn. {_FIX_A} Given (type "
                             f"{type(self.categorical_column)}): {self.categorical_column}")
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        return _lookup(self, state_manager.get_variable(self, "embedding_weights"), pair)

    def get_sequence_dense_tensor(self, transformation_cache, state_manager):
        if not isinstance(self.categorical_column, sequence.SequenceCategoricalColumn):
            raise ValueError(f"In embedding_column: {self.name}. categorical_column must be of "
                             f"type SequenceCategoricalColumn to use SequenceFeatures. "
                             f"{_FIX_SEQ} Given (type {type(self.categorical_column)}): "
                             f"{self.categorical_column}")
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        dense = _lookup(self, state_manager.get_variable(self, "embedding_weights"), pair)
        return base.TensorSequenceLengthPair(
            dense, sequence.sequence_length_from_sparse_tensor(pair.id_tensor))


@public(_NS)
def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True, use_safe_embedding_lookup=True) -> EmbeddingColumn:
    """A dense column that embeds the ids of a categorical column.

    The embedding table (``[num_buckets, dimension]``, float32) is a weight of
    the ``DenseFeatures`` (or ``SequenceFeatures``) layer using the column,
    named ``<column>_embedding/embedding_weights``. Each example's ids are
    looked up and combined.

    Args:
      categorical_column: The categorical column to embed.
      dimension: The embedding size (>= 1).
      combiner: How several ids of one example are combined: ``"mean"``
        (default), ``"sqrtn"`` or ``"sum"`` (weighted by a
        ``weighted_categorical_column``'s weights).
      initializer: A callable ``(shape, dtype)`` giving the initial table
        (default: truncated normal of stddev ``1/sqrt(dimension)``).
      ckpt_to_load_from: A checkpoint to initialize the table from.
      tensor_name_in_ckpt: The table's name in that checkpoint.
      max_norm: If given, embeddings are clipped to this L2 norm.
      trainable: Whether the table is trained.
      use_safe_embedding_lookup: Drop invalid ids (< 0) and give empty
        examples zeros (``tf.nn.safe_embedding_lookup_sparse``; default True).

    Returns:
      An ``EmbeddingColumn``.

    Raises:
      ValueError: If ``dimension`` < 1, only one of the checkpoint arguments is
        given, or ``initializer`` is not callable.

    >>> import torchflow as tf
    >>> c = tf.feature_column.categorical_column_with_identity("id", 4)
    >>> layer = tf.keras.layers.DenseFeatures([tf.feature_column.embedding_column(c, 2)])
    >>> layer({"id": tf.constant([[1], [3]])}).shape
    TensorShape([2, 2])
    """
    initializer = _check_embedding_args(
        dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
        f" Embedding of column_name: {getattr(categorical_column, 'name', categorical_column)}")
    return EmbeddingColumn(categorical_column, dimension, combiner, initializer,
                           ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable,
                           use_safe_embedding_lookup)


class SharedEmbeddingColumnCreator:
    """Holds the one table that the columns of ``shared_embeddings`` look up."""

    def __init__(self, dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
                 num_buckets, trainable, name, use_safe_embedding_lookup=True):
        self.dimension, self._initializer = dimension, initializer
        self._ckpt = (ckpt_to_load_from, tensor_name_in_ckpt)
        self.num_buckets, self._trainable, self._name = num_buckets, trainable, name
        self.use_safe_embedding_lookup = use_safe_embedding_lookup
        self._weights = None

    @property
    def embedding_weights(self):
        if self._weights is None:
            init = _initial_value(self._initializer, *self._ckpt, None)
            shape = (self.num_buckets, self.dimension)
            self._weights = Variable(lambda: init(shape, dtype=dtypes.float32),
                                     trainable=self._trainable, name=self._name)
        return self._weights


class SharedEmbeddingColumn(base.DenseColumn, base.SequenceDenseColumn, collections.namedtuple(
        "SharedEmbeddingColumn", ("categorical_column", "shared_embedding_column_creator",
                                  "combiner", "max_norm", "use_safe_embedding_lookup"))):
    """One of the columns of ``shared_embeddings``: a lookup in a shared table."""

    __slots__ = ()

    @property
    def name(self):
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def parents(self):
        return [self.categorical_column]

    @property
    def variable_shape(self):
        return TensorShape([self.shared_embedding_column_creator.dimension])

    def transform_feature(self, transformation_cache, state_manager):
        return self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)

    def get_dense_tensor(self, transformation_cache, state_manager):
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        return _lookup(self, self.shared_embedding_column_creator.embedding_weights, pair)

    def get_sequence_dense_tensor(self, transformation_cache, state_manager):
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        dense = _lookup(self, self.shared_embedding_column_creator.embedding_weights, pair)
        return base.TensorSequenceLengthPair(
            dense, sequence.sequence_length_from_sparse_tensor(pair.id_tensor))


@public(_NS)
def shared_embeddings(categorical_columns, dimension, combiner="mean", initializer=None,
                      shared_embedding_collection_name=None, ckpt_to_load_from=None,
                      tensor_name_in_ckpt=None, max_norm=None, trainable=True,
                      use_safe_embedding_lookup=True) -> list:
    """Embedding columns that share one table.

    As in TF 2.4, this works only while building a graph (inside a
    ``tf.function``); eagerly it raises ``RuntimeError``.

    Args:
      categorical_columns: Categorical columns with equal ``num_buckets``.
      dimension: The embedding size (>= 1).
      combiner: ``"mean"`` (default), ``"sqrtn"`` or ``"sum"``.
      initializer: A callable initializer (default: truncated normal of stddev
        ``1/sqrt(dimension)``).
      shared_embedding_collection_name: The table's name (default: the sorted
        column names joined by ``_`` plus ``_shared_embedding``).
      ckpt_to_load_from: A checkpoint to initialize the table from.
      tensor_name_in_ckpt: The table's name in that checkpoint.
      max_norm: If given, embeddings are clipped to this L2 norm.
      trainable: Whether the table is trained.
      use_safe_embedding_lookup: As in ``embedding_column``.

    Returns:
      A list of ``SharedEmbeddingColumn``, in the order of ``categorical_columns``.

    Raises:
      RuntimeError: When executing eagerly.
      ValueError: On bad arguments or columns of different ``num_buckets``.
    """
    if executing_eagerly():
        raise RuntimeError("shared_embedding_columns are not supported when eager execution "
                           "is enabled.")
    initializer = _check_embedding_args(dimension, initializer, ckpt_to_load_from,
                                        tensor_name_in_ckpt, "")
    columns = sorted(categorical_columns, key=lambda c: c.name)
    first = columns[0]
    for c in columns:
        if not isinstance(c, base.CategoricalColumn):
            raise ValueError(f"All categorical_columns must be subclasses of "
                             f"CategoricalColumn. Given: {c}, of type: {type(c)}")
        if c.num_buckets != first.num_buckets:
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same number of buckets. Given column: {first} with "
                             f"buckets: {first.num_buckets} does not match column: {c} with "
                             f"buckets: {c.num_buckets}")
    name = shared_embedding_collection_name or \
        "_".join(c.name for c in columns) + "_shared_embedding"
    creator = SharedEmbeddingColumnCreator(dimension, initializer, ckpt_to_load_from,
                                           tensor_name_in_ckpt, first.num_buckets, trainable,
                                           name, use_safe_embedding_lookup)
    return [SharedEmbeddingColumn(c, creator, combiner, max_norm, use_safe_embedding_lookup)
            for c in categorical_columns]


def _multi_hot(pair, depth):
    """Each id's count (or summed weight) in its slot of ``depth``, ids outside
    ``[0, depth)`` dropped: TF's one_hot + reduce_sum (or sparse_merge +
    scatter_nd with weights), as one scatter."""
    ids, w = pair
    keep = comparison_ops.logical_and(comparison_ops.greater_equal(ids.values, 0),
                                      comparison_ops.less(ids.values, depth))
    pos = array_ops.reshape(gather_ops.where(keep), [-1])
    lead = gather_ops.gather(ids.indices, pos)[:, :-1]
    index = array_ops.concat([lead, array_ops.expand_dims(gather_ops.gather(ids.values, pos),
                                                          1)], 1)
    shape = array_ops.concat([ids.dense_shape[:-1], creation_ops.fill([1], cast(depth,
                                                                            dtypes.int64))], 0)
    values = creation_ops.ones_like(pos, dtypes.float32) if w is None else \
        cast(gather_ops.gather(w.values, pos), dtypes.float32)
    return gather_ops.scatter_nd(index, values, shape)


class IndicatorColumn(base.DenseColumn, base.SequenceDenseColumn, collections.namedtuple(
        "IndicatorColumn", ("categorical_column",))):
    """A multi-hot view of a categorical column (``tf.feature_column.indicator_column``)."""

    __slots__ = ()

    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def parents(self):
        return [self.categorical_column]

    @property
    def variable_shape(self):
        return TensorShape([1, self.categorical_column.num_buckets])

    def transform_feature(self, transformation_cache, state_manager):
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        return _multi_hot(pair, self.categorical_column.num_buckets)

    def get_dense_tensor(self, transformation_cache, state_manager):
        if isinstance(self.categorical_column, sequence.SequenceCategoricalColumn):
            raise ValueError(f"In indicator_column: {self.name}. categorical_column must not be "
                             f"of type SequenceCategoricalColumn. {_FIX_A} Given (type "
                             f"{type(self.categorical_column)}): {self.categorical_column}")
        return transformation_cache.get(self, state_manager)

    def get_sequence_dense_tensor(self, transformation_cache, state_manager):
        if not isinstance(self.categorical_column, sequence.SequenceCategoricalColumn):
            raise ValueError(f"In indicator_column: {self.name}. categorical_column must be of "
                             f"type SequenceCategoricalColumn to use SequenceFeatures. "
                             f"{_FIX_SEQ} Given (type {type(self.categorical_column)}): "
                             f"{self.categorical_column}")
        dense = transformation_cache.get(self, state_manager)
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        return base.TensorSequenceLengthPair(
            dense, sequence.sequence_length_from_sparse_tensor(pair.id_tensor))


@public(_NS)
def indicator_column(categorical_column) -> IndicatorColumn:
    """A multi-hot representation of a categorical column.

    Each example gets a vector of ``num_buckets`` counts of its ids (with a
    ``weighted_categorical_column``: the sums of the ids' weights); invalid ids
    (e.g. -1 for out-of-vocabulary values) count nowhere.

    Args:
      categorical_column: A categorical column.

    Returns:
      An ``IndicatorColumn``.

    Raises:
      ValueError: If ``categorical_column`` is not categorical.

    >>> import torchflow as tf
    >>> c = tf.feature_column.categorical_column_with_identity("id", 3)
    >>> tf.feature_column.indicator_column(c).name
    'id_indicator'
    """
    if not isinstance(categorical_column, base.CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: "
                         f"{categorical_column}")
    return IndicatorColumn(categorical_column)
