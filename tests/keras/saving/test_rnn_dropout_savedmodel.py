"""Recurrent layers with ``dropout``/``recurrent_dropout`` saved as a SavedModel (issue 15).

TF 2.4 saves a Keras model's ``__call__`` traced with ``training=False`` and with
``training=True``; the second draws the cells' dropout masks once per sequence
(``backend.rnn`` calls the step at time zero outside the ``While`` loop, whose body
reads the cached masks), of the batch size the inputs have at run time. So a loaded
model applies dropout in training mode, in real TF (2.21), tf-keras and torchflow.
Random outputs are checked statistically: many rows of one batch draw independent
masks.
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

CASES = {
    "lstm": lambda L: L.LSTM(4, dropout=0.2, recurrent_dropout=0.2, input_shape=(5, 3)),
    "lstm_input_dropout": lambda L: L.LSTM(4, dropout=0.3, input_shape=(5, 3)),  # fused
    "gru": lambda L: L.GRU(4, dropout=0.2, recurrent_dropout=0.2, input_shape=(5, 3)),
    "simple_rnn": lambda L: L.SimpleRNN(4, dropout=0.2, recurrent_dropout=0.2,
                                        input_shape=(5, 3)),
    "stacked_cells": lambda L: L.RNN([L.LSTMCell(4, dropout=0.2, recurrent_dropout=0.3),
                                      L.GRUCell(2, recurrent_dropout=0.2)],
                                     input_shape=(5, 3)),
}


def _library(path):
    sm = tf_saved_model_pb2.SavedModel()
    with open(f"{path}/saved_model.pb", "rb") as f:
        sm.ParseFromString(f.read())
    return sm.meta_graphs[0]


def _save(tmp_path, layers, weights=None, name="m"):
    model = tf.keras.Sequential(layers)
    if weights is not None:
        layers[0].set_weights(weights)
    path = str(tmp_path / name)
    model.save(path)
    return model, path


@pytest.mark.parametrize("name", sorted(CASES))
def test_training_call_is_saved_and_applies_dropout(tmp_path, name):
    tf.random.set_seed(None)
    model, path = _save(tmp_path, [CASES[name](tf.keras.layers), tf.keras.layers.Dense(1)])
    x = np.random.RandomState(0).uniform(0, 1, size=(6, 5, 3)).astype(np.float32)
    want = model(x, training=False).numpy()
    mg = _library(path)
    calls = [n.function for n in mg.object_graph_def.nodes if n.WhichOneof("kind") == "function"]
    assert [len(c.concrete_functions) for c in calls] == [2]  # training False and True
    fns = {f.signature.name: f for f in mg.graph_def.library.function}
    train = [fns[c] for c in calls[0].concrete_functions
             if any(n.op == "RandomUniform" for n in fns[c].node_def)]
    assert len(train) == 1  # the masks: drawn in the call, once per sequence ...
    bodies = [f for n, f in fns.items() if "while_body" in n]
    assert bodies and not any(n.op == "RandomUniform" for f in bodies for n in f.node_def)

    rtf = real_tf()
    tf_keras = rtf.keras.models.load_model(path)
    for loaded, m in [(rtf.saved_model.load(path), rtf), (tf_keras, rtf),
                      (tf.saved_model.load(path), tf), (tf.keras.models.load_model(path), tf)]:
        got = np.asarray(loaded(m.constant(x), training=False))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
        noisy = np.stack([np.asarray(loaded(m.constant(x), training=True)) for _ in range(3)])
        assert np.abs(noisy - want).max() > 1e-3  # ... applied in training mode
        assert np.abs(noisy[0] - noisy[1]).max() > 1e-3  # new masks at every call
    np.testing.assert_allclose(tf_keras.predict(x, verbose=0), want, rtol=1e-6, atol=1e-6)


def _linear_rnn(L, units, features, steps, dropout, recurrent_dropout, kernel, recurrent):
    layer = L.SimpleRNN(units, activation=None, use_bias=False, dropout=dropout,
                        recurrent_dropout=recurrent_dropout, return_sequences=True,
                        input_shape=(steps, features))
    return layer, [kernel, recurrent]


@pytest.mark.parametrize("lib", ["tf", "torchflow"])
def test_input_mask_drops_the_expected_fraction_once_per_sequence(tmp_path, lib):
    # Kernel I, recurrent kernel 0, linear: each step's output is x_t * mask / (1 - rate).
    rate = 0.25
    layer, w = _linear_rnn(tf.keras.layers, 8, 8, 3, rate, 0.1, np.eye(8, dtype=np.float32),
                           np.zeros((8, 8), np.float32))
    model, path = _save(tmp_path, [layer], w)
    m = real_tf() if lib == "tf" else tf
    loaded = m.saved_model.load(path)
    x = np.random.RandomState(1).uniform(1, 2, size=(500, 1, 8)).astype(np.float32)
    x = np.repeat(x, 3, axis=1)  # the same input at every step
    np.testing.assert_allclose(np.asarray(loaded(m.constant(x), training=False)), x,
                               rtol=1e-6)
    y = np.asarray(loaded(m.constant(x), training=True))
    kept = y != 0
    assert abs(kept.mean() - (1 - rate)) < 5 * np.sqrt(rate * (1 - rate) / (500 * 8))
    np.testing.assert_allclose(y[kept], x[kept] / (1 - rate), rtol=1e-5)
    # One mask per sequence (TF's): every step drops the same units of a row.
    assert (kept == kept[:, :1]).all()


@pytest.mark.parametrize("lib", ["tf", "torchflow"])
def test_recurrent_mask_drops_the_expected_fraction(tmp_path, lib):
    # Kernel I, recurrent kernel I, no input dropout, x_2 = 0: h_2 = x_1 * rmask / (1 - r).
    rate = 0.4
    layer, w = _linear_rnn(tf.keras.layers, 8, 8, 2, 0.0, rate, np.eye(8, dtype=np.float32),
                           np.eye(8, dtype=np.float32))
    model, path = _save(tmp_path, [layer], w)
    m = real_tf() if lib == "tf" else tf
    loaded = m.saved_model.load(path)
    x = np.zeros((400, 2, 8), np.float32)
    x[:, 0] = np.random.RandomState(2).uniform(1, 2, size=(400, 8))
    y = np.asarray(loaded(m.constant(x), training=True))
    np.testing.assert_allclose(y[:, 0], x[:, 0], rtol=1e-6)  # no input dropout
    kept = y[:, 1] != 0
    assert abs(kept.mean() - (1 - rate)) < 5 * np.sqrt(rate * (1 - rate) / kept.size)
    np.testing.assert_allclose(y[:, 1][kept], x[:, 0][kept] / (1 - rate), rtol=1e-5)


def test_training_mean_is_the_inference_output_for_a_linear_rnn(tmp_path):
    # Linear in each mask (two steps: the masks of x_1 meet the recurrent mask once, as
    # independent factors), so the mean over rows of one batch is the inference output.
    rtf = real_tf()
    rng = np.random.RandomState(3)
    layer, w = _linear_rnn(tf.keras.layers, 3, 2, 2, 0.3, 0.3,
                           rng.uniform(-1, 1, (2, 3)).astype(np.float32),
                           rng.uniform(-1, 1, (3, 3)).astype(np.float32))
    model, path = _save(tmp_path, [layer, tf.keras.layers.Dense(1)], w)
    loaded = rtf.saved_model.load(path)
    x = np.repeat(rng.uniform(0.5, 1.5, (1, 2, 2)).astype(np.float32), 4000, axis=0)
    want = model(x[:1], training=False).numpy()
    y = loaded(rtf.constant(x), training=True).numpy()
    assert y.std(axis=0).max() > 1e-2
    err = 5 * y.std(axis=0) / np.sqrt(len(y))
    assert (np.abs(y.mean(axis=0) - want[0]) < err).all(), (y.mean(axis=0), want[0], err)


def test_rnn_without_dropout_saves_one_graph_for_both_modes(tmp_path):
    # No random ops in either trace; both modes serve the inference output in real TF.
    model, path = _save(tmp_path, [tf.keras.layers.SimpleRNN(4, input_shape=(5, 3)),
                                   tf.keras.layers.Dense(1)])
    mg = _library(path)
    assert not any(n.op == "RandomUniform" for f in mg.graph_def.library.function
                   for n in f.node_def)
    x = np.random.RandomState(4).uniform(0, 1, size=(3, 5, 3)).astype(np.float32)
    want = model(x).numpy()
    rtf = real_tf()
    loaded = rtf.saved_model.load(path)
    for training in (False, True):
        np.testing.assert_allclose(loaded(rtf.constant(x), training=training).numpy(), want,
                                   rtol=1e-6, atol=1e-6)


def _masked(L):
    i = tf.keras.Input((None,), dtype="int32")
    e = L.Embedding(10, 3, mask_zero=True)(i)
    return tf.keras.Model(i, L.Dense(1)(L.LSTM(4, dropout=0.2, recurrent_dropout=0.2)(e)))


LAYOUTS = {
    "unknown_time": lambda L: tf.keras.Sequential([
        L.GRU(4, dropout=0.2, recurrent_dropout=0.2, input_shape=(None, 3)), L.Dense(1)]),
    "bidirectional": lambda L: tf.keras.Sequential([
        L.Bidirectional(L.LSTM(4, dropout=0.2, recurrent_dropout=0.2), input_shape=(5, 3)),
        L.Dense(1)]),
    "go_backwards_sequences": lambda L: tf.keras.Sequential([
        L.SimpleRNN(4, dropout=0.2, recurrent_dropout=0.2, go_backwards=True,
                    return_sequences=True, input_shape=(5, 3)), L.Dense(1)]),
    "gru_reset_before": lambda L: tf.keras.Sequential([
        L.GRU(4, reset_after=False, dropout=0.2, recurrent_dropout=0.2, input_shape=(5, 3)),
        L.Dense(1)]),
    "masked": _masked,
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_other_layouts_save_their_training_call(tmp_path, name):
    tf.random.set_seed(None)
    model = LAYOUTS[name](tf.keras.layers)
    if name == "masked":
        x = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0], [1, 1, 1, 1, 1]], np.int32)
    else:
        x = np.random.RandomState(5).uniform(0, 1, size=(3, 6 if name == "unknown_time" else 5,
                                                          3)).astype(np.float32)
    want = model(x, training=False).numpy()
    path = str(tmp_path / name)
    model.save(path)
    rtf = real_tf()
    loaded = rtf.saved_model.load(path)
    np.testing.assert_allclose(loaded(rtf.constant(x), training=False).numpy(), want,
                               rtol=1e-6, atol=1e-6)
    noisy = np.stack([loaded(rtf.constant(x), training=True).numpy() for _ in range(3)])
    assert np.abs(noisy - want).max() > 1e-4
