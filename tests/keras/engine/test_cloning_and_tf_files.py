"""clone_model, and whole-model HDF5 files written by real tf.keras loading in torchflow."""

import numpy as np

import torchflow as tf
from torchflow._src.testing import real_tf

DATA = np.random.default_rng(1).normal(size=(4, 6)).astype(np.float32)


def test_clone_functional_and_sequential_models():
    x = tf.keras.Input(shape=(6,))
    h = tf.keras.layers.Dense(5, activation="relu")(x)
    m = tf.keras.Model(x, tf.keras.layers.Dense(2)(h) + 1.0)
    c = tf.keras.models.clone_model(m)
    assert [type(l).__name__ for l in c.layers] == [type(l).__name__ for l in m.layers]
    assert all(a is not b for a, b in zip(c.layers[1:], m.layers[1:]))
    c.set_weights(m.get_weights())
    np.testing.assert_allclose(c(DATA).numpy(), m(DATA).numpy(), rtol=1e-6)
    s = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(6,)),
                             tf.keras.layers.Dense(1)])
    sc = tf.keras.models.clone_model(s)
    sc.set_weights(s.get_weights())
    np.testing.assert_allclose(sc(DATA).numpy(), s(DATA).numpy(), rtol=1e-6)
    names = []
    tf.keras.models.clone_model(s, clone_function=lambda l: names.append(l.name) or
                                type(l).from_config(l.get_config()))
    assert names == [l.name for l in s.layers]


def test_tf_keras_whole_model_h5_loads(tmp_path):
    ref = real_tf()
    k = ref.keras
    x = k.Input(shape=(6,))
    y = k.layers.Dense(2, activation="softmax")(k.layers.Dense(4, activation="tanh")(x))
    theirs = k.Model(x, y)
    theirs.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                   metrics=["accuracy"])
    theirs.fit(DATA, np.array([0, 1, 1, 0]), epochs=2, verbose=0)
    path = str(tmp_path / "m.h5")
    theirs.save(path)
    ours = tf.keras.models.load_model(path)
    np.testing.assert_allclose(ours(DATA).numpy(), theirs(DATA).numpy(), rtol=1e-5, atol=1e-6)
    assert [l.name for l in ours.layers] == [l.name for l in theirs.layers]
    assert ours.optimizer is not None
    ours.fit(DATA, np.array([0, 1, 1, 0]), epochs=1, verbose=0)
