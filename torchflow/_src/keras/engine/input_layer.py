"""``tf.keras.Input`` and ``InputLayer``: where a Functional model's graph starts."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras import backend
from torchflow._src.keras.engine import tf_op_layer
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.keras.engine.node import Node
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensorSpec
from torchflow._src.ops.sparse.sparse_tensor import SparseTensorSpec
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class InputLayer(Layer):
    """The layer behind ``tf.keras.Input``: holds the input's KerasTensor.

    Args:
      input_shape: Shape without the batch dimension.
      batch_size: Optional fixed batch size.
      dtype: The input dtype (default floatx).
      input_tensor: Not supported (eager).
      sparse: If True, the input is a ``tf.SparseTensor``.
      ragged: If True, the input is a ``tf.RaggedTensor`` (ragged up to the last
        None dimension of the shape, as TF 2.4).
      name: Layer name.
    """

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=False, name=None, ragged=False, batch_input_shape=None, **kwargs):
        if sparse and ragged:
            raise ValueError("Cannot set both sparse and ragged to True in a Keras input.")
        if name is None:
            name = backend.unique_object_name("input", zero_based=False)
        batch_input_shape = batch_input_shape if batch_input_shape is not None else \
            kwargs.pop("batch_shape", None)
        if batch_input_shape is not None:
            shape = tuple(batch_input_shape)
        else:
            if input_shape is None:
                raise ValueError("Please provide to Input either a `shape` or a "
                                 "`tensor` argument. Note that `shape` does not include "
                                 "the batch dimension.")
            shape = (batch_size,) + tuple(input_shape)
        dtype = dtypes.as_dtype(dtype or backend.floatx()).name
        super().__init__(dtype=dtype, name=name)
        self.built = True
        self._batch_input_shape = shape
        self.is_placeholder = True
        spec = None
        self._ragged = bool(ragged)
        self._sparse = bool(sparse)
        if sparse:  # the model takes tf.SparseTensor values here
            spec = SparseTensorSpec(TensorShape(shape), dtype)
        if ragged:  # ragged up to the last unknown dimension (TF 2.4's placeholder rule)
            rr = max([i for i in range(1, len(shape)) if shape[i] is None], default=0)
            spec = RaggedTensorSpec(TensorShape(shape), dtype, rr)
        kt = KerasTensor(TensorShape(shape), dtype, name=name, type_spec=spec)
        Node(self, (), {}, kt)
        self._kt = kt

    @property
    def output_shape(self):
        """``[shape]``: tf.keras gives an input layer's output shape as a one-element
        list (``[(None, 8)]``), as ``summary()`` shows it."""
        return [tuple(self.output.shape.as_list())]

    def get_config(self):
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": self._sparse, "ragged": self._ragged, "name": self.name}


@public("torchflow.keras")
def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None,
          ragged=False, **kwargs):
    """Creates a symbolic input for the Functional API.

    Args:
      shape: Shape tuple without the batch dimension (None for unknown sizes).
      batch_size: Optional static batch size.
      name: Optional name.
      dtype: Input dtype (default floatx).
      sparse: If True, the model takes ``tf.SparseTensor`` values here.
      tensor: Not supported (eager).
      ragged: If True, the model takes ``tf.RaggedTensor`` values here.

    Returns:
      A ``KerasTensor``.

    >>> import torchflow as tf
    >>> x = tf.keras.Input(shape=(3,))
    >>> x.shape
    TensorShape([None, 3])
    """
    if shape is not None and not isinstance(shape, (list, tuple, TensorShape)):
        shape = (shape,)
    tf_op_layer.install()
    layer = InputLayer(input_shape=shape, batch_size=batch_size, name=name, dtype=dtype,
                       sparse=sparse, ragged=ragged, **kwargs)
    return layer._kt
