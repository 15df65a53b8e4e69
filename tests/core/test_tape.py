"""tf.GradientTape against real TensorFlow: values, 1st/2nd derivatives, jacobians,
and TF's rules (watching, persistence, unconnected sources, threads)."""

import logging
import threading

import numpy as np
import pytest
import torch

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf


def _both(fn, *arrays, persistent=False):
    """Runs fn(lib, *tensors) under a tape in torchflow and real TF; returns both
    (value, gradients)."""
    rtf = real_tf()
    out = []
    for lib in (tf, rtf):
        xs = [lib.constant(a) for a in arrays]
        with lib.GradientTape(persistent=persistent) as tape:
            for x in xs:
                tape.watch(x)
            y = fn(lib, *xs)
        out.append((y, tape.gradient(y, xs)))
    return out


CASES = [
    ("mul_add", lambda lib, x, y: lib.reduce_sum(x * y + x)),
    ("exp_tanh", lambda lib, x, y: lib.reduce_sum(lib.exp(x) * lib.tanh(y))),
    ("div_sqrt", lambda lib, x, y: lib.reduce_sum(x / (lib.sqrt(y * y + 1.0)))),
    ("max_min", lambda lib, x, y: lib.reduce_sum(lib.maximum(x, y) - lib.minimum(x, 0.5))),
    ("mean_sq", lambda lib, x, y: lib.reduce_mean(lib.square(x - y))),
    ("sigmoid_pow", lambda lib, x, y: lib.reduce_sum(lib.sigmoid(x) ** 2.0 * y)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_first_derivatives_match_tf(name, fn):
    x, y = rand([3, 4], seed=1), rand([3, 4], seed=2)
    (yo, go), (yt, gt) = _both(fn, x, y)
    assert_close(yo, yt.numpy(), rtol=1e-5, atol=1e-5)
    for a, b in zip(go, gt):
        assert_close(a, b.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,fn", CASES[:4], ids=[c[0] for c in CASES[:4]])
def test_second_derivatives_match_tf(name, fn):
    rtf = real_tf()
    x, y = rand([5], seed=3), rand([5], seed=4)
    results = []
    for lib in (tf, rtf):
        xs = [lib.constant(x), lib.constant(y)]
        with lib.GradientTape() as outer:
            outer.watch(xs)
            with lib.GradientTape() as inner:
                inner.watch(xs)
                v = fn(lib, *xs)
            g = inner.gradient(v, xs[0])
            s = lib.reduce_sum(g * g)
        results.append(outer.gradient(s, xs))
    for a, b in zip(*results):
        if b is None:
            assert a is None
        else:
            assert_close(a, b.numpy(), rtol=1e-4, atol=1e-5)


def test_jacobian_and_batch_jacobian_match_tf():
    rtf = real_tf()
    x = rand([4, 3], seed=5)
    res = []
    for lib in (tf, rtf):
        t = lib.constant(x)
        with lib.GradientTape(persistent=True) as tape:
            tape.watch(t)
            y = lib.tanh(t) * lib.reduce_sum(t, axis=1, keepdims=True)
            z = lib.exp(t)
        res.append((tape.jacobian(y, t), tape.batch_jacobian(y, t),
                    tape.jacobian(z, [t, t], experimental_use_pfor=False)))
    (j1, b1, l1), (j2, b2, l2) = res
    assert j1.shape == (4, 3, 4, 3) and b1.shape == (4, 3, 3)
    assert_close(j1, j2.numpy(), rtol=1e-5, atol=1e-6)
    assert_close(b1, b2.numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(l1, l2):
        assert_close(a, b.numpy(), rtol=1e-5, atol=1e-6)


def test_variables_are_watched_automatically_and_in_access_order():
    v1, v2 = tf.Variable(2.0), tf.Variable(3.0)
    nt = tf.Variable(4.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v2 * v1 * nt
    assert tape.watched_variables() == (v2, v1)
    g1, g2, g3 = tape.gradient(y, [v1, v2, nt])
    assert float(g1) == 12.0 and float(g2) == 8.0 and g3 is None


def test_watch_accessed_variables_false_and_explicit_watch():
    v, w = tf.Variable(2.0), tf.Variable(5.0, trainable=False)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None and float(gw) == 2.0


def test_non_persistent_tape_refuses_second_call():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used"):
        tape.gradient(y, x)


def test_persistent_tape_many_calls():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert float(tape.gradient(y, x)) == 6.0
    assert float(tape.gradient(z, x)) == 27.0
    assert float(tape.gradient(z, y)) == 3.0  # intermediate as a source


def test_unconnected_and_unwatched_sources():
    x, c = tf.constant(3.0), tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
    assert tape.gradient(y, c) is None
    assert float(tape.gradient(y, c, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == 0
    assert float(tape.gradient(y, c, unconnected_gradients="zero")) == 0
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="foo")
    with pytest.raises(ValueError, match="not tf.Tensor or tf.Variable"):
        tape.watch(1.0)


def test_integer_sources_give_none_with_tf_warning(caplog):
    i = tf.constant(3)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape() as tape:
            tape.watch(i)
            y = i * i
        assert tape.gradient(y, i) is None
    assert "must be floating" in caplog.text


def test_nested_structures_and_output_gradients_match_tf():
    rtf = real_tf()
    res = []
    for lib in (tf, rtf):
        x = lib.constant(2.0)
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        res.append(tape.gradient([y, {"a": y}], {"p": x, "q": [x]},
                                 output_gradients=[2.0, {"a": 3.0}]))
    assert float(res[0]["p"]) == float(res[1]["p"]) == 20.0
    assert float(res[0]["q"][0]) == 20.0


def test_stop_recording_and_reset():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            assert not torch.is_grad_enabled()
            z = x * x
        y = x * 3.0
    assert tape.gradient(z, x) is None
    assert float(tape.gradient(y, x)) == 3.0
    with pytest.raises(RuntimeError, match="not recording"):
        with tape.stop_recording():
            pass
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        tape2.reset()
        y2 = x * 4.0
    assert tape2.gradient(y2, x) is None  # reset forgot the watch


def test_inner_tape_only_sees_what_it_watched():
    rtf = real_tf()
    for lib in (tf, rtf):
        x = lib.constant(3.0)
        with lib.GradientTape() as outer:
            with lib.GradientTape() as inner:
                outer.watch(x)
                y = x * x * x
            assert inner.gradient(y, x) is None
        assert float(outer.gradient(y, x)) == 27.0


def test_grad_mode_only_inside_tapes():
    assert not torch.is_grad_enabled()
    with tf.GradientTape():
        assert torch.is_grad_enabled()
        with tf.GradientTape():
            pass
        assert torch.is_grad_enabled()
    assert not torch.is_grad_enabled()
    x = tf.Variable(1.0)
    assert not (x * 2.0)._t.requires_grad


def test_tapes_are_thread_local():
    x = tf.constant(2.0)
    result = {}
    with tf.GradientTape() as tape:
        tape.watch(x)

        def other():
            result["grad_mode"] = torch.is_grad_enabled()
            result["y_requires_grad"] = (x * x)._t.requires_grad

        t = threading.Thread(target=other)
        t.start()
        t.join()
        y = x * x
    assert result == {"grad_mode": False, "y_requires_grad": False}
    assert float(tape.gradient(y, x)) == 4.0


def test_gradient_of_variable_in_training_step_updates():
    w = tf.Variable([[1.0], [2.0]])
    x = tf.constant([[1.0, 1.0]])
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(x, w))
        g = tape.gradient(loss, w)
        w.assign_sub(0.5 * g)
    np.testing.assert_allclose(w.numpy(), [[-0.5], [0.5]])


def test_forward_accumulator_matches_tf():
    rtf = real_tf()
    res = []
    for lib in (tf, rtf):
        x = lib.constant([1.0, 2.0])
        v = lib.Variable(3.0)
        with lib.autodiff.ForwardAccumulator([x, v], [lib.constant([1.0, 0.5]),
                                                      lib.constant(2.0)]) as acc:
            y = lib.tanh(x) * lib.reduce_sum(x) * v
        res.append((acc.jvp(y), acc.jvp(x), acc.jvp(lib.constant(1.0)),
                    acc.jvp(lib.constant(1.0), unconnected_gradients="zero")))
    (a, b, c, d), (a2, b2, c2, d2) = res
    assert_close(a, a2.numpy(), rtol=1e-5)
    assert_close(b, b2.numpy())
    assert c is None and c2 is None
    assert float(d) == float(d2) == 0.0
