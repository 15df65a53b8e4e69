"""``tf.while_loop`` and AutoGraph's ``for``/``while`` on tensors in SavedModels, both
ways with real TF.

The same module is written for real TF and for torchflow: a counted ``tf.while_loop``,
``for i in tf.range(n)``, a data-dependent ``while`` whose stand-in values would never
end it, a loop that assigns a variable, ``maximum_iterations`` from an argument, a
``for`` over a tensor's rows, a ``break`` (a cond in the body reading an outer
tensor), and nested loops. Saved by torchflow (``While`` nodes with the condition and
body as functions), it serves TF's values in real TF and in torchflow on inputs the
trace never saw; saved by real TF, it serves them in torchflow. The expected values
are real TF's, run unsaved.
"""

from __future__ import annotations

import numpy as np
import pytest
from saved_model_helpers import served_both_ways

import torchflow as tf
from torchflow._src.testing import assert_all_close, real_tf

pytestmark = pytest.mark.compat


def _module(m):
    vec, i32 = m.TensorSpec([None], m.float32), m.TensorSpec([], m.int32)
    mat = m.TensorSpec([None, 3], m.float32)

    class M(m.Module):
        def __init__(self):
            super().__init__()
            self.v = m.Variable(1.0)

        @m.function(input_signature=[vec, i32])
        def counted(self, x, n):
            _, acc = m.while_loop(lambda i, a: i < n,
                                  lambda i, a: (i + 1, a + x * m.cast(i, m.float32)),
                                  (m.constant(0), m.zeros_like(x)))
            return acc

        @m.function(input_signature=[vec, i32])
        def ranged(self, x, n):
            acc = m.zeros_like(x)
            for i in m.range(n):
                acc += x * m.cast(i, m.float32)
            return acc

        @m.function(input_signature=[vec])
        def doubling(self, x):
            steps = 0
            while m.reduce_sum(x) < 100.0:
                x = x * 2.0
                steps += 1
            return x, steps

        @m.function(input_signature=[i32])
        def bumps(self, k):
            for _ in m.range(k):
                self.v.assign_add(0.5)
            return self.v.read_value()

        @m.function(input_signature=[vec, i32])
        def capped(self, x, m_):
            return m.while_loop(lambda y: m.reduce_sum(y) < 1e6, lambda y: y * 3.0, [x],
                                maximum_iterations=m_)

        @m.function(input_signature=[mat])
        def rows(self, x):
            acc = m.zeros([3])
            for r in x:
                acc += r * r
            return acc

        @m.function(input_signature=[vec, i32])
        def breaks(self, x, n):
            acc = m.constant(0.0)
            for i in m.range(n):
                if acc > 10.0:
                    break
                acc += m.reduce_sum(x) * m.cast(i, m.float32)
            return acc

        @m.function(input_signature=[i32])
        def nested(self, n):
            total = m.constant(0)
            for i in m.range(n):
                for j in m.range(i):
                    total += i * j
            return total

    return M()


def _run(lib, mod):
    """Each function on inputs taking zero, one and many iterations, in order (the
    variable's updates accumulate): the results as NumPy values."""
    c = lib.constant
    x = np.array([1.0, -2.0, 0.5], np.float32)
    out = [mod.counted(x, c(4)), mod.counted(x[:1], c(0)), mod.ranged(x, c(3)),
           mod.ranged(x[:2], c(0)), mod.doubling(x), mod.doubling(np.array([200.0], np.float32)),
           mod.bumps(c(3)), mod.bumps(c(0)), mod.v.read_value(),
           mod.capped(x[:1], c(2)), mod.capped(np.array([2.0, 3.0], np.float32), c(50)),
           mod.rows(np.arange(12, dtype=np.float32).reshape(4, 3)),
           mod.rows(np.zeros((0, 3), np.float32)),
           mod.breaks(x, c(10)), mod.breaks(-x, c(3)), mod.nested(c(5)), mod.nested(c(0))]
    return [np.asarray(t) for t in lib.nest.flatten(out)]


def _assert_same(got: list, want: list):
    assert_all_close(got, want, rtol=1e-6, atol=0)


@pytest.mark.parametrize("saver", ["torchflow", "tf"])
def test_loops_saved_serve_tf_values(saver, tmp_path):
    def check(mod):
        for f in (mod.counted, mod.ranged, mod.breaks):
            assert "While" in [op.type for op in f.get_concrete_function().graph.get_operations()]

    want, served = served_both_ways(saver, tmp_path, _module, _run, check)
    for got in served:
        _assert_same(got, want)


def test_loop_body_that_reads_a_loop_value_into_python_is_refused(tmp_path):
    """A body whose Python reads a loop variable's value cannot be one loop body."""
    mod = tf.Module()
    mod.f = tf.function(
        lambda n: tf.while_loop(lambda i: i < n, lambda i: i + int(i) + 1, [tf.constant(0)]),
        input_signature=[tf.TensorSpec([], tf.int32)])
    with pytest.raises(tf.errors.UnimplementedError, match="Cannot save tf.function"):
        tf.saved_model.save(mod, str(tmp_path))


def _repeat_model(m):
    class Repeat(m.keras.layers.Layer):
        """A residual tanh step applied a traced number of times, AutoGraph's ``for``."""

        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(input_shape[-1], input_shape[-1]),
                                     initializer="identity")

        def call(self, x):
            for _ in m.range(3):
                x = m.tanh(m.matmul(x, self.w) + x)
            return x

    inp = m.keras.Input((4,))
    return m.keras.Model(inp, m.keras.layers.Dense(2)(Repeat()(inp)))


def test_keras_layer_with_a_tensor_loop_saved_serves_in_tf(tmp_path):
    """``model.save`` of a custom layer whose ``call`` loops over ``tf.range``: the
    serving signature in real TF predicts what the model predicted, for a batch size
    the trace never saw."""
    rtf = real_tf()
    x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    model = _repeat_model(tf)
    want = np.tanh(np.tanh(np.tanh(2 * x) * 2) * 2) @ model.layers[-1].kernel.numpy() + \
        model.layers[-1].bias.numpy()  # identity w: three steps of tanh(2x)
    np.testing.assert_allclose(model(x).numpy(), want, rtol=1e-5, atol=1e-6)
    model.save(str(tmp_path))
    serve = rtf.saved_model.load(str(tmp_path)).signatures["serving_default"]
    got = list(serve(rtf.constant(x)).values())[0].numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
