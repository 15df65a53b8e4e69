"""``tf.keras.experimental.PeepholeLSTMCell``: an ``LSTMCell`` with peephole connections.

TF 2.4's layout: ``LSTMCell``'s ``kernel``, ``recurrent_kernel`` and ``bias``, then
``input_gate_peephole_weights``, ``forget_gate_peephole_weights`` and
``output_gate_peephole_weights`` (each ``[units]``, drawn by ``kernel_initializer``).
The input and forget gates see the previous cell state, the output gate the new one
(Gers and Schmidhuber, 2000).
"""

from __future__ import annotations

from torchflow._src.keras.layers.rnn.cells import LSTMCell, _dense
from torchflow._src.ops.array_ops import split
from torchflow._src.ops.linalg_ops import matmul
from torchflow._src.util.api import public


@public("torchflow.keras.experimental")
class PeepholeLSTMCell(LSTMCell):
    """An LSTM cell with peephole connections (TF 2.4's ``PeepholeLSTMCell``).

    ``i = sigma(x W_i + h U_i + b_i + p_i * c_prev)``,
    ``f = sigma(x W_f + h U_f + b_f + p_f * c_prev)``,
    ``c = f * c_prev + i * tanh(x W_c + h U_c + b_c)``,
    ``o = sigma(x W_o + h U_o + b_o + p_o * c)``, ``h = o * tanh(c)``.

    Args:
      units: Positive int: the dimensionality of the output (and of the state).
      kwargs: As ``tf.keras.layers.LSTMCell`` (activations, initializers, regularizers,
        constraints, dropout, recurrent_dropout, implementation, base layer arguments).
        The peephole weights use ``kernel_initializer``.

    >>> import torchflow as tf
    >>> rnn = tf.keras.layers.RNN(tf.keras.experimental.PeepholeLSTMCell(3))
    >>> rnn(tf.ones([2, 4, 5])).shape
    TensorShape([2, 3])
    """

    def build(self, input_shape):
        super().build(input_shape)
        for gate in ("input", "forget", "output"):
            w = self.add_weight(f"{gate}_gate_peephole_weights", shape=[self.units],
                                initializer=self.kernel_initializer)
            setattr(self, f"{gate}_gate_peephole_weights", w)
        self.built = True

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states[0], states[1]
        dp = self.get_dropout_mask_for_cell(inputs, training)
        rdp = self.get_recurrent_dropout_mask_for_cell(h_prev, training)
        z = _dense(inputs * dp if dp is not None else inputs, self.kernel, self.bias)
        z = z + matmul(h_prev * rdp if rdp is not None else h_prev, self.recurrent_kernel)
        zi, zf, zc, zo = split(z, 4, axis=1)
        ra = self.recurrent_activation
        i = ra(zi + self.input_gate_peephole_weights * c_prev)
        f = ra(zf + self.forget_gate_peephole_weights * c_prev)
        c = f * c_prev + i * self.activation(zc)
        o = ra(zo + self.output_gate_peephole_weights * c)
        h = o * self.activation(c)
        return h, [h, c]
