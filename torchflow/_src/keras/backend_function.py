"""``tf.keras.backend.placeholder`` and ``tf.keras.backend.function``, as TF 2.4's
Keras gives them under eager execution: a placeholder is a Keras input tensor of
the full (batch included) shape, and a function is a Functional model from its
inputs to its outputs that returns NumPy values."""

from __future__ import annotations

import numpy as np

from torchflow._src.core.tensor import Tensor
from torchflow._src.keras import backend
from torchflow._src.keras.engine import tf_op_layer
from torchflow._src.keras.engine.functional import Functional
from torchflow._src.keras.engine.input_layer import InputLayer
from torchflow._src.util import nest
from torchflow._src.util.api import public

_NS = "torchflow.keras.backend"


@public(_NS)
def placeholder(shape=None, ndim=None, dtype=None, sparse=False, name=None, ragged=False):
    """A symbolic Keras tensor of the given full shape (batch dimension included),
    usable as an input of ``tf.keras.backend.function`` or a Functional model.

    Args:
      shape: The shape, a tuple (None for unknown sizes); at least one of
        ``shape`` and ``ndim`` is given (``shape`` wins).
      ndim: The number of axes, all of unknown size.
      dtype: The dtype (default ``floatx()``).
      sparse: Whether it stands for a ``tf.SparseTensor``.
      name: Optional name.
      ragged: Whether it stands for a ``tf.RaggedTensor``.

    Returns:
      A ``KerasTensor``.

    Raises:
      ValueError: If both ``sparse`` and ``ragged`` are set.

    >>> import torchflow as tf
    >>> tf.keras.backend.placeholder(shape=(2, 4, 5)).shape
    TensorShape([2, 4, 5])
    """
    if sparse and ragged:
        raise ValueError("Cannot set both sparse and ragged to True when creating a "
                         "placeholder.")
    if dtype is None:
        dtype = backend.floatx()
    if not shape and ndim:
        shape = (None,) * ndim
    tf_op_layer.install()
    layer = InputLayer(batch_input_shape=tuple(shape or ()), dtype=dtype, sparse=sparse,
                       ragged=ragged, name=name)
    return layer._kt


def _to_numpy_or_python(t):
    if isinstance(t, Tensor):
        value = t.numpy()
        return value.item() if np.ndim(value) == 0 else value
    return t


@public(_NS)
def function(inputs, outputs, updates=None, name=None, **kwargs):
    """A callable computing ``outputs`` from values of ``inputs`` (Keras tensors),
    returning NumPy values (Python scalars for scalars).

    Under eager execution, as in TF 2.4, this builds ``tf.keras.Model(inputs,
    outputs)`` and calls it: ``tf.keras.backend.function([model.input],
    [layer.output])`` reads a layer's activations.

    Args:
      inputs: The input Keras tensors (``tf.keras.Input`` or ``placeholder``).
      outputs: The output Keras tensor(s); a list of one is answered as a list.
      updates: Not supported under eager execution (must be empty).
      name: Unused.
      **kwargs: TF 1 ``Session.run`` arguments: not supported (must be empty).

    Returns:
      A function of the input values that returns the output values.

    Raises:
      ValueError: For ``updates`` or session keyword arguments.

    >>> import torchflow as tf
    >>> x = tf.keras.Input((2,))
    >>> f = tf.keras.backend.function([x], [x * 2.0])
    >>> f([tf.ones((1, 2))])
    [array([[2., 2.]], dtype=float32)]
    """
    if kwargs:
        raise ValueError(f"Session keyword arguments are not supported during eager "
                         f"execution. You passed: {kwargs}")
    if updates:
        raise ValueError(f"`updates` argument is not supported during eager execution. "
                         f"You passed: {updates}")
    wrap = isinstance(outputs, list) and len(outputs) == 1
    # (TF 2.4's Functional takes a list of one input or output as that tensor.)
    if isinstance(inputs, list) and len(nest.flatten(inputs)) == 1:
        inputs = inputs[0]
    model = Functional(inputs=inputs, outputs=outputs[0] if wrap else outputs)

    def func(model_inputs):
        outs = model(model_inputs)
        if wrap:
            outs = [outs]
        return nest.map_structure(_to_numpy_or_python, outs)

    return func
