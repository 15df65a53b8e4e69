"""FixedLenFeature shapes with unknown dimensions: TF's ValueError (was a raw TypeError
from NumPy), compared with real TF."""

from __future__ import annotations

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _example(lib):
    feat = lib.train.Feature(int64_list=lib.train.Int64List(value=[1, 2]))
    return lib.train.Example(features=lib.train.Features(feature={"a": feat}))


@pytest.mark.parametrize("shape", [[None], [2, None]])
def test_unknown_dimension_raises_tfs_value_error(shape):
    rtf = real_tf()
    with pytest.raises(ValueError) as theirs:
        rtf.io.parse_single_example(_example(rtf).SerializeToString(),
                                    {"a": rtf.io.FixedLenFeature(shape, rtf.int64)})
    with pytest.raises(ValueError) as ours:
        tf.io.parse_single_example(_example(tf).SerializeToString(),
                                   {"a": tf.io.FixedLenFeature(shape, tf.int64)})
    assert str(ours.value) == str(theirs.value)
    parsed = tf.io.parse_single_example(_example(tf).SerializeToString(),
                                        {"a": tf.io.FixedLenFeature([2], tf.int64)})
    assert parsed["a"].numpy().tolist() == [1, 2]
