"""tf.keras.backend basics against real tf.keras (Keras 2) and the 2.4 messages."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

K = tf.keras.backend


def test_value_round_trip_matches_tf():
    rtf = real_tf()
    rk = rtf.keras.backend
    v, rv = tf.Variable([1.0, 2.0]), rtf.Variable([1.0, 2.0])
    K.set_value(v, [3, 4])
    rk.set_value(rv, [3, 4])
    np.testing.assert_array_equal(K.get_value(v), rk.get_value(rv))
    assert K.get_value(v).dtype == rk.get_value(rv).dtype == np.float32
    assert K.get_value(3) == rk.get_value(3) == 3
    np.testing.assert_array_equal(K.get_value(tf.constant([1, 2])),
                                  rk.get_value(rtf.constant([1, 2])))
    w, rw = tf.Variable(0), rtf.Variable(0)
    K.batch_set_value([(v, [5.0, 6.0]), (w, 7)])
    rk.batch_set_value([(rv, [5.0, 6.0]), (rw, 7)])
    got, want = K.batch_get_value([v, w]), rk.batch_get_value([rv, rw])
    for g, e in zip(got, want):
        np.testing.assert_array_equal(g, e)
    with pytest.raises(ValueError):
        K.set_value(v, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        rk.set_value(rv, [1.0, 2.0, 3.0])


def test_shapes_dtypes_and_counts_match_tf():
    rtf = real_tf()
    rk = rtf.keras.backend
    assert K.int_shape(np.ones((2, 3))) == rk.int_shape(np.ones((2, 3))) == (2, 3)
    assert K.int_shape(tf.keras.Input((3,))) == rk.int_shape(rtf.keras.Input((3,)))
    assert K.int_shape(tf.zeros([4, 1])) == rk.int_shape(rtf.zeros([4, 1]))
    v, rv = tf.Variable(np.zeros((2, 5), "float64")), rtf.Variable(np.zeros((2, 5), "float64"))
    assert K.count_params(v) == rk.count_params(rv) == 10
    assert K.dtype(v) == rk.dtype(rv) == "float64"
    assert K.ndim(v) == rk.ndim(rv) == 2


def test_is_keras_tensor_matches_tf():
    rtf = real_tf()
    rk = rtf.keras.backend
    assert K.is_keras_tensor(tf.keras.Input((2,))) is rk.is_keras_tensor(rtf.keras.Input((2,)))
    assert K.is_keras_tensor(tf.constant(1.0)) is rk.is_keras_tensor(rtf.constant(1.0))
    for bad in (3, np.ones(2)):
        with pytest.raises(ValueError) as ours:
            K.is_keras_tensor(bad)
        with pytest.raises(ValueError) as theirs:
            rk.is_keras_tensor(bad)
        assert str(ours.value) == str(theirs.value)


def test_cast_to_floatx_matches_tf():
    rtf = real_tf()
    rk = rtf.keras.backend
    for x in ([1, 2], 3, np.arange(3, dtype="int64")):
        got, want = K.cast_to_floatx(x), rk.cast_to_floatx(x)
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    t = K.cast_to_floatx(tf.constant([1, 2]))
    assert tf.is_tensor(t) and t.dtype == tf.float32


def test_learning_phase_set_scope_and_clear(caplog):
    assert K.learning_phase() == 0
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        K.set_learning_phase(1)
    # TF 2.4's @deprecated message.
    assert "set_learning_phase (from tensorflow.python.keras.backend) is deprecated" \
        in caplog.text
    assert K.learning_phase() == 1
    with K.learning_phase_scope(0):
        assert K.learning_phase() == 0
    assert K.learning_phase() == 1
    K.clear_session()
    assert K.learning_phase() == 0
    with pytest.raises(ValueError, match="Expected learning phase to be 0 or 1."):
        K.set_learning_phase(2)
    with pytest.raises(ValueError, match="Expected learning phase to be 0 or 1."):
        with K.learning_phase_scope(3):
            pass


def test_settings_and_their_tf24_errors():
    K.set_epsilon(1e-5)
    assert K.epsilon() == 1e-5
    K.set_floatx("float64")
    assert K.floatx() == "float64"
    assert K.cast_to_floatx([1]).dtype == np.float64
    K.set_image_data_format("channels_first")
    assert K.image_data_format() == "channels_first"
    # TF 2.4's messages (2.21 reworded them).
    with pytest.raises(ValueError, match="Unknown floatx type: int32"):
        K.set_floatx("int32")
    with pytest.raises(ValueError, match="Unknown data_format: x"):
        K.set_image_data_format("x")


def test_uids_and_name_scope():
    rk = real_tf().keras.backend
    rk.reset_uids()
    K.reset_uids()
    assert [K.get_uid("a"), K.get_uid("a"), K.get_uid()] == \
        [rk.get_uid("a"), rk.get_uid("a"), rk.get_uid()]
    K.clear_session()
    assert tf.keras.layers.Dense(1).name == "dense"
    with K.name_scope("outer"):
        v = tf.Variable(1.0, name="v")
    assert v.name == "outer/v:0"


def test_layers_input_is_keras_input():
    assert tf.keras.layers.Input is tf.keras.Input
    x = tf.keras.layers.Input(shape=(3,), name="x")
    assert K.is_keras_tensor(x) and x.shape.as_list() == [None, 3]
