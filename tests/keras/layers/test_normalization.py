"""BatchNormalization and LayerNormalization: layer_test contract, training vs
inference, moving statistics vs NumPy and vs real tf.keras after several
training-mode calls, symbolic calls, trainable=False and mixed precision."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers


@pytest.mark.parametrize("kwargs,shape,training", [
    ({}, (4, 3), None),
    ({}, (4, 3, 3, 2), None),
    ({}, (4, 3, 3, 2), True),
    ({"axis": 1, "center": False}, (4, 3, 5), True),
    ({"axis": [1, 2], "scale": False}, (4, 3, 5), True),
    ({"axis": 1}, (4, 2, 3, 3), True),
])
def test_batch_norm_contract(kwargs, shape, training):
    layer_test(L.BatchNormalization, kwargs, input_shape=shape,
               call_kwargs={} if training is None else {"training": training})


@pytest.mark.parametrize("kwargs,shape", [
    ({}, (4, 3)), ({"axis": [1, 2], "scale": False}, (4, 3, 5)), ({"epsilon": 0.1}, (2, 3, 4)),
])
def test_layer_norm_contract(kwargs, shape):
    layer_test(L.LayerNormalization, kwargs, input_shape=shape)


@pytest.mark.parametrize("shape,axis", [((8, 2, 2, 3), -1), ((8, 3), -1), ((8, 3, 2, 2), 1),
                                        ((6, 2, 2, 2, 3), -1), ((8, 3, 4), -1)])
def test_moving_statistics_match_tf_keras_after_training_calls(shape, axis):
    tf_ref = real_tf()
    x = np.random.default_rng(1).normal(size=shape).astype(np.float32) * 3 + 1
    a = L.BatchNormalization(axis=axis, momentum=0.8)
    b = tf_ref.keras.layers.BatchNormalization(axis=axis, momentum=0.8)
    for i in range(3):
        ya = a(x * (i + 1), training=True)
        yb = b(x * (i + 1), training=True)
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_allclose(wa, wb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ya.numpy(), yb.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(a(x).numpy(), b(x).numpy(), rtol=1e-4, atol=1e-4)


def test_batch_norm_training_vs_inference_numpy_reference():
    x = np.random.default_rng(2).normal(size=(16, 3)).astype(np.float32) * 2 + 5
    bn = L.BatchNormalization(momentum=0.9, epsilon=1e-3)
    y = bn(x, training=True).numpy()
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4,
                               atol=1e-4)
    mm, mv = bn.moving_mean.numpy(), bn.moving_variance.numpy()
    np.testing.assert_allclose(mm, 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(mv, 0.9 + 0.1 * x.var(0), rtol=1e-5)
    y_inf = bn(x).numpy()  # inference: moving statistics, no update
    np.testing.assert_allclose(y_inf, (x - mm) / np.sqrt(mv + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), mm)


def test_no_update_in_symbolic_pass_and_frozen_layer_runs_inference():
    bn = L.BatchNormalization()
    inp = tf.keras.Input((3,))
    model = tf.keras.Model(inp, bn(inp, training=True))
    np.testing.assert_array_equal(bn.moving_mean.numpy(), np.zeros(3))
    x = np.full((4, 3), 2.0, np.float32) + np.arange(4, dtype=np.float32)[:, None]
    model(x)
    assert np.all(bn.moving_mean.numpy() != 0)
    frozen = L.BatchNormalization(trainable=False)
    y = frozen(x, training=True).numpy()
    np.testing.assert_allclose(y, x / np.sqrt(1 + 1e-3), rtol=1e-5)
    np.testing.assert_array_equal(frozen.moving_mean.numpy(), np.zeros(3))
    assert len(frozen.non_trainable_weights) == 4 and not frozen.trainable_weights


def test_weight_order_names_and_config_match_tf_keras():
    tf_ref = real_tf()
    ours, theirs = L.BatchNormalization(), tf_ref.keras.layers.BatchNormalization()
    ours(np.zeros((2, 3), np.float32))
    theirs(np.zeros((2, 3), np.float32))
    assert [w.name.split("/")[-1] for w in ours.weights] == \
        [w.name.split("/")[-1] for w in theirs.weights]
    assert set(ours.get_config()) == set(theirs.get_config())
    assert set(L.LayerNormalization().get_config()) == \
        set(tf_ref.keras.layers.LayerNormalization().get_config())


@pytest.mark.parametrize("shape", [(4, 3), (4, 2, 2, 3)])
def test_mixed_float16_statistics_in_float32(shape):
    tf.keras.mixed_precision.set_global_policy("mixed_float16")
    bn = L.BatchNormalization()
    x = (np.random.default_rng(3).normal(size=shape) * 100 + 1000).astype(np.float32)
    y = bn(x, training=True)
    assert y.dtype == tf.float16 and bn.moving_mean.dtype == tf.float32
    red = tuple(range(len(shape) - 1))
    ref = (x - x.mean(red)) / np.sqrt(x.var(red) + 1e-3)
    np.testing.assert_allclose(y.numpy().astype(np.float32), ref, atol=2e-2)
    ln = L.LayerNormalization()
    assert ln(x).dtype == tf.float16


def test_gradients_flow_to_gamma_beta_and_inputs():
    tf_ref = real_tf()
    x = np.random.default_rng(4).normal(size=(6, 2, 2, 3)).astype(np.float32)
    a, b = L.BatchNormalization(), tf_ref.keras.layers.BatchNormalization()
    a(x)
    b(x)
    xa, xb = tf.constant(x), tf_ref.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xa)
        la = tf.reduce_sum(a(xa, training=True) ** 3)
    ga = tape.gradient(la, [xa] + a.trainable_weights)
    with tf_ref.GradientTape() as tape:
        tape.watch(xb)
        lb = tf_ref.reduce_sum(b(xb, training=True) ** 3)
    gb = tape.gradient(lb, [xb] + b.trainable_weights)
    for u, v in zip(ga, gb):
        np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("name", ["BatchNormalization", "LayerNormalization"])
def test_axis_in_config_after_build_like_tf_keras(name):
    tf_ref = real_tf()
    ours, theirs = getattr(L, name)(), getattr(tf_ref.keras.layers, name)()
    assert ours.get_config()["axis"] == theirs.get_config()["axis"] == -1
    x = np.zeros((2, 3, 4), np.float32)
    ours(x)
    theirs(x)
    assert ours.get_config()["axis"] == list(theirs.get_config()["axis"]) == [2]
