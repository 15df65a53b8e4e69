"""tf.keras.backend's convolution, pooling, padding and normalization functions against
real tf.keras.backend, in both data formats."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

R = np.random.RandomState(0)
X4 = R.rand(2, 6, 5, 3).astype("float32")
X4F = np.ascontiguousarray(X4.transpose(0, 3, 1, 2))
X3 = R.rand(2, 7, 3).astype("float32")
X5 = R.rand(1, 4, 4, 4, 2).astype("float32")
K2 = R.rand(3, 3, 3, 4).astype("float32")
K1 = R.rand(2, 3, 4).astype("float32")
K3 = R.rand(2, 2, 2, 2, 3).astype("float32")
DW = R.rand(3, 3, 3, 2).astype("float32")
PW = R.rand(1, 1, 6, 4).astype("float32")
KT = R.rand(3, 3, 4, 3).astype("float32")

CASES = [
    ("conv2d", (X4, K2), {}), ("conv2d", (X4, K2), {"padding": "same", "strides": (2, 1)}),
    ("conv2d", (X4F, K2), {"data_format": "channels_first", "padding": "same"}),
    ("conv2d", (X4, K2), {"dilation_rate": (2, 1)}),
    ("conv1d", (X3, K1), {}), ("conv1d", (X3, K1), {"padding": "causal"}),
    ("conv1d", (X3, K1), {"strides": 2, "padding": "same"}),
    ("conv3d", (X5, K3), {}), ("conv3d", (X5, K3), {"padding": "same"}),
    ("conv2d_transpose", (X4, KT, (2, 12, 10, 4)), {"strides": (2, 2), "padding": "same"}),
    ("depthwise_conv2d", (X4, DW), {"padding": "same"}),
    ("separable_conv2d", (X4, DW, PW), {}),
    ("pool2d", (X4, (2, 2)), {"strides": (2, 2)}),
    ("pool2d", (X4, (3, 3)), {"padding": "same", "pool_mode": "avg"}),
    ("pool2d", (X4F, (2, 2)), {"data_format": "channels_first"}),
    ("pool3d", (X5, (2, 2, 2)), {"strides": (2, 2, 2), "pool_mode": "avg"}),
    ("temporal_padding", (X3,), {}), ("temporal_padding", (X3, (2, 0)), {}),
    ("spatial_2d_padding", (X4,), {}),
    ("spatial_2d_padding", (X4F, ((1, 0), (2, 3))), {"data_format": "channels_first"}),
    ("spatial_3d_padding", (X5,), {}),
    ("resize_images", (X4, 2, 3, "channels_last"), {}),
    ("resize_images", (X4F, 2, 2, "channels_first"), {}),
    ("resize_images", (X4, 2, 2, "channels_last"), {"interpolation": "bilinear"}),
    ("batch_normalization", (X4, X4.mean((0, 1, 2)), X4.var((0, 1, 2)),
                             np.float32([0.1, 0.2, 0.3]), np.float32([1.0, 2.0, 0.5])), {}),
    ("in_top_k", (R.rand(4, 5).astype("float32"), np.array([0, 1, 2, 3]), 2), {}),
]


def _np(v):
    return np.asarray(v.numpy() if hasattr(v, "numpy") else v)


@pytest.mark.parametrize("name, args, kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_tf(name, args, kwargs):
    rtf = real_tf()

    def prep(t, a):
        return t.constant(a) if isinstance(a, np.ndarray) else a

    got = getattr(tf.keras.backend, name)(*[prep(tf, a) for a in args], **kwargs)
    want = getattr(rtf.keras.backend, name)(*[prep(rtf, a) for a in args], **kwargs)
    g, w = _np(got), _np(want)
    assert g.dtype == w.dtype and g.shape == w.shape
    np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_normalize_batch_in_training_matches_tf():
    rtf = real_tf()
    gamma, beta = np.float32([1.0, 2.0, 0.5]), np.float32([0.1, 0.2, 0.3])
    got = tf.keras.backend.normalize_batch_in_training(tf.constant(X4), tf.constant(gamma),
                                                       tf.constant(beta), [0, 1, 2])
    want = rtf.keras.backend.normalize_batch_in_training(rtf.constant(X4), rtf.constant(gamma),
                                                         rtf.constant(beta), [0, 1, 2])
    for g, w in zip(got, want):
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-4, atol=1e-5)


def test_higher_order_random_variables_and_errors():
    rtf = real_tf()
    K, RK = tf.keras.backend, rtf.keras.backend
    assert K.backend() == RK.backend() == "tensorflow"
    elems = np.arange(1.0, 5.0, dtype="float32")
    np.testing.assert_allclose(_np(K.map_fn(lambda v: v * 2, tf.constant(elems))),
                               _np(RK.map_fn(lambda v: v * 2, rtf.constant(elems))))
    assert float(K.foldl(lambda a, v: a - v, tf.constant(elems))) == \
        float(RK.foldl(lambda a, v: a - v, rtf.constant(elems)))
    assert float(K.foldr(lambda a, v: a - v, tf.constant(elems))) == \
        float(RK.foldr(lambda a, v: a - v, rtf.constant(elems)))
    v = K.random_normal_variable((500,), 1.0, 2.0)
    assert isinstance(v, tf.Variable) and abs(float(np.std(v.numpy())) - 2.0) < 0.3
    u = K.random_uniform_variable((500,), -1.0, 3.0)
    assert u.numpy().min() >= -1 and u.numpy().max() < 3
    with pytest.raises(RuntimeError) as theirs:
        RK.gradients(rtf.constant(1.0), [rtf.Variable(1.0)])
    with pytest.raises(RuntimeError) as ours:
        K.gradients(tf.constant(1.0), [tf.Variable(1.0)])
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="Invalid pooling mode"):
        K.pool2d(tf.constant(X4), (2, 2), pool_mode="min")
    with pytest.raises(ValueError, match="Unknown padding"):
        K.conv2d(tf.constant(X4), tf.constant(K2), padding="full")
