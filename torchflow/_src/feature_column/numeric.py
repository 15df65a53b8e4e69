"""``numeric_column`` and ``bucketized_column``."""

from __future__ import annotations

import collections
import math

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.feature_column import base
from torchflow._src.ops import array_ops, creation_ops, preprocessing_ops, shape_ops
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.parsing_ops import FixedLenFeature
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public

_NS = "torchflow.feature_column"


def check_shape(shape, key) -> tuple:
    """``shape`` (an int or sequence of ints) as a tuple of positive ints."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    elif isinstance(shape, TensorShape):
        shape = tuple(shape.as_list())
    else:
        try:
            shape = tuple(shape)
        except TypeError:
            shape = (shape,)
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, "
                             f"key: {key}")
    return shape


def _nested(shape, flat):
    if len(shape) == 1:
        return tuple(flat)
    step = len(flat) // shape[0]
    return tuple(_nested(shape[1:], flat[i * step:(i + 1) * step]) for i in range(shape[0]))


def _flatten(v):
    if isinstance(v, (list, tuple)):
        return [y for x in v for y in _flatten(x)]
    if hasattr(v, "tolist"):
        return _flatten(v.tolist())
    return [v]


def check_default_value(shape, default_value, dtype, key):
    """``default_value`` as a nested tuple of ``shape`` (a scalar is repeated)."""
    if default_value is None:
        return None
    n = math.prod(shape)
    if isinstance(default_value, (int, float)) and not isinstance(default_value, bool):
        if isinstance(default_value, float) and not dtype.is_floating:
            raise TypeError(f"default_value must be compatible with dtype. default_value: "
                            f"{default_value}, key: {key}")
        return _nested(shape, [default_value] * n)
    if not hasattr(default_value, "__iter__"):
        raise TypeError(f"default_value must be compatible with dtype. default_value: "
                        f"{default_value}, key: {key}")
    flat = _flatten(default_value)
    if len(flat) != n:
        raise ValueError(f"The shape of default_value must be equal to given shape. "
                         f"default_value: {default_value}, shape: {shape}, key: {key}")
    ok = (int, float) if dtype.is_floating else (int,)
    if not all(isinstance(x, ok) and not isinstance(x, bool) for x in flat):
        raise ValueError(f"default_value must be compatible with dtype. default_value: "
                         f"{default_value}, dtype: {dtype}, key: {key}")
    return _nested(shape, flat)


class NumericColumn(base.DenseColumn, collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A real-valued feature (made by ``tf.feature_column.numeric_column``)."""

    __slots__ = ()

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    @property
    def variable_shape(self):
        return TensorShape(self.shape)

    def transform_feature(self, transformation_cache, state_manager):
        t = transformation_cache.get(self.key, state_manager)
        if isinstance(t, SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
        return cast(t, dtypes.float32)

    def get_dense_tensor(self, transformation_cache, state_manager):
        return transformation_cache.get(self, state_manager)


@public(_NS)
def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None) -> NumericColumn:
    """Represents real valued or numerical features.

    Args:
      key: The feature's key in the features dict (a str).
      shape: An int or tuple of ints: the shape of one example's value
        (default ``(1,)``).
      default_value: A value (or nested list of ``shape``) used by
        ``tf.io.parse_example`` when the feature is missing; None: required.
      dtype: The feature's type, a float or int dtype (default float32). The
        column's output is float32.
      normalizer_fn: An optional function applied to the feature's tensor
        (e.g. ``lambda x: (x - mean) / std``).

    Returns:
      A ``NumericColumn``.

    Raises:
      TypeError: If ``shape`` is not integers, ``default_value`` does not match
        ``dtype`` or ``normalizer_fn`` is not callable.
      ValueError: If ``key`` is not a str, a dimension is not positive,
        ``default_value`` has another shape, or ``dtype`` is not numeric.

    >>> import torchflow as tf
    >>> price = tf.feature_column.numeric_column("price")
    >>> tf.keras.layers.DenseFeatures([price])({"price": tf.constant([[2.], [3.]])}).numpy()
    array([[2.],
           [3.]], dtype=float32)
    """
    shape = check_shape(shape, key)
    base.check_key(key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class BucketizedColumn(base.DenseColumn, base.CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ("source_column", "boundaries"))):
    """A numeric column discretized by ``boundaries`` (``tf.feature_column.bucketized_column``)."""

    __slots__ = ()

    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def parse_example_spec(self):
        return self.source_column.parse_example_spec

    @property
    def parents(self):
        return [self.source_column]

    @property
    def variable_shape(self):
        return TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    @property
    def num_buckets(self):
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def transform_feature(self, transformation_cache, state_manager):
        t = transformation_cache.get(self.source_column, state_manager)
        return preprocessing_ops.bucketize(t, list(self.boundaries))

    def get_dense_tensor(self, transformation_cache, state_manager):
        ids = transformation_cache.get(self, state_manager)
        return creation_ops.one_hot(ids, len(self.boundaries) + 1, on_value=1.0, off_value=0.0)

    def get_sparse_tensors(self, transformation_cache, state_manager):
        # Dimension j of the source value gets the ids [j*(n+1), (j+1)*(n+1)).
        ids = transformation_cache.get(self, state_manager)
        batch = shape_ops.shape(ids, out_type=dtypes.int64)[0]
        dim = self.source_column.shape[0]
        rows = array_ops.reshape(array_ops.tile(array_ops.expand_dims(
            creation_ops.range(batch, dtype=dtypes.int64), 1), [1, dim]), [-1])
        cols = array_ops.tile(creation_ops.range(dim, dtype=dtypes.int64),
                              array_ops.expand_dims(batch, 0))
        values = array_ops.reshape(ids, [-1]) + (len(self.boundaries) + 1) * cols
        indices = array_ops.stack([rows, cols], axis=1)
        shape = array_ops.stack([batch, constant(dim, dtypes.int64)])
        return base.IdWeightPair(SparseTensor(indices, values, shape), None)


@public(_NS)
def bucketized_column(source_column, boundaries) -> BucketizedColumn:
    """Represents discretized dense input bucketed by ``boundaries``.

    Bucket ``i`` holds the values ``boundaries[i-1] <= x < boundaries[i]``: the
    buckets are ``(-inf, b[0])``, ``[b[0], b[1])``, ..., ``[b[-1], +inf)``. In a
    ``DenseFeatures`` layer the column is one-hot (``variable_shape`` is
    ``source shape + (len(boundaries) + 1,)``); as a categorical column (in
    ``crossed_column`` or ``embedding_column``) each dimension of the source
    has its own ids.

    Args:
      source_column: A one-dimensional ``numeric_column``.
      boundaries: A sorted list or tuple of floats.

    Returns:
      A ``BucketizedColumn``.

    Raises:
      ValueError: If ``source_column`` is not a one-dimensional numeric column,
        or ``boundaries`` is empty or not sorted.

    >>> import torchflow as tf
    >>> age = tf.feature_column.bucketized_column(
    ...     tf.feature_column.numeric_column("age"), [18, 30])
    >>> tf.keras.layers.DenseFeatures([age])({"age": tf.constant([[10.], [40.]])}).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: "
                         f"{source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))
