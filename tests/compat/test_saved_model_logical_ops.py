"""Logical and bitwise ops in saved graphs (issue 15): torchflow saves them as TF's ops
(LogicalAnd/LogicalOr/LogicalNot, logical_xor composed as TF composes it, BitwiseAnd/Or/Xor,
LeftShift/RightShift), real TF serves the SavedModel to NumPy's values, and torchflow's
loader does too."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

_B = np.array([True, False, True, False])
_C = np.array([True, True, False, False])
_I = np.array([12, -7, 255, 3], np.int32)
_J = np.array([10, 3, 1, 2], np.int32)

_CASES = {
    "logical_and": (tf.bool, lambda x, y: tf.logical_and(x, y), np.logical_and, _B, _C),
    "logical_or": (tf.bool, lambda x, y: tf.logical_or(x, y), np.logical_or, _B, _C),
    "logical_xor": (tf.bool, lambda x, y: tf.math.logical_xor(x, y), np.logical_xor, _B, _C),
    "logical_not": (tf.bool, lambda x, y: tf.logical_not(x), lambda x, y: ~x, _B, _C),
    "bitwise_and": (tf.int32, lambda x, y: tf.bitwise.bitwise_and(x, y), np.bitwise_and, _I, _J),
    "bitwise_or": (tf.int32, lambda x, y: tf.bitwise.bitwise_or(x, y), np.bitwise_or, _I, _J),
    "bitwise_xor": (tf.int32, lambda x, y: tf.bitwise.bitwise_xor(x, y), np.bitwise_xor, _I, _J),
    "left_shift": (tf.int32, lambda x, y: tf.bitwise.left_shift(x, y), np.left_shift, _I, _J),
    "right_shift": (tf.int32, lambda x, y: tf.bitwise.right_shift(x, y), np.right_shift, _I, _J),
}


def _module(dtype, fn):
    m = tf.Module()
    m.f = tf.function(fn, input_signature=[tf.TensorSpec([None], dtype),
                                           tf.TensorSpec([None], dtype)])
    return m


@pytest.mark.parametrize("name", sorted(_CASES))
def test_saved_logical_op_serves_numpy_values(name, tmp_path):
    dtype, fn, ref, x, y = _CASES[name]
    path = str(tmp_path / name)
    tf.saved_model.save(_module(dtype, fn), path)
    want = ref(x, y)
    got = tf.saved_model.load(path).f(tf.constant(x), tf.constant(y))
    np.testing.assert_array_equal(got.numpy(), want)
    rtf = real_tf()
    served = rtf.saved_model.load(path).f(rtf.constant(x), rtf.constant(y))
    np.testing.assert_array_equal(served.numpy(), want)


def test_logical_graph_holds_tf_op_names():
    f = tf.function(lambda x, y: tf.logical_or(tf.logical_and(x, y), tf.logical_not(x)))
    g = f.get_concrete_function(tf.TensorSpec([None], tf.bool),
                                tf.TensorSpec([None], tf.bool)).graph
    types = [op.type for op in g.get_operations()]
    assert {"LogicalAnd", "LogicalOr", "LogicalNot"} <= set(types)


@pytest.mark.parametrize("name", sorted(_CASES))
def test_tf_saved_logical_op_runs_in_torchflow(name, tmp_path):
    _, _, ref, x, y = _CASES[name]
    rtf = real_tf()
    fns = {"logical_and": rtf.logical_and, "logical_or": rtf.logical_or,
           "logical_xor": rtf.math.logical_xor, "logical_not": lambda a, b: rtf.logical_not(a),
           "bitwise_and": rtf.bitwise.bitwise_and, "bitwise_or": rtf.bitwise.bitwise_or,
           "bitwise_xor": rtf.bitwise.bitwise_xor, "left_shift": rtf.bitwise.left_shift,
           "right_shift": rtf.bitwise.right_shift}
    m = rtf.Module()
    spec = rtf.TensorSpec([None], rtf.as_dtype(x.dtype))
    fn = fns[name]
    m.f = rtf.function(lambda a, b: fn(a, b), input_signature=[spec, spec])
    path = str(tmp_path / name)
    rtf.saved_model.save(m, path)
    got = tf.saved_model.load(path).f(tf.constant(x), tf.constant(y))
    np.testing.assert_array_equal(got.numpy(), ref(x, y))
