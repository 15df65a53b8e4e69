"""``tf.IndexedSlices``: a sparse set of rows of a dense tensor.

torchflow's own gradients are dense (see ``tape.py``), so an ``IndexedSlices``
appears only where a program builds one: as the ``sparse_delta`` of
``Variable.scatter_*`` or as a gradient handed to an optimizer. It converts to
a dense tensor wherever a Tensor is expected (duplicate indices sum, as
``tf.convert_to_tensor`` of an ``IndexedSlices`` does in TF).
"""

from __future__ import annotations

import torch

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.util.api import public


@public("torchflow")
class IndexedSlices:
    """A sparse representation of a set of tensor slices at given indices.

    ``values[i]`` is row ``indices[i]`` of the dense tensor of shape
    ``dense_shape``.

    Args:
      values: A Tensor of any dtype, shape ``[N, d1, ..., dn]``.
      indices: A 1-D integer Tensor of shape ``[N]``.
      dense_shape: Optional 1-D integer Tensor: the shape of the dense tensor.

    >>> import torchflow as tf
    >>> s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]),
    ...                      tf.constant([3, 2]))
    >>> tf.convert_to_tensor(s).numpy()
    array([[0., 0.],
           [1., 2.],
           [0., 0.]], dtype=float32)
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    @property
    def values(self) -> Tensor:
        """The values of the slices."""
        return self._values

    @property
    def indices(self) -> Tensor:
        """The row indices of the slices."""
        return self._indices

    @property
    def dense_shape(self):
        """The dense shape (a 1-D Tensor), or None."""
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense shape as a ``TensorShape`` (unknown rows without ``dense_shape``)."""
        if self._dense_shape is None:
            return TensorShape([None] + self._values.shape.as_list()[1:])
        return TensorShape([int(d) for d in self._dense_shape.numpy()])

    @property
    def device(self) -> str:
        return self._values.device

    def _tf_value(self, dtype=None) -> Tensor:
        if self._dense_shape is None:
            raise ValueError(f"Tensor conversion requested for IndexedSlices without "
                             f"dense_shape: {self!r}")
        v = self._values._t
        shape = [int(d) for d in self._dense_shape.numpy()]
        out = torch.zeros(shape, dtype=v.dtype, device=v.device)
        out.index_add_(0, self._indices._t.long().to(v.device), v)
        return wrap(out, self._values.dtype)

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)  # pyright: ignore[reportOperatorIssue] - ops/tensor_operators installs Tensor's operators

    def __repr__(self) -> str:
        return (f"IndexedSlices(indices={self._indices!r}, values={self._values!r}"
                + (f", dense_shape={self._dense_shape!r})" if self._dense_shape is not None
                   else ")"))
