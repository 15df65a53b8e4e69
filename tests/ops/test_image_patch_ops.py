"""tf.image.crop_and_resize and extract_patches against real TensorFlow."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(2)
X = RNG.standard_normal((2, 7, 9, 3)).astype("float32")
BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.5, 0.5, 0.5], [-0.2, 0.3, 1.3, 0.6],
                  [0.9, 0.8, 0.1, 0.0]], "float32")
IDX = np.array([0, 1, 1, 0], "int32")


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(4, 5), (1, 1), (6, 2)])
def test_crop_and_resize_matches_tf(method, size):
    t = real_tf()
    got = tf.image.crop_and_resize(X, BOXES, IDX, size, method=method, extrapolation_value=0.5)
    want = t.image.crop_and_resize(X, BOXES, IDX, size, method=method, extrapolation_value=0.5)
    assert got.dtype == tf.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-5)


@pytest.mark.parametrize("sizes,strides,rates,padding", [
    ([1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
    ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"),
    ([1, 2, 2, 1], [1, 1, 1, 1], [1, 2, 2, 1], "SAME"),
    ([1, 2, 3, 1], [1, 3, 1, 1], [1, 2, 1, 1], "VALID")])
def test_extract_patches_matches_tf(sizes, strides, rates, padding):
    t = real_tf()
    for x in (X, (X * 10).astype("int32")):
        got = tf.image.extract_patches(x, sizes, strides, rates, padding)
        want = t.image.extract_patches(x, sizes, strides, rates, padding)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())
