"""``Conv1D``/``Conv2D``/``Conv3D`` (and the shared ``Conv`` base) on ``tf.nn``'s
convolutions; channels-last inputs go to the kernels without layout copies."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops import fused_layer_ops
from torchflow._src.ops.array_ops import pad
from torchflow._src.ops.nn_ops import bias_add
from torchflow._src.util.api import public

_DF = {(1, True): "NWC", (1, False): "NCW", (2, True): "NHWC", (2, False): "NCHW",
       (3, True): "NDHWC", (3, False): "NCDHW"}


class Conv(Layer):
    """N-D convolution layer (the base of ``Conv1D/2D/3D``)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 conv_op=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        if isinstance(filters, float):
            filters = int(filters)
        if filters is not None and filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.filters = filters
        self.groups = groups or 1
        self.kernel_size = U.normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = U.normalize_tuple(strides, rank, "strides")
        self.padding = U.normalize_padding(padding, allow_causal=rank == 1)
        self.data_format = U.normalize_data_format(data_format)
        self.dilation_rate = U.normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = U.get_act(activation)
        self.use_bias = use_bias
        self.kernel_initializer = U.get_init(kernel_initializer)
        self.bias_initializer = U.get_init(bias_initializer)
        self.kernel_regularizer = U.get_reg(kernel_regularizer)
        self.bias_regularizer = U.get_reg(bias_regularizer)
        self.kernel_constraint = U.get_con(kernel_constraint)
        self.bias_constraint = U.get_con(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)
        if filters is not None and filters % self.groups:
            raise ValueError(f"The number of filters must be evenly divisible by the number "
                             f"of groups. Received: groups={self.groups}, filters={filters}")
        self._cl = self.data_format == "channels_last"
        self._tf_df = _DF[(rank, self._cl)]
        self._is_linear = self.activation is U.get_act("linear")

    def _channel_axis(self):
        return -1 if self._cl else 1

    def _in_channels(self, input_shape):
        c = TensorShape(input_shape)[self._channel_axis()]
        if c is None:
            raise ValueError("The channel dimension of the inputs should be defined. The "
                             f"input_shape received is {input_shape}.")
        return c

    def _check_output_size(self, input_shape):
        """Keras' ValueError at build for a window larger than the (padded) input: a
        negative output length (0 reaches the op, which gives an empty output)."""
        s = TensorShape(input_shape).as_list()
        sp = s[1:-1] if self._cl else s[2:]
        if any(d is not None and U.conv_output_length(d, k, self.padding, st, dl) < 0
               for d, k, st, dl in zip(sp, self.kernel_size, self.strides, self.dilation_rate)):
            raise ValueError(f"One of the dimensions in the output is <= 0 due to downsampling "
                             f"in {self.name}. Consider increasing the input size. Received "
                             f"input shape {s} which would produce output shape with a zero or "
                             f"negative value in a dimension.")

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        c = self._in_channels(input_shape)
        self._check_output_size(input_shape)
        if c % self.groups:
            raise ValueError(f"The number of input channels must be evenly divisible by the "
                             f"number of groups. Received groups={self.groups}, but the input "
                             f"has {c} channels (full input shape is {input_shape}).")
        self.kernel = self.add_weight(
            "kernel", shape=self.kernel_size + (c // self.groups, self.filters),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint, trainable=True)
        self._add_bias(self.filters)
        self.input_spec = InputSpec(min_ndim=self.rank + 2,
                                    axes={self._channel_axis(): c})
        self.built = True

    def _add_bias(self, n):
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(n,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, trainable=True)
        else:
            self.bias = None

    def _causal_pad(self, inputs):
        left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
        paddings = [[0, 0]] * inputs.shape.rank
        paddings[-2 if self._cl else -1] = [left, 0]
        return pad(inputs, paddings)

    def _finish(self, y):
        if self.bias is not None:
            y = bias_add(y, self.bias, data_format="NHWC" if self._cl else "NCHW")
        if not self._is_linear:
            y = self.activation(y)
        return y

    def call(self, inputs):
        padding = self.padding
        if padding == "causal":
            inputs = self._causal_pad(inputs)
            padding = "valid"
        y = fused_layer_ops.conv_bias(self.rank, inputs, self.kernel, self.bias, self.strides,
                                      padding.upper(), self._tf_df, self.dilation_rate)
        return y if self._is_linear else self.activation(y)

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        sp = s[1:-1] if self._cl else s[2:]
        out = [U.conv_output_length(d, k, self.padding, st, dl) for d, k, st, dl in
               zip(sp, self.kernel_size, self.strides, self.dilation_rate)]
        return TensorShape([s[0]] + out + [self.filters] if self._cl else
                           [s[0], self.filters] + out)

    def get_config(self):
        config = super().get_config()
        config.update({
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format,
            "dilation_rate": self.dilation_rate, "groups": self.groups,
            "activation": U.ser_act(self.activation), "use_bias": self.use_bias,
            "kernel_initializer": U.ser_init(self.kernel_initializer),
            "bias_initializer": U.ser_init(self.bias_initializer),
            "kernel_regularizer": U.ser_reg(self.kernel_regularizer),
            "bias_regularizer": U.ser_reg(self.bias_regularizer),
            "activity_regularizer": U.ser_reg(self.activity_regularizer),
            "kernel_constraint": U.ser_con(self.kernel_constraint),
            "bias_constraint": U.ser_con(self.bias_constraint),
        })
        return config


_DOC_ARGS = """
    Args:
      filters: Number of output channels.
      kernel_size: An int or tuple: the window size.
      strides: An int or tuple (default 1).
      padding: ``"valid"`` or ``"same"`` (Conv1D also ``"causal"``).
      data_format: ``"channels_last"`` (default) or ``"channels_first"``.
      dilation_rate: An int or tuple (default 1).
      groups: Number of channel groups (filters and input channels divisible by it).
      activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
      bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint:
        As in ``Dense``.
"""


@public("torchflow.keras.layers")
class Conv1D(Conv):
    __doc__ = "1-D convolution over ``(batch, steps, channels)``." + _DOC_ARGS

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, groups=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)


@public("torchflow.keras.layers")
class Conv2D(Conv):
    __doc__ = """2-D convolution over ``(batch, rows, cols, channels)``.

    >>> import torchflow as tf
    >>> tf.keras.layers.Conv2D(4, 3)(tf.ones([1, 5, 5, 2])).shape
    TensorShape([1, 3, 3, 4])
""" + _DOC_ARGS

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), groups=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)


@public("torchflow.keras.layers")
class Conv3D(Conv):
    __doc__ = "3-D convolution over ``(batch, d1, d2, d3, channels)``." + _DOC_ARGS

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1, 1), groups=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(3, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)


Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
