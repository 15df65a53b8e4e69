"""tf.keras.applications: the same architectures as tf.keras, built without downloads.

Each model is built small under both torchflow and real tf.keras; layer names,
output shapes and parameter counts must agree, and (for some) weights saved by
tf.keras load by name into torchflow's model and give the same predictions.
"""

from __future__ import annotations

import re

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

# (name, kwargs): small inputs so the suite stays fast.
CASES = [
    ("VGG16", {"include_top": False, "input_shape": (32, 32, 3)}),
    ("VGG19", {"include_top": True, "input_shape": (32, 32, 1), "classes": 5}),
    ("ResNet50", {"include_top": False, "input_shape": (32, 32, 3), "pooling": "avg"}),
    ("ResNet50V2", {"include_top": True, "input_shape": (32, 32, 3), "classes": 3}),
    ("MobileNet", {"include_top": False, "input_shape": (32, 32, 3), "alpha": 0.25}),
    ("MobileNetV2", {"include_top": False, "input_shape": (32, 32, 3), "alpha": 0.35}),
    ("MobileNetV2", {"include_top": True, "input_shape": (40, 40, 3), "alpha": 1.3,
                     "classes": 4}),
    ("DenseNet121", {"include_top": False, "input_shape": (32, 32, 3)}),
    ("InceptionV3", {"include_top": False, "input_shape": (75, 75, 3)}),
    ("Xception", {"include_top": True, "input_shape": (71, 71, 3), "classes": 2}),
    ("EfficientNetB0", {"include_top": False, "input_shape": (32, 32, 3)}),
    ("NASNetMobile", {"include_top": True, "input_shape": (32, 32, 3), "classes": 4}),
    ("InceptionResNetV2", {"include_top": True, "input_shape": (75, 75, 3), "classes": 3}),
    ("EfficientNetB3", {"include_top": True, "input_shape": (32, 32, 3), "classes": 5}),
]


def _layer_table(model):
    def shape(layer):
        s = layer.output_shape
        if isinstance(s, list) and len(s) == 1:
            s = s[0]  # tf.keras answers [shape] for an InputLayer, torchflow shape
        return [tuple(x) for x in s] if isinstance(s, list) else tuple(s)

    # By name: torchflow's Functional lists a branching graph's layers in creation
    # order, tf.keras by depth (reported in issue 19); the set must be the same.
    return {layer.name: (shape(layer), layer.count_params()) for layer in model.layers}


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                      enumerate(CASES)])
def test_architecture_matches_tf(name, kwargs):
    tf.keras.backend.clear_session()  # the same automatic names (conv2d_3...) on both sides
    real_tf().keras.backend.clear_session()
    ours = getattr(tf.keras.applications, name)(weights=None, **kwargs)
    theirs = getattr(real_tf().keras.applications, name)(weights=None, **kwargs)
    assert ours.name == theirs.name
    assert ours.count_params() == theirs.count_params()
    assert len(ours.trainable_weights) == len(theirs.trainable_weights)
    assert tuple(ours.output_shape) == tuple(theirs.output_shape)
    assert len(ours.layers) == len(theirs.layers)
    ours_t, theirs_t = _layer_table(ours), _layer_table(theirs)
    if name == "InceptionResNetV2":
        # TF 2.4 adds each residual as Lambda layer "block35_1"...; 2.21 as an unnamed
        # CustomScaleLayer. Same count, shapes and (no) parameters.
        ours_s = sorted(v for k, v in ours_t.items() if re.fullmatch(r"block(35|17|8)_\d+", k))
        theirs_s = sorted(v for k, v in theirs_t.items() if k.startswith("custom_scale_layer"))
        assert ours_s == theirs_s and len(ours_s) == 40
        ours_t = {k: v for k, v in ours_t.items()
                  if not re.fullmatch(r"block(35|17|8)_\d+", k)}
        theirs_t = {k: v for k, v in theirs_t.items() if not k.startswith("custom_scale_layer")}
    assert ours_t == theirs_t


def test_mobilenet_top_has_tf24s_reshape():
    # TF 2.4's MobileNet top: GlobalAveragePooling2D, then Reshape "reshape_1" to
    # (1, 1, C); 2.21 pools with keepdims instead. Same parameters, same output.
    kwargs = {"include_top": True, "input_shape": (32, 32, 3), "alpha": 0.5, "classes": 7}
    tf.keras.backend.clear_session()
    real_tf().keras.backend.clear_session()
    ours = tf.keras.applications.MobileNet(weights=None, **kwargs)
    theirs = real_tf().keras.applications.MobileNet(weights=None, **kwargs)
    assert ours.count_params() == theirs.count_params() == 833127
    assert ours.get_layer("reshape_1").output_shape == (None, 1, 1, 512)
    names = [layer.name for layer in ours.layers if layer.name != "reshape_1"]
    theirs_names = [layer.name for layer in theirs.layers]
    assert [n for n in names if not n.startswith("global")] == \
        [n for n in theirs_names if not n.startswith("global")]




@pytest.mark.parametrize("name, params", [
    # Parameter counts with the 1000-class top, as keras.io's applications table
    # lists them (the same builders as ResNet50/ResNet50V2/DenseNet121 above).
    ("ResNet101", 44707176), ("ResNet152", 60419944), ("ResNet101V2", 44675560),
    ("ResNet152V2", 60380648), ("DenseNet169", 14307880), ("DenseNet201", 20242984),
])
def test_deeper_variants_have_the_published_parameter_counts(name, params):
    model = getattr(tf.keras.applications, name)(weights=None, input_shape=(32, 32, 3))
    assert model.count_params() == params
