"""Functions that read sizes at run time (``tf.shape``, ``tf.size``, Keras
``Flatten``/``Reshape``, ``tf.sequence_mask`` over a dynamic time axis), called at
six batch sizes under real TF and under torchflow: the values must match, and the
Python body must run at most twice here (TF traces a ``None`` dimension once; the
recording that serves every size is found by comparing two of them)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

SIZES = (4, 5, 6, 7, 2, 9)


def _x(n, cols=4):
    return (np.arange(n * cols, dtype=np.float32).reshape(n, cols) - 3) / 7


def shape_ops(m):
    runs = []

    @m.function(input_signature=[m.TensorSpec([None, 4], m.float32)])
    def f(x):
        runs.append(1)
        n = m.shape(x)[0]
        pairs = m.reshape(x, [n, -1, 2])
        idx = m.range(n)
        z = m.zeros([n, 3]) + m.cast(m.reshape(idx, [-1, 1]), m.float32)
        full = m.fill(m.shape(x), 2.5)
        mean = m.reduce_sum(x) / m.cast(m.size(x), m.float32)
        flat = m.reshape(x, m.stack([m.shape(x)[0] * 2, -1]))
        return m.reduce_sum(pairs, 2), idx, z, full, m.ones_like(x) * mean, flat

    return [[o.numpy() for o in f(_x(n))] for n in SIZES], len(runs)


def keras_flatten_reshape(m):
    k = m.keras
    inp = k.Input((6, 2))
    h = k.layers.Reshape((-1, 4))(inp)
    h = k.layers.Flatten()(h)
    h = k.layers.Dense(5, activation="tanh")(h)
    out = k.layers.Reshape((5, 1))(h)
    model = k.Model(inp, out)
    rng = np.random.RandomState(3)
    model.set_weights([rng.randn(*w.shape).astype(np.float32) * 0.3
                       for w in model.get_weights()])
    runs = []

    @m.function(input_signature=[m.TensorSpec([None, 6, 2], m.float32)])
    def f(x):
        runs.append(1)
        return model(x, training=False)

    return [f(rng.rand(n, 6, 2).astype(np.float32)).numpy() for n in SIZES], len(runs)


def sequence_mask(m):
    runs = []

    @m.function(input_signature=[m.TensorSpec([None, None, 2], m.float32),
                                 m.TensorSpec([None], m.int32)])
    def f(x, lengths):
        runs.append(1)
        mask = m.sequence_mask(lengths, m.shape(x)[1])
        w = m.cast(mask, m.float32)[:, :, None]
        return m.reduce_sum(x * w, axis=1) / m.reduce_sum(w, axis=1), mask

    rng = np.random.RandomState(0)
    out = []
    for b, t in zip(SIZES, (5, 3, 8, 2, 6, 4)):
        x = rng.rand(b, t, 2).astype(np.float32)
        lengths = rng.randint(1, t + 1, size=b).astype(np.int32)
        out.append([o.numpy() for o in f(x, lengths)])
    return out, len(runs)


def gradient_step(m):
    w = m.Variable(np.linspace(-1, 1, 4).astype(np.float32))
    runs = []

    @m.function(input_signature=[m.TensorSpec([None, 4], m.float32)])
    def step(x):
        runs.append(1)
        with m.GradientTape() as tape:
            y = m.reshape(x * w, [m.shape(x)[0] * 2, -1])
            loss = m.reduce_sum(y * y) / m.cast(m.shape(x)[0], m.float32)
        g = tape.gradient(loss, w)
        w.assign_sub(0.1 * g)
        return loss, g

    out = [[o.numpy() for o in step(_x(n))] for n in SIZES]
    return out, w.numpy(), len(runs)


@pytest.mark.parametrize("program", [shape_ops, keras_flatten_reshape, sequence_mask],
                         ids=lambda p: p.__name__)
def test_values_match_tf_and_python_runs_at_most_twice(program):
    rtf = real_tf()
    want, tf_runs = program(rtf)
    got, runs = program(tf)
    assert tf_runs == 1
    assert runs <= 2
    for g, w in zip(got, want):
        for a, b in zip(g if isinstance(g, list) else [g], w if isinstance(w, list) else [w]):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_gradient_step_matches_tf():
    rtf = real_tf()
    want, want_w, tf_runs = gradient_step(rtf)
    got, got_w, runs = gradient_step(tf)
    assert tf_runs == 1 and runs <= 2
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-6)
