"""tf.keras.backend.batch_dot, local_conv1d/2d and resize_volumes against real tf.keras."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

R = np.random.RandomState(0)
K = tf.keras.backend


@pytest.mark.parametrize("x_shape, y_shape, axes", [
    ((4, 5), (4, 5), None), ((4, 5), (4, 5, 6), None), ((4, 5, 6), (4, 6), None),
    ((4, 3, 5), (4, 5, 2), None), ((4, 3, 5, 2), (4, 5, 7), (2, 1)),
    ((4, 3, 5), (4, 7, 5, 2), (2, 2)), ((4, 20), (4, 30, 20), (1, 2)),
    ((4, 3, 5), (4, 3, 5, 2), 1), ((2, 3, 4, 5), (2, 6, 5, 7), (-1, 2)), ((4, 5), (4, 5), -1),
])
def test_batch_dot_matches_tf(x_shape, y_shape, axes):
    rtf = real_tf()
    x, y = R.randn(*x_shape).astype("float32"), R.randn(*y_shape).astype("float32")
    want = rtf.keras.backend.batch_dot(x, y, axes).numpy()
    got = K.batch_dot(tf.constant(x), tf.constant(y), axes).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x_shape, y_shape, axes", [
    ((4, 5), (3, 5), None), ((4, 5), (4, 6), None), ((4, 5), (4, 5), 0), ((4,), (4, 5), None),
    ((4, 5), (4, 5), [(1,), 1]),
])
def test_batch_dot_errors_match_tf(x_shape, y_shape, axes):
    rtf = real_tf()
    with pytest.raises(ValueError) as theirs:
        rtf.keras.backend.batch_dot(np.ones(x_shape, "f"), np.ones(y_shape, "f"), axes)
    with pytest.raises(ValueError) as ours:
        K.batch_dot(np.ones(x_shape, "f"), np.ones(y_shape, "f"), axes)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_resize_volumes_matches_tf(data_format):
    rtf = real_tf()
    x = R.randn(2, 3, 4, 5, 2).astype("float32")
    want = rtf.keras.backend.resize_volumes(rtf.constant(x), 2, 1, 3, data_format).numpy()
    np.testing.assert_array_equal(K.resize_volumes(x, 2, 1, 3, data_format).numpy(), want)
    with pytest.raises(ValueError, match="Invalid data_format: bogus"):
        K.resize_volumes(x, 2, 1, 3, "bogus")


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_local_convs_match_tf(data_format):
    rtf = real_tf()
    last = data_format == "channels_last"
    x1 = R.randn(3, 7, 4).astype("float32") if last else R.randn(3, 4, 7).astype("float32")
    k1 = R.randn(3, 2 * 4, 5).astype("float32")  # window 2, stride 2: 3 outputs
    want = rtf.keras.backend.local_conv1d(rtf.constant(x1), k1, (2,), (2,), data_format)
    got = K.local_conv1d(x1, k1, (2,), (2,), data_format)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    x2 = R.randn(2, 5, 6, 3).astype("float32") if last else R.randn(2, 3, 5, 6).astype("float32")
    k2 = R.randn(2 * 2, 3 * 2 * 3, 4).astype("float32")  # window (3, 2), strides (2, 3)
    want = rtf.keras.backend.local_conv2d(rtf.constant(x2), k2, (3, 2), (2, 3), (2, 2),
                                          data_format)
    got = K.local_conv2d(x2, k2, (3, 2), (2, 3), (2, 2), data_format)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_local_conv2d_gradient_matches_tf():
    rtf = real_tf()
    x = R.randn(2, 4, 4, 2).astype("float32")
    k = R.randn(4, 2 * 2 * 2, 3).astype("float32")

    def grad(mod, backend_mod):
        kv = mod.Variable(k)
        with mod.GradientTape() as tape:
            y = backend_mod.local_conv2d(mod.constant(x), kv, (2, 2), (2, 2), (2, 2))
            loss = mod.reduce_sum(y * y)
        return tape.gradient(loss, kv).numpy()

    np.testing.assert_allclose(grad(tf, K), grad(rtf, rtf.keras.backend), rtol=1e-4, atol=1e-4)
