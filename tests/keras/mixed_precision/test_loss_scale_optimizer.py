"""LossScaleOptimizer against real tf.keras (skips on inf, halves, grows)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _run(mod, grads_seq, **kwargs):
    inner = getattr(mod.keras.optimizers, "legacy", mod.keras.optimizers).SGD(0.1)
    opt = mod.keras.mixed_precision.LossScaleOptimizer(inner, **kwargs)
    v = mod.Variable([1.0, 2.0])
    trace = []
    for g in grads_seq:
        opt.apply_gradients([(mod.constant(g, dtype="float32"), v)])
        counter = opt.dynamic_counter
        trace.append((v.numpy().copy(), float(opt.loss_scale),
                      None if counter is None else int(counter.numpy()),
                      int(opt.iterations.numpy())))
    return trace, opt


GRADS = [[1.0, 1.0], [np.inf, 1.0], [np.nan, 0.0], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5],
         [1.0, -1.0]]


@pytest.mark.parametrize("kwargs", [dict(initial_scale=8.0, dynamic_growth_steps=2),
                                    dict(), dict(dynamic=False, initial_scale=4.0)])
def test_matches_tf_keras(kwargs):
    got, ours = _run(tf, GRADS, **kwargs)
    want, ref = _run(real_tf(), GRADS, **kwargs)
    for (gv, gs, gc, gi), (wv, ws, wc, wi) in zip(got, want):
        np.testing.assert_allclose(gv, wv, rtol=1e-6)
        assert (gs, gc, gi) == (ws, wc, wi)
    assert ours.dynamic == ref.dynamic
    cfg = ours.get_config()
    assert cfg["dynamic"] == ref.get_config()["dynamic"]
    assert cfg["initial_scale"] == ref.get_config()["initial_scale"]


def test_scaled_loss_unscaled_gradients_and_minimize():
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1),
                                                      initial_scale=4.0)
    assert float(opt.get_scaled_loss(tf.constant(2.0))) == 8.0
    assert float(opt.get_scaled_loss(lambda: tf.constant(2.0))()) == 8.0
    g = opt.get_unscaled_gradients([tf.constant([8.0]), None])
    assert g[1] is None and float(g[0][0]) == 2.0
    v = tf.Variable(3.0)
    opt.minimize(lambda: v * v, [v])
    assert float(v.numpy()) == pytest.approx(3.0 - 0.1 * 6.0)
    with tf.GradientTape() as tape:
        loss = v * v
    opt.minimize(loss, [v], tape=tape)
    assert float(v.numpy()) == pytest.approx(2.4 - 0.1 * 4.8)
    opt.learning_rate = 0.5
    assert float(opt.inner_optimizer.learning_rate.numpy()) == 0.5


def test_argument_errors_and_serialization():
    sgd = tf.keras.optimizers.SGD()
    with pytest.raises(TypeError):
        tf.keras.mixed_precision.LossScaleOptimizer("sgd")
    with pytest.raises(ValueError):
        tf.keras.mixed_precision.LossScaleOptimizer(sgd, dynamic=False)
    opt = tf.keras.mixed_precision.LossScaleOptimizer(sgd, initial_scale=16.0)
    with pytest.raises(TypeError):
        tf.keras.mixed_precision.LossScaleOptimizer(opt)
    again = tf.keras.optimizers.deserialize(tf.keras.optimizers.serialize(opt))
    assert isinstance(again, tf.keras.mixed_precision.LossScaleOptimizer)
    assert again.get_config() == opt.get_config()
