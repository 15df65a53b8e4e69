"""tf.keras.applications: the same architectures as tf.keras, built without downloads.

Each model is built small under both torchflow and real tf.keras; layer names,
output shapes and parameter counts must agree (the comparison, and the session cache of
tf.keras's copies, are in conftest.py). The Inception/Xception/NASNet family is in
test_architectures_inception.py; tf.keras weight files in test_weights_and_errors.py.
"""

from __future__ import annotations

import pytest

import torchflow as tf

# (name, kwargs): small inputs so the suite stays fast. The ResNet50, MobileNet,
# MobileNetV2 (alpha 0.35) and Xception kwargs are those of test_weights_and_errors.py,
# so one reference build serves both.
CASES = [
    ("VGG16", {"include_top": False, "input_shape": (32, 32, 3)}),
    ("VGG19", {"include_top": True, "input_shape": (32, 32, 1), "classes": 5}),
    ("ResNet50", {"include_top": False, "input_shape": (32, 32, 3), "pooling": "avg"}),
    ("ResNet50V2", {"include_top": True, "input_shape": (32, 32, 3), "classes": 3}),
    ("MobileNet", {"include_top": False, "input_shape": (32, 32, 3), "pooling": "max",
                   "alpha": 0.25}),
    ("MobileNetV2", {"include_top": True, "input_shape": (32, 32, 3), "alpha": 0.35,
                     "classes": 3}),
    ("MobileNetV2", {"include_top": True, "input_shape": (40, 40, 3), "alpha": 1.3,
                     "classes": 4}),
    ("DenseNet121", {"include_top": False, "input_shape": (32, 32, 3)}),
    ("EfficientNetB0", {"include_top": False, "input_shape": (32, 32, 3)}),
    ("EfficientNetB3", {"include_top": True, "input_shape": (32, 32, 3), "classes": 5}),
]


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                      enumerate(CASES)])
def test_architecture_matches_tf(name, kwargs, assert_architecture_matches_tf):
    assert_architecture_matches_tf(name, kwargs)


def test_mobilenet_top_has_tf24s_reshape(reference_model):
    # TF 2.4's MobileNet top: GlobalAveragePooling2D, then Reshape "reshape_1" to
    # (1, 1, C); 2.21 pools with keepdims instead. Same parameters, same output.
    kwargs = {"include_top": True, "input_shape": (32, 32, 3), "alpha": 0.5, "classes": 7}
    theirs = reference_model("MobileNet", **kwargs)
    tf.keras.backend.clear_session()
    ours = tf.keras.applications.MobileNet(weights=None, **kwargs)
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
