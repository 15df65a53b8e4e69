"""Keras with sparse inputs against tf.keras: Input(sparse=True), Dense on a
SparseTensor, fit / evaluate / predict on sparse data, sparse features parsed
from tf.train.Examples."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

IND = [[0, 1], [0, 4], [1, 3], [2, 0], [3, 4], [4, 2], [5, 1], [5, 2]]
VALS = [1.0, 0.5, 2.0, 3.0, -1.0, 1.5, 0.25, 2.0]
Y = np.array([[1.0], [0.0], [2.0], [-1.0], [0.5], [1.0]], np.float32)


def _model(tf, sparse=True):
    inp = tf.keras.Input(shape=(5,), sparse=sparse)
    h = tf.keras.layers.Dense(3, activation="relu",
                              kernel_initializer=tf.keras.initializers.Constant(
                                  np.linspace(-1, 1, 15).reshape(5, 3)),
                              bias_initializer="ones")(inp)
    out = tf.keras.layers.Dense(1, kernel_initializer="ones")(h)
    return tf.keras.Model(inp, out)


def _opt(tf):
    return getattr(tf.keras.optimizers, "legacy", tf.keras.optimizers).SGD(0.05)


def test_sparse_input_dense_fit_matches_tf_keras():
    rtf = real_tf()
    out = []
    for tf in (rtf, torchflow):
        m = _model(tf)
        x = tf.sparse.SparseTensor(IND, VALS, [6, 5])
        spec = m.inputs[0].type_spec
        m.compile(_opt(tf), "mse")
        h = m.fit(x, Y, batch_size=4, epochs=3, shuffle=False, verbose=0)
        ev = m.evaluate(x, Y, batch_size=4, verbose=0)
        pred = m.predict(x, batch_size=5)
        out.append((repr(spec), h.history["loss"], ev, pred, [w.numpy() for w in m.weights],
                    m.get_config()["layers"][0]["config"]["sparse"]))
    assert out[1][0] == out[0][0]
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-5)
    np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-5)
    np.testing.assert_allclose(out[1][3], out[0][3], rtol=1e-5, atol=1e-6)
    for a, b in zip(out[1][4], out[0][4]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert out[1][5] is out[0][5] is True


def test_dense_on_sparse_equals_dense_on_dense():
    rtf = real_tf()
    for tf in (rtf, torchflow):
        x = tf.sparse.SparseTensor(IND, VALS, [6, 5])
        a = _model(tf)(x).numpy()
        b = _model(tf, sparse=False)(tf.sparse.to_dense(x)).numpy()
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_sparse_and_ragged_input_raises_as_tf():
    # TF 2.4's input_layer.py message; tf-keras 2.21 spells it with backticks
    # ("Cannot set both `sparse` and `ragged` to `True` in a Keras `Input`.").
    with pytest.raises(ValueError, match="^Cannot set both sparse and ragged to True in a "
                                         "Keras input.$"):
        torchflow.keras.Input(shape=(3,), sparse=True, ragged=True)


@pytest.mark.parametrize("mode,ref_mode", [("binary", "multi_hot"), ("count", "count")])
def test_category_encoding_sparse_output_matches_tf(mode, ref_mode):
    rtf = real_tf()
    data = np.array([[1, 2, 3, 1], [0, 3, 1, 0]])
    ours = torchflow.keras.layers.experimental.preprocessing.CategoryEncoding(
        5, mode, sparse=True)(data)
    # tf-keras 2.21 names TF 2.4's max_tokens num_tokens and binary multi_hot.
    theirs = rtf.keras.layers.CategoryEncoding(5, ref_mode, sparse=True)(data)
    assert type(ours).__name__ == type(theirs).__name__ == "SparseTensor"
    for attr in ("indices", "values", "dense_shape"):
        a, b = getattr(ours, attr).numpy(), getattr(theirs, attr).numpy()
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
