"""``SeparableConv1D/2D`` and ``DepthwiseConv2D``."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.keras.layers.convolutional.base_conv import Conv
from torchflow._src.ops import conv_ops
from torchflow._src.ops.array_ops import expand_dims, squeeze
from torchflow._src.util.api import public


class _SeparableConv(Conv):
    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, depth_multiplier=1, activation=None,
                 use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                 bias_constraint=None, **kwargs):
        kwargs.pop("kernel_initializer", None)
        kwargs.pop("kernel_regularizer", None)
        kwargs.pop("kernel_constraint", None)
        super().__init__(rank, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = U.get_init(depthwise_initializer)
        self.pointwise_initializer = U.get_init(pointwise_initializer)
        self.depthwise_regularizer = U.get_reg(depthwise_regularizer)
        self.pointwise_regularizer = U.get_reg(pointwise_regularizer)
        self.depthwise_constraint = U.get_con(depthwise_constraint)
        self.pointwise_constraint = U.get_con(pointwise_constraint)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        c = self._in_channels(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis(): c})
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=self.kernel_size + (c, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, trainable=True)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", shape=(1,) * self.rank + (c * self.depth_multiplier,
                                                          self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, trainable=True)
        self._add_bias(self.filters)
        self.built = True

    def get_config(self):
        config = super().get_config()
        config.update({
            "depth_multiplier": self.depth_multiplier,
            "depthwise_initializer": U.ser_init(self.depthwise_initializer),
            "pointwise_initializer": U.ser_init(self.pointwise_initializer),
            "depthwise_regularizer": U.ser_reg(self.depthwise_regularizer),
            "pointwise_regularizer": U.ser_reg(self.pointwise_regularizer),
            "depthwise_constraint": U.ser_con(self.depthwise_constraint),
            "pointwise_constraint": U.ser_con(self.pointwise_constraint),
        })
        return config


@public("torchflow.keras.layers")
class SeparableConv1D(_SeparableConv):
    """Depthwise 1-D convolution followed by a pointwise (1x1) one.

    Args:
      filters, kernel_size, strides, padding (also ``"causal"``), data_format,
      dilation_rate: As in Conv1D.
      depth_multiplier: Depthwise output channels per input channel.
      depthwise_*/pointwise_*/bias_*: initializers, regularizers, constraints.
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, depth_multiplier=1, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, depth_multiplier, **kwargs)

    def call(self, inputs):
        padding = self.padding
        if padding == "causal":
            inputs = self._causal_pad(inputs)
            padding = "valid"
        # As a 2-D separable convolution over a unit spatial axis.
        ax = 1 if self._cl else 2
        x = expand_dims(inputs, ax)
        dw = expand_dims(self.depthwise_kernel, 0)
        pw = expand_dims(self.pointwise_kernel, 0)
        df = "NHWC" if self._cl else "NCHW"
        y = conv_ops.separable_conv2d(x, dw, pw, [1, 1, self.strides[0], 1] if self._cl else
                                      [1, 1, 1, self.strides[0]], padding.upper(),
                                      data_format=df, dilations=[1, self.dilation_rate[0]])
        return self._finish(squeeze(y, [ax]))


@public("torchflow.keras.layers")
class SeparableConv2D(_SeparableConv):
    """Depthwise 2-D convolution followed by a pointwise (1x1) one (arguments as
    ``SeparableConv1D``).

    Args:
      filters: Positive int: the number of output channels.
      kernel_size: An int or pair of ints.
      strides: An int or pair of ints, default 1.
      padding: ``'valid'`` (default) or ``'same'`` (case-insensitive).
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      dilation_rate: An int or pair of ints, default 1.
      depth_multiplier: Positive int, default 1: depthwise output channels per input
        channel.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), depth_multiplier=1, **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, depth_multiplier, **kwargs)

    def call(self, inputs):
        st = [1, *self.strides, 1] if self._cl else [1, 1, *self.strides]
        y = conv_ops.separable_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel,
                                      st, self.padding.upper(), data_format=self._tf_df,
                                      dilations=list(self.dilation_rate))
        return self._finish(y)


@public("torchflow.keras.layers")
class DepthwiseConv2D(Conv):
    """Depthwise 2-D convolution: each input channel convolved with its own
    ``depth_multiplier`` filters.

    Args:
      kernel_size, strides, padding, data_format, dilation_rate: As in Conv2D.
      depth_multiplier: Output channels per input channel.
      depthwise_initializer, depthwise_regularizer, depthwise_constraint: For the kernel.
      activation, use_bias, bias_*, activity_regularizer: As in Conv2D.
    """

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        kwargs.pop("filters", None)
        super().__init__(2, None, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = U.get_init(depthwise_initializer)
        self.depthwise_regularizer = U.get_reg(depthwise_regularizer)
        self.depthwise_constraint = U.get_con(depthwise_constraint)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.rank != 4:
            raise ValueError(f"Inputs to `DepthwiseConv2D` should have rank 4. Received "
                             f"input_shape={input_shape}.")
        c = self._in_channels(input_shape)
        self.input_spec = InputSpec(ndim=4, axes={self._channel_axis(): c})
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=self.kernel_size + (c, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, trainable=True)
        self._add_bias(c * self.depth_multiplier)
        self.built = True

    def call(self, inputs):
        st = [1, *self.strides, 1] if self._cl else [1, 1, *self.strides]
        y = conv_ops.depthwise_conv2d(inputs, self.depthwise_kernel, st, self.padding.upper(),
                                      data_format=self._tf_df,
                                      dilations=list(self.dilation_rate))
        return self._finish(y)

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        c = (s[-1] if self._cl else s[1])
        c = None if c is None else c * self.depth_multiplier
        sp = s[1:-1] if self._cl else s[2:]
        out = [U.conv_output_length(d, k, self.padding, st, dl) for d, k, st, dl in
               zip(sp, self.kernel_size, self.strides, self.dilation_rate)]
        return TensorShape([s[0]] + out + [c] if self._cl else [s[0], c] + out)

    def get_config(self):
        config = super().get_config()
        for k in ("filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(k)
        config.update({
            "depth_multiplier": self.depth_multiplier,
            "depthwise_initializer": U.ser_init(self.depthwise_initializer),
            "depthwise_regularizer": U.ser_reg(self.depthwise_regularizer),
            "depthwise_constraint": U.ser_con(self.depthwise_constraint),
        })
        return config


SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D
