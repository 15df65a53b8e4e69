"""``tf.keras.experimental.LinearModel``: ``activation(sum_i x_i W_i + b)``.

As TF 2.4: one bias-free ``Dense`` per input (for a dict input, one per key, in sorted
key order and named after the key), one shared ``bias`` weight of the model.
"""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.layers import _utils as U
from torchflow._src.keras.layers.core.dense import Dense
from torchflow._src.ops.nn_ops import bias_add
from torchflow._src.util.api import public


def _is_shape_list(shape) -> bool:
    return isinstance(shape, (list, tuple)) and len(shape) > 0 and all(
        isinstance(s, (TensorShape, list, tuple)) or s is None for s in shape) and any(
        isinstance(s, (TensorShape, list, tuple)) for s in shape)


@public("torchflow.keras.experimental")
class LinearModel(Model):
    """A linear (generalized linear) model: ``activation(sum_i dot(x_i, W_i) + b)``.

    Takes one tensor, a list of tensors or a dict of tensors (one kernel per input).

    Args:
      units: Positive int: output dimension (default 1).
      activation: Activation applied to the output (name or callable; default linear).
      use_bias: Whether to add a bias.
      kernel_initializer: Initializer for the kernels (default ``'zeros'``).
      bias_initializer: Initializer for the bias (default ``'zeros'``).
      kernel_regularizer: Regularizer for the kernels.
      bias_regularizer: Regularizer for the bias.
      **kwargs: Base ``Model`` arguments (``name``, ``dtype``, ...).

    Raises:
      ValueError: When called on a dict whose keys differ from the ones it was built on.

    >>> import torchflow as tf
    >>> m = tf.keras.experimental.LinearModel()
    >>> m(tf.ones([2, 3])).shape
    TensorShape([2, 1])
    """

    def __init__(self, units=1, activation=None, use_bias=True, kernel_initializer="zeros",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 **kwargs):
        self.units = units
        self.activation = U.get_act(activation) if activation is not None else None
        self.use_bias = use_bias
        self.kernel_initializer = U.get_init(kernel_initializer)
        self.bias_initializer = U.get_init(bias_initializer)
        self.kernel_regularizer = U.get_reg(kernel_regularizer)
        self.bias_regularizer = U.get_reg(bias_regularizer)
        super().__init__(**kwargs)

    def _dense(self, shape, name=None):
        layer = Dense(self.units, use_bias=False, kernel_initializer=self.kernel_initializer,
                      kernel_regularizer=self.kernel_regularizer, name=name, dtype=self.dtype)
        layer._scope_name = self._scope_name  # TF 2.4 names the kernels ``<model>/kernel``
        layer.build(shape)
        return layer

    def build(self, input_shape):
        if isinstance(input_shape, dict):
            names = sorted(input_shape)
            self.input_specs = [InputSpec(shape=TensorShape(input_shape[n]).as_list(), name=n)
                                for n in names]
            self.dense_layers = [self._dense(input_shape[n], name=n) for n in names]
        elif _is_shape_list(input_shape):
            self.dense_layers = [self._dense(s) for s in input_shape]
        else:
            self.dense_layers = [self._dense(input_shape)]
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, dtype=self.dtype)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs):
        if isinstance(inputs, dict):
            names = [layer.name for layer in self.dense_layers]
            missing = set(names) - set(inputs)
            if missing:
                raise ValueError(
                    "The input dictionary does not match the structure expected by the "
                    f"model.\n\tExpected keys: {set(names)}\n\tReceived keys: "
                    f"{set(inputs)}\n\tMissing keys: {missing}")
            inputs = [inputs[n] for n in names]
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        result = None
        for x, layer in zip(inputs, self.dense_layers):
            y = layer(x)
            result = y if result is None else result + y
        if self.bias is not None:
            result = bias_add(result, self.bias)
        return self.activation(result) if self.activation is not None else result

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": self._dtype_policy.name if self._dtype_policy else self.dtype}
        config.update({
            "units": self.units,
            "activation": U.ser_act(self.activation) if self.activation is not None else None,
            "use_bias": self.use_bias,
            "kernel_initializer": U.ser_init(self.kernel_initializer),
            "bias_initializer": U.ser_init(self.bias_initializer),
            "kernel_regularizer": U.ser_reg(self.kernel_regularizer),
            "bias_regularizer": U.ser_reg(self.bias_regularizer)})
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)
