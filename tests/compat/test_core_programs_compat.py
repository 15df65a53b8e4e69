"""Whole core programs in the style of TF's guides (variables updated by slices and
scatters, tapes reused, formatted progress lines, numerics checks, tf.test), run
under real TF and torchflow; everything they print is compared line by line."""

from __future__ import annotations

import io
import unittest

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def sliced_training(m):
    """A linear model whose rows are updated by slices and scatters, with a persistent
    tape answering several gradients, and f-string / %-formatted progress lines."""
    out = []
    w = m.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10.0, name="w")
    b = m.Variable(np.zeros(2, np.float32), name="b")
    steps = m.Variable(0, name="steps")
    x = m.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    y = m.constant(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, -0.5]], np.float32))
    for _ in range(3):
        with m.GradientTape(persistent=True) as tape:
            pred = m.matmul(x, w) + b
            loss = m.reduce_mean(m.square(pred - y))
            reg = m.reduce_sum(m.sqrt(m.where(w > 0.25, w, 0.0)))
        gw, gb = tape.gradient(loss, [w, b])
        gr = tape.gradient(reg, w)
        del tape
        w[0].assign(w[0] - 0.5 * gw[0])
        w[1:, :].assign(w[1:, :] - 0.5 * gw[1:, :] - 0.01 * gr[1:, :])
        b.scatter_sub(m.IndexedSlices(0.5 * gb, m.constant([0, 1])))
        steps.assign_add(1)
        out.append(f"step {int(steps)}: loss={loss:.4f} reg={reg:.3f} b0={b[0]:+.3f}")
        # (round(loss, 2) is TF's tnp.around, broken in TF 2.21 without numpy behaviour;
        # test_tensor_format checks it against NumPy.)
        out.append("%d %.2f %i" % (steps, loss, m.size(w)))
    w.scatter_nd_update([[2, 1]], [9.0])
    w.scatter_max(m.IndexedSlices(m.constant([[5.0, -1.0], [6.0, 0.0]]), m.constant([0, 0])))
    out.append(np.array2string(w.numpy(), precision=4))
    out.append(str([v.name for v in (w, b, steps)]))
    out.append(f"{m.constant([1.5, 2.5])}|{m.constant(7):5d}|{m.constant(True)}")
    return out


def numerics_and_errors(m):
    """What a user sees when debugging: check_numerics naming the op, the re-entered
    tape, a scalar iterated, a kernel larger than the image."""
    out = []
    m.debugging.enable_check_numerics()
    try:
        m.math.log(m.constant([1.0, 0.0]))
    except m.errors.InvalidArgumentError as e:
        out.append([line for line in str(e).splitlines() if "Detected" in line][0].strip())
    finally:
        m.debugging.disable_check_numerics()
    out.append(str(m.math.log(m.constant([1.0, 0.0])).numpy()))
    tape = m.GradientTape()
    with tape:
        try:
            with tape:
                pass
        except ValueError as e:
            out.append(f"ValueError: {e}")
    for bad in (lambda: list(m.constant(3.0)),
                lambda: m.nn.conv2d(m.ones((1, 3, 3, 1)), m.ones((5, 5, 1, 1)), 1, "VALID"),
                lambda: m.strings.to_number("abc")):
        try:
            bad()
        except (TypeError, m.errors.InvalidArgumentError) as e:
            out.append(f"{type(e).__name__}: {str(e).split(' [Op:')[0].split('}}')[-1].strip()}")
    return out


def unit_tests(m):
    """A tf.test.TestCase as TF's tutorials write one; its pass/fail record."""

    class DenseTest(m.test.TestCase):
        def test_shape(self):
            layer = m.keras.layers.Dense(4, kernel_initializer="ones")
            self.assertAllEqual(layer(m.ones((2, 3))).shape, [2, 4])

        def test_values(self):
            self.assertAllClose(m.nn.relu([-1.0, 2.0]), [0.0, 2.0])
            self.assertAllInRange(m.nn.sigmoid(m.constant([-3.0, 3.0])), 0.0, 1.0)

        def test_error(self):
            with self.assertRaisesOpError("Input to reshape"):
                m.reshape(m.range(6), [4])

        def test_fails(self):
            self.assertAllClose([1.0], [1.1])

    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(DenseTest))
    return [f"run={result.testsRun} failures={[t.id().split('.')[-1] for t, _ in result.failures]}"
            f" errors={len(result.errors)}"]


@pytest.mark.parametrize("program", [sliced_training, numerics_and_errors, unit_tests])
def test_program_prints_what_tf_prints(program):
    theirs = program(real_tf())
    ours = program(tf)
    assert ours == theirs
