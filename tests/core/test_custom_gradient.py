"""custom_gradient / stop_gradient / recompute_grad / grad_pass_through vs real TF."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf


def _grad(lib, fn, x_np):
    x = lib.constant(x_np)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = fn(lib, x)
    return y, tape.gradient(y, x)


def _log1pexp(lib):
    @lib.custom_gradient
    def f(x):
        e = lib.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return lib.math.log(1 + e) if hasattr(lib, "math") else lib.log(1 + e), grad

    return f


def test_custom_gradient_matches_tf():
    rtf = real_tf()
    x = rand([4], seed=0)
    yo, go = _grad(tf, lambda lib, t: _log1pexp(lib)(t), x)
    yt, gt = _grad(rtf, lambda lib, t: _log1pexp(lib)(t), x)
    assert_close(yo, yt.numpy(), rtol=1e-5, atol=1e-6)
    assert_close(go, gt.numpy(), rtol=1e-5, atol=1e-6)


def test_custom_gradient_with_variables_matches_tf():
    rtf = real_tf()
    res = []
    for lib in (tf, rtf):
        v = lib.Variable(2.0)

        @lib.custom_gradient
        def f(x):
            def grad(dy, variables=None):
                return dy * 10.0, [dy * 5.0 for _ in variables]

            return x * v, grad

        x = lib.constant(3.0)
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        res.append([float(g) for g in tape.gradient(y, [x, v])])
    assert res[0] == res[1] == [10.0, 5.0]


def test_custom_gradient_requires_variables_kwarg():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy: dy

    with tf.GradientTape():
        with pytest.raises(TypeError, match="variables"):
            f(tf.constant(1.0))


def test_custom_gradient_outside_tape_is_plain_call():
    calls = []

    @tf.custom_gradient
    def f(x):
        calls.append(1)
        return x * 2.0, lambda dy: dy

    assert float(f(tf.constant(3.0))) == 6.0 and calls == [1]


def test_stop_gradient_matches_tf():
    rtf = real_tf()
    x = rand([3], seed=1)
    yo, go = _grad(tf, lambda lib, t: lib.reduce_sum(lib.stop_gradient(t) * t), x)
    yt, gt = _grad(rtf, lambda lib, t: lib.reduce_sum(lib.stop_gradient(t) * t), x)
    assert_close(go, gt.numpy())


def test_recompute_grad_same_values_and_gradients():
    rtf = real_tf()
    x = rand([3], seed=2)
    res = []
    for lib in (tf, rtf):
        f = lib.recompute_grad(lambda t: lib.tanh(t) * t * t)
        res.append(_grad(lib, lambda lib_, t: lib_.reduce_sum(f(t)), x))
    assert_close(res[0][0], res[1][0].numpy(), rtol=1e-5)
    assert_close(res[0][1], res[1][1].numpy(), rtol=1e-5)


def test_grad_pass_through_is_identity_gradient():
    rtf = real_tf()
    x = np.array([0.4, 1.6, -2.3], np.float32)
    res = [_grad(lib, lambda lib_, t: lib_.grad_pass_through(lib_.round)(t) * 2.0, x)
           for lib in (tf, rtf)]
    assert_close(res[0][0], res[1][0].numpy())
    assert_close(res[0][1], res[1][1].numpy())
    np.testing.assert_array_equal(res[0][1].numpy(), [2.0, 2.0, 2.0])


def test_quantization_gradients_match_tf_24_rules():
    """qdq_v2: gradient only inside [input_min, input_max]; V1 and
    grad_pass_through(qdq_v2) are straight-through."""
    rtf = real_tf()
    x = np.array([-2.0, -0.5, 0.0, 0.7, 1.5], np.float32)
    fns = {
        "v2": lambda lib: lambda t: lib.quantization.quantize_and_dequantize_v2(
            t, -1.0, 1.0, range_given=True),
        "v1": lambda lib: lambda t: lib.quantization.quantize_and_dequantize(
            t, -1.0, 1.0, range_given=True),
        "pass_through_v2": lambda lib: lib.grad_pass_through(
            lambda t: lib.quantization.quantize_and_dequantize_v2(
                t, -1.0, 1.0, range_given=True)),
    }
    if getattr(getattr(tf, "quantization", None), "quantize_and_dequantize_v2", None) is None:
        pytest.skip("tf.quantization.quantize_and_dequantize_v2 is not there yet")
    grads = {}
    for name, make in fns.items():
        res = [_grad(lib, lambda lib_, t: make(lib_)(t) * 3.0, x) for lib in (tf, rtf)]
        assert_close(res[0][0], res[1][0].numpy())
        assert_close(res[0][1], res[1][1].numpy())
        grads[name] = res[0][1].numpy()
    np.testing.assert_array_equal(grads["v2"], [0.0, 3.0, 3.0, 3.0, 0.0])
    np.testing.assert_array_equal(grads["v1"], [3.0] * 5)
    np.testing.assert_array_equal(grads["pass_through_v2"], grads["v1"])
