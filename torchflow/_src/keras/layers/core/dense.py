"""``tf.keras.layers.Dense``: ``activation(inputs @ kernel + bias)``."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops import fused_layer_ops
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.einsum_ops import tensordot
from torchflow._src.ops.nn_ops import bias_add
from torchflow._src.ops.sparse.sparse_math import sparse_dense_matmul
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class Dense(Layer):
    """A densely-connected layer: ``activation(dot(input, kernel) + bias)``.

    Inputs of rank > 2 are contracted over their last axis.

    Args:
      units: Output size.
      activation: Activation (name or callable; default linear).
      use_bias: Whether to add a bias.
      kernel_initializer, bias_initializer: Initializers (``glorot_uniform``, ``zeros``).
      kernel_regularizer, bias_regularizer, activity_regularizer: Regularizers.
      kernel_constraint, bias_constraint: Constraints.

    >>> import torchflow as tf
    >>> tf.keras.layers.Dense(3)(tf.ones([2, 4])).shape
    TensorShape([2, 3])
    """

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units) if not isinstance(units, int) else units
        if self.units < 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive "
                             f"integer, got {units}.")
        self.activation = U.get_act(activation)
        self._is_linear = self.activation is U.get_act("linear")
        self.use_bias = use_bias
        self.kernel_initializer = U.get_init(kernel_initializer)
        self.bias_initializer = U.get_init(bias_initializer)
        self.kernel_regularizer = U.get_reg(kernel_regularizer)
        self.bias_regularizer = U.get_reg(bias_regularizer)
        self.kernel_constraint = U.get_con(kernel_constraint)
        self.bias_constraint = U.get_con(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        last = input_shape[-1]
        if last is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = self.add_weight("kernel", shape=[last, self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, trainable=True)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs):
        cd = self._compute_dtype_obj
        if isinstance(inputs, SparseTensor):  # sparse @ kernel, as tf.keras' Dense does
            if cd is not None and inputs.dtype != cd:
                inputs = inputs.with_values(cast(inputs.values, cd))
            y = sparse_dense_matmul(inputs, self.kernel)
            if self.bias is not None:
                y = bias_add(y, self.bias)
            return y if self._is_linear else self.activation(y)
        if cd is not None and inputs.dtype != cd:
            inputs = cast(inputs, cd)  # integer inputs too, as tf.keras' Dense does
        rank = inputs.shape.rank
        if rank == 2:
            y = fused_layer_ops.dense(inputs, self.kernel, self.bias)
        else:
            y = tensordot(inputs, self.kernel, [[rank - 1], [0]])
            if self.bias is not None:
                y = bias_add(y, self.bias)
        return y if self._is_linear else self.activation(y)

    def compute_output_shape(self, input_shape):
        input_shape = TensorShape(input_shape)
        return input_shape[:-1].concatenate([self.units])

    def get_config(self):
        config = super().get_config()
        config.update({
            "units": self.units, "activation": U.ser_act(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": U.ser_init(self.kernel_initializer),
            "bias_initializer": U.ser_init(self.bias_initializer),
            "kernel_regularizer": U.ser_reg(self.kernel_regularizer),
            "bias_regularizer": U.ser_reg(self.bias_regularizer),
            "activity_regularizer": U.ser_reg(self.activity_regularizer),
            "kernel_constraint": U.ser_con(self.kernel_constraint),
            "bias_constraint": U.ser_con(self.bias_constraint),
        })
        return config
