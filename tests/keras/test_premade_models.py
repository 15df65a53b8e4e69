"""tf.keras.experimental.LinearModel and WideDeepModel against real tf-keras (the
premade models of TF 2.4, unchanged in tf-keras 2.21): weight layout, outputs, fit
losses and weights with one and with two optimizers, config round trips, saving."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(0)
X = RNG.normal(size=(64, 3)).astype(np.float32)
X2 = RNG.normal(size=(64, 2)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + np.sin(X2[:, :1])).astype(np.float32)


def _close(a, b, tol=2e-5):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_linear_model_weights_and_output_match_tf_keras():
    ref = real_tf()
    ours = tf.keras.experimental.LinearModel(units=2, activation="relu",
                                             kernel_initializer="glorot_uniform")
    theirs = ref.keras.experimental.LinearModel(units=2, activation="relu")
    ours(X)
    theirs(X)
    assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    theirs.set_weights(ours.get_weights())
    _close(ours(X).numpy(), theirs(X).numpy())


@pytest.mark.parametrize("kind", ["dict", "list"])
def test_linear_model_on_several_inputs_matches_tf_keras(kind):
    ref = real_tf()
    feeds = {"b": X2, "a": X} if kind == "dict" else [X, X2]
    ours = tf.keras.experimental.LinearModel(kernel_initializer="ones")
    theirs = ref.keras.experimental.LinearModel(kernel_initializer="ones")
    ours(feeds)
    theirs(feeds)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    ws = [RNG.normal(size=tuple(w.shape)).astype(np.float32) for w in ours.weights]
    ours.set_weights(ws)
    theirs.set_weights(ws)
    _close(ours(feeds).numpy(), theirs(feeds).numpy())
    if kind == "dict":
        assert [layer.name for layer in ours.dense_layers] == ["a", "b"]
        with pytest.raises(ValueError, match="Missing keys: {'b'}"):
            ours({"a": X})


def test_linear_model_fit_matches_tf_keras():
    ref = real_tf()
    hists, weights = [], []
    for k in (tf.keras, ref.keras):
        m = k.experimental.LinearModel()
        opt = k.optimizers.legacy.SGD(0.05) if k is ref.keras else k.optimizers.SGD(0.05)
        m.compile(optimizer=opt, loss="mse", metrics=["mae"])
        hists.append(m.fit(X, Y, batch_size=8, epochs=3, shuffle=False, verbose=0).history)
        weights.append(m.get_weights())
    for key in hists[1]:
        _close(hists[0][key], hists[1][key], 1e-4)
    for a, b in zip(*weights):
        _close(a, b, 1e-4)


def _wide_deep(k, activation=None):
    dnn = k.Sequential([k.layers.Dense(4, activation="relu"), k.layers.Dense(1)])
    return k.experimental.WideDeepModel(k.experimental.LinearModel(), dnn,
                                        activation=activation)


@pytest.mark.parametrize("two", [True, False])
@pytest.mark.parametrize("paired", [True, False])
def test_wide_deep_fit_matches_tf_keras(two, paired):
    ref = real_tf()
    feeds = [X, X2] if paired else X
    ours, theirs = _wide_deep(tf.keras), _wide_deep(ref.keras)
    ours(feeds)
    theirs(feeds)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    ws = [RNG.normal(scale=0.5, size=tuple(w.shape)).astype(np.float32) for w in ours.weights]
    ours.set_weights(ws)
    theirs.set_weights(ws)
    if two:
        ours.compile(optimizer=[tf.keras.optimizers.SGD(0.02), tf.keras.optimizers.Adam(0.01)],
                     loss="mse")
        theirs.compile(optimizer=[ref.keras.optimizers.legacy.SGD(0.02),
                                  ref.keras.optimizers.legacy.Adam(0.01)], loss="mse")
    else:
        ours.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
        theirs.compile(optimizer=ref.keras.optimizers.legacy.Adam(0.01), loss="mse")
    h_o = ours.fit(feeds, Y, batch_size=16, epochs=3, shuffle=False, verbose=0).history
    h_t = theirs.fit(feeds, Y, batch_size=16, epochs=3, shuffle=False, verbose=0).history
    _close(h_o["loss"], h_t["loss"], 1e-4)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        _close(a, b, 1e-4)
    _close(ours.predict(feeds), theirs.predict(feeds), 1e-4)
    if two:  # each part moved by its own optimizer (Adam keeps slots, SGD none)
        assert ours.optimizer[0].iterations.numpy() == 12
        assert ours.optimizer[1].iterations.numpy() == 12
        assert len(ours.optimizer[1].variables()) > 1


def test_wide_deep_compile_rejects_three_optimizers():
    m = _wide_deep(tf.keras)
    with pytest.raises(ValueError, match="list of two"):
        m.compile(optimizer=["sgd", "sgd", "sgd"], loss="mse")


def test_configs_round_trip():
    lm = tf.keras.experimental.LinearModel(units=3, activation="sigmoid", use_bias=False,
                                           kernel_regularizer="l2")
    cfg = lm.get_config()
    ref_cfg = real_tf().keras.experimental.LinearModel(
        units=3, activation="sigmoid", use_bias=False, kernel_regularizer="l2").get_config()
    assert sorted(cfg) == sorted(ref_cfg)
    assert tf.keras.experimental.LinearModel.from_config(cfg).get_config() == cfg
    wd = _wide_deep(tf.keras, activation="sigmoid")
    wd(X)
    cfg = wd.get_config()
    assert sorted(cfg) == sorted(_wide_deep(real_tf().keras, "sigmoid").get_config())
    back = tf.keras.experimental.WideDeepModel.from_config(cfg)
    assert type(back.linear_model).__name__ == "LinearModel"
    assert back(X).shape == (64, 1)
    assert back.get_config()["activation"] == "sigmoid"


def test_wide_deep_weights_h5_and_saved_model(tmp_path):
    wd = _wide_deep(tf.keras)
    wd.compile(optimizer=["sgd", "adam"], loss="mse")
    wd.fit(X, Y, epochs=1, verbose=0)
    wd.save_weights(str(tmp_path / "w.h5"))
    other = _wide_deep(tf.keras)
    other(X)
    other.load_weights(str(tmp_path / "w.h5"))
    _close(other.predict(X), wd.predict(X), 1e-6)
    # TF 2.4 (and tf-keras 2.21) cannot write a two-optimizer compile config; without
    # the optimizer the SavedModel is written, and with one optimizer in full.
    wd.save(str(tmp_path / "sm"), include_optimizer=False)
    loaded = tf.keras.models.load_model(str(tmp_path / "sm"))
    _close(loaded(X).numpy(), wd.predict(X), 1e-5)
    one = _wide_deep(tf.keras)
    one.compile(optimizer="adam", loss="mse")
    one.fit(X, Y, epochs=1, verbose=0)
    one.save(str(tmp_path / "sm1"))
    loaded = tf.keras.models.load_model(str(tmp_path / "sm1"))
    _close(loaded(X).numpy(), one.predict(X), 1e-5)
    loaded.fit(X, Y, epochs=1, verbose=0)
