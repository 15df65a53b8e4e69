"""``tf.SparseTensor`` and ``tf.SparseTensorSpec``.

A SparseTensor is three Tensors: ``indices`` (int64 ``[N, rank]``), ``values``
(``[N]``, any dtype, string values included) and ``dense_shape`` (int64
``[rank]``). Ops that need TF's canonical row-major order say so and check it
the way TF's kernels do (see ``_sparse_common.validate``).
"""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.composite_tensor import CompositeTensor, TypeSpec
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.util.api import public


def _rank_error(t: Tensor, rank: int) -> ValueError:
    return ValueError(f"Shape {t.shape} must have rank {rank}")


def _merge_dim(a, b) -> None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


@public("torchflow.sparse")
class SparseTensor(CompositeTensor):
    """A sparse tensor: the ``values`` at ``indices`` of a tensor of ``dense_shape``.

    Every position not listed in ``indices`` holds zero (the empty string for
    string tensors). Many sparse ops need ``indices`` in row-major order;
    ``tf.sparse.reorder`` makes that order.

    Args:
      indices: A 2-D int64 Tensor of shape ``[N, ndims]``: the positions of the
        non-zero values.
      values: A 1-D Tensor of any dtype and shape ``[N]``.
      dense_shape: A 1-D int64 Tensor of shape ``[ndims]``.

    Raises:
      ValueError: If the three shapes do not fit together.
      TypeError: If ``indices`` or ``dense_shape`` cannot be int64.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2],
    ...                             dense_shape=[3, 4])
    >>> st.shape
    TensorShape([3, 4])
    >>> tf.sparse.to_dense(st).numpy()
    array([[1, 0, 0, 0],
           [0, 0, 2, 0],
           [0, 0, 0, 0]], dtype=int32)
    """

    def __init__(self, indices, values, dense_shape):
        indices = convert_to_tensor(indices, dtype=dtypes.int64)
        values = convert_to_tensor(values)
        dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int64)
        if indices.shape.rank != 2:
            raise _rank_error(indices, 2)
        if values.shape.rank != 1:
            raise _rank_error(values, 1)
        if dense_shape.shape.rank != 1:
            raise _rank_error(dense_shape, 1)
        _merge_dim(indices.shape[0], values.shape[0])
        _merge_dim(indices.shape[1], dense_shape.shape[0])
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._shape_cache = None

    @classmethod
    def _from_parts(cls, indices: Tensor, values: Tensor, dense_shape: Tensor) -> SparseTensor:
        """A SparseTensor from parts an op has already checked (no conversion)."""
        st = cls.__new__(cls)
        st._indices, st._values, st._dense_shape = indices, values, dense_shape
        st._shape_cache = None
        return st

    @classmethod
    def from_value(cls, sparse_tensor_value) -> SparseTensor:
        """A SparseTensor from a SparseTensor or any object with the three fields."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values,
                   sparse_tensor_value.dense_shape)

    @property
    def indices(self) -> Tensor:
        """The int64 ``[N, ndims]`` positions of the values."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """The ``[N]`` non-zero values."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """The int64 ``[ndims]`` shape of the dense tensor."""
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        """The dtype of the values."""
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense shape as a ``TensorShape``."""
        if self._shape_cache is None:
            self._shape_cache = TensorShape([int(d) for d in self._dense_shape.numpy()])
        return self._shape_cache

    def get_shape(self) -> TensorShape:
        """The dense shape as a ``TensorShape`` (same as ``shape``)."""
        return self.shape

    @property
    def device(self) -> str:
        """The device of the values."""
        return self._values.device

    @property
    def _type_spec(self) -> SparseTensorSpec:
        return SparseTensorSpec(self.shape, self.dtype)

    def with_values(self, new_values) -> SparseTensor:
        """A SparseTensor with the same indices and dense shape and ``new_values``.

        Args:
          new_values: A 1-D Tensor with as many values as ``self.values``
            (any dtype).

        Returns:
          A new SparseTensor.

        Raises:
          ValueError: If ``new_values`` is not 1-D of the right length.
        """
        new_values = convert_to_tensor(new_values)
        if new_values.shape.rank != 1:
            raise _rank_error(new_values, 1)
        _merge_dim(self._indices.shape[0], new_values.shape[0])
        return SparseTensor._from_parts(self._indices, new_values, self._dense_shape)

    def consumers(self) -> list:
        return []

    def __repr__(self) -> str:
        return (f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
                f"dense_shape={self._dense_shape!s})")

    __str__ = __repr__


@public("torchflow")
class SparseTensorSpec(TypeSpec):
    """The type of a ``tf.SparseTensor``: its dense ``shape`` and ``dtype``.

    Args:
      shape: The dense shape (dims may be None); default fully unknown.
      dtype: The dtype of the values (default ``tf.float32``).

    >>> import torchflow as tf
    >>> tf.SparseTensorSpec([None, 3], tf.float32)
    SparseTensorSpec(TensorShape([None, 3]), tf.float32)
    """

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def value_type(self):
        return SparseTensor

    @classmethod
    def from_value(cls, value) -> SparseTensorSpec:
        """The spec of a SparseTensor."""
        return cls(value.shape, value.dtype)

    @property
    def _component_specs(self):
        rank = self._shape.ndims
        return [TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], dtypes.int64)]

    def _to_components(self, value: SparseTensor) -> list:
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components) -> SparseTensor:
        indices, values, dense_shape = components
        return SparseTensor(indices, values, dense_shape)

    def _batch(self, batch_size) -> SparseTensorSpec:
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self) -> SparseTensorSpec:
        if self._shape.ndims == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return SparseTensorSpec(self._shape[1:], self._dtype)

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype)

