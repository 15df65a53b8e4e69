"""tf.keras.layers.LocallyConnected1D/2D against real tf-keras (TF 2.4's layers): TF's
weight shapes per implementation, outputs with the same weights, implementations 1, 2
and 3 computing the same function, gradients, errors, config, fit and saving."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers
RNG = np.random.default_rng(0)

CASES_1D = [  # kwargs, input shape
    ({"filters": 3, "kernel_size": 3}, (2, 7, 4)),
    ({"filters": 2, "kernel_size": 2, "strides": 2}, (2, 9, 3)),
    ({"filters": 3, "kernel_size": 3, "data_format": "channels_first"}, (2, 4, 7)),
]
CASES_2D = [
    ({"filters": 3, "kernel_size": 3}, (2, 5, 6, 2)),
    ({"filters": 2, "kernel_size": (2, 3), "strides": (2, 1)}, (2, 6, 5, 3)),
    ({"filters": 3, "kernel_size": 2, "data_format": "channels_first"}, (2, 2, 5, 4)),
]


def _cases():
    out = []
    for name, cases in (("LocallyConnected1D", CASES_1D), ("LocallyConnected2D", CASES_2D)):
        for kw, shape in cases:
            for impl in (1, 2, 3):
                out.append((name, dict(kw, implementation=impl), shape))
                if impl > 1:
                    out.append((name, dict(kw, implementation=impl, padding="same"), shape))
    return out


@pytest.mark.parametrize("name,kw,shape", _cases())
def test_matches_tf_keras_with_the_same_weights(name, kw, shape):
    kw = dict(kw, bias_initializer="glorot_uniform", activation="tanh")
    x = RNG.normal(size=shape).astype(np.float32)
    ours = getattr(L, name)(**kw)
    theirs = getattr(real_tf().keras.layers, name)(**kw)
    y = ours(x)
    theirs(x)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    theirs.set_weights(ours.get_weights())
    np.testing.assert_allclose(y.numpy(), theirs(x).numpy(), rtol=1e-5, atol=1e-5)
    assert ours.compute_output_shape(shape) == tuple(theirs.compute_output_shape(shape))


@pytest.mark.parametrize("name,kw,shape", [("LocallyConnected1D", CASES_1D[0][0],
                                            CASES_1D[0][1]),
                                           ("LocallyConnected2D", CASES_2D[2][0],
                                            CASES_2D[2][1])])
def test_layer_contract(name, kw, shape):
    for impl in (1, 2, 3):
        layer_test(getattr(L, name), kwargs=dict(kw, implementation=impl), input_shape=shape)


def _linear_map(layer, shape):
    """The layer's (bias-free) linear map as a matrix ``[prod(in), prod(out)]``."""
    n = int(np.prod(shape[1:]))
    basis = np.eye(n, dtype=np.float64).reshape((n,) + tuple(shape[1:]))
    return layer(basis).numpy().reshape(n, -1)


@pytest.mark.parametrize("name,kw,shape", [(n, k, s) for n, cs in (
    ("LocallyConnected1D", CASES_1D), ("LocallyConnected2D", CASES_2D)) for k, s in cs])
def test_implementations_compute_the_same_function(name, kw, shape):
    cls = getattr(L, name)
    x = RNG.normal(size=shape)
    layers = [cls(**kw, implementation=i, use_bias=False, dtype="float64") for i in (1, 2, 3)]
    for layer in layers:
        layer(x)
    m = _linear_map(layers[0], shape)
    layers[1].kernel.assign(m.reshape(layers[1].kernel.shape))
    idxs = layers[2]._idxs.numpy()  # TF's sorted (output, input) index pairs
    layers[2].kernel.assign(m[idxs[:, 1], idxs[:, 0]])
    outs = [layer(x).numpy() for layer in layers]
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(outs[2], outs[0], rtol=1e-10, atol=1e-12)
    # implementation 2's kernel is masked: weights outside the receptive fields do nothing
    layers[1].kernel.assign(RNG.normal(size=layers[1].kernel.shape))
    m2 = _linear_map(layers[1], shape)
    assert np.all(m2[m == 0] == 0) and np.count_nonzero(m2) == np.count_nonzero(m)


@pytest.mark.parametrize("impl", [1, 2, 3])
def test_gradients_match_tf_keras(impl):
    ref = real_tf()
    x = RNG.normal(size=(2, 5, 4, 2)).astype(np.float32)
    ours = L.LocallyConnected2D(3, 2, implementation=impl, bias_initializer="ones")
    theirs = ref.keras.layers.LocallyConnected2D(3, 2, implementation=impl)
    ours(x)
    theirs(x)
    theirs.set_weights(ours.get_weights())
    xt, xr = tf.constant(x), ref.constant(x)
    with tf.GradientTape() as t1:
        t1.watch(xt)
        lo = tf.reduce_sum(ours(xt) ** 2)
    with ref.GradientTape() as t2:
        t2.watch(xr)
        lr = ref.reduce_sum(theirs(xr) ** 2)
    for a, b in zip(t1.gradient(lo, [xt] + ours.trainable_weights),
                    t2.gradient(lr, [xr] + theirs.trainable_weights)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


def test_errors_are_tf_keras():
    with pytest.raises(ValueError, match="only \"valid\" is supported if implementation is 1"):
        L.LocallyConnected1D(2, 3, padding="same")
    with pytest.raises(ValueError, match="Unrecognized implementation mode: 4"):
        L.LocallyConnected1D(2, 3, implementation=4)(np.ones((1, 5, 2), np.float32))
    inp = tf.keras.Input((None, 3))
    with pytest.raises(ValueError, match="should be fully-defined"):
        L.LocallyConnected1D(2, 3)(inp)
    for k in (tf.keras, real_tf().keras):
        with pytest.raises(ValueError):
            k.layers.LocallyConnected2D(2, 3, padding="same")


def test_config_round_trip_fit_and_saving(tmp_path):
    ref = real_tf()
    kw = {"filters": 2, "kernel_size": 3, "strides": 1, "implementation": 2,
          "padding": "same", "activation": "relu"}
    cfg = L.LocallyConnected1D(**kw).get_config()
    assert sorted(cfg) == sorted(ref.keras.layers.LocallyConnected1D(**kw).get_config())
    assert L.LocallyConnected1D.from_config(cfg).get_config() == cfg
    x = RNG.normal(size=(16, 6, 5, 2)).astype(np.float32)
    y = RNG.normal(size=(16, 1)).astype(np.float32)
    models = []
    for k in (tf.keras, ref.keras):
        models.append(k.Sequential([k.layers.InputLayer((6, 5, 2)),
                                    k.layers.LocallyConnected2D(3, 3, implementation=3),
                                    k.layers.Flatten(), k.layers.Dense(1)]))
    models[1].set_weights(models[0].get_weights())
    models[0].compile(tf.keras.optimizers.SGD(0.05), "mse")
    models[1].compile(ref.keras.optimizers.legacy.SGD(0.05), "mse")
    h = [m.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history["loss"]
         for m in models]
    np.testing.assert_allclose(h[0], h[1], rtol=1e-4)
    models[0].save(str(tmp_path / "m.h5"))
    back = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    np.testing.assert_allclose(back.predict(x), models[0].predict(x), rtol=1e-6)
    models[0].save_weights(str(tmp_path / "w.h5"))
    models[1].load_weights(str(tmp_path / "w.h5"))
    np.testing.assert_allclose(models[1].predict(x), models[0].predict(x), rtol=1e-5,
                               atol=1e-6)
