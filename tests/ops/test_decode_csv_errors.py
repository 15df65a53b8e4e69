"""``tf.io.decode_csv`` on fields that are not numbers: TF's error type and message."""

from __future__ import annotations

import pytest

import torchflow as tfl
from torchflow._src.testing import real_tf


@pytest.mark.parametrize("dtype,default", [("int32", 1), ("float32", 1.0), ("int64", 1),
                                           ("float64", 1.0)])
def test_bad_number_field_like_tf(dtype, default):
    tf = real_tf()
    msgs = []
    for m in (tf, tfl):
        with pytest.raises(m.errors.InvalidArgumentError) as e:
            m.io.decode_csv(["7,x"], [m.constant([default], getattr(m, dtype))] * 2)
        msgs.append(str(e.value).split("}} ")[-1])
    assert msgs[0] == msgs[1] == f"Field 1 in record 0 is not a valid " \
        f"{ {'float32': 'float', 'float64': 'double'}.get(dtype, dtype)}: x [Op:DecodeCSV]"


def test_numbers_still_parse():
    out = tfl.io.decode_csv(["1,2.5,a"], [[0], [0.0], [""]])
    assert [t.numpy().tolist() for t in out] == [[1], [2.5], [b"a"]]
