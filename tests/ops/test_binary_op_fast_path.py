"""_math_common.binary_op's one fast path, taken by tf.math's functions and Tensor's
operators alike: Python numbers, Variables, result hooks and the cases it must leave
to the general path, each against real TF."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import torchflow as tf
from tests.ops._math_helpers import make, rand, to_np
from torchflow._src.testing import real_tf

FUNCS = ["add", "subtract", "multiply", "truediv", "divide"]
DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("dt", DTYPES)
def test_python_numbers_in_math_functions_give_tfs_values(dt):
    rtf = real_tf()
    x = rand((32,), "float32", seed=51, low=0.5, high=3.0)
    for name in FUNCS:
        for s in [0.1, 3, 2.7e-3, -1.5, 0.0]:  # -0.0: TF 2.21's scalar cache drops its sign
            ours = getattr(tf.math, name)(make(tf, x, dt), s)
            theirs = getattr(rtf.math, name)(make(rtf, x, dt), s)
            assert ours.dtype.name == theirs.dtype.name
            if dt == "complex64":  # torch's and Eigen's complex division round differently
                np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=3e-7,
                                           err_msg=f"{name} {s}")
            else:
                np.testing.assert_array_equal(to_np(ours), to_np(theirs),
                                              err_msg=f"{name} {s}")


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_operators_and_functions_agree_with_python_numbers_on_either_side(dt):
    rtf = real_tf()
    x = rand((32,), "float32", seed=52, low=0.5, high=3.0)
    ops = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow]
    for op in ops:
        for s in [0.9, 2, 1e-3]:
            for ours, theirs in [(op(make(tf, x, dt), s), op(make(rtf, x, dt), s)),
                                 (op(s, make(tf, x, dt)), op(s, make(rtf, x, dt)))]:
                np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=1e-6,
                                           err_msg=f"{op.__name__} {s}")


def test_maximum_minimum_with_a_number_keep_tfs_gradient_at_ties():
    # Not plain arithmetic: the number stays a number (clamp_min/clamp_max), whose
    # gradient at a tie goes all to x, as TF's Maximum/Minimum gradients do.
    rtf = real_tf()
    grads = []
    for lib in (tf, rtf):
        v = lib.Variable([0.5, 1.0, 0.25])
        with lib.GradientTape() as tape:
            y = lib.reduce_sum(lib.maximum(v, 0.5) + 2.0 * lib.minimum(v, 0.5))
        grads.append(tape.gradient(y, v).numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_variables_are_read_once_and_differentiate_like_tf():
    rtf = real_tf()
    a = rand((4,), "float32", seed=53, low=0.5, high=2.0)
    results = []
    for lib in (tf, rtf):
        v = lib.Variable(a)
        x = lib.constant(a[::-1].copy())
        with lib.GradientTape() as tape:
            y = lib.reduce_sum(lib.add(x, v) * lib.multiply(x, v) + (x - v) / (x + v))
        results.append((y.numpy(), tape.gradient(y, v).numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5)
    reads = []

    class Counting(tf.Variable):  # a read with a side effect
        def _tf_value(self, dtype=None):
            reads.append(1)
            return super()._tf_value(dtype)

    c = Counting([1.0, 2.0])
    x = tf.constant([3.0, 4.0])
    np.testing.assert_array_equal((x + c).numpy(), [4.0, 6.0])
    np.testing.assert_array_equal(tf.multiply(x, c).numpy(), [3.0, 8.0])
    assert len(reads) == 2


@pytest.mark.parametrize("program,op", [
    (lambda m: 1.0 / m.constant([0.0]), "RealDiv"),
    (lambda m: m.constant([0.0]) ** -1.0, "Pow"),
    (lambda m: 2.0 ** m.constant([1e30]), "Pow"),
    (lambda m: m.math.add(m.constant([3e38]), 3e38), "AddV2"),
    (lambda m: m.constant([3e38]) * 10.0, "Mul"),
    (lambda m: 1e30 - m.constant([-3e38]) * 10, "Mul"),
])
def test_check_numerics_names_the_op_of_every_fast_path(program, op):
    rtf = real_tf()
    tf.debugging.enable_check_numerics()
    rtf.debugging.enable_check_numerics()
    try:
        with pytest.raises(rtf.errors.InvalidArgumentError) as theirs:
            program(rtf)
        with pytest.raises(tf.errors.InvalidArgumentError) as ours:
            program(tf)
    finally:
        tf.debugging.disable_check_numerics()
        rtf.debugging.disable_check_numerics()
    head = f'eagerly-executing op "{op}"'
    assert head in str(theirs.value) and head in str(ours.value)


def test_errors_from_the_fast_path_are_tfs():
    rtf = real_tf()
    for lib in (tf, rtf):
        with pytest.raises(lib.errors.InvalidArgumentError, match="Incompatible shapes"):
            lib.constant([1.0, 2.0]) + lib.constant([1.0, 2.0, 3.0])
        with pytest.raises(lib.errors.InvalidArgumentError, match="expected to be a float"):
            lib.constant([1.0]) * lib.constant([1.0], lib.float64)
