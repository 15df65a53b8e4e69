"""``Conv2DTranspose`` and ``Conv3DTranspose`` (and ``Conv1DTranspose``): the gradient
of a convolution with respect to its input, with Keras' output-size rules."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.keras.layers.convolutional.base_conv import Conv
from torchflow._src.ops import conv_ops
from torchflow._src.util.api import public


class _ConvTranspose(Conv):
    def __init__(self, rank, filters, kernel_size, strides, padding, output_padding,
                 data_format, dilation_rate, **kwargs):
        super().__init__(rank, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)
        self.output_padding = output_padding
        if output_padding is not None:
            self.output_padding = U.normalize_tuple(output_padding, rank, "output_padding")
            for s, p in zip(self.strides, self.output_padding):
                if p >= s:
                    raise ValueError(f"Strides {self.strides} must be greater than output "
                                     f"padding {self.output_padding}")

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.rank != self.rank + 2:
            raise ValueError(f"Inputs should have rank {self.rank + 2}. Received input "
                             f"shape: {input_shape}")
        c = self._in_channels(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis(): c})
        self.kernel = self.add_weight(
            "kernel", shape=self.kernel_size + (self.filters, c),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint, trainable=True)
        self._add_bias(self.filters)
        self.built = True

    def _out_spatial(self, sp):
        op = self.output_padding or (None,) * self.rank
        return [U.deconv_output_length(d, k, self.padding, p, s, dl) for d, k, p, s, dl in
                zip(sp, self.kernel_size, op, self.strides, self.dilation_rate)]

    def call(self, inputs):
        s = inputs.shape.as_list()
        sp = s[1:-1] if self._cl else s[2:]
        out = self._out_spatial(sp)
        oshape = [s[0]] + out + [self.filters] if self._cl else [s[0], self.filters] + out
        y = conv_ops._conv_transpose(f"Conv{self.rank}DBackpropInput", self.rank, inputs,
                                     self.kernel, oshape, self.strides, self.padding.upper(),
                                     self._tf_df, self.dilation_rate)
        return self._finish(y)

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        sp = s[1:-1] if self._cl else s[2:]
        out = self._out_spatial(sp)
        return TensorShape([s[0]] + out + [self.filters] if self._cl else
                           [s[0], self.filters] + out)

    def get_config(self):
        config = super().get_config()
        config["output_padding"] = self.output_padding
        return config


_KW = ("activation", "use_bias", "kernel_initializer", "bias_initializer",
       "kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint",
       "bias_constraint")


@public("torchflow.keras.layers")
class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution; ``output_padding`` adds to the output length.

    Args:
      filters: Positive int: the number of output channels.
      kernel_size: An int or a 1-tuple: the window length.
      strides: An int, default 1.
      padding: ``'valid'`` (default) or ``'same'`` (case-insensitive).
      output_padding: None (default: inferred) or an int / tuple of ints added to the output
        size; each below its stride.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      dilation_rate: An int, default 1.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, output_padding,
                         data_format, dilation_rate, **kwargs)


@public("torchflow.keras.layers")
class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution ("deconvolution").

    Args:
      filters, kernel_size, strides, padding, data_format, dilation_rate: As in Conv2D.
      output_padding: Extra size added to each output spatial dimension (< strides).
      activation, use_bias, initializers, regularizers, constraints: As in Conv2D.

    >>> import torchflow as tf
    >>> tf.keras.layers.Conv2DTranspose(2, 3, strides=2)(tf.ones([1, 4, 4, 1])).shape
    TensorShape([1, 9, 9, 2])
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, output_padding,
                         data_format, dilation_rate, **kwargs)


@public("torchflow.keras.layers")
class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution; arguments as ``Conv2DTranspose``.

    Args:
      filters: Positive int: the number of output channels.
      kernel_size: An int or 3 ints.
      strides: An int or 3 ints, default 1.
      padding: ``'valid'`` (default) or ``'same'`` (case-insensitive).
      output_padding: None (default: inferred) or an int / tuple of ints added to the output
        size; each below its stride.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      dilation_rate: An int or 3 ints, default 1.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1, 1), **kwargs):
        super().__init__(3, filters, kernel_size, strides, padding, output_padding,
                         data_format, dilation_rate, **kwargs)


Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
