"""tf.make_tensor_proto / make_ndarray, tf.extract_volume_patches, tf.timestamp,
tf.get_logger and the top-level assert aliases, against real TensorFlow."""

import logging
import time

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("kwargs", [
    {"values": [1.5, 2.0, 3.0]}, {"values": [[1, 2], [3, 4]]}, {"values": 7},
    {"values": 2 ** 40}, {"values": [1, 2], "dtype": "float64"},
    {"values": 3.0, "shape": [2, 3]}, {"values": [1, 2], "shape": [4]},
    {"values": np.arange(6, dtype=np.int16).reshape(2, 3)},
    {"values": [True, False, True]}, {"values": [b"ab", b"c"]}, {"values": "x"},
    {"values": np.array([1 + 2j, 3 - 1j], np.complex64)},
    {"values": np.array([0.5, 1.5], np.float16)}, {"values": [0.5], "dtype": "float16"},
    {"values": np.arange(4, dtype=np.uint32)}, {"values": [5], "dtype": "int8"},
    {"values": 1.0, "shape": [2, 2], "allow_broadcast": True}])
def test_make_tensor_proto_bytes_match_tf(kwargs):
    t = real_tf()
    kw_tf = dict(kwargs)
    kw_t = dict(kwargs)
    if "dtype" in kwargs:
        kw_tf["dtype"] = getattr(tf, kwargs["dtype"])
        kw_t["dtype"] = getattr(t, kwargs["dtype"])
    got = tf.make_tensor_proto(**kw_tf)
    want = t.make_tensor_proto(**kw_t)
    assert got.SerializeToString() == want.SerializeToString()
    a, b = tf.make_ndarray(got), t.make_ndarray(want)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


def test_make_tensor_proto_errors_and_tensors_match_tf():
    t = real_tf()
    # TF 2.4's wording (2.21 says "Takes at most 2, but got 3.").
    with pytest.raises(ValueError, match=r"^Too many elements provided. Needed at most 2, but "
                                         r"received 3$"):
        tf.make_tensor_proto([1, 2, 3], shape=[2])
    for kw in [{"values": [1, 2], "shape": [1, 2], "verify_shape": True},
               {"values": [1, 2], "shape": [3], "allow_broadcast": True}, {"values": None}]:
        with pytest.raises((TypeError, ValueError)) as want:
            t.make_tensor_proto(**kw)
        with pytest.raises(want.type) as got:
            tf.make_tensor_proto(**kw)
        assert str(got.value) == str(want.value)
    x = RNG.random((2, 3)).astype("float32")
    assert tf.make_tensor_proto(tf.constant(x)).SerializeToString() == \
        t.make_tensor_proto(t.constant(x)).SerializeToString()
    with pytest.raises(TypeError):
        tf.make_ndarray(x)


@pytest.mark.parametrize("shape,k,s,padding", [
    ((2, 4, 5, 6, 3), [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"),
    ((1, 5, 6, 7, 2), [1, 3, 2, 3, 1], [1, 2, 2, 3, 1], "SAME"),
    ((1, 4, 4, 4, 1), [1, 2, 3, 1, 1], [1, 2, 1, 2, 1], "VALID"),
    ((2, 3, 3, 3, 2), [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME")])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_extract_volume_patches_matches_tf(shape, k, s, padding, dtype):
    t = real_tf()
    x = (RNG.random(shape) * 100).astype(dtype)
    got = tf.extract_volume_patches(x, k, s, padding)
    want = t.extract_volume_patches(t.constant(x), k, s, padding)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.extract_volume_patches(x, [2, 2, 2, 2, 1], s, padding)


def test_timestamp_logger_and_assert_aliases():
    before = time.time()
    ts = tf.timestamp()
    assert ts.dtype == tf.float64 and before - 1 <= float(ts) <= time.time() + 1
    assert tf.get_logger() is logging.getLogger("tensorflow")
    assert tf.Assert is tf.debugging.Assert
    assert tf.assert_equal is tf.debugging.assert_equal
    assert tf.assert_rank is tf.debugging.assert_rank
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.assert_less(tf.constant(2), tf.constant(1))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.assert_greater(tf.constant(1), tf.constant(2))
