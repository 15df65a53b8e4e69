"""``SimpleRNN``, ``LSTM`` and ``GRU``: ``RNN`` over the matching built-in cell.

``LSTM``/``GRU`` take TF 2.4's cuDNN path when its conditions hold (tanh,
sigmoid, no recurrent dropout, not unrolled, with bias, ``reset_after`` for GRU):
the whole sequence runs in one fused kernel (``ops/rnn_ops.py``; a masked one as a
packed sequence when right-padded, else the same equations step by step),
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

    Args:
      units: Positive int: the dimensionality of the output (and of the state).
      activation: Activation (a name or callable), default ``'tanh'``; None means linear.
      use_bias: bool, default True: whether the layer uses a bias vector.
      kernel_initializer: Initializer for the input kernel, default ``'glorot_uniform'``.
      recurrent_initializer: Initializer for the recurrent kernel, default ``'orthogonal'``.
      bias_initializer: Initializer for the bias, default ``'zeros'``.
      kernel_regularizer: Regularizer for the kernel, default None.
      recurrent_regularizer: Regularizer for the recurrent kernel, default None.
      bias_regularizer: Regularizer for the bias, default None.
      activity_regularizer: Regularizer for the output, default None.
      kernel_constraint: Constraint on the kernel, default None.
      recurrent_constraint: Constraint on the recurrent kernel, default None.
      bias_constraint: Constraint on the bias, default None.
      dropout: float in ``[0, 1)``, default 0: dropout rate on the inputs (training only).
      recurrent_dropout: float in ``[0, 1)``, default 0: dropout rate on the recurrent state
        (training only).
      return_sequences: bool, default False: return the whole output sequence instead of the
        last output.
      return_state: bool, default False: also return the final state(s).
      go_backwards: bool, default False: process the sequence backwards (and return it
        reversed).
      stateful: bool, default False: carry the last state of each batch entry into the next
        batch.
      unroll: bool, default False; accepted for compatibility (the loop is never symbolic).
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

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

    Args:
      units: Positive int: the dimensionality of the output (and of the state).
      activation: Activation for the output (a name or callable), default ``'tanh'``; None
        means linear.
      recurrent_activation: Activation for the gates, default ``'sigmoid'``.
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
      dropout: float in ``[0, 1)``, default 0: dropout rate on the inputs (training only).
      recurrent_dropout: float in ``[0, 1)``, default 0: dropout rate on the recurrent state
        (training only).
      implementation: 1 or 2 (default); accepted for compatibility, the result is the same.
      return_sequences: bool, default False: return the whole output sequence instead of the
        last output.
      return_state: bool, default False: also return the final state(s).
      go_backwards: bool, default False: process the sequence backwards (and return it
        reversed).
      stateful: bool, default False: carry the last state of each batch entry into the next
        batch.
      time_major: bool, default False: inputs are ``[time, batch, features]`` instead of
        ``[batch, time, features]``.
      unroll: bool, default False; accepted for compatibility (the loop is never symbolic).
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

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
            out, last, h, cc = rnn_ops.lstm_masked(
                x, states[0], states[1], c.kernel, c.recurrent_kernel, c.bias, mask,
                self.time_major, self.go_backwards, self.zero_output_for_mask)
            return out, last, [h, cc]
        out, h, cc = rnn_ops.lstm(x, states[0], states[1], c.kernel, c.recurrent_kernel,
                                  c.bias, self.time_major, self.go_backwards)
        return out, h, [h, cc]


@public("torchflow.keras.layers")
class GRU(_CellRNN):
    """Gated Recurrent Unit (Cho 2014), TF 2.4's ``GRU`` (``reset_after=True``).

    Uses one fused kernel for the whole sequence when the cuDNN conditions hold.

    Args:
      units: Positive int: the dimensionality of the output (and of the state).
      activation: Activation for the output (a name or callable), default ``'tanh'``; None
        means linear.
      recurrent_activation: Activation for the gates, default ``'sigmoid'``.
      use_bias: bool, default True: whether the layer uses a bias vector.
      kernel_initializer: Initializer for the input kernel, default ``'glorot_uniform'``.
      recurrent_initializer: Initializer for the recurrent kernel, default ``'orthogonal'``.
      bias_initializer: Initializer for the bias, default ``'zeros'``.
      kernel_regularizer: Regularizer for the kernel, default None.
      recurrent_regularizer: Regularizer for the recurrent kernel, default None.
      bias_regularizer: Regularizer for the bias, default None.
      activity_regularizer: Regularizer for the output, default None.
      kernel_constraint: Constraint on the kernel, default None.
      recurrent_constraint: Constraint on the recurrent kernel, default None.
      bias_constraint: Constraint on the bias, default None.
      dropout: float in ``[0, 1)``, default 0: dropout rate on the inputs (training only).
      recurrent_dropout: float in ``[0, 1)``, default 0: dropout rate on the recurrent state
        (training only).
      implementation: 1 or 2 (default); accepted for compatibility, the result is the same.
      return_sequences: bool, default False: return the whole output sequence instead of the
        last output.
      return_state: bool, default False: also return the final state(s).
      go_backwards: bool, default False: process the sequence backwards (and return it
        reversed).
      stateful: bool, default False: carry the last state of each batch entry into the next
        batch.
      unroll: bool, default False; accepted for compatibility (the loop is never symbolic).
      time_major: bool, default False: inputs are ``[time, batch, features]`` instead of
        ``[batch, time, features]``.
      reset_after: bool, default True: apply the reset gate after the matrix multiplication
        (TF 2.x and cuDNN convention).
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

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
            out, last, h = rnn_ops.gru_masked(
                x, states[0], c.kernel, c.recurrent_kernel, c.bias, mask, self.time_major,
                self.go_backwards, self.zero_output_for_mask)
            return out, last, [h]
        out, h = rnn_ops.gru(x, states[0], c.kernel, c.recurrent_kernel, c.bias,
                             self.time_major, self.go_backwards)
        return out, h, [h]

