"""Shared by the tf.keras.applications tests: real tf.keras's copy of each model is
built once per session (the reference builds are most of these tests' time), and the
layer-by-layer comparison with torchflow's copy."""

from __future__ import annotations

import re

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

_BUILT = {}


def _key(name, kwargs):
    return name, tuple(sorted(kwargs.items()))


@pytest.fixture(scope="session")
def reference_model():
    """``reference_model(name, **kwargs)``: real ``tf.keras.applications.<name>(weights=None,
    **kwargs)``, built in a fresh session (so automatic layer names start from 1) the first
    time it is asked for, the same object after that."""

    def build(name, **kwargs):
        key = _key(name, kwargs)
        if key not in _BUILT:
            real_tf().keras.backend.clear_session()
            _BUILT[key] = getattr(real_tf().keras.applications, name)(weights=None, **kwargs)
        return _BUILT[key]

    return build


def _layer_table(model):
    def shape(layer):
        s = layer.output_shape
        if isinstance(s, list) and len(s) == 1:
            s = s[0]  # tf.keras answers [shape] for an InputLayer, torchflow shape
        return [tuple(x) for x in s] if isinstance(s, list) else tuple(s)

    # By name: torchflow's Functional lists a branching graph's layers in creation
    # order, tf.keras by depth (reported in issue 19); the set must be the same.
    return {layer.name: (shape(layer), layer.count_params()) for layer in model.layers}


@pytest.fixture
def assert_architecture_matches_tf(reference_model):
    """Builds ``name(weights=None, **kwargs)`` with torchflow (fresh session) and asserts
    its name, parameter counts, output shape and per-layer table equal real tf.keras's."""

    def check(name, kwargs):
        theirs = reference_model(name, **kwargs)
        tf.keras.backend.clear_session()  # the same automatic names (conv2d_3...) on both sides
        ours = getattr(tf.keras.applications, name)(weights=None, **kwargs)
        assert ours.name == theirs.name
        assert ours.count_params() == theirs.count_params()
        assert len(ours.trainable_weights) == len(theirs.trainable_weights)
        assert tuple(ours.output_shape) == tuple(theirs.output_shape)
        assert len(ours.layers) == len(theirs.layers)
        ours_t, theirs_t = _layer_table(ours), _layer_table(theirs)
        if name == "InceptionResNetV2":
            # TF 2.4 adds each residual as Lambda layer "block35_1"...; 2.21 as an unnamed
            # CustomScaleLayer. Same count, shapes and (no) parameters.
            block = r"block(35|17|8)_\d+"
            ours_s = sorted(v for k, v in ours_t.items() if re.fullmatch(block, k))
            theirs_s = sorted(v for k, v in theirs_t.items()
                              if k.startswith("custom_scale_layer"))
            assert ours_s == theirs_s and len(ours_s) == 40
            ours_t = {k: v for k, v in ours_t.items() if not re.fullmatch(block, k)}
            theirs_t = {k: v for k, v in theirs_t.items()
                        if not k.startswith("custom_scale_layer")}
        assert ours_t == theirs_t

    return check
