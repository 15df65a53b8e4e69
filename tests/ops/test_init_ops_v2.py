"""tf.zeros_initializer & co. (TF's init_ops_v2 classes) against real TF."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

NAMES = ["zeros_initializer", "ones_initializer", "constant_initializer",
         "random_normal_initializer", "random_uniform_initializer"]


@pytest.mark.parametrize("name", NAMES)
def test_config_and_default_dtype_match_tf(name):
    rtf = real_tf()
    ours, theirs = getattr(tf, name)(), getattr(rtf, name)()
    assert ours.get_config() == theirs.get_config()
    assert ours([2, 3]).dtype.name == theirs([2, 3]).dtype.name
    assert ours([2, 3]).shape.as_list() == [2, 3]
    again = getattr(tf, name).from_config(ours.get_config())
    assert again.get_config() == ours.get_config()
    if name != "constant_initializer":  # that one infers the dtype from its value
        # Not Keras classes: the default dtype is float32 even with floatx float64.
        tf.keras.backend.set_floatx("float64")
        assert ours([1]).dtype == tf.float32


def test_deterministic_values_match_tf():
    rtf = real_tf()
    np.testing.assert_array_equal(tf.zeros_initializer()([2], dtype=tf.int32).numpy(),
                                  rtf.zeros_initializer()([2], dtype=rtf.int32).numpy())
    np.testing.assert_array_equal(tf.ones_initializer()([2, 2]).numpy(),
                                  rtf.ones_initializer()([2, 2]).numpy())
    for value, shape in (([1, 2, 3, 4], [2, 2]), (3, [2]), (np.arange(6.0), [3, 2])):
        got = tf.constant_initializer(value)(shape)
        want = rtf.constant_initializer(value)(shape)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_seeded_random_initializers_repeat_and_match_tf():
    rtf = real_tf()
    a = tf.random_normal_initializer(seed=3)([1000])
    np.testing.assert_array_equal(a.numpy(), tf.random_normal_initializer(seed=3)([1000]).numpy())
    # The stateless normal stream is TF's (Philox), so the values agree.
    np.testing.assert_allclose(a.numpy(), rtf.random_normal_initializer(seed=3)([1000]).numpy(),
                               rtol=1e-5, atol=1e-6)
    assert abs(float(np.std(a.numpy())) - 0.05) < 0.005
    u = tf.random_uniform_initializer(-1.0, 1.0, seed=4)([1000]).numpy()
    assert u.min() >= -1 and u.max() < 1 and abs(u.mean()) < 0.1
    b = tf.random_normal_initializer()([4])
    assert not np.array_equal(b.numpy(), tf.random_normal_initializer()([4]).numpy())
    i = tf.random_uniform_initializer(0, 10)([50], dtype=tf.int32).numpy()
    assert i.dtype == np.int32 and i.min() >= 0 and i.max() < 10


def test_errors_are_tf24s():
    # TF 2.4's init_ops_v2 messages (2.21 reworded them; the types are the same).
    rtf = real_tf()
    with pytest.raises(ValueError, match="Expected floating point type, got <dtype: 'int32'>."):
        tf.random_normal_initializer()([2], dtype=tf.int32)
    with pytest.raises(ValueError):
        rtf.random_normal_initializer()([2], dtype=rtf.int32)
    with pytest.raises(ValueError, match="Expected numeric or boolean dtype"):
        tf.zeros_initializer()([2], dtype=tf.string)
    with pytest.raises(ValueError, match="Expected float or integer dtype"):
        tf.random_uniform_initializer()([2], dtype=tf.bool)
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        tf.constant_initializer(object())
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        rtf.constant_initializer(object())
    with pytest.raises(TypeError, match="unsupported shape"):
        tf.constant_initializer([1, 2])([3])
    with pytest.raises(TypeError, match="unsupported shape"):
        rtf.constant_initializer([1, 2])([3])


def test_usable_as_keras_and_variable_initializers():
    layer = tf.keras.layers.Dense(2, kernel_initializer=tf.ones_initializer(),
                                  bias_initializer=tf.constant_initializer(0.5))
    out = layer(tf.ones([1, 3]))
    np.testing.assert_allclose(out.numpy(), [[3.5, 3.5]])
    v = tf.Variable(tf.random_normal_initializer(stddev=1.0, seed=1)(shape=[2, 2]))
    assert v.shape.as_list() == [2, 2]
