"""serialize_tensor / parse_tensor: TF's TensorProto bytes, both ways with real TF."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

VALUES = [
    (np.array([[1.5, 2.0]], np.float32), "float32"),
    (np.arange(6, dtype=np.int64).reshape(2, 3), "int64"),
    (np.array(True), "bool"),
    (np.array([1, -2, 3], np.int8), "int8"),
    (np.array([1, 2], np.uint16), "uint16"),
    (np.array([0.5, -1.25], np.float16), "float16"),
    (np.array([1 + 2j], np.complex64), "complex64"),
    (np.array(3.25, np.float64), "float64"),
    (np.zeros((0, 3), np.int32), "int32"),
    (np.array([b"a", b"bc", b""], object), "string"),
    (np.array(b"x", object), "string"),
]


@pytest.mark.parametrize("value,dtype", VALUES)
def test_bytes_identical_to_tf_and_parse_both_ways(value, dtype):
    rtf = real_tf()
    ours = tf.io.serialize_tensor(tf.constant(value, getattr(tf, dtype))).numpy()
    theirs = rtf.io.serialize_tensor(rtf.constant(value, getattr(rtf, dtype))).numpy()
    assert ours == theirs
    back = tf.io.parse_tensor(theirs, getattr(tf, dtype))
    ref = rtf.io.parse_tensor(ours, getattr(rtf, dtype))
    assert back.dtype.name == ref.dtype.name
    assert back.shape.as_list() == ref.shape.as_list()
    np.testing.assert_array_equal(back.numpy(), ref.numpy())


def test_parse_tensor_reads_typed_val_fields_as_tf():
    rtf = real_tf()
    # A TensorProto with float_val (not tensor_content), one value for 4 elements:
    # TF repeats the last value.
    proto = rtf.make_tensor_proto(np.float32(7.0), shape=[2, 2])
    data = proto.SerializeToString()
    np.testing.assert_array_equal(tf.io.parse_tensor(data, tf.float32).numpy(),
                                  rtf.io.parse_tensor(data, rtf.float32).numpy())


def test_parse_tensor_errors():
    rtf = real_tf()
    s = tf.io.serialize_tensor(tf.constant([1.0]))
    for m in (tf, rtf):
        with pytest.raises(m.errors.InvalidArgumentError,
                           match=r"Type mismatch between parsed tensor \(float\) and dtype "
                                 r"\(int32\)"):
            m.io.parse_tensor(s.numpy(), m.int32)
        with pytest.raises(m.errors.InvalidArgumentError,
                           match="Could not parse `serialized` as TensorProto"):
            m.io.parse_tensor(b"\xff\xff", m.int32)


def test_dataset_of_serialized_tensors_round_trip():
    rtf = real_tf()
    arrs = [np.arange(n, dtype=np.float32) for n in (1, 3, 2)]
    ser = [tf.io.serialize_tensor(a).numpy() for a in arrs]
    ds = tf.data.Dataset.from_tensor_slices(ser).map(lambda s: tf.io.parse_tensor(s,
                                                                                  tf.float32))
    assert [x.numpy().tolist() for x in ds] == [
        rtf.io.parse_tensor(s, rtf.float32).numpy().tolist() for s in ser]
