"""Recurrent cells: ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell`` (TF 2.4 layouts).

A cell is a layer with ``call(inputs, states, training=None) -> (output,
new_states)`` and a ``state_size``. Weight shapes and gate orders are tf.keras':
LSTM ``kernel [in, 4u]`` gates ``i, f, c, o``; GRU ``kernel [in, 3u]`` gates
``z, r, h`` with ``bias [2, 3u]`` when ``reset_after`` (TF 2.x default).
"""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras import initializers
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.array_ops import concat, split, unstack
from torchflow._src.ops.creation_ops import ones_like, zeros
from torchflow._src.ops.linalg_ops import matmul
from torchflow._src.ops.nn_ops import bias_add, dropout
from torchflow._src.util.api import public


class DropoutRNNCellMixin:
    """Per-sequence dropout masks, drawn once per RNN call and reused at each step."""

    def _init_dropout(self, rate, recurrent_rate):
        self.dropout = min(1.0, max(0.0, float(rate)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_rate)))
        self.__dict__["_dp_mask"] = None
        self.__dict__["_rec_dp_mask"] = None

    def reset_dropout_mask(self):
        """Forgets the input dropout mask (a new one is drawn at the next step)."""
        self.__dict__["_dp_mask"] = None

    def reset_recurrent_dropout_mask(self):
        """Forgets the recurrent dropout mask."""
        self.__dict__["_rec_dp_mask"] = None

    def get_dropout_mask_for_cell(self, inputs, training, count=1):
        """The input dropout mask (None outside training or with rate 0)."""
        if not training or not 0 < self.dropout < 1:
            return None
        if self.__dict__.get("_dp_mask") is None:
            self.__dict__["_dp_mask"] = dropout(ones_like(inputs), self.dropout)
        return self.__dict__["_dp_mask"]

    def get_recurrent_dropout_mask_for_cell(self, inputs, training, count=1):
        """The recurrent dropout mask (None outside training or with rate 0)."""
        if not training or not 0 < self.recurrent_dropout < 1:
            return None
        if self.__dict__.get("_rec_dp_mask") is None:
            self.__dict__["_rec_dp_mask"] = dropout(ones_like(inputs), self.recurrent_dropout)
        return self.__dict__["_rec_dp_mask"]


def _zeros_state(state_size, batch_size, dtype):
    sizes = state_size if isinstance(state_size, (list, tuple)) else [state_size]
    out = [zeros([batch_size] + (list(s) if isinstance(s, (list, tuple, TensorShape))
                                 else [int(s)]), dtype=dtype) for s in sizes]
    return out if isinstance(state_size, (list, tuple)) else out[0]


class _Cell(DropoutRNNCellMixin, Layer):
    _gates = 1

    def __init__(self, units, activation, recurrent_activation, use_bias, kernel_initializer,
                 recurrent_initializer, bias_initializer, kernel_regularizer,
                 recurrent_regularizer, bias_regularizer, kernel_constraint,
                 recurrent_constraint, bias_constraint, dropout, recurrent_dropout, **kwargs):
        super().__init__(**kwargs)
        if units is None or int(units) <= 0:
            raise ValueError(f"Received an invalid value for argument `units`, expected a "
                             f"positive integer, got {units}.")
        self.units = int(units)
        self.activation = U.get_act(activation)
        self.recurrent_activation = (U.get_act(recurrent_activation)
                                     if recurrent_activation is not None else None)
        self.use_bias = use_bias
        self.kernel_initializer = U.get_init(kernel_initializer)
        self.recurrent_initializer = U.get_init(recurrent_initializer)
        self.bias_initializer = U.get_init(bias_initializer)
        self.kernel_regularizer = U.get_reg(kernel_regularizer)
        self.recurrent_regularizer = U.get_reg(recurrent_regularizer)
        self.bias_regularizer = U.get_reg(bias_regularizer)
        self.kernel_constraint = U.get_con(kernel_constraint)
        self.recurrent_constraint = U.get_con(recurrent_constraint)
        self.bias_constraint = U.get_con(bias_constraint)
        self._init_dropout(dropout, recurrent_dropout)

    def _build_kernels(self, input_shape, bias_shape=None, bias_initializer=None):
        last = TensorShape(input_shape)[-1]
        g = self._gates * self.units
        self.kernel = self.add_weight("kernel", shape=[last, g],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", shape=[self.units, g],
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=bias_shape or [g],
                                        initializer=bias_initializer or self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """Zero states ``[batch_size, size]`` for each entry of ``state_size``."""
        if inputs is not None:
            batch_size = inputs.shape[0]
            dtype = inputs.dtype
        return _zeros_state(self.state_size, batch_size, dtype or self.compute_dtype)

    def _common_config(self):
        config = super().get_config()
        config.update({
            "units": self.units, "activation": U.ser_act(self.activation),
        })
        if self.recurrent_activation is not None:
            config["recurrent_activation"] = U.ser_act(self.recurrent_activation)
        config.update({
            "use_bias": self.use_bias,
            "kernel_initializer": U.ser_init(self.kernel_initializer),
            "recurrent_initializer": U.ser_init(self.recurrent_initializer),
            "bias_initializer": U.ser_init(self.bias_initializer),
        })
        if isinstance(self, LSTMCell):
            config["unit_forget_bias"] = self.unit_forget_bias
        config.update({
            "kernel_regularizer": U.ser_reg(self.kernel_regularizer),
            "recurrent_regularizer": U.ser_reg(self.recurrent_regularizer),
            "bias_regularizer": U.ser_reg(self.bias_regularizer),
            "kernel_constraint": U.ser_con(self.kernel_constraint),
            "recurrent_constraint": U.ser_con(self.recurrent_constraint),
            "bias_constraint": U.ser_con(self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
        })
        return config


def _dense(x, k, b):
    y = matmul(x, k)
    return y if b is None else bias_add(y, b)


@public("torchflow.keras.layers")
class SimpleRNNCell(_Cell):
    """The cell of ``SimpleRNN``: ``h = activation(x W + b + h_prev U)``.

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
      kernel_constraint: Constraint on the kernel, default None.
      recurrent_constraint: Constraint on the recurrent kernel, default None.
      bias_constraint: Constraint on the bias, default None.
      dropout: float in ``[0, 1)``, default 0: dropout rate on the inputs (training only).
      recurrent_dropout: float in ``[0, 1)``, default 0: dropout rate on the recurrent state
        (training only).
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

    >>> import torchflow as tf
    >>> cell = tf.keras.layers.SimpleRNNCell(4)
    >>> tf.keras.layers.RNN(cell)(tf.ones([2, 3, 5])).shape
    TensorShape([2, 4])
    """

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super().__init__(units, activation, None, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         **kwargs)
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        self._build_kernels(input_shape)

    def call(self, inputs, states, training=None):
        prev = states[0] if isinstance(states, (list, tuple)) else states
        dp = self.get_dropout_mask_for_cell(inputs, training)
        rdp = self.get_recurrent_dropout_mask_for_cell(prev, training)
        h = _dense(inputs * dp if dp is not None else inputs, self.kernel, self.bias)
        h = h + matmul(prev * rdp if rdp is not None else prev, self.recurrent_kernel)
        if self.activation is not None:
            h = self.activation(h)
        return h, ([h] if isinstance(states, (list, tuple)) else h)

    def get_config(self):
        return self._common_config()


@public("torchflow.keras.layers")
class LSTMCell(_Cell):
    """The cell of ``LSTM`` (gates ``i, f, c, o`` in the kernel columns).

    States are ``[h, c]``; ``unit_forget_bias`` initialises the forget-gate bias to 1.

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
      kernel_constraint: Constraint on the kernel, default None.
      recurrent_constraint: Constraint on the recurrent kernel, default None.
      bias_constraint: Constraint on the bias, default None.
      dropout: float in ``[0, 1)``, default 0: dropout rate on the inputs (training only).
      recurrent_dropout: float in ``[0, 1)``, default 0: dropout rate on the recurrent state
        (training only).
      implementation: 1 or 2 (default); accepted for compatibility, the result is the same.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, implementation=2,
                 **kwargs):
        super().__init__(units, activation, recurrent_activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         **kwargs)
        self.unit_forget_bias = unit_forget_bias
        self.implementation = implementation
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape):
        init = None
        if self.unit_forget_bias:
            base, u = self.bias_initializer, self.units

            def init(shape, dtype=None, **kwargs):
                return concat([base([u], dtype=dtype),
                               initializers.get("ones")([u], dtype=dtype),
                               base([2 * u], dtype=dtype)], 0)
        self._build_kernels(input_shape, bias_initializer=init)

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states[0], states[1]
        dp = self.get_dropout_mask_for_cell(inputs, training)
        rdp = self.get_recurrent_dropout_mask_for_cell(h_prev, training)
        z = _dense(inputs * dp if dp is not None else inputs, self.kernel, self.bias)
        z = z + matmul(h_prev * rdp if rdp is not None else h_prev, self.recurrent_kernel)
        zi, zf, zc, zo = split(z, 4, axis=1)
        ra = self.recurrent_activation
        i, f, o = ra(zi), ra(zf), ra(zo)
        c = f * c_prev + i * self.activation(zc)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = self._common_config()
        config["implementation"] = self.implementation
        return config


@public("torchflow.keras.layers")
class GRUCell(_Cell):
    """The cell of ``GRU`` (gates ``z, r, h``; ``reset_after=True`` as TF 2.x).

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
      kernel_constraint: Constraint on the kernel, default None.
      recurrent_constraint: Constraint on the recurrent kernel, default None.
      bias_constraint: Constraint on the bias, default None.
      dropout: float in ``[0, 1)``, default 0: dropout rate on the inputs (training only).
      recurrent_dropout: float in ``[0, 1)``, default 0: dropout rate on the recurrent state
        (training only).
      implementation: 1 or 2 (default); accepted for compatibility, the result is the same.
      reset_after: bool, default True: apply the reset gate after the matrix multiplication
        (TF 2.x and cuDNN convention).
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, implementation=2, reset_after=True,
                 **kwargs):
        super().__init__(units, activation, recurrent_activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         **kwargs)
        self.implementation = implementation
        self.reset_after = reset_after
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        g = 3 * self.units
        self._build_kernels(input_shape, bias_shape=[2, g] if self.reset_after else [g])

    def call(self, inputs, states, training=None):
        prev = states[0] if isinstance(states, (list, tuple)) else states
        dp = self.get_dropout_mask_for_cell(inputs, training)
        rdp = self.get_recurrent_dropout_mask_for_cell(prev, training)
        x = inputs * dp if dp is not None else inputs
        hr = prev * rdp if rdp is not None else prev
        b_in = b_rec = None
        if self.bias is not None:
            if self.reset_after:
                b_in, b_rec = unstack(self.bias)  # one Unpack in a graph
            else:
                b_in = self.bias
        mx = _dense(x, self.kernel, b_in)
        xz, xr, xh = split(mx, 3, axis=1)
        ra = self.recurrent_activation
        if self.reset_after:
            mi = _dense(hr, self.recurrent_kernel, b_rec)
            rz, rr, rh = split(mi, 3, axis=1)
            z, r = ra(xz + rz), ra(xr + rr)
            hh = self.activation(xh + r * rh)
        else:
            u = self.units
            rk_zr, rk_h = split(self.recurrent_kernel, [2 * u, u], axis=1)
            rz, rr = split(matmul(hr, rk_zr), 2, axis=1)
            z, r = ra(xz + rz), ra(xr + rr)
            hh = self.activation(xh + matmul(r * hr, rk_h))
        h = z * prev + (1.0 - z) * hh
        return h, ([h] if isinstance(states, (list, tuple)) else h)

    def get_config(self):
        config = self._common_config()
        config.update({"implementation": self.implementation, "reset_after": self.reset_after})
        return config


@public("torchflow.keras.layers")
class AbstractRNNCell(Layer):
    """Base for custom RNN cells: subclasses define ``state_size``, ``output_size`` and
    ``call(inputs, states) -> (output, new_states)``.

    Args:
      trainable: bool, default True: whether the layer's weights are trained.
      name: str, default None (a unique name is generated).
      dtype: The layer's dtype or dtype policy, default None (the global policy).
      dynamic: bool, default False; accepted for compatibility.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def call(self, inputs, states):
        raise NotImplementedError("Abstract method")

    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """Zero states ``[batch_size, size]`` for each entry of ``state_size``."""
        if inputs is not None:
            batch_size, dtype = inputs.shape[0], inputs.dtype
        return _zeros_state(self.state_size, batch_size, dtype or self.compute_dtype)
