"""tf.debugging assertions in a tf.function: checked on every call, the Python body
traced once (TF's Assert ops run with the graph). Compared with real TensorFlow."""

import numpy as np
import pytest

import torchflow as tf

tf_ref = pytest.importorskip("tensorflow")

CASES = {
    "assert_non_negative": (lambda t, x: (t.debugging.assert_non_negative(x), x * 2)[1],
                            [-1.0, 2.0]),
    "assert_less": (lambda t, x: (t.debugging.assert_less(x, 10.0, message="too big"), x + 1)[1],
                    [1.0, 20.0]),
    "assert_equal_shape": (lambda t, x: (t.debugging.assert_equal(t.reduce_sum(x), 3.0), x)[1],
                           [1.0, 1.0]),
    "Assert": (lambda t, x: (t.debugging.Assert(t.reduce_all(x > -5), [x]), x - 1)[1],
               [-9.0, 0.0]),
    "assert_near": (lambda t, x: (t.debugging.assert_near(x, x * 0 + 1.5), x)[1], [1.0, 9.0]),
    "check_numerics": (lambda t, x: t.debugging.check_numerics(t.math.log(x + 1), "log"),
                       [-1.0, 2.0]),
    "assert_all_finite": (lambda t, x: t.debugging.assert_all_finite(x * 3, "finite"),
                          [np.inf, 1.0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_assertion_checked_every_call_body_traced_once(name):
    fn, bad = CASES[name]
    runs = []

    def body(x):
        runs.append(1)
        return fn(tf, x)

    f = tf.function(body)
    ref = tf_ref.function(lambda x: fn(tf_ref, x))
    good = [[1.5, 1.5]] if name in ("assert_near", "assert_equal_shape") else \
        [[1.0, 2.0], [3.0, 4.0]]
    if name == "assert_equal_shape":
        good = [[1.0, 2.0], [2.5, 0.5]]
    for x in good:
        np.testing.assert_allclose(f(tf.constant(x, tf.float32)).numpy(),
                                   ref(tf_ref.constant(x, tf_ref.float32)).numpy(), rtol=1e-6)
    with pytest.raises(tf_ref.errors.InvalidArgumentError):
        ref(tf_ref.constant(bad, tf_ref.float32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(bad, tf.float32))
    # A good call after the failing one still runs the recorded graph.
    np.testing.assert_allclose(f(tf.constant(good[0], tf.float32)).numpy(),
                               ref(tf_ref.constant(good[0], tf_ref.float32)).numpy(), rtol=1e-6)
    assert len(runs) == 1, f"{name}: the Python body ran {len(runs)} times"


def test_check_numerics_passes_gradients_in_a_function():
    x = tf.Variable([1.0, 2.0])

    @tf.function
    def grad():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.debugging.check_numerics(x * x, "square"))
        return tape.gradient(y, x)

    for _ in range(2):
        np.testing.assert_allclose(grad().numpy(), [2.0, 4.0])
    x.assign([3.0, -1.0])
    np.testing.assert_allclose(grad().numpy(), [6.0, -2.0])
