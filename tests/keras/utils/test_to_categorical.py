"""to_categorical / normalize against real tf.keras."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


@pytest.mark.parametrize("y, kwargs", [
    ([0, 2, 1], {}),
    ([[1], [3]], {"num_classes": 5}),
    (np.array([[0, 1], [2, 0]], dtype="uint8"), {}),
    ([1, 0], {"dtype": "int32"}),
    (np.array([3]), {"num_classes": 4, "dtype": "float64"}),
])
def test_to_categorical_matches_tf(y, kwargs):
    want = real_tf().keras.utils.to_categorical(y, **kwargs)
    got = tf.keras.utils.to_categorical(y, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_to_categorical_out_of_range_raises_like_tf():
    with pytest.raises(IndexError):
        real_tf().keras.utils.to_categorical([3], num_classes=2)
    with pytest.raises(IndexError):
        tf.keras.utils.to_categorical([3], num_classes=2)


@pytest.mark.parametrize("axis, order", [(-1, 2), (0, 2), (1, 1), (-1, np.inf)])
def test_normalize_matches_tf(axis, order):
    x = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [1.0, -2.0, 2.0]])
    want = real_tf().keras.utils.normalize(x, axis=axis, order=order)
    got = tf.keras.utils.normalize(x, axis=axis, order=order)
    np.testing.assert_allclose(got, want)
