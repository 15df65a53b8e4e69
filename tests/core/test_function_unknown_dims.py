"""A signature with unknown (None) dimensions: once its body has run at two sizes
(>= 2) of those dimensions to the same recording, other sizes replay without the
Python running again (TF traces such a signature once; torchflow's body runs at
two or three sizes, as caches warm on the first call, and again at sizes 0 and 1,
which ops treat specially). Values are checked
against NumPy at every size, including recordings that bake a size in."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf

SIZES = (4, 5, 6, 7, 2, 9, 12)
MORE = (13, 20, 3)


def _check_runs(runs, call):
    """At most three runs of the body's Python over SIZES, none for sizes after them."""
    assert 2 <= len(runs) <= 3
    seen = len(runs)
    for n in MORE:
        call(n)
    assert len(runs) == seen


def _x(n, cols=3):
    return np.arange(n * cols, dtype=np.float32).reshape(n, cols) / 7


def test_elementwise_and_reductions_replay_at_new_sizes():
    runs = []
    v = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def f(x):
        runs.append(1)  # Python: at tracing only
        return tf.reduce_sum(tf.nn.relu(x - 0.5) * v, axis=1), tf.reduce_mean(x)

    for n in SIZES:
        a, b = f(_x(n))
        x = _x(n)
        np.testing.assert_allclose(a.numpy(), (np.maximum(x - 0.5, 0) * 2).sum(1), rtol=1e-6)
        np.testing.assert_allclose(b.numpy(), x.mean(), rtol=1e-6)
    _check_runs(runs, lambda n: f(_x(n)))
    assert f.experimental_get_tracing_count() == 1


def test_sizes_zero_and_one_are_recorded_apart():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        runs.append(1)
        return tf.reduce_mean(x), tf.reduce_sum(x)

    for n in (4, 5, 1, 0, 6):
        m, s = f(np.arange(n, dtype=np.float32))
        ref = np.arange(n, dtype=np.float32)
        np.testing.assert_allclose(m.numpy(), ref.mean() if n else np.nan)
        np.testing.assert_allclose(s.numpy(), ref.sum())
    assert len(runs) <= 5  # 4 and 5 (6 if caches warmed at 4), 1, 0
    seen = len(runs)
    f(np.arange(8, dtype=np.float32))
    assert len(runs) == seen


def test_a_recording_that_bakes_a_size_in_records_per_size():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def f(x):
        runs.append(1)
        n = float(x.shape[0])  # a static size read into Python: a literal of the recording
        return tf.reduce_sum(x) / n + tf.ones([x.shape[0]])

    for n in SIZES:
        x = _x(n, 2)
        np.testing.assert_allclose(f(x).numpy(), x.sum() / n + np.ones(n), rtol=1e-6)
    assert len(runs) == len(SIZES)


def test_sizes_read_with_tf_shape_replay_at_new_sizes():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def f(x):
        runs.append(1)
        n = tf.cast(tf.shape(x)[0], tf.float32)  # a node that reads the size on each call
        return tf.reduce_sum(x) / n + tf.ones([tf.shape(x)[0]])

    for n in SIZES:
        x = _x(n, 2)
        np.testing.assert_allclose(f(x).numpy(), x.sum() / n + np.ones(n), rtol=1e-6)
    _check_runs(runs, lambda n: f(_x(n, 2)))


def test_python_value_outputs_keep_their_size():
    @tf.function(experimental_relax_shapes=True)
    def f(x):
        return x * 2.0, x.shape[0]

    for n in (3, 4, 5, 6, 7):
        y, size = f(tf.ones([n]))
        assert size == n and y.shape == (n,)


def test_side_effects_run_on_every_replay():
    v = tf.Variable(0.0)
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        runs.append(1)
        v.assign_add(tf.reduce_sum(x))
        return v.read_value()

    total = 0.0
    for n in SIZES:
        total += float(np.arange(n).sum())
        assert f(np.arange(n, dtype=np.float32)).numpy() == pytest.approx(total)
    _check_runs(runs, lambda n: f(np.arange(n, dtype=np.float32)))
    assert v.numpy() == pytest.approx(total + sum(float(np.arange(n).sum()) for n in MORE))


def test_keras_model_in_a_function_replays_for_new_batch_sizes():
    m = tf.keras.Sequential([
        tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
        tf.keras.layers.MaxPool2D(), tf.keras.layers.Flatten(), tf.keras.layers.Dense(3),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.Dropout(0.5)])
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None, 8, 8, 1])])
    def f(x):
        runs.append(1)
        return m(x, training=False)

    rng = np.random.RandomState(0)
    for n in SIZES:
        x = rng.rand(n, 8, 8, 1).astype(np.float32)
        want = m(x, training=False).numpy()
        np.testing.assert_allclose(f(x).numpy(), want, rtol=1e-5, atol=1e-6)
    _check_runs(runs, lambda n: f(rng.rand(n, 8, 8, 1).astype(np.float32)))


def test_tf_print_runs_on_every_replay(capfd):
    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        tf.print("sum", tf.reduce_sum(x))
        return x + 1

    for n in (3, 4, 5, 6):
        f(np.ones(n, np.float32))
    err = capfd.readouterr().err
    assert [line for line in err.splitlines() if line.startswith("sum")] == \
        ["sum 3", "sum 4", "sum 5", "sum 6"]
