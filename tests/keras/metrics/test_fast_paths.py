"""The metric and loss shortcuts ``fit`` takes every step give tf.keras' values.

``SparseCategoricalAccuracy`` compares integer labels with the arg-max without
casting both to float, the compiled loss updates its ``loss`` metric from a
Python batch size, and SUM_OVER_BATCH_SIZE reduces with one mean. Each case
runs the same inputs through real tf.keras 2.21.
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _logits(n=12, c=5, seed=0, nan_rows=()):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c)).astype(np.float32)
    for r in nan_rows:
        x[r, 1] = np.nan
    return x


@pytest.mark.parametrize("label_dtype", ["int32", "int64", "float32"])
@pytest.mark.parametrize("label_shape", ["flat", "column"])
@pytest.mark.parametrize("weighted", [False, True])
def test_sparse_categorical_accuracy_matches_tf_keras(label_dtype, label_shape, weighted):
    tf_ref = real_tf()
    rng = np.random.default_rng(1)
    batches = []
    for i in range(3):
        x = _logits(seed=i, nan_rows=(2,) if i == 1 else ())
        y = rng.integers(0, 5, size=(12,)).astype(label_dtype)
        y = y[:, None] if label_shape == "column" else y
        sw = rng.random(12).astype(np.float32) if weighted else None
        batches.append((x, y, sw))
    ours = tf.keras.metrics.SparseCategoricalAccuracy()
    ref = tf_ref.keras.metrics.SparseCategoricalAccuracy()
    for x, y, sw in batches:
        ours.update_state(y, x, sample_weight=sw)
        ref.update_state(y, x, sample_weight=sw)
        np.testing.assert_allclose(ours.result().numpy(), ref.result().numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.count.numpy(), ref.count.numpy(), rtol=1e-6)


def test_accuracy_by_name_in_compile_matches_tf_keras_evaluate():
    tf_ref = real_tf()
    rng = np.random.default_rng(2)
    x = rng.standard_normal((37, 6)).astype(np.float32)
    y = rng.integers(0, 4, size=(37,)).astype(np.int32)

    def build(keras):
        m = keras.Sequential([keras.layers.Dense(4, input_shape=(6,))])
        m.compile(optimizer="sgd", metrics=["accuracy"],
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return m

    ours, ref = build(tf.keras), build(tf_ref.keras)
    ours.set_weights(ref.get_weights())
    # batches of 8: the last one has 5 samples, so the loss is a weighted mean
    got = ours.evaluate(x, y, batch_size=8, verbose=0)
    want = ref.evaluate(x, y, batch_size=8, verbose=0)
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("reduction", ["auto", "sum_over_batch_size", "sum", "none"])
def test_loss_reductions_match_tf_keras(reduction):
    tf_ref = real_tf()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 3)).astype(np.float32)
    y = rng.standard_normal((9, 3)).astype(np.float32)
    sw = rng.random(9).astype(np.float32)
    for kwargs in ({}, {"sample_weight": sw}):
        got = tf.keras.losses.MeanSquaredError(reduction=reduction)(y, x, **kwargs)
        want = tf_ref.keras.losses.MeanSquaredError(reduction=reduction)(y, x, **kwargs)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_loss_metric_of_an_unreduced_loss_matches_tf_keras():
    """A compiled loss with reduction NONE gives a vector; the loss metric still
    averages it over the batch as tf.keras does."""
    tf_ref = real_tf()
    rng = np.random.default_rng(4)
    x = rng.standard_normal((10, 3)).astype(np.float32)
    y = rng.standard_normal((10, 2)).astype(np.float32)

    def build(keras):
        m = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
        m.compile(optimizer="sgd", loss=keras.losses.MeanSquaredError(reduction="none"))
        return m

    ours, ref = build(tf.keras), build(tf_ref.keras)
    ours.set_weights(ref.get_weights())
    np.testing.assert_allclose(ours.evaluate(x, y, batch_size=4, verbose=0),
                               ref.evaluate(x, y, batch_size=4, verbose=0), rtol=1e-5)
