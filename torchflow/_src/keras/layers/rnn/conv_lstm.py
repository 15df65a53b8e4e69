"""``tf.keras.layers.ConvLSTM2D``: an LSTM whose input and recurrent transforms are
2-D convolutions (TF 2.4 arguments; kernel ``[kh, kw, in, 4f]``, recurrent kernel
``[kh, kw, f, 4f]``, gates ``i, f, c, o``)."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras import initializers
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers import _utils as U
from torchflow._src.keras.layers.rnn.base_rnn import RNN
from torchflow._src.keras.layers.rnn.cells import DropoutRNNCellMixin
from torchflow._src.ops import fused_layer_ops, rnn_ops
from torchflow._src.ops.array_ops import concat, split
from torchflow._src.ops.creation_ops import zeros
from torchflow._src.util.api import public


class ConvLSTM2DCell(DropoutRNNCellMixin, Layer):
    """The cell of ``ConvLSTM2D`` (not a public TF 2.4 name)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), activation="tanh",
                 recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.filters = filters
        self.kernel_size = U.normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = U.normalize_tuple(strides, 2, "strides")
        self.padding = U.normalize_padding(padding)
        self.data_format = U.normalize_data_format(data_format)
        self.dilation_rate = U.normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.activation = U.get_act(activation)
        self.recurrent_activation = U.get_act(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = U.get_init(kernel_initializer)
        self.recurrent_initializer = U.get_init(recurrent_initializer)
        self.bias_initializer = U.get_init(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.kernel_regularizer = U.get_reg(kernel_regularizer)
        self.recurrent_regularizer = U.get_reg(recurrent_regularizer)
        self.bias_regularizer = U.get_reg(bias_regularizer)
        self.kernel_constraint = U.get_con(kernel_constraint)
        self.recurrent_constraint = U.get_con(recurrent_constraint)
        self.bias_constraint = U.get_con(bias_constraint)
        self._init_dropout(dropout, recurrent_dropout)
        self.state_size = (self.filters, self.filters)

    @property
    def _fmt(self):
        return "NHWC" if self.data_format == "channels_last" else "NCHW"

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        ch = shape[-1] if self.data_format == "channels_last" else shape[1]
        if ch is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        f4 = 4 * self.filters
        self.kernel = self.add_weight("kernel", shape=list(self.kernel_size) + [ch, f4],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", shape=list(self.kernel_size) + [self.filters, f4],
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        if self.use_bias:
            init = self.bias_initializer
            if self.unit_forget_bias:
                base, f = self.bias_initializer, self.filters

                def init(shape, dtype=None, **kwargs):
                    return concat([base([f], dtype=dtype),
                                   initializers.get("ones")([f], dtype=dtype),
                                   base([2 * f], dtype=dtype)], 0)
            self.bias = self.add_weight("bias", shape=[f4], initializer=init,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states[0], states[1]
        dp = self.get_dropout_mask_for_cell(inputs, training)
        rdp = self.get_recurrent_dropout_mask_for_cell(h_prev, training)
        x = inputs * dp if dp is not None else inputs
        hr = h_prev * rdp if rdp is not None else h_prev
        axis = -1 if self.data_format == "channels_last" else 1
        zx = fused_layer_ops.conv_bias(2, x, self.kernel, self.bias, self.strides,
                                       self.padding.upper(), self._fmt, self.dilation_rate)
        zh = fused_layer_ops.conv_bias(2, hr, self.recurrent_kernel, None, (1, 1), "SAME",
                                       self._fmt, (1, 1))
        xi, xf, xc, xo = split(zx, 4, axis=axis)
        hi, hf, hc, ho = split(zh, 4, axis=axis)
        ra = self.recurrent_activation
        i, f, o = ra(xi + hi), ra(xf + hf), ra(xo + ho)
        c = f * c_prev + i * self.activation(xc + hc)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = super().get_config()
        config.update({
            "filters": self.filters, "kernel_size": self.kernel_size,
            "strides": self.strides, "padding": self.padding,
            "data_format": self.data_format, "dilation_rate": self.dilation_rate,
            "activation": U.ser_act(self.activation),
            "recurrent_activation": U.ser_act(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": U.ser_init(self.kernel_initializer),
            "recurrent_initializer": U.ser_init(self.recurrent_initializer),
            "bias_initializer": U.ser_init(self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "kernel_regularizer": U.ser_reg(self.kernel_regularizer),
            "recurrent_regularizer": U.ser_reg(self.recurrent_regularizer),
            "bias_regularizer": U.ser_reg(self.bias_regularizer),
            "kernel_constraint": U.ser_con(self.kernel_constraint),
            "recurrent_constraint": U.ser_con(self.recurrent_constraint),
            "bias_constraint": U.ser_con(self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
        })
        return config


@public("torchflow.keras.layers")
class ConvLSTM2D(RNN):
    """Convolutional LSTM over inputs ``[batch, time, rows, cols, channels]``
    (channels_last) or ``[batch, time, channels, rows, cols]``.

    Args:
      filters: Positive int: the number of output channels.
      kernel_size: An int or pair of ints: the convolution window.
      strides: An int or pair of ints, default 1.
      padding: ``'valid'`` (default) or ``'same'`` (case-insensitive).
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      dilation_rate: An int or pair of ints, default 1.
      activation: Activation for the output, default ``'tanh'``.
      recurrent_activation: Activation for the gates, default ``'hard_sigmoid'``.
      use_bias: bool, default True: whether the layer uses a bias vector.
      kernel_initializer: Initializer for the input kernel, default ``'glorot_uniform'``.
      recurrent_initializer: Initializer for the recurrent kernel, default ``'orthogonal'``.
      bias_initializer: Initializer for the bias, default ``'zeros'``.
      unit_forget_bias: bool, default True: add 1 to the forget-gate bias at initialisation.
      kernel_regularizer: Regularizer for the kernel, default None.
      recurrent_regularizer: Regularizer for the recurrent kernel, default None.
      bias_regularizer: Regularizer for the bias, default None.
      activity_regularizer: Regularizer for the output, default None.
      kernel_constraint: Constraint on the kernel, default None.
      recurrent_constraint: Constraint on the recurrent kernel, default None.
      bias_constraint: Constraint on the bias, default None.
      return_sequences: bool, default False: return the whole output sequence instead of the
        last output.
      return_state: bool, default False: also return the final state(s).
      go_backwards: bool, default False: process the sequence backwards (and return it
        reversed).
      stateful: bool, default False: carry the last state of each batch entry into the next
        batch.
      dropout: float in ``[0, 1)``, default 0: dropout rate on the inputs (training only).
      recurrent_dropout: float in ``[0, 1)``, default 0: dropout rate on the recurrent state
        (training only).
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

    >>> import torchflow as tf
    >>> tf.keras.layers.ConvLSTM2D(2, 3)(tf.ones([1, 3, 5, 5, 1])).shape
    TensorShape([1, 3, 3, 2])
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), activation="tanh",
                 recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        cell = ConvLSTM2DCell(
            filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation,
            recurrent_activation=recurrent_activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, name="conv_lstm2d_cell",
            dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, **kwargs)
        self.activity_regularizer = U.get_reg(activity_regularizer)

    _cell_in_own_scope = False

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank is not None and shape.rank != 5:
            raise ValueError(f"Input should have rank 5 (batch, time, rows, cols, channels); "
                             f"received input shape: {shape}")
        super().build(shape)

    def get_initial_state(self, inputs):
        c = self.cell
        dims = inputs.shape.as_list()
        spatial = dims[2:4] if c.data_format == "channels_last" else dims[3:5]
        out = [U.conv_output_length(s, k, c.padding, st, d) for s, k, st, d in
               zip(spatial, c.kernel_size, c.strides, c.dilation_rate)]
        size = out + [c.filters] if c.data_format == "channels_last" else [c.filters] + out
        if None not in size:  # the batch read at run time: a graph for any batch size
            return [rnn_ops.zero_state(inputs, size, 0, inputs.dtype) for _ in range(2)]
        shape = [dims[0]] + size
        return [zeros(shape, dtype=inputs.dtype), zeros(shape, dtype=inputs.dtype)]

    def get_config(self):
        config = self._base_config()
        cell_cfg = self.cell.get_config()
        for k in ("name", "trainable", "dtype"):
            cell_cfg.pop(k, None)
        for k, v in cell_cfg.items():
            config[k] = v
            if k == "bias_regularizer":
                config["activity_regularizer"] = U.ser_reg(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __getattr__(self, name):
        if name in ("filters", "kernel_size", "strides", "padding", "data_format",
                    "dilation_rate", "activation", "recurrent_activation", "use_bias",
                    "unit_forget_bias", "dropout", "recurrent_dropout") \
                and "cell" in self.__dict__:
            return getattr(self.__dict__["cell"], name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
