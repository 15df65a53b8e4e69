"""preprocess_input per family and decode_predictions against real tf.keras."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.applications import imagenet_utils
from torchflow._src.testing import real_tf

FAMILIES = ["vgg16", "vgg19", "resnet", "resnet50", "resnet_v2", "mobilenet", "mobilenet_v2",
            "densenet", "inception_v3", "inception_resnet_v2", "nasnet", "xception"]


def _images(shape=(2, 5, 4, 3)):
    return np.random.RandomState(0).randint(0, 256, size=shape).astype("float32")


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_preprocess_input_numpy_matches_tf(family, data_format):
    x = _images((2, 3, 5, 4) if data_format == "channels_first" else (2, 5, 4, 3))
    want = getattr(real_tf().keras.applications, family).preprocess_input(
        x.copy(), data_format=data_format)
    got = getattr(tf.keras.applications, family).preprocess_input(x.copy(),
                                                                  data_format=data_format)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
def test_preprocess_input_tensor_uint8_and_3d_match_tf(mode):
    rtf = real_tf()
    x = _images()
    want = rtf.keras.applications.imagenet_utils.preprocess_input(rtf.constant(x), mode=mode)
    got = tf.keras.applications.imagenet_utils.preprocess_input(tf.constant(x), mode=mode)
    assert tf.is_tensor(got)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-5)
    u8 = x.astype("uint8")
    np.testing.assert_allclose(
        tf.keras.applications.imagenet_utils.preprocess_input(u8.copy(), mode=mode),
        rtf.keras.applications.imagenet_utils.preprocess_input(u8.copy(), mode=mode), atol=1e-5)
    x3 = x[0].transpose(2, 0, 1).copy()
    np.testing.assert_allclose(
        tf.keras.applications.imagenet_utils.preprocess_input(
            x3.copy(), data_format="channels_first", mode=mode),
        rtf.keras.applications.imagenet_utils.preprocess_input(
            x3.copy(), data_format="channels_first", mode=mode), atol=1e-5)


def test_preprocess_input_inside_a_functional_model():
    inp = tf.keras.Input((5, 4, 3))
    out = tf.keras.applications.resnet.preprocess_input(inp)
    model = tf.keras.Model(inp, out)
    x = _images()
    want = real_tf().keras.applications.resnet.preprocess_input(x.copy())
    np.testing.assert_allclose(model.predict(x), want, atol=1e-4)


def test_preprocess_input_errors_match_tf():
    utils = tf.keras.applications.imagenet_utils
    with pytest.raises(ValueError, match="Unknown mode bogus"):
        utils.preprocess_input(_images(), mode="bogus")
    with pytest.raises(ValueError, match="Unknown data_format nchw"):
        utils.preprocess_input(_images(), data_format="nchw")
    with pytest.raises(ValueError):
        real_tf().keras.applications.imagenet_utils.preprocess_input(_images(), mode="bogus")


def test_decode_predictions(monkeypatch, tmp_path):
    preds = np.random.RandomState(2).rand(2, 1000)
    for decode in (tf.keras.applications.vgg16.decode_predictions,
                   real_tf().keras.applications.vgg16.decode_predictions):
        with pytest.raises(ValueError, match="expects a batch of predictions"):
            decode(np.zeros((2, 10)))
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    monkeypatch.setattr(imagenet_utils, "_CLASS_INDEX", index)
    got = tf.keras.applications.densenet.decode_predictions(preds, top=3)
    for row, p in zip(got, preds):
        top = np.argsort(p)[::-1][:3]
        assert [r[:2] for r in row] == [(f"n{i:08d}", f"class_{i}") for i in top]
        np.testing.assert_allclose([r[2] for r in row], p[top])


def test_decode_predictions_without_the_index_file_raises_tfs_fetch_error(monkeypatch,
                                                                          tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(imagenet_utils, "_CLASS_INDEX", None)
    with pytest.raises(Exception, match="URL fetch failure on https://storage.googleapis.com/"
                       "download.tensorflow.org/data/imagenet_class_index.json"):
        tf.keras.applications.imagenet_utils.decode_predictions(np.zeros((1, 1000)))


@pytest.mark.parametrize("family", ["efficientnet", "mobilenet_v3"])
def test_preprocess_input_is_the_identity_where_the_model_rescales(family):
    x = _images()
    assert getattr(tf.keras.applications, family).preprocess_input(x) is x
    np.testing.assert_array_equal(
        getattr(real_tf().keras.applications, family).preprocess_input(x), x)
