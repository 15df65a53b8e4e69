"""tf.losses / tf.metrics / tf.optimizers / tf.initializers: TF 2.x's aliases of Keras'."""

from __future__ import annotations

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


@pytest.mark.parametrize("ns, name", [("losses", "SparseCategoricalCrossentropy"),
                                      ("metrics", "Mean"), ("optimizers", "Adam"),
                                      ("initializers", "GlorotUniform")])
def test_top_level_aliases_are_the_keras_objects(ns, name):
    rtf = real_tf()
    assert getattr(getattr(rtf, ns), name) is getattr(getattr(rtf.keras, ns), name)
    assert getattr(getattr(tf, ns), name) is getattr(getattr(tf.keras, ns), name)
