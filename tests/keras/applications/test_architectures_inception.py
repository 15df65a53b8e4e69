"""tf.keras.applications: Inception v3, Xception, Inception-ResNet v2 and NASNet-Mobile
built small under torchflow and real tf.keras, compared layer by layer (conftest.py)."""

from __future__ import annotations

import pytest

CASES = [
    ("InceptionV3", {"include_top": False, "input_shape": (75, 75, 3)}),
    ("Xception", {"include_top": True, "input_shape": (71, 71, 3), "classes": 2}),
    ("NASNetMobile", {"include_top": True, "input_shape": (32, 32, 3), "classes": 4}),
    ("InceptionResNetV2", {"include_top": True, "input_shape": (75, 75, 3), "classes": 3}),
]


@pytest.mark.parametrize("name, kwargs", CASES, ids=[n for n, _ in CASES])
def test_architecture_matches_tf(name, kwargs, assert_architecture_matches_tf):
    assert_architecture_matches_tf(name, kwargs)
