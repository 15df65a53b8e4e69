"""One program with TF 2.4's experimental Keras names, run under real tf.keras 2.21
(Keras 2) and torchflow, outputs compared: a sequence model of EinsumDense,
LocallyConnected1D (implementations 1-3), SyncBatchNormalization and a Dense head,
trained by SGD on a CosineDecayRestarts schedule; a Wide & Deep model (LinearModel +
a deep part with trainable RandomFourierFeatures) trained with two optimizers; both
evaluated, predicted, saved and reloaded. Weights are set from NumPy on both sides."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(11)
X = RNG.normal(size=(48, 10, 4)).astype("float32")
Y = (X[:, :, 0].mean(1, keepdims=True) * 3 + np.sin(X[:, 0, 1:2])).astype("float32")
XW = RNG.normal(size=(48, 5)).astype("float32")
YB = (XW[:, :1] + XW[:, 1:2] ** 2 > 0.8).astype("float32")


def _legacy(k, name, *args):
    opts = getattr(k.optimizers, "legacy", k.optimizers)  # TF 2.4's optimizers
    return getattr(opts, name)(*args)


def _set_numpy_weights(model, seed):
    rng = np.random.RandomState(seed)
    weights = [rng.uniform(-0.4, 0.4, size=w.shape).astype("float32")
               for w in model.get_weights()]
    for i, w in enumerate(model.weights):
        name = w.name
        if "moving_variance" in name or "kernel_scale" in name:
            weights[i] = np.abs(weights[i]) + 0.5
    model.set_weights(weights)
    return [w.shape for w in weights]


def program(mod, tmp_path, impl):
    k = mod.keras
    exp = k.layers.experimental
    out = {}
    inp = k.Input((10, 4))
    h = exp.EinsumDense("abc,cd->abd", output_shape=(10, 6), bias_axes="d",
                        activation="tanh")(inp)
    h = k.layers.LocallyConnected1D(5, 3, strides=1, implementation=impl)(h)
    h = exp.SyncBatchNormalization(momentum=0.8)(h)
    h = k.layers.Flatten()(h)
    seq = k.Model(inp, k.layers.Dense(1)(h))
    out["seq_shapes"] = _set_numpy_weights(seq, 1)
    sched = k.experimental.CosineDecayRestarts(0.05, first_decay_steps=4, t_mul=1.5,
                                               m_mul=0.9, alpha=0.1)
    seq.compile(_legacy(k, "SGD", sched), "mse", metrics=["mae"])
    hist = seq.fit(X, Y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    out["seq_history"] = hist.history
    out["seq_eval"] = seq.evaluate(X, Y, verbose=0)
    out["seq_pred"] = seq.predict(X, batch_size=16)
    seq.save(str(tmp_path / f"{mod.__name__}_seq.h5"))
    # the same batches as seq_pred: a matmul's rounding may differ with the batch's rows
    out["seq_reloaded"] = k.models.load_model(
        str(tmp_path / f"{mod.__name__}_seq.h5")).predict(X, batch_size=16)

    dnn = k.Sequential([k.layers.InputLayer((5,)),
                        exp.RandomFourierFeatures(12, scale=2.0, trainable=True),
                        k.layers.Dense(1)])
    wide = k.experimental.LinearModel(units=1)
    model = k.experimental.WideDeepModel(wide, dnn, activation="sigmoid")
    model([XW, XW])
    out["wd_shapes"] = _set_numpy_weights(model, 2)
    model.compile([_legacy(k, "SGD", 0.2), _legacy(k, "Adam", 0.02)], "binary_crossentropy",
                  metrics=["accuracy"])
    out["wd_history"] = model.fit([XW, XW], YB, batch_size=12, epochs=4, shuffle=False,
                                  verbose=0).history
    out["wd_pred"] = model.predict([XW, XW])
    out["wd_weights"] = model.get_weights()
    return out


@pytest.mark.parametrize("impl", [1, 2, 3])
def test_experimental_keras_program_matches_tf(impl, tmp_path):
    ref = real_tf()
    ours = program(tf, tmp_path, impl)
    theirs = program(ref, tmp_path, impl)
    assert ours["seq_shapes"] == theirs["seq_shapes"]
    assert ours["wd_shapes"] == theirs["wd_shapes"]
    assert sorted(ours["seq_history"]) == sorted(theirs["seq_history"])
    for key in theirs["seq_history"]:
        np.testing.assert_allclose(ours["seq_history"][key], theirs["seq_history"][key],
                                   rtol=2e-4, atol=2e-5, err_msg=key)
    for key in ("seq_eval", "seq_pred", "seq_reloaded", "wd_pred"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=2e-4, atol=2e-5, err_msg=key)
    np.testing.assert_allclose(ours["seq_reloaded"], ours["seq_pred"], rtol=1e-6)
    for key in theirs["wd_history"]:
        np.testing.assert_allclose(ours["wd_history"][key], theirs["wd_history"][key],
                                   rtol=2e-4, atol=2e-5, err_msg=key)
    for a, b in zip(ours["wd_weights"], theirs["wd_weights"]):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("impl", [1, 2, 3])
def test_h5_written_by_tf_keras_loads_in_torchflow(impl, tmp_path):
    ref = real_tf()
    k, E = ref.keras, ref.keras.layers.experimental
    x = RNG.normal(size=(3, 6, 5, 2)).astype("float32")
    theirs = k.Sequential([k.layers.InputLayer((6, 5, 2)),
                           k.layers.LocallyConnected2D(3, 2, implementation=impl),
                           k.layers.Reshape((20, 3)),
                           E.EinsumDense("abc,cd->abd", (20, 4), bias_axes="d"),
                           E.SyncBatchNormalization(), k.layers.Flatten(),
                           E.RandomFourierFeatures(6)])
    _set_numpy_weights(theirs, 3)
    path = str(tmp_path / "tf.h5")
    theirs.save(path)
    ours = tf.keras.models.load_model(path)
    assert [type(layer).__name__ for layer in ours.layers] == \
        [type(layer).__name__ for layer in theirs.layers]
    assert ours.layers[0].implementation == impl
    np.testing.assert_allclose(ours.predict(x), theirs.predict(x, verbose=0), rtol=1e-5,
                               atol=1e-5)
