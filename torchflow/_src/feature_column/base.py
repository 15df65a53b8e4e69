"""The base classes of ``tf.feature_column``: what a column is, how features
are read and cached while columns transform them, and where columns keep state.

A column is an immutable namedtuple (as in TF, so equal configurations are equal
columns and columns can key dicts). ``FeatureTransformationCache`` reads each raw
feature once (rank-1 inputs become ``[batch, 1]``) and transforms each column once
per call; a ``StateManager`` creates the variables of stateful columns
(``embedding_column``) inside the Keras layer that owns them.
"""

from __future__ import annotations

import collections

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.ops import array_ops, comparison_ops, gather_ops, shape_ops
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.sparse import sparse_ops
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor


class FeatureColumn:
    """Represents a feature column abstraction (TF's ``FeatureColumn`` base).

    A column describes one input of a model: which raw feature(s) it reads
    (``parse_example_spec``) and how it turns them into tensors
    (``transform_feature``). Use the ``tf.feature_column.*`` functions to make one.
    """

    __slots__ = ()
    _is_v2_column = True

    @property
    def name(self) -> str:
        """The column's name, unique among the columns of one layer."""
        raise NotImplementedError

    @property
    def parse_example_spec(self) -> dict:
        """The ``tf.io.parse_example`` spec of the raw features this column reads."""
        raise NotImplementedError

    @property
    def parents(self) -> list:
        """The columns (or feature keys) this column is built on."""
        return []

    def transform_feature(self, transformation_cache, state_manager):
        """The column's intermediate tensor, computed from the cached features."""
        raise NotImplementedError

    def create_state(self, state_manager) -> None:
        """Creates the column's variables through ``state_manager`` (none by default)."""
        del state_manager

    def get_config(self) -> dict:
        """The column's fields, nested columns as ``{"class_name", "config"}`` dicts
        and dtypes as names (what ``DenseFeatures.get_config`` stores)."""
        return {k: _to_config(v) for k, v in self._asdict().items()}  # type: ignore[attr-defined]


def _to_config(v):
    if isinstance(v, FeatureColumn):
        return {"class_name": type(v).__name__, "config": v.get_config()}
    if isinstance(v, dtypes.DType):
        return v.name
    if isinstance(v, tuple) and any(isinstance(x, FeatureColumn) for x in v):
        return tuple(_to_config(x) for x in v)
    if callable(v) and hasattr(v, "get_config"):
        return {"class_name": type(v).__name__, "config": v.get_config()}
    return v


class DenseColumn(FeatureColumn):
    """A column that ``DenseFeatures`` turns into a float tensor of ``variable_shape``."""

    __slots__ = ()

    @property
    def variable_shape(self):
        """The ``TensorShape`` of one example's output, without the batch dimension."""
        raise NotImplementedError

    def get_dense_tensor(self, transformation_cache, state_manager):
        """The dense tensor ``[batch, *variable_shape]`` of this column."""
        raise NotImplementedError


IdWeightPair = collections.namedtuple("IdWeightPair", ("id_tensor", "weight_tensor"))


class CategoricalColumn(FeatureColumn):
    """A column whose values are ids in ``[0, num_buckets)`` (a SparseTensor of ids).

    Wrap it in ``embedding_column`` or ``indicator_column`` to feed a
    ``DenseFeatures`` layer.
    """

    __slots__ = ()
    IdWeightPair = IdWeightPair

    @property
    def num_buckets(self) -> int:
        """The number of ids this column can produce."""
        raise NotImplementedError

    def get_sparse_tensors(self, transformation_cache, state_manager):
        """An ``IdWeightPair``: the SparseTensor of ids and of weights (or None)."""
        return IdWeightPair(transformation_cache.get(self, state_manager), None)


TensorSequenceLengthPair = collections.namedtuple("TensorSequenceLengthPair",
                                                  ("dense_tensor", "sequence_length"))


class SequenceDenseColumn(FeatureColumn):
    """A column that ``SequenceFeatures`` turns into ``[batch, time, ...]`` values."""

    __slots__ = ()
    TensorSequenceLengthPair = TensorSequenceLengthPair

    def get_sequence_dense_tensor(self, transformation_cache, state_manager):
        """A ``TensorSequenceLengthPair``: the dense sequence and each row's length."""
        raise NotImplementedError


class StateManager:
    """Creates and hands out the variables of stateful columns.

    The Keras feature layers use one that adds the variables to the layer as
    weights; subclass it to keep them elsewhere.
    """

    def create_variable(self, feature_column, name, shape, dtype=None, trainable=True,
                        use_resource=True, initializer=None):
        """Creates a variable ``name`` of ``feature_column`` and returns it."""
        raise NotImplementedError

    def get_variable(self, feature_column, name):
        """The variable ``name`` that ``create_variable`` made for ``feature_column``."""
        raise NotImplementedError


def to_tensor_or_sparse(value):
    """``value`` as a SparseTensor (kept) or a dense Tensor."""
    if isinstance(value, SparseTensor):
        return value
    return convert_to_tensor(value)


class FeatureTransformationCache:
    """The raw features of one call and the columns' transformed values, each
    computed once.

    Args:
      features: A dict from feature key (str) to Tensor or SparseTensor.
    """

    def __init__(self, features):
        self._features = dict(features)
        self._cache = {}

    def get(self, key, state_manager, training=None):
        """The raw feature ``key`` (a str) or the transformed value of a column.

        Rank-1 raw features are reshaped to ``[batch, 1]``.

        Raises:
          TypeError: If ``key`` is neither a str nor a FeatureColumn.
          ValueError: If a raw feature is missing or has rank 0.
        """
        del training
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            value = self._raw_feature(key)
        elif isinstance(key, FeatureColumn):
            value = key.transform_feature(self, state_manager)
            if value is None:
                raise ValueError(f"Column {key} is not supported.")
        else:
            raise TypeError(f'"key" must be either a "str" or "FeatureColumn". Provided: {key}')
        self._cache[key] = value
        return value

    def _raw_feature(self, key):
        if key not in self._features:
            raise ValueError(f"Feature {key} is not in features dictionary.")
        t = to_tensor_or_sparse(self._features[key])
        rank = t.shape.rank
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {t}")
        if rank == 1:
            if isinstance(t, SparseTensor):
                return sparse_ops.reshape(t, [shape_ops.shape(t)[0], 1])
            return array_ops.expand_dims(t, -1)
        return t


def to_sparse_dropping_ignored(t, ignore_value=None):
    """A dense ``t`` as a SparseTensor of its entries other than ``ignore_value``
    (default: ``""`` for strings, ``-1`` for integers, ``0`` otherwise); a
    SparseTensor is returned as it is."""
    if isinstance(t, SparseTensor):
        return t
    if ignore_value is None:
        if t.dtype is dtypes.string:
            ignore_value = ""
        elif t.dtype.is_integer:
            ignore_value = -1
        else:
            ignore_value = 0
    ignore = cast(ignore_value, t.dtype) if t.dtype is not dtypes.string else \
        convert_to_tensor(ignore_value, dtypes.string)
    indices = gather_ops.where(comparison_ops.not_equal(t, ignore))
    return SparseTensor(indices, gather_ops.gather_nd(t, indices),
                        cast(shape_ops.shape(t), dtypes.int64))


def check_key(key) -> None:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def check_string_or_int(dtype, prefix: str) -> None:
    if dtype is not dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def normalize_feature_columns(feature_columns, base=FeatureColumn, what=None) -> list:
    """The columns as a list sorted by name, checked to be ``base`` instances with
    distinct names (the order TF's feature layers concatenate them in)."""
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, collections.abc.Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    feature_columns = list(feature_columns)
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    for c in feature_columns:
        if not isinstance(c, FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a FeatureColumn. Given (type "
                             f"{type(c)}): {c}.")
        if not isinstance(c, base):
            raise ValueError(f"Items of feature_columns must be a {what or base}. You can wrap "
                             f"a categorical column with an embedding_column or "
                             f"indicator_column. Given: {c}")
    by_name = {}
    for c in feature_columns:
        if c.name in by_name:
            raise ValueError(f"Duplicate feature column name found for columns: "
                             f"{by_name[c.name]} and {c}. This usually means that these "
                             f"columns refer to same base feature. Either one must be discarded "
                             f"or a duplicated but renamed item must be inserted in features "
                             f"dict.")
        by_name[c.name] = c
    return sorted(feature_columns, key=lambda c: c.name)
