"""tf.image.resize through TF's ScaleAndTranslate kernels (lanczos3/5, gaussian,
mitchellcubic; bilinear and bicubic with antialias) against real TF: values,
dtypes and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(0)
X = RNG.random((2, 13, 17, 3)).astype(np.float32)
SIZES = [[5, 7], [26, 40], [13, 4], [1, 1], [30, 9]]


@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("method", ["bilinear", "bicubic", "area", "nearest", "lanczos3",
                                    "lanczos5", "gaussian", "mitchellcubic"])
def test_resize_methods_and_antialias_match_tf(method, antialias):
    t = real_tf()
    for size in SIZES:
        want = t.image.resize(X, size, method=method, antialias=antialias).numpy()
        got = tf.image.resize(X, size, method=method, antialias=antialias).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape, size
        np.testing.assert_allclose(got, want, atol=1e-5, err_msg=str(size))


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64", "float16"])
def test_resize_returns_float32_for_every_input_dtype(dtype):
    # the resize kernels' output is float (TF 2.4 as 2.21); float64 included
    t = real_tf()
    x = (X * 200).astype(dtype)
    for method, aa in (("bilinear", False), ("lanczos3", False), ("bicubic", True)):
        want = t.image.resize(x, [6, 8], method=method, antialias=aa)
        got = tf.image.resize(x, [6, 8], method=method, antialias=aa)
        assert got.dtype.name == want.dtype.name == "float32"
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("method,antialias", [("lanczos3", False), ("bilinear", True),
                                              ("mitchellcubic", True)])
def test_scale_and_translate_resize_gradient_matches_tf(method, antialias):
    t = real_tf()
    w = RNG.random((2, 5, 6, 3)).astype(np.float32)
    x = tf.Variable(X)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.resize(x, (5, 6), method=method, antialias=antialias) * w)
    xv = t.Variable(X)
    with t.GradientTape() as tt:
        yv = t.reduce_sum(t.image.resize(xv, (5, 6), method=method, antialias=antialias) * w)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), tt.gradient(yv, xv).numpy(),
                               atol=1e-5)
