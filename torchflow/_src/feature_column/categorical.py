"""The categorical columns: ids from integers, hashes, vocabularies, weights and crosses."""

from __future__ import annotations

import collections
import os

from torchflow._src.core import dtypes
from torchflow._src.feature_column import base
from torchflow._src.ops import (
    comparison_ops,
    creation_ops,
    gather_ops,
    preprocessing_ops,
    shape_ops,
)
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.parsing_ops import VarLenFeature
from torchflow._src.ops.sparse.sparse_cross import cross_hashed
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.ops.string_hash_ops import to_hash_bucket_fast
from torchflow._src.ops.string_ops import as_string
from torchflow._src.util.api import public

_NS = "torchflow.feature_column"


def _sparse_input(column, cache, state_manager) -> SparseTensor:
    return base.to_sparse_dropping_ignored(cache.get(column.key, state_manager))


def _with_values(sp: SparseTensor, values) -> SparseTensor:
    return SparseTensor(sp.indices, values, sp.dense_shape)


def _check_compatible(key, column_dtype, t) -> None:
    base.check_string_or_int(t.dtype, f"column_name: {key} input_tensor")
    if column_dtype.is_integer != t.dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {key}, "
                         f"column dtype: {column_dtype}, tensor dtype: {t.dtype}")


def vocabulary_ids(values, vocab, num_oov_buckets, default_value):
    """The id of each value in ``vocab`` (a tuple of str or int); misses go to
    ``len(vocab) + Fingerprint64 hash % num_oov_buckets`` of the value's string
    (TF's ``IdTableWithHashBuckets``), or to ``default_value``."""
    is_str = values.dtype is dtypes.string
    keys = [v.encode("utf-8") if isinstance(v, str) else v for v in vocab]
    if not is_str:
        keys = [int(k) for k in keys]
        values = cast(values, dtypes.int64)
    index = {k: i for i, k in enumerate(keys)}
    ids = preprocessing_ops.vocab_lookup(values, keys, index, 0, 0)
    miss = comparison_ops.equal(ids, -1)
    if num_oov_buckets:
        hashed = to_hash_bucket_fast(values if is_str else as_string(values), num_oov_buckets)
        return gather_ops.where(miss, hashed + len(keys), ids)
    if default_value != -1:
        return gather_ops.where(miss, creation_ops.fill(shape_ops.shape(ids),
                                                        cast(default_value, dtypes.int64)), ids)
    return ids


class IdentityCategoricalColumn(base.CategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ("key", "number_buckets", "default_value"))):
    """Integer ids used as they are (``categorical_column_with_identity``)."""

    __slots__ = ()

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: VarLenFeature(dtypes.int64)}

    @property
    def num_buckets(self):
        return self.number_buckets

    def transform_feature(self, transformation_cache, state_manager):
        sp = _sparse_input(self, transformation_cache, state_manager)
        if not sp.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {sp.dtype}")
        values = cast(sp.values, dtypes.int64)
        if self.default_value is not None:
            out = comparison_ops.logical_or(comparison_ops.less(values, 0),
                                            comparison_ops.greater_equal(values,
                                                                         self.number_buckets))
            values = gather_ops.where(out, creation_ops.fill(
                shape_ops.shape(values), cast(self.default_value, dtypes.int64)), values)
        return _with_values(sp, values)


@public(_NS)
def categorical_column_with_identity(key, num_buckets, default_value=None):
    """A categorical column whose ids are the integer feature values themselves.

    Values outside ``[0, num_buckets)`` become ``default_value`` when it is
    given (otherwise they are kept: ``indicator_column`` ignores them). In dense
    integer inputs, ``-1`` marks a missing value.

    Args:
      key: The feature's key (a str).
      num_buckets: The range of ids, ``[0, num_buckets)``.
      default_value: The id of out-of-range values, or None.

    Returns:
      An ``IdentityCategoricalColumn``.

    Raises:
      ValueError: If ``num_buckets`` < 1 or ``default_value`` is out of range.

    >>> import torchflow as tf
    >>> c = tf.feature_column.categorical_column_with_identity("id", 3)
    >>> tf.keras.layers.DenseFeatures([tf.feature_column.indicator_column(c)])(
    ...     {"id": tf.constant([[2], [0]])}).numpy()
    array([[0., 0., 1.],
           [1., 0., 0.]], dtype=float32)
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    base.check_key(key)
    return IdentityCategoricalColumn(key, num_buckets, default_value)


class HashedCategoricalColumn(base.CategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    """Ids from hashing the values (``categorical_column_with_hash_bucket``)."""

    __slots__ = ()

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    def transform_feature(self, transformation_cache, state_manager):
        sp = _sparse_input(self, transformation_cache, state_manager)
        _check_compatible(self.key, self.dtype, sp)
        values = sp.values if sp.dtype is dtypes.string else as_string(sp.values)
        return _with_values(sp, to_hash_bucket_fast(values, self.hash_bucket_size))


@public(_NS)
def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """A categorical column whose ids are hashes of the values.

    The id of a value is ``Fingerprint64(value) % hash_bucket_size`` (integers
    hash their decimal strings), as TF's ``string_to_hash_bucket_fast``.

    Args:
      key: The feature's key (a str).
      hash_bucket_size: The number of buckets (>= 1).
      dtype: The feature's type: string (default) or an integer type.

    Returns:
      A ``HashedCategoricalColumn``.

    Raises:
      ValueError: If ``hash_bucket_size`` < 1 or ``dtype`` is neither string
        nor integer.

    >>> import torchflow as tf
    >>> c = tf.feature_column.categorical_column_with_hash_bucket("word", 10)
    >>> c.num_buckets
    10
    """
    base.check_key(key)
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    dtype = dtypes.as_dtype(dtype)
    base.check_string_or_int(dtype, f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


class VocabularyListCategoricalColumn(base.CategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"))):
    """Ids from an in-memory vocabulary (``categorical_column_with_vocabulary_list``)."""

    __slots__ = ()

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets

    def transform_feature(self, transformation_cache, state_manager):
        sp = _sparse_input(self, transformation_cache, state_manager)
        _check_compatible(self.key, self.dtype, sp)
        return _with_values(sp, vocabulary_ids(sp.values, self.vocabulary_list,
                                               self.num_oov_buckets, self.default_value))


def _vocab_dtype(values):
    return dtypes.string if isinstance(values[0], (str, bytes)) else dtypes.int64


@public(_NS)
def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):
    """A categorical column whose ids are the values' positions in a vocabulary.

    A value not in ``vocabulary_list`` gets id ``len(vocabulary_list) +
    hash(value) % num_oov_buckets`` when ``num_oov_buckets`` > 0, else
    ``default_value`` (-1: ignored by ``indicator_column`` and
    ``embedding_column``).

    Args:
      key: The feature's key (a str).
      vocabulary_list: A non-empty list of distinct strings or integers.
      dtype: The feature's type (default: the vocabulary's, string or int64).
      default_value: The id of out-of-vocabulary values when
        ``num_oov_buckets`` is 0.
      num_oov_buckets: The number of hash buckets for out-of-vocabulary values.

    Returns:
      A ``VocabularyListCategoricalColumn``.

    Raises:
      ValueError: If the vocabulary is empty or has duplicates, ``dtype`` does
        not match it, both ``default_value`` and ``num_oov_buckets`` are given,
        or ``num_oov_buckets`` < 0.

    >>> import torchflow as tf
    >>> c = tf.feature_column.categorical_column_with_vocabulary_list("thal", ["a", "b"])
    >>> tf.keras.layers.DenseFeatures([tf.feature_column.indicator_column(c)])(
    ...     {"thal": tf.constant([["b"], ["z"]])}).numpy()
    array([[0., 1.],
           [0., 0.]], dtype=float32)
    """
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: "
                         f"{key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: "
                         f"{key}")
    vocab_dtype = _vocab_dtype(vocabulary_list)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    base.check_string_or_int(vocab_dtype, f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocab_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocab_dtype.is_integer:
            raise ValueError(f"dtype {dtype} and vocabulary dtype {vocab_dtype} do not "
                             f"match, column_name: {key}")
    base.check_string_or_int(dtype, f"column_name: {key}")
    base.check_key(key)
    return VocabularyListCategoricalColumn(key, tuple(vocabulary_list), dtype, default_value,
                                           num_oov_buckets)


_FILE_VOCABS: dict = {}


def _read_vocabulary(path, size, is_int) -> tuple:
    stamp = (path, size, is_int, os.path.getmtime(path))
    if stamp not in _FILE_VOCABS:
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\r\n") for line in f][:size]
        _FILE_VOCABS[stamp] = tuple(int(x) for x in lines) if is_int else tuple(lines)
    return _FILE_VOCABS[stamp]


class VocabularyFileCategoricalColumn(base.CategoricalColumn, collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype",
         "default_value", "file_format"))):
    """Ids from a vocabulary file (``categorical_column_with_vocabulary_file``)."""

    __slots__ = ()

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets

    def transform_feature(self, transformation_cache, state_manager):
        sp = _sparse_input(self, transformation_cache, state_manager)
        _check_compatible(self.key, self.dtype, sp)
        vocab = _read_vocabulary(self.vocabulary_file, self.vocabulary_size,
                                 self.dtype.is_integer)
        return _with_values(sp, vocabulary_ids(sp.values, vocab, self.num_oov_buckets,
                                               self.default_value))


@public(_NS)
def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            dtype=dtypes.string, default_value=None,
                                            num_oov_buckets=0):
    """A categorical column whose ids are the values' line numbers in a file.

    Line ``i`` of ``vocabulary_file`` (one token per line) has id ``i``; values
    not in the first ``vocabulary_size`` lines get ``vocabulary_size +
    hash(value) % num_oov_buckets``, or ``default_value`` (default -1).

    Args:
      key: The feature's key (a str).
      vocabulary_file: The path of the vocabulary file.
      vocabulary_size: The number of lines to use (default: all of them).
      dtype: The feature's type: string (default) or an integer type.
      default_value: The id of out-of-vocabulary values when
        ``num_oov_buckets`` is 0.
      num_oov_buckets: The number of hash buckets for out-of-vocabulary values.

    Returns:
      A ``VocabularyFileCategoricalColumn``.

    Raises:
      ValueError: If the file is missing, ``vocabulary_size`` < 1,
        ``num_oov_buckets`` < 0 or given with ``default_value``, or ``dtype``
        is neither string nor integer.
    """
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not os.path.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with open(vocabulary_file, encoding="utf-8") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets in {key}.")
    dtype = dtypes.as_dtype(dtype)
    base.check_string_or_int(dtype, f"column_name: {key}")
    base.check_key(key)
    return VocabularyFileCategoricalColumn(key, vocabulary_file, vocabulary_size,
                                           0 if num_oov_buckets is None else num_oov_buckets,
                                           dtype, -1 if default_value is None else default_value,
                                           None)


class WeightedCategoricalColumn(base.CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype"))):
    """A categorical column with a weight per id (``weighted_categorical_column``)."""

    __slots__ = ()

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def parse_example_spec(self):
        spec = dict(self.categorical_column.parse_example_spec)
        spec[self.weight_feature_key] = VarLenFeature(self.dtype)
        return spec

    @property
    def parents(self):
        return [self.categorical_column, self.weight_feature_key]

    @property
    def num_buckets(self):
        return self.categorical_column.num_buckets

    def transform_feature(self, transformation_cache, state_manager):
        w = transformation_cache.get(self.weight_feature_key, state_manager)
        if w.dtype is not self.dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {w.dtype}.")
        if not isinstance(w, SparseTensor):
            w = base.to_sparse_dropping_ignored(w, ignore_value=0.0)
        if not w.dtype.is_floating:
            w = _with_values(w, cast(w.values, dtypes.float32))
        ids = self.categorical_column.get_sparse_tensors(transformation_cache,
                                                         state_manager).id_tensor
        return ids, w

    def get_sparse_tensors(self, transformation_cache, state_manager):
        ids, w = transformation_cache.get(self, state_manager)
        return base.IdWeightPair(ids, w)


@public(_NS)
def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """Gives each id of a categorical column the weight read from another feature.

    The weight feature has the ids' indices (dense zeros mark missing weights).
    ``embedding_column`` combines the embeddings with these weights;
    ``indicator_column`` sums the weights of each id.

    Args:
      categorical_column: A categorical column.
      weight_feature_key: The key of the weight feature.
      dtype: The weights' type (a float type, default float32).

    Returns:
      A ``WeightedCategoricalColumn``.

    Raises:
      ValueError: If ``dtype`` is not a float type.
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


def _leaf_keys(column) -> list:
    out = []
    for k in column.keys:
        out.extend(_leaf_keys(k) if isinstance(k, CrossedColumn) else [k])
    return out


class CrossedColumn(base.CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """Hashed crosses of categorical features (``tf.feature_column.crossed_column``)."""

    __slots__ = ()

    @property
    def name(self):
        names = [k.name if isinstance(k, base.FeatureColumn) else k for k in _leaf_keys(self)]
        return "_X_".join(sorted(names))

    @property
    def parse_example_spec(self):
        spec = {}
        for k in self.keys:
            if isinstance(k, base.FeatureColumn):
                spec.update(k.parse_example_spec)
            else:
                spec[k] = VarLenFeature(dtypes.string)
        return spec

    @property
    def parents(self):
        return list(self.keys)

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    def transform_feature(self, transformation_cache, state_manager):
        inputs = []
        for k in _leaf_keys(self):
            if isinstance(k, str):
                inputs.append(transformation_cache.get(k, state_manager))
                continue
            pair = k.get_sparse_tensors(transformation_cache, state_manager)
            if pair.weight_tensor is not None:
                raise ValueError(f"crossed_column does not support weight_tensor, but the "
                                 f"given column populates weight_tensor. Given column: {k.name}")
            inputs.append(pair.id_tensor)
        return cross_hashed(inputs, num_buckets=self.hash_bucket_size, hash_key=self.hash_key)


@public(_NS)
def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Hashed crosses of categorical features.

    Each example's ids are, for every combination of one value of each key,
    ``FingerprintCat64`` of the values' fingerprints ``% hash_bucket_size``
    (TF's ``sparse_cross_hashed``).

    Args:
      keys: Two or more feature keys (str) or categorical columns (not
        ``categorical_column_with_hash_bucket``; nested crosses are flattened).
      hash_bucket_size: The number of buckets (>= 1).
      hash_key: The key of the fingerprint combination (default: TF's).

    Returns:
      A ``CrossedColumn``.

    Raises:
      ValueError: If fewer than two keys are given, ``hash_bucket_size`` < 1,
        or a key is a hashed or non-categorical column.

    >>> import torchflow as tf
    >>> tf.feature_column.crossed_column(["a", "b"], 10).name
    'a_X_b'
    """
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for k in keys:
        if not isinstance(k, (str, base.CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or "
                             f"categorical column except HashedCategoricalColumn. Given: {k}")
        if isinstance(k, HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for "
                             f"crossing. Hashing before crossing will increase probability of "
                             f"collision. Instead, use the feature name as a string. Given: {k}")
    return CrossedColumn(tuple(keys), hash_bucket_size, hash_key)
