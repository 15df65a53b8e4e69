"""Noise layers: identity at inference (vs tf.keras through layer_test), and the
training-mode statistics against their analytic values."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test

L = tf.keras.layers


@pytest.mark.parametrize("cls,kwargs", [
    (L.GaussianNoise, {"stddev": 0.5}), (L.GaussianDropout, {"rate": 0.5}),
    (L.AlphaDropout, {"rate": 0.5}),
])
def test_noise_contract(cls, kwargs):
    layer_test(cls, kwargs, input_shape=(2, 4))


def test_gaussian_noise_statistics():
    x = np.zeros((400, 100), np.float32)
    y = L.GaussianNoise(0.5, seed=3)(x, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 0.5) < 0.01


def test_gaussian_dropout_statistics():
    x = np.ones((400, 100), np.float32)
    y = L.GaussianDropout(0.2)(x, training=True).numpy()
    assert abs(y.mean() - 1) < 0.01 and abs(y.std() - np.sqrt(0.2 / 0.8)) < 0.01


def test_alpha_dropout_keeps_selu_mean_and_variance():
    x = np.random.default_rng(0).normal(size=(500, 200)).astype(np.float32)
    y = L.AlphaDropout(0.2)(x, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.2) * (1 + 0.2 * alpha_p ** 2)) ** -0.5
    dropped = a * alpha_p - a * alpha_p * 0.2  # every dropped unit takes this value
    assert abs(np.mean(np.isclose(y, dropped, atol=1e-5)) - 0.2) < 0.01


def test_mixed_precision_training_dtype():
    tf.keras.mixed_precision.set_global_policy("mixed_float16")
    for layer in (L.GaussianNoise(0.1), L.GaussianDropout(0.1), L.AlphaDropout(0.1),
                  L.Dropout(0.1)):
        assert layer(np.ones((2, 3), np.float32), training=True).dtype == tf.float16
