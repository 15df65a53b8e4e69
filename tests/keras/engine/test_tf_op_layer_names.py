"""Operators on KerasTensors make TFOpLambda layers named after the op tf.keras
names them after (``x * 2`` is "tf.math.multiply", ``x + 1`` "tf.__operators__.add"),
and a rebuilt model computes the same (``2 - x`` stays ``2 - x``)."""

from __future__ import annotations

import numpy as np

import torchflow as tf
from torchflow._src.testing import real_tf


def _names(mod):
    mod.keras.backend.clear_session()
    x = mod.keras.Input((3,))
    outs = [x + 3.0, x - 1.0, x * 2.0, x / 2.0, x // 2.0, x % 2.0, x ** 2.0, -x, abs(x),
            x[:, 0], x < 1.0, 3.0 * x, 2.0 - x, 2.0 / x, 1.0 + x]
    return [o._keras_history[0].name for o in outs]


def test_operator_layer_names_match_tf_keras():
    assert _names(tf) == _names(real_tf())


def test_reversed_operator_round_trips_through_config():
    x = tf.keras.Input((3,))
    model = tf.keras.Model(x, [2.0 - x, 8.0 / x])
    clone = tf.keras.Model.from_config(model.get_config())
    v = np.array([[1.0, 2.0, 4.0]], "float32")
    for a, b in zip(clone(v), model(v)):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    np.testing.assert_allclose(clone(v)[0].numpy(), 2.0 - v)
