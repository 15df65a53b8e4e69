"""tf.keras.layers.experimental.RandomFourierFeatures against real tf-keras (TF 2.4's
layer): weights, outputs with the same weights, the kernel it approximates, errors,
config, fit of kernel_scale, saving."""

import math

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RFF = tf.keras.layers.experimental.RandomFourierFeatures


def _ref_layer(*a, **kw):
    return real_tf().keras.layers.experimental.RandomFourierFeatures(*a, **kw)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_weights_and_outputs_match_tf_keras(kernel):
    x = np.random.default_rng(0).normal(size=(4, 6)).astype(np.float32)
    ours, theirs = RFF(10, kernel), _ref_layer(10, kernel)
    y = ours(x)
    theirs(x)
    assert [w.name.split("/")[-1] for w in ours.weights] == \
        [w.name.split("/")[-1] for w in theirs.weights]
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    assert ours.trainable_weights == [] and not ours.trainable
    theirs.set_weights(ours.get_weights())
    np.testing.assert_allclose(y.numpy(), theirs(x).numpy(), rtol=1e-5, atol=1e-5)
    scale = ours.kernel_scale.numpy()[0]
    assert scale == pytest.approx(1.0 if kernel == "laplacian" else math.sqrt(3.0))
    assert ours.get_config() == theirs.get_config() | {"name": ours.name}
    b = ours.bias.numpy()
    assert b.min() >= 0 and b.max() < 2 * math.pi


@pytest.mark.parametrize("kernel,exact", [
    ("gaussian", lambda d2, d1, s: np.exp(-d2 / (2 * s * s))),
    ("laplacian", lambda d2, d1, s: np.exp(-d1 / s))])
def test_features_approximate_the_kernel(kernel, exact):
    np.random.seed(0)
    tf.random.set_seed(0)
    rng = np.random.default_rng(1)
    x = rng.normal(scale=0.3, size=(6, 3)).astype(np.float32)
    dim = 20000
    f = RFF(dim, kernel, scale=1.5)(x).numpy().astype(np.float64)
    approx = 2.0 / dim * f @ f.T
    d2 = ((x[:, None] - x[None]) ** 2).sum(-1)
    d1 = np.abs(x[:, None] - x[None]).sum(-1)
    np.testing.assert_allclose(approx, exact(d2, d1, 1.5), atol=0.05)


@pytest.mark.parametrize("kw,shape,msg", [
    ({"output_dim": 0}, None, "`output_dim` should be a positive integer. Given: 0."),
    ({"output_dim": 3, "kernel_initializer": "poly"}, None, "Unsupported kernel type: 'poly'"),
    ({"output_dim": 3, "scale": -1.0}, None, "When provided, `scale` should be a positive"),
    ({"output_dim": 3}, (2, 3, 4), "The rank of the input tensor should be 2. Got 3 instead."),
])
def test_errors_are_tf_keras(kw, shape, msg):
    # TF 2.4's wording (tf-keras 2.21 says "Received: 0" for output_dim; 2.4 wins).
    with pytest.raises(ValueError, match=msg.replace(".", r"\.")):
        RFF(**kw)(np.ones(shape, np.float32))
    with pytest.raises(ValueError):
        _ref_layer(**kw)(np.ones(shape, np.float32))


def test_kernel_initializer_object_and_round_trip():
    layer = RFF(4, kernel_initializer=tf.keras.initializers.Ones(), scale=2.0)
    y = layer(np.ones((2, 3), np.float32))
    np.testing.assert_allclose(y.numpy(), np.cos(1.5 + layer.bias.numpy())[None].repeat(2, 0),
                               rtol=1e-5, atol=1e-6)
    cfg = layer.get_config()
    assert cfg["kernel_initializer"] == {"class_name": "Ones", "config": {}}
    back = tf.keras.layers.deserialize({"class_name": "RandomFourierFeatures", "config": cfg})
    assert back.get_config() == cfg


def test_fit_of_trainable_scale_matches_tf_keras(tmp_path):
    ref = real_tf()
    rng = np.random.default_rng(2)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    y = rng.integers(0, 2, size=(32, 1)).astype(np.float32)
    ours = tf.keras.Sequential([tf.keras.layers.InputLayer((3,)), RFF(16, trainable=True),
                                tf.keras.layers.Dense(1, activation="sigmoid")])
    theirs = ref.keras.Sequential([ref.keras.layers.InputLayer((3,)),
                                   _ref_layer(16, trainable=True),
                                   ref.keras.layers.Dense(1, activation="sigmoid")])
    theirs.set_weights(ours.get_weights())
    ours.compile(tf.keras.optimizers.SGD(0.5), "binary_crossentropy")
    theirs.compile(ref.keras.optimizers.legacy.SGD(0.5), "binary_crossentropy")
    h = [m.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history["loss"]
         for m in (ours, theirs)]
    np.testing.assert_allclose(h[0], h[1], rtol=1e-5)
    np.testing.assert_allclose(ours.layers[0].kernel_scale.numpy(),
                               theirs.layers[0].kernel_scale.numpy(), rtol=1e-5)
    assert ours.layers[0].kernel_scale.numpy()[0] != pytest.approx(math.sqrt(1.5))
    ours.save(str(tmp_path / "m.h5"))
    back = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    np.testing.assert_allclose(back.predict(x), ours.predict(x), rtol=1e-6)
