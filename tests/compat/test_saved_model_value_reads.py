"""Saved graphs never hold a value the trace computed from its inputs (issue 15).

A body that reads an input-dependent tensor into Python outside an op with a TF
lowering (``tf.range(x)`` reads ``x``'s value) cannot be written as TF ops: the save
is refused (it wrote the stand-in's ``range(0)`` as a constant, served as ``[]``).
Ops whose shape argument holds tensors are written with that run-time shape
(``tf.zeros(x)`` as ``Fill``, a list of tensors as ``Pack``), and real TF serves
them to TF's values."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def test_value_read_into_python_is_refused_at_save(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x: tf.range(x), input_signature=[tf.TensorSpec([], tf.int64)])
    np.testing.assert_array_equal(m.f(tf.constant(3, tf.int64)).numpy(), [0, 1, 2])
    assert "Unlowered" in [op.type for op in m.f.get_concrete_function().graph.get_operations()]
    with pytest.raises(tf.errors.UnimplementedError, match="read into Python"):
        tf.saved_model.save(m, str(tmp_path / "m"))


def test_tensor_shapes_are_written_as_run_time_shapes(tmp_path):
    m = tf.Module()
    m.zeros = tf.function(lambda s: tf.zeros(s), input_signature=[tf.TensorSpec([2], tf.int32)])
    m.ones = tf.function(
        lambda x: tf.ones([tf.shape(x)[0], 3], tf.int32) + tf.reshape(tf.range(3), [1, 3]),
        input_signature=[tf.TensorSpec([None], tf.float32)])
    types = [op.type for op in m.ones.get_concrete_function().graph.get_operations()]
    assert "Pack" in types and "Fill" in types
    path = str(tmp_path / "m")
    tf.saved_model.save(m, path)
    rtf = real_tf()
    for lib in (rtf, tf):
        loaded = lib.saved_model.load(path)
        assert loaded.zeros(lib.constant([2, 5])).shape == (2, 5)
        assert loaded.zeros(lib.constant([4, 1])).shape == (4, 1)
        for n in (1, 4, 7):
            got = loaded.ones(lib.constant(np.zeros(n, np.float32))).numpy()
            np.testing.assert_array_equal(got, np.tile([1, 2, 3], (n, 1)))


def test_reshape_to_a_list_holding_a_shape_tensor_saves(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x: tf.reshape(x, [tf.shape(x)[0], -1]),
                      input_signature=[tf.TensorSpec([None, 2, 3], tf.float32)])
    path = str(tmp_path / "m")
    tf.saved_model.save(m, path)
    rtf = real_tf()
    for n in (1, 5):
        x = np.arange(n * 6, dtype=np.float32).reshape(n, 2, 3)
        np.testing.assert_array_equal(rtf.saved_model.load(path).f(rtf.constant(x)).numpy(),
                                      x.reshape(n, 6))


def test_ops_on_values_computed_from_strings_are_not_baked(tmp_path):
    # (An unsigned sort has no lowering; a signed one is TopKV2 and saves, below.)
    m = tf.Module()
    m.f = tf.function(lambda x: tf.sort(tf.cast(tf.strings.length(x), tf.uint8)),
                      input_signature=[tf.TensorSpec([3], tf.string)])
    with pytest.raises(tf.errors.UnimplementedError, match="sort.*read into Python"):
        tf.saved_model.save(m, str(tmp_path / "refused"))
    m.f = tf.function(lambda x: tf.sort(tf.strings.length(x)),
                      input_signature=[tf.TensorSpec([3], tf.string)])
    path = str(tmp_path / "saved")
    tf.saved_model.save(m, path)
    for lib in (real_tf(), tf):
        got = lib.saved_model.load(path).f(lib.constant(["abcd", "", "xy"])).numpy()
        np.testing.assert_array_equal(got, [0, 2, 4])


def test_string_concatenation_saves_as_tfs_add(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x: x + x, input_signature=[tf.TensorSpec([2], tf.string)])
    assert "Add" in [op.type for op in m.f.get_concrete_function().graph.get_operations()]
    path = str(tmp_path / "m")
    tf.saved_model.save(m, path)
    rtf = real_tf()
    got = rtf.saved_model.load(path).f(rtf.constant(["ab", "c"])).numpy()
    np.testing.assert_array_equal(got, [b"abab", b"cc"])
    got = tf.saved_model.load(path).f(tf.constant(["ab", "c"])).numpy()
    np.testing.assert_array_equal(got, [b"abab", b"cc"])
