"""``SimpleRNN``, ``LSTM`` and ``GRU``: ``RNN`` over the matching built-in cell.

``LSTM``/``GRU`` take TF 2.4's cuDNN path when its conditions hold (tanh,
sigmoid, no recurrent dropout, not unrolled, with bias, ``reset_after`` for GRU,
no mask): the whole sequence runs in one fused kernel (``ops/rnn_ops.py``),
otherwise the per-step loop of ``RNN``.
"""

from __future__ import annotations

from torchflow._src.keras import activations
from torchflow._src.keras.layers import _utils as U
from torchflow._src.keras.layers.rnn.base_rnn import RNN
from torchflow._src.keras.layers.rnn.cells import GRUCell, LSTMCell, SimpleRNNCell
from torchflow._src.ops import rnn_ops
from torchflow._src.ops.array_ops import expand_dims
from torchflow._src.util.api import public

_RNN_KEYS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "time_major")
_CELL_ATTRS = ("units", "activation", "recurrent_activation", "use_bias",
               "kernel_initializer", "recurrent_initializer", "bias_initializer",
               "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",
               "bias_regularizer", "kernel_constraint", "recurrent_constraint",
               "bias_constraint", "dropout", "recurrent_dropout", "implementation",
               "reset_after")


class _CellRNN(RNN):
    _cell_cls = None
    _cell_name = None

    def __init__(self, cell_kwargs, rnn_kwargs, activity_regularizer, **kwargs):
        if "enable_caching_device" in kwargs:
            kwargs.pop("enable_caching_device")
        cell = self._cell_cls(name=self._cell_name, dtype=kwargs.get("dtype"),
                              trainable=kwargs.get("trainable", True), **cell_kwargs)
        super().__init__(cell, **rnn_kwargs, **kwargs)
        self.activity_regularizer = U.get_reg(activity_regularizer)

    def __getattr__(self, name):
        # The cell's hyper-parameters read through the layer, as tf.keras' properties.
        if name in _CELL_ATTRS and "cell" in self.__dict__:
            return getattr(self.__dict__["cell"], name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

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

    def _fusable(self, inputs):
        c = self.cell
        return (c.activation is activations.tanh
                and c.recurrent_activation is activations.sigmoid
                and c.recurrent_dropout == 0 and not self.unroll and c.use_bias
                and rnn_ops.can_fuse(inputs))

    def _lengths(self, mask):
        """Row lengths when the mask is right-padded and the fused kernel can take it
        (not with go_backwards, as in TF 2.4's cuDNN path); else None."""
        if self.go_backwards:
            return None
        return rnn_ops.right_padded_lengths(mask, self.time_major)

    def _last(self, outputs, h):
        if not self.zero_output_for_mask:
            return h
        return outputs[-1] if self.time_major else outputs[:, -1]

    def _fused_inputs(self, inputs, training):
        dp = self.cell.get_dropout_mask_for_cell(
            inputs[0] if self.time_major else inputs[:, 0], training)
        if dp is None:
            return inputs
        return inputs * expand_dims(dp, 0 if self.time_major else 1)


def _split_kwargs(kwargs):
    rnn = {k: kwargs.pop(k) for k in _RNN_KEYS if k in kwargs}
    return rnn


@public("torchflow.keras.layers")
class SimpleRNN(_CellRNN):
    """Fully-connected RNN whose output is fed back as input (a ``SimpleRNNCell``).

    >>> import torchflow as tf
    >>> tf.keras.layers.SimpleRNN(4)(tf.ones([2, 3, 5])).shape
    TensorShape([2, 4])
    """

    _cell_cls = SimpleRNNCell
    _cell_name = "simple_rnn_cell"

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, **kwargs):
        cell_kwargs = dict(
            units=units, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout)
        rnn = dict(return_sequences=return_sequences, return_state=return_state,
                   go_backwards=go_backwards, stateful=stateful, unroll=unroll)
        rnn.update(_split_kwargs(kwargs))
        super().__init__(cell_kwargs, rnn, activity_regularizer, **kwargs)


@public("torchflow.keras.layers")
class LSTM(_CellRNN):
    """Long Short-Term Memory layer (Hochreiter 1997), TF 2.4's ``LSTM``.

    Uses one fused kernel for the whole sequence when the cuDNN conditions hold.

    >>> import torchflow as tf
    >>> out, h, c = tf.keras.layers.LSTM(4, return_state=True)(tf.ones([2, 3, 5]))
    >>> out.shape, c.shape
    (TensorShape([2, 4]), TensorShape([2, 4]))
    """

    _cell_cls = LSTMCell
    _cell_name = "lstm_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, implementation=2, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, time_major=False,
                 unroll=False, **kwargs):
        cell_kwargs = dict(
            units=units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, implementation=implementation)
        rnn = dict(return_sequences=return_sequences, return_state=return_state,
                   go_backwards=go_backwards, stateful=stateful, time_major=time_major,
                   unroll=unroll)
        super().__init__(cell_kwargs, rnn, activity_regularizer, **kwargs)
        # Set to False to force the per-step loop (tests compare both paths).
        self._use_fused = True

    def _fused_call(self, inputs, states, training, mask=None):
        if not (self._use_fused and self._fusable(inputs)):
            return None
        x = self._fused_inputs(inputs, training)
        c = self.cell
        if mask is not None:
            lengths = self._lengths(mask)
            if lengths is None:
                return None
            out, h, cc = rnn_ops.lstm_masked(x, states[0], states[1], c.kernel,
                                             c.recurrent_kernel, c.bias, lengths,
                                             self.time_major, self.zero_output_for_mask)
            return out, self._last(out, h), [h, cc]
        out, h, cc = rnn_ops.lstm(x, states[0], states[1], c.kernel, c.recurrent_kernel,
                                  c.bias, self.time_major, self.go_backwards)
        return out, h, [h, cc]


@public("torchflow.keras.layers")
class GRU(_CellRNN):
    """Gated Recurrent Unit (Cho 2014), TF 2.4's ``GRU`` (``reset_after=True``).

    Uses one fused kernel for the whole sequence when the cuDNN conditions hold.

    >>> import torchflow as tf
    >>> tf.keras.layers.GRU(4, return_sequences=True)(tf.ones([2, 3, 5])).shape
    TensorShape([2, 3, 4])
    """

    _cell_cls = GRUCell
    _cell_name = "gru_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, implementation=2,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, time_major=False, reset_after=True, **kwargs):
        cell_kwargs = dict(
            units=units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout,
            implementation=implementation, reset_after=reset_after)
        rnn = dict(return_sequences=return_sequences, return_state=return_state,
                   go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                   time_major=time_major)
        super().__init__(cell_kwargs, rnn, activity_regularizer, **kwargs)
        self._use_fused = True

    def _fused_call(self, inputs, states, training, mask=None):
        if not (self._use_fused and self.cell.reset_after and self._fusable(inputs)):
            return None
        x = self._fused_inputs(inputs, training)
        c = self.cell
        if mask is not None:
            lengths = self._lengths(mask)
            if lengths is None:
                return None
            out, h = rnn_ops.gru_masked(x, states[0], c.kernel, c.recurrent_kernel, c.bias,
                                        lengths, self.time_major, self.zero_output_for_mask)
            return out, self._last(out, h), [h]
        out, h = rnn_ops.gru(x, states[0], c.kernel, c.recurrent_kernel, c.bias,
                             self.time_major, self.go_backwards)
        return out, h, [h]

