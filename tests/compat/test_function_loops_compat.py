"""Loops in a traced tf.function on the first call: the body's Python runs once (at
tracing), its ops, tf.print and variable writes on every iteration, as in TF
(same programs under real TF and torchflow; printed text and values compared)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _run(tf, capfd):
    log = []
    v = tf.Variable(0.0)

    @tf.function
    def loops(n, x):
        total = tf.constant(0.0)
        for i in tf.range(n):
            log.append("for body")  # Python: once per trace
            tf.print("i =", i)
            v.assign_add(tf.cast(i, tf.float32))
            j = tf.constant(0)
            while j < i:  # a nested loop: its Python also once
                log.append("inner body")
                total += x * tf.cast(j, tf.float32)
                j += 1
        k = tf.while_loop(lambda k: k < 100, lambda k: k * 2, [tf.constant(1)],
                          maximum_iterations=n)[0]
        return total, k

    outs = []
    for n in (4, 6):
        outs.append([o.numpy() for o in loops(tf.constant(n), tf.constant(1.5))])
    err = capfd.readouterr().err
    return outs, log, v.numpy(), [line for line in err.splitlines() if line.startswith("i =")]


def test_loop_bodies_python_once_ops_every_iteration(capfd):
    want = _run(real_tf(), capfd)
    got = _run(torchflow, capfd)
    for a, b in zip(got[0], want[0]):
        np.testing.assert_allclose(a, b)
    assert got[1] == want[1] == ["for body", "inner body"]
    assert got[2] == want[2]
    assert got[3] == want[3]


def _grad_through_loop(tf):
    @tf.function
    def f(x, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            i = tf.constant(0)
            while i < n:
                y = y * x + 1.0
                i += 1
        return y, tape.gradient(y, x)

    return [[t.numpy() for t in f(tf.constant(1.3), tf.constant(n))] for n in (3, 5)]


def test_gradient_through_a_loop_on_the_first_call():
    np.testing.assert_allclose(_grad_through_loop(torchflow), _grad_through_loop(real_tf()),
                               rtol=1e-6)


def test_an_error_in_a_later_iteration_is_tf_error():
    for tf in (real_tf(), torchflow):
        @tf.function
        def f(n, tf=tf):
            i = tf.constant(0)
            while i < n:
                tf.debugging.assert_less(i, 3, message="too far")
                i += 1
            return i

        with pytest.raises(tf.errors.InvalidArgumentError, match="too far"):
            f(tf.constant(5))
        assert int(f(tf.constant(2))) == 2


def _dataset_epoch(tf, capfd):
    log = []
    rng = np.random.RandomState(0)
    x = rng.rand(10, 3).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 1.5).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)  # batches of 4, 4, 2
    w = tf.Variable(np.full((3, 1), 0.1, np.float32))
    empty = tf.data.Dataset.range(0)

    @tf.function
    def epoch():
        total = tf.constant(0.0)
        for xb, yb in ds:
            log.append("body")
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((xb @ w - yb) ** 2)
            w.assign_sub(0.1 * tape.gradient(loss, w))
            tf.print("loss", loss)
            total += loss
        count = tf.constant(0, tf.int64)
        for v in empty:
            count += v
        return total, count

    outs = [[t.numpy() for t in epoch()] for _ in range(2)]
    err = capfd.readouterr().err
    return outs, log, w.numpy(), [line for line in err.splitlines() if line.startswith("loss")]


def test_loop_over_a_dataset_is_one_loop(capfd):
    want = _dataset_epoch(real_tf(), capfd)
    got = _dataset_epoch(torchflow, capfd)
    np.testing.assert_allclose(np.array(got[0], dtype=np.float64),
                               np.array(want[0], dtype=np.float64), rtol=1e-5)
    assert got[1] == want[1] == ["body"]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5)
    assert len(got[3]) == len(want[3]) == 6


def _breaks(tf):
    log = []
    ds = tf.data.Dataset.range(10)

    @tf.function
    def f(n):
        total = tf.constant(0.0)
        for i in tf.range(n):
            log.append("range body")
            total += tf.cast(i, tf.float32)
            if total > 4.0:
                break
        s = tf.constant(0, tf.int64)
        for v in ds:
            log.append("dataset body")
            if v % 2 == 0:
                continue
            s += v
            if s > 5:
                break
        k = tf.constant(0)
        j = tf.constant(0)
        while j < n:
            j += 1
            if j % 3 == 0:
                continue
            k += j
        return total, s, k

    return [[t.numpy() for t in f(tf.constant(n))] for n in (2, 8)], log


def test_break_and_continue_in_tensor_loops_trace_once():
    want = _breaks(real_tf())
    got = _breaks(torchflow)
    np.testing.assert_allclose(np.array(got[0], np.float64), np.array(want[0], np.float64))
    assert got[1] == want[1]
