"""decode_proto / encode_proto against real TF on tf.train messages."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _msgs(rtf):
    a = rtf.train.FloatList(value=[1.5, 2.5, 3.0]).SerializeToString()
    b = rtf.train.FloatList(value=[7.0]).SerializeToString()
    c = rtf.train.FloatList().SerializeToString()
    return np.array([[a, b], [c, a]], dtype=object)


def test_decode_proto_matches_tf():
    rtf = real_tf()
    data = _msgs(rtf)
    got = []
    for m in (tf, rtf):
        sizes, (vals,) = m.io.decode_proto(data, "tensorflow.FloatList", ["value"],
                                           [m.float32])
        got.append((sizes.numpy().tolist(), vals.numpy().tolist(), vals.dtype.name))
    assert got[0] == got[1]


def test_submessage_and_encode_round_trip_as_tf():
    rtf = real_tf()
    ex = rtf.train.Example()
    ex.features.feature["k"].int64_list.value.extend([4, 5])
    data = [ex.SerializeToString()]
    got = []
    for m in (tf, rtf):
        sizes, (feats,) = m.io.decode_proto(data, "tensorflow.Example", ["features"],
                                            [m.string])
        again = m.io.encode_proto(sizes, [feats], ["features"], "tensorflow.Example")
        got.append((sizes.numpy().tolist(), rtf.train.Example.FromString(
            again.numpy()[0])))
    assert got[0] == got[1]
    fl = tf.io.encode_proto([[2]], [[[1.0, 2.0, 9.0]]], ["value"], "tensorflow.FloatList")
    ref = rtf.io.encode_proto([[2]], [[[1.0, 2.0, 9.0]]], ["value"], "tensorflow.FloatList")
    assert fl.numpy().tolist() == ref.numpy().tolist()


def test_unknown_message_type_raises_as_tf():
    rtf = real_tf()
    for m in (tf, rtf):
        with pytest.raises(m.errors.InvalidArgumentError,
                           match="No descriptor found for message type nope.Msg"):
            m.io.decode_proto([b""], "nope.Msg", ["value"], [m.float32])
