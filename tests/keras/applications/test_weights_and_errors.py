"""tf.keras.applications: tf.keras weight files load and predict the same; weights=
and argument errors as TF gives them."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


@pytest.mark.parametrize("name, kwargs", [
    ("MobileNetV2", {"include_top": True, "input_shape": (32, 32, 3), "alpha": 0.35,
                     "classes": 3}),
    ("ResNet50", {"include_top": False, "input_shape": (32, 32, 3), "pooling": "avg"}),
    ("MobileNet", {"include_top": False, "input_shape": (32, 32, 3), "pooling": "max",
                   "alpha": 0.25}),
    ("Xception", {"include_top": True, "input_shape": (71, 71, 3), "classes": 2}),
])
def test_tf_keras_weights_file_loads_and_predicts_the_same(name, kwargs, tmp_path,
                                                           reference_model):
    rtf = real_tf()
    # Weights load by layer name (see imagenet_utils.load_weights): unnamed layers
    # (Xception's residual convs) need the same automatic names, as in a fresh session
    # (reference_model builds tf.keras's copy in one; the same kwargs as the
    # test_architectures cases, so that build is shared).
    theirs = reference_model(name, **kwargs)
    tf.keras.backend.clear_session()
    # Random BatchNormalization statistics, so inference-mode BN is exercised too.
    rng = np.random.RandomState(0)
    for layer in theirs.layers:
        if isinstance(layer, rtf.keras.layers.BatchNormalization):
            g, b, m, v = layer.get_weights()
            layer.set_weights([g, rng.randn(*b.shape).astype("float32") * 0.1,
                               rng.randn(*m.shape).astype("float32") * 0.1,
                               rng.rand(*v.shape).astype("float32") + 0.5])
    path = str(tmp_path / "w.h5")
    theirs.save_weights(path)
    ours = getattr(tf.keras.applications, name)(weights=path, **kwargs)
    x = rng.rand(2, *kwargs["input_shape"]).astype("float32")
    np.testing.assert_allclose(ours.predict(x), theirs.predict(x), rtol=2e-4, atol=2e-4)


def test_imagenet_weights_give_tfs_fetch_error_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # no cached weights
    kwargs = {"include_top": False, "input_shape": (32, 32, 3)}
    with pytest.raises(Exception) as theirs:
        real_tf().keras.applications.VGG16(weights="imagenet", **kwargs)
    with pytest.raises(Exception) as ours:
        tf.keras.applications.VGG16(weights="imagenet", **kwargs)
    assert type(ours.value) is type(theirs.value) is Exception
    assert str(ours.value) == str(theirs.value)
    assert "URL fetch failure on https://storage.googleapis.com/tensorflow/keras-applications/" \
           "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5" in str(ours.value)


@pytest.mark.parametrize("call, message", [
    # TF 2.4's messages (2.21 appends "Received: ..." to each).
    (lambda a: a.VGG16(weights="bogus"), "The `weights` argument should be either `None`"),
    (lambda a: a.ResNet50(weights="imagenet", classes=10),
     "If using `weights` as `\"imagenet\"` with `include_top` as true, `classes` should be 1000"),
    (lambda a: a.VGG16(weights=None, include_top=False, input_shape=(16, 16, 3)),
     "Input size must be at least 32x32; got `input_shape=(16, 16, 3)`"),
    (lambda a: a.InceptionV3(weights=None, include_top=False, input_shape=(60, 60, 3)),
     "Input size must be at least 75x75"),
    (lambda a: a.VGG16(weights=None, include_top=True, input_shape=(None, None, 3)),
     "If `include_top` is True, you should specify a static `input_shape`"),
    (lambda a: a.MobileNet(weights="imagenet", alpha=0.3, include_top=False),
     "alpha can be one of `0.25`, `0.50`, `0.75` or `1.0` only."),
    (lambda a: a.MobileNet(weights="imagenet", depth_multiplier=2, include_top=False),
     "depth multiplier must be 1"),
    (lambda a: a.MobileNetV2(weights="imagenet", alpha=0.6, include_top=False),
     "alpha can be one of `0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only."),
    (lambda a: a.VGG16(weights="imagenet", input_shape=(64, 64, 3)),
     "When setting `include_top=True` and loading `imagenet` weights, `input_shape` should be "
     "(224, 224, 3)."),
])
def test_argument_errors(call, message):
    with pytest.raises(ValueError) as ours:
        call(tf.keras.applications)
    assert message in str(ours.value)
    with pytest.raises(ValueError):
        call(real_tf().keras.applications)


def test_input_tensor_and_functional_reuse():
    inp = tf.keras.Input((32, 32, 3))
    base = tf.keras.applications.MobileNetV2(weights=None, include_top=False, input_tensor=inp,
                                             alpha=0.35)
    assert base.inputs[0] is inp
    out = tf.keras.layers.Dense(2)(tf.keras.layers.GlobalAveragePooling2D()(base.output))
    model = tf.keras.Model(inp, out)
    model.compile("adam", "mse")
    x = np.random.RandomState(1).rand(4, 32, 32, 3).astype("float32")
    history = model.fit(x, np.zeros((4, 2), "float32"), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
