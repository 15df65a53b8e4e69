"""RNN over a nested (tuple) input with a cell whose states are nested: the Keras RNN
guide's NestedCell program, under real tf.keras and torchflow with the same weights."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _nested_cell_class(m):
    class NestedCell(m.keras.layers.Layer):
        def __init__(self, unit_1, unit_2, unit_3, **kwargs):
            self.unit_1, self.unit_2, self.unit_3 = unit_1, unit_2, unit_3
            self.state_size = [m.TensorShape([unit_1]), m.TensorShape([unit_2, unit_3])]
            self.output_size = [m.TensorShape([unit_1]), m.TensorShape([unit_2, unit_3])]
            super().__init__(**kwargs)

        def build(self, input_shapes):
            i1, i2, i3 = input_shapes[0][1], input_shapes[1][1], input_shapes[1][2]
            self.kernel_1 = self.add_weight(shape=(i1, self.unit_1), initializer="uniform",
                                            name="kernel_1")
            self.kernel_2_3 = self.add_weight(shape=(i2, i3, self.unit_2, self.unit_3),
                                              initializer="uniform", name="kernel_2_3")

        def call(self, inputs, states):
            input_1, input_2 = m.nest.flatten(inputs)
            s1, s2 = states
            output_1 = m.matmul(input_1, self.kernel_1)
            output_2_3 = m.einsum("bij,ijkl->bkl", input_2, self.kernel_2_3)
            return (output_1, output_2_3), (s1 + output_1, s2 + output_2_3)

    return NestedCell


@pytest.mark.parametrize("return_sequences,return_state", [(False, False), (True, True)])
def test_nested_input_rnn_matches_tf_keras(return_sequences, return_state):
    rtf = real_tf()
    rng = np.random.default_rng(0)
    x1 = rng.normal(size=(4, 5, 3)).astype(np.float32)
    x2 = rng.normal(size=(4, 5, 2, 3)).astype(np.float32)
    outs, weights = [], None
    for m in (rtf, tf):
        cell = _nested_cell_class(m)(2, 3, 4)
        rnn = m.keras.layers.RNN(cell, return_sequences=return_sequences,
                                 return_state=return_state)
        a, b = m.keras.Input((None, 3)), m.keras.Input((None, 2, 3))
        model = m.keras.models.Model([a, b], rnn((a, b)))
        if weights is None:
            weights = model.get_weights()
        else:
            model.set_weights(weights)
        outs.append([np.asarray(o) for o in m.nest.flatten(model([x1, x2]))])
    assert [o.shape for o in outs[1]] == [o.shape for o in outs[0]]
    for got, want in zip(outs[1], outs[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_outputs_of_one_layer_get_unique_names_and_metrics_as_tf():
    # The guide's model: two outputs from one RNN layer, compiled with a metric.
    rtf = real_tf()
    names = []
    for m in (rtf, tf):
        a = m.keras.Input((3,))
        x = m.keras.layers.Dense(2, name="d")(a)
        lam = m.keras.layers.Lambda(lambda t: (t, t * 2.0, t * 3.0), name="lam")(x)
        extra = m.keras.layers.Dense(2, name="lam_1")(x)
        model = m.keras.Model(a, list(lam) + [x, extra])
        model.compile("sgd", "mse", metrics=["mae"])
        xs = np.ones((4, 3), np.float32)
        ys = [np.zeros((4, 2), np.float32)] * 5
        model.fit(xs, ys, verbose=0)
        names.append((list(model.output_names), sorted(model.metrics_names)))
    assert names[1] == names[0]
