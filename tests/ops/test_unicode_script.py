"""tf.strings.unicode_script against real TensorFlow (which asks ICU).

Every code point 0..0x10FFFF is compared: all agree except characters that TF's
ICU does not know yet (TF answers 103, USCRIPT_UNKNOWN), because torchflow's table
comes from a newer Unicode version's Scripts.txt, and U+16FE2/U+16FE3, which later
Unicode versions moved from Common to Han."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def test_every_code_point_matches_tf_where_tfs_icu_knows_it():
    cps = np.arange(0, 0x110000, dtype=np.int32)
    want = real_tf().strings.unicode_script(cps).numpy()
    got = torchflow.strings.unicode_script(cps).numpy()
    assert got.dtype == want.dtype == np.int32
    moved = np.isin(cps, [0x16FE2, 0x16FE3])
    assert (want[moved] == 0).all() and (got[moved] == 17).all()
    differ = (got != want) & ~moved
    assert (want[differ] == 103).all()
    # Newer assignments are a small part of the code space (16425 with Unicode 18
    # against TF 2.21's ICU); a wrong script number would show up here in thousands.
    known = (want != 103) & ~moved
    assert (got[known] == want[known]).all() and known.sum() > 140_000


@pytest.mark.parametrize("value", [[-1, 0x110000, 0x10FFFF, 0xE000, 0xD800, 2 ** 31 - 1],
                                   [[65, 1046], [0x0300, 0x0661]], 65, []])
def test_shapes_and_invalid_code_points_as_tf(value):
    want = real_tf().strings.unicode_script(real_tf().constant(value, "int32"))
    got = torchflow.strings.unicode_script(torchflow.constant(value, "int32"))
    assert got.shape.as_list() == want.shape.as_list()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_non_int32_input_is_tfs_error():
    with pytest.raises(real_tf().errors.InvalidArgumentError) as want:
        real_tf().strings.unicode_script(real_tf().constant([1], "int64"))
    with pytest.raises(torchflow.errors.InvalidArgumentError) as got:
        torchflow.strings.unicode_script(torchflow.constant([1], "int64"))
    assert str(got.value) in str(want.value)
