"""tf.nn.RNNCell{Residual,Device,Dropout}Wrapper inside tf.keras.layers.RNN, against
real TF (tf-keras) with the same weights."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(2)
X = RNG.standard_normal((3, 5, 4)).astype("float32")


def _pair(t, wrap_ours, wrap_tf, cell="SimpleRNNCell", units=4):
    ours = tf.keras.layers.RNN(wrap_ours(getattr(tf.keras.layers, cell)(units)),
                               return_sequences=True)
    theirs = t.keras.layers.RNN(wrap_tf(getattr(t.keras.layers, cell)(units)),
                                return_sequences=True)
    want = theirs(t.constant(X))
    ours(X)
    ours.set_weights(theirs.get_weights())
    return ours(X).numpy(), want.numpy()


@pytest.mark.parametrize("cell", ["SimpleRNNCell", "GRUCell", "LSTMCell"])
def test_residual_wrapper_matches_tf(cell):
    t = real_tf()
    got, want = _pair(t, tf.nn.RNNCellResidualWrapper, t.nn.RNNCellResidualWrapper, cell)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_residual_wrapper_custom_fn_and_shape_error():
    t = real_tf()
    got, want = _pair(t, lambda c: tf.nn.RNNCellResidualWrapper(c, lambda i, o: o - i),
                      lambda c: t.nn.RNNCellResidualWrapper(c, lambda i, o: o - i))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    layer = tf.keras.layers.RNN(tf.nn.RNNCellResidualWrapper(tf.keras.layers.SimpleRNNCell(3)))
    with pytest.raises(ValueError):
        layer(X)


def test_device_wrapper_matches_tf():
    t = real_tf()
    got, want = _pair(t, lambda c: tf.nn.RNNCellDeviceWrapper(c, "/cpu:0"),
                      lambda c: t.nn.RNNCellDeviceWrapper(c, "/cpu:0"), "LSTMCell")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_dropout_wrapper_keep_one_is_the_cell_and_config_matches_tf():
    t = real_tf()
    got, want = _pair(t, tf.nn.RNNCellDropoutWrapper, t.nn.RNNCellDropoutWrapper, "GRUCell")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    w = tf.nn.RNNCellDropoutWrapper(tf.keras.layers.GRUCell(3), output_keep_prob=0.5, seed=1)
    tw = t.nn.RNNCellDropoutWrapper(t.keras.layers.GRUCell(3), output_keep_prob=0.5, seed=1)
    for k in ("input_keep_prob", "output_keep_prob", "state_keep_prob",
              "variational_recurrent", "input_size", "seed"):
        assert w.get_config()[k] == tw.get_config()[k], k
    assert w.state_size == tw.state_size and w.output_size == tw.output_size
    for kw in [{"input_keep_prob": 0.0}, {"output_keep_prob": 1.5}]:
        with pytest.raises(ValueError, match="must be between 0 and 1"):
            tf.nn.RNNCellDropoutWrapper(tf.keras.layers.GRUCell(3), **kw)
    with pytest.raises(ValueError, match="dtype must be provided"):
        tf.nn.RNNCellDropoutWrapper(tf.keras.layers.GRUCell(3), variational_recurrent=True)
    with pytest.raises(ValueError, match="input_size must be provided"):
        tf.nn.RNNCellDropoutWrapper(tf.keras.layers.GRUCell(3), input_keep_prob=0.5,
                                    variational_recurrent=True, dtype=tf.float32)


@pytest.mark.parametrize("variational", [False, True])
def test_output_dropout_masks_and_scales(variational):
    # Seeded: a variational mask is one draw over 6 units, all dropped once in 64.
    tf.random.set_seed(3)
    cell = tf.keras.layers.SimpleRNNCell(6)
    ref = tf.keras.layers.RNN(cell, return_sequences=True)
    base = ref(X).numpy()
    kw = {"variational_recurrent": True, "dtype": tf.float32} if variational else {}
    wrapped = tf.keras.layers.RNN(
        tf.nn.RNNCellDropoutWrapper(cell, output_keep_prob=0.5, **kw), return_sequences=True)
    got = wrapped(X).numpy()  # the same cell weights; only outputs dropped
    kept = got != 0
    np.testing.assert_allclose(got[kept], 2 * base[kept], rtol=1e-5)
    assert 0.1 < kept.mean() < 0.9
    if variational:  # one mask [1, units] for every batch entry and time step
        assert (kept == kept[:1, :1]).all()
