"""Sizes read with ``tf.shape``/``tf.size`` inside a ``tf.function`` whose signature
leaves a dimension unknown: the recording reads them on every replay, so one
recording serves every size >= 2 (the body's Python runs at most twice, as the
generic mechanism needs two recordings to compare; TF runs it once). The traps:
sizes 0 and 1, sizes that feed Python decisions, shapes of variables and of tensors
whose sizes depend on values, relaxed shapes, gradients, ``jit_compile``. Values are
checked against NumPy at every size."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf

SIZES = (4, 5, 6, 7, 2, 9)


def _x(n, cols=4):
    return (np.arange(n * cols, dtype=np.float32).reshape(n, cols) - 3) / 7


def test_shape_ops_replay_with_the_current_size():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def f(x):
        runs.append(1)
        n = tf.shape(x)[0]
        pairs = tf.reshape(x, [n, -1, 2])
        idx = tf.range(n)
        z = tf.zeros([n, 3])
        full = tf.fill(tf.shape(x), 2.5)
        mean = tf.reduce_sum(x) / tf.cast(tf.size(x), tf.float32)
        flat = tf.reshape(x, tf.stack([tf.shape(x)[0] * 2, -1]))
        return tf.reduce_sum(pairs, 2), idx, z, full, mean, flat, tf.ones_like(x)

    for n in SIZES:
        x = _x(n)
        pairs, idx, z, full, mean, flat, ones = f(x)
        np.testing.assert_allclose(pairs.numpy(), x.reshape(n, 2, 2).sum(2), rtol=1e-6)
        assert idx.numpy().tolist() == list(range(n)) and idx.dtype == tf.int32
        assert z.shape == (n, 3) and full.shape == (n, 4) and ones.shape == (n, 4)
        np.testing.assert_allclose(full.numpy(), np.full((n, 4), 2.5))
        np.testing.assert_allclose(mean.numpy(), x.mean(), rtol=1e-5)
        np.testing.assert_allclose(flat.numpy(), x.reshape(n * 2, 2))
    assert len(runs) <= 2
    seen = len(runs)
    for n in (13, 3, 20):
        assert f(_x(n))[1].shape == (n,)
    assert len(runs) == seen


def test_sizes_zero_and_one():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        runs.append(1)
        n = tf.shape(x)[0]
        return tf.range(n) * 2, tf.zeros([n, 2]), tf.reduce_sum(x) / tf.cast(
            tf.maximum(n, 1), tf.float32)

    for n in (4, 5, 0, 1, 6, 0, 1, 3):
        r, z, m = f(np.arange(n, dtype=np.float32))
        assert r.numpy().tolist() == [2 * i for i in range(n)]
        assert z.shape == (n, 2)
        np.testing.assert_allclose(m.numpy(), np.arange(n).sum() / max(n, 1))
    assert len(runs) <= 4  # 4 and 5 (the generic pair), 0, 1


def test_a_size_read_into_a_python_if_records_per_size():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        runs.append(1)
        if int(tf.shape(x)[0]) > 5:  # Python decides on the size: pinned to it
            return x * 2.0
        return x * 3.0

    for n in (3, 4, 7, 8, 2, 6, 5):
        x = np.ones(n, np.float32)
        np.testing.assert_allclose(f(x).numpy(), x * (2.0 if n > 5 else 3.0))
    assert len(runs) == 7
    np.testing.assert_allclose(f(np.ones(9, np.float32)).numpy(), np.full(9, 2.0))


def test_a_tensor_if_on_the_size_is_a_cond():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        runs.append(1)
        if tf.shape(x)[0] > 5:  # AutoGraph: a cond on the run-time size
            y = x * 2.0
        else:
            y = x * 3.0
        return y

    for n in (3, 4, 7, 8, 2, 6, 5):
        x = np.ones(n, np.float32)
        np.testing.assert_allclose(f(x).numpy(), x * (2.0 if n > 5 else 3.0))
    assert len(runs) <= 2


def test_a_decision_an_op_takes_on_a_size_is_checked_on_replay():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        runs.append(1)
        return tf.zeros([tf.shape(x)[0] - 4])  # negative below 4: TF's error

    for n in (4, 5, 6, 9):
        assert f(np.ones(n, np.float32)).shape == (n - 4,)
    assert len(runs) <= 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -2 must be >= 0"):
        f(np.ones(2, np.float32))
    assert f(np.ones(11, np.float32)).shape == (7,)


def test_side_effects_before_a_guard_run_once_per_call():
    v = tf.Variable(0.0)
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        runs.append(1)
        v.assign_add(1.0)
        return tf.zeros([tf.shape(x)[0] - 4])  # its guard follows the write

    for n in (4, 5, 6, 9):
        assert f(np.ones(n, np.float32)).shape == (n - 4,)
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(np.ones(2, np.float32))
    assert v.numpy() == 5.0  # the failed call wrote once, as TF's does
    assert f(np.ones(10, np.float32)).shape == (6,)
    assert v.numpy() == 6.0


def test_shape_of_a_variable_and_of_a_value_sized_tensor():
    v = tf.Variable(np.ones((3, 2), np.float32))
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        runs.append(1)
        kept = tf.boolean_mask(x, x > 0)  # its size depends on the values
        return tf.reshape(tf.range(tf.size(v)), [-1, tf.shape(v)[1]]), tf.shape(kept)[0], \
            tf.zeros([tf.shape(kept)[0]])

    rng = np.random.RandomState(1)
    for n in SIZES:
        x = rng.randn(n).astype(np.float32)
        r, k, z = f(x)
        np.testing.assert_array_equal(r.numpy(), np.arange(6).reshape(3, 2))
        assert int(k) == int((x > 0).sum()) and z.shape == (int((x > 0).sum()),)


def test_relaxed_shapes_and_no_signature():
    runs = []

    @tf.function(experimental_relax_shapes=True)
    def f(x):
        runs.append(1)
        return tf.reshape(x, [tf.shape(x)[0], -1]) + tf.cast(tf.range(tf.shape(x)[0]),
                                                             tf.float32)[:, None]

    for n in SIZES:
        x = np.ones((n, 2, 3), np.float32)
        np.testing.assert_allclose(f(x).numpy(), 1 + np.arange(n)[:, None] * np.ones((n, 6)))
    assert len(runs) <= 4  # 4 (exact), then the relaxed signature's pair
    seen = len(runs)
    f(np.ones((15, 2, 3), np.float32))
    assert len(runs) == seen


def test_gradients_through_a_reshape_with_a_run_time_shape():
    w = tf.Variable(np.linspace(-1, 1, 4).astype(np.float32))
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def step(x):
        runs.append(1)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reshape(x * w, [tf.shape(x)[0] * 2, -1])
            loss = tf.reduce_sum(y * y) / tf.cast(tf.shape(x)[0], tf.float32)
        return tape.gradient(loss, [x, w])

    for n in SIZES:
        x = _x(n)
        gx, gw = step(x)
        wv = np.linspace(-1, 1, 4).astype(np.float32)
        np.testing.assert_allclose(gx.numpy(), 2 * x * wv * wv / n, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(gw.numpy(), (2 * x * x * wv).sum(0) / n, rtol=1e-5,
                                   atol=1e-7)
    assert len(runs) <= 2


def test_gradient_of_a_call_from_outside():
    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def f(x):
        return tf.reduce_sum(tf.reshape(x, [-1, tf.shape(x)[0] * 2]) ** 2)

    for n in SIZES:
        x = tf.constant(_x(n))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * _x(n), rtol=1e-6)


def test_jit_compile_sees_the_current_size():
    runs = []

    @tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None, 4])])
    def f(x):
        runs.append(1)
        n = tf.shape(x)[0]
        return tf.reshape(x, [n * 2, -1]) * 2.0, tf.range(n), tf.zeros([n])

    for n in (4, 5, 6, 3, 4, 7):
        x = _x(n)
        y, r, z = f(x)
        np.testing.assert_allclose(y.numpy(), x.reshape(n * 2, 2) * 2)
        assert r.numpy().tolist() == list(range(n)) and z.shape == (n,)
    assert len(runs) <= 2


def test_sequence_mask_over_run_time_length():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None, None, 2]), tf.TensorSpec([None],
                                                                               tf.int32)])
    def f(x, lengths):
        runs.append(1)
        mask = tf.sequence_mask(lengths, tf.shape(x)[1])
        m = tf.cast(mask, x.dtype)[:, :, None]
        return tf.reduce_sum(x * m, axis=1) / tf.reduce_sum(m, axis=1)

    rng = np.random.RandomState(0)
    for b, t in ((3, 5), (4, 6), (2, 7), (5, 3), (6, 9), (3, 4)):
        x = rng.rand(b, t, 2).astype(np.float32)
        ln = rng.randint(1, t + 1, size=b).astype(np.int32)
        mask = (np.arange(t)[None] < ln[:, None]).astype(np.float32)[:, :, None]
        np.testing.assert_allclose(f(x, ln).numpy(), (x * mask).sum(1) / mask.sum(1),
                                   rtol=1e-5)
    assert len(runs) <= 2


def test_dataset_map_with_run_time_sizes():
    runs = []

    def fn(x):
        runs.append(1)
        n = tf.shape(x)[0]
        return tf.reshape(x, [n, -1]), tf.range(n), tf.zeros([n - 1])

    ds = tf.data.Dataset.range(2, 9).map(lambda n: tf.ones([n, 2, 2])).map(fn)
    for n, (a, r, z) in zip(range(2, 9), ds):
        assert a.shape == (n, 4) and r.numpy().tolist() == list(range(n))
        assert z.shape == (n - 1,)
    assert len(runs) <= 3  # the dataset's trace, then the generic pair
