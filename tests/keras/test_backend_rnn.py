"""tf.keras.backend.rnn against real tf.keras: masks, direction, time-major layout,
constants, nested inputs and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

R = np.random.RandomState(0)
X = R.randn(3, 5, 4).astype("float32")
W = R.randn(4, 2).astype("float32")
U = R.randn(2, 2).astype("float32")
H0 = R.randn(3, 2).astype("float32")
C0 = R.randn(3, 2).astype("float32")
MASK = np.array([[1, 1, 0, 1, 0], [1, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)


def _step(mod):
    def step(x_t, states):
        h, c = states[0], states[1]
        new_h = mod.tanh(mod.matmul(x_t, W) + mod.matmul(h, U) * states[2])
        return new_h * 2.0, [new_h, c + 1.0]

    return step


def _run(mod, kwargs, watch=False):
    x = X.transpose(1, 0, 2) if kwargs.get("time_major") else X
    xv = mod.Variable(x)
    with mod.GradientTape() as tape:
        last, outputs, states = mod.keras.backend.rnn(
            _step(mod), mod.convert_to_tensor(xv), [mod.constant(H0), mod.constant(C0)],
            constants=[mod.constant(0.5)], **kwargs)
        loss = mod.reduce_sum(outputs) + mod.reduce_sum(last) + mod.reduce_sum(states[0])
    flat = [np.asarray(t) for t in [last, outputs] + list(states)]
    return flat + [tape.gradient(loss, xv).numpy()]


@pytest.mark.parametrize("kwargs", [
    {}, {"go_backwards": True}, {"mask": MASK}, {"mask": MASK, "zero_output_for_mask": True},
    {"mask": MASK, "go_backwards": True, "unroll": True}, {"time_major": True},
    {"mask": MASK.astype("int32"), "zero_output_for_mask": True, "go_backwards": True},
], ids=["plain", "backwards", "mask", "mask-zero", "mask-back-unroll", "time-major",
        "int-mask"])
def test_rnn_matches_tf(kwargs):
    ours, theirs = _run(tf, kwargs), _run(real_tf(), kwargs)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_rnn_nested_inputs_match_tf():
    def run(mod):
        def step(x_t, states):
            out = x_t["a"] * 2.0 + x_t["b"][:, :1] + states[0]
            return out, [out]

        inputs = {"a": mod.constant(X[:, :, :1]), "b": mod.constant(X[:, :, 1:])}
        last, outputs, states = mod.keras.backend.rnn(step, inputs, [mod.zeros((3, 1))])
        return [np.asarray(t) for t in (last, outputs, states[0])]

    for a, b in zip(run(tf), run(real_tf())):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_rnn_rank_error_as_tf():
    with pytest.raises(ValueError, match="must have rank at least 3"):
        real_tf().keras.backend.rnn(lambda x, s: (x, s), real_tf().ones((2, 3)),
                                    [real_tf().ones((2, 3))])
    with pytest.raises(ValueError, match="must have rank at least 3"):
        tf.keras.backend.rnn(lambda x, s: (x, s), tf.ones((2, 3)), [tf.ones((2, 3))])
