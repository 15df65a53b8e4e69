"""tf.keras.applications.MobileNetV3Small / MobileNetV3Large against real tf.keras.

TF 2.4 builds these differently from tf.keras 2.6+ (the reference installed here),
and TF 2.4 wins (see the module docstring of _src/keras/applications/mobilenet_v3.py):
the pooling of the squeeze-and-excite blocks and the top is followed by Reshape
layers (keepdims later), and Conv_2 runs before the top's pooling, so it is part of
include_top=False models. Everything else (names, parameters, shapes up to Conv_2)
is compared layer by layer.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

CASES = [
    ("MobileNetV3Small", {"input_shape": (64, 64, 3), "classes": 10}),
    ("MobileNetV3Large", {"input_shape": (32, 32, 3), "alpha": 0.75, "classes": 5}),
    ("MobileNetV3Small", {"input_shape": (32, 32, 3), "minimalistic": True, "include_top": False,
                          "pooling": "avg"}),
    ("MobileNetV3Large", {"input_shape": (40, 48, 3), "include_top": False}),
]


def _shape(layer):
    shape = tuple(layer.output_shape)
    if layer.name.endswith("squeeze_excite/AvgPool") and len(shape) == 2:
        # TF 2.4 pools to (None, C) and reshapes to (None, 1, 1, C); later
        # tf.keras pools with keepdims.
        return (None, 1, 1, shape[1])
    return shape


def _table(model):
    # TF 2.4's Reshape layers (absent from later tf.keras) are compared apart.
    return {layer.name: (_shape(layer), layer.count_params())
            for layer in model.layers if not layer.name.startswith("reshape")
            and not isinstance(layer.output_shape, list)}


def _after_conv_1(model):
    """The names of Conv_2 and the layers after it (the part TF 2.4 orders differently)."""
    names = [layer.name for layer in model.layers]
    return set(names[names.index("Conv_2"):]) if "Conv_2" in names else set()


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                      enumerate(CASES)])
def test_matches_tf_keras_up_to_tf24s_top(name, kwargs, reference_model):
    theirs = reference_model(name, **kwargs)
    tf.keras.backend.clear_session()
    ours = getattr(tf.keras.applications, name)(weights=None, **kwargs)
    assert ours.name == theirs.name
    ours_t, theirs_t = _table(ours), _table(theirs)
    conv_2 = ours.get_layer("Conv_2")
    in_ch = conv_2.input_shape[-1]
    if kwargs.get("include_top", True):
        # The same layers and parameters; only the order of Conv_2 and the pooling
        # changes the shapes after Conv_1.
        assert ours.count_params() == theirs.count_params()
        assert ours_t.keys() == theirs_t.keys()
        assert tuple(ours.output_shape) == tuple(theirs.output_shape)
        tail = _after_conv_1(ours)
        assert {k: v[1] for k, v in ours_t.items()} == {k: v[1] for k, v in theirs_t.items()}
        assert {k: v for k, v in ours_t.items() if k not in tail} == \
            {k: v for k, v in theirs_t.items() if k not in tail}
        assert ours.get_layer("Logits").input_shape == (None, 1, 1, conv_2.filters)
    else:
        # TF 2.4 keeps Conv_2 (+ its activation) without the top: its parameters on
        # top of the later no-top model's.
        conv_2_params = in_ch * conv_2.filters + conv_2.filters
        assert ours.count_params() == theirs.count_params() + conv_2_params
        # (The pooled output has Conv_2's channels: compared below.)
        extra = (set(ours_t) - set(theirs_t)) | {"avg_pool", "max_pool"}
        assert "Conv_2" in extra and {k: v for k, v in ours_t.items() if k not in extra} == \
            {k: v for k, v in theirs_t.items() if k not in extra}
        assert ours.output_shape[-1] == conv_2.filters
    reshapes = [layer for layer in ours.layers if layer.name.startswith("reshape")]
    n_se = sum(1 for layer in ours.layers if layer.name.endswith("squeeze_excite/AvgPool"))
    assert len(reshapes) == n_se + (1 if kwargs.get("include_top", True) else 0)


def test_tf24_rescaling_and_forward_values():
    # TF 2.4's model scales [0, 255] by 1/255 (2.6+ maps it to [-1, 1]).
    model = tf.keras.applications.MobileNetV3Small(weights=None, input_shape=(32, 32, 3),
                                                   classes=4)
    rescale = model.layers[1]
    assert type(rescale).__name__ == "Rescaling"
    assert rescale.get_config()["scale"] == pytest.approx(1 / 255) and \
        rescale.get_config()["offset"] == 0.0
    x = np.random.RandomState(0).uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    probs = model.predict(x)
    assert probs.shape == (2, 4)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)


def test_same_weights_give_tf_kerass_predictions_below_the_top(tmp_path, reference_model):
    # Up to Conv_1 the graphs are the same: with tf.keras's weights loaded by name,
    # both compute the same features (after undoing each model's input scaling).
    rtf = real_tf()
    kwargs = {"input_shape": (32, 32, 3), "include_top": False}
    theirs = reference_model("MobileNetV3Small", **kwargs)
    path = str(tmp_path / "w.h5")
    theirs.save_weights(path)
    tf.keras.backend.clear_session()
    ours = tf.keras.applications.MobileNetV3Small(weights=None, **kwargs)
    ours.load_weights(path, by_name=True, skip_mismatch=False)
    x = np.random.RandomState(1).uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    # Ours scales by 1/255, theirs maps to [-1, 1]: feed each the input that gives
    # the same first-convolution input.
    ours_feat = tf.keras.Model(ours.input, ours.get_layer("Conv_1/BatchNorm").output)
    theirs_feat = rtf.keras.Model(theirs.input, theirs.get_layer("Conv_1/BatchNorm").output)
    np.testing.assert_allclose(ours_feat.predict((x / 127.5 - 1.0) * 255.0),
                               theirs_feat.predict(x), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("kwargs, message", [
    ({"weights": "bogus"}, "The `weights` argument should be either `None`"),
    ({"weights": "imagenet", "classes": 10}, "`classes` should be 1000"),
    ({"input_shape": (16, 16, 3), "weights": None}, "Input size must be at least 32x32"),
    ({"alpha": 0.5, "weights": "imagenet", "include_top": False},
     "alpha can be one of `0.75`, `1.0` for non minimalistic"),
])
def test_argument_errors_as_tf(kwargs, message):
    rtf = real_tf()
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        rtf.keras.applications.MobileNetV3Small(**kwargs)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        tf.keras.applications.MobileNetV3Small(**kwargs)


def test_imagenet_weight_urls_are_tf24s(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # no cached weights; offline here
    with pytest.raises(Exception) as info:
        tf.keras.applications.MobileNetV3Large(weights="imagenet", include_top=False)
    assert "keras-applications/mobilenet_v3/weights_mobilenet_v3_large_224_1.0_float_no_top.h5" \
        in str(info.value)
