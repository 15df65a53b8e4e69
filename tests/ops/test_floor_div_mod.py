"""Integer and float ``//`` and ``%`` (floordiv / floormod) with negative operands,
against NumPy and real TF: floor semantics, the remainder takes the divisor's sign."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

A = [7, -7, 7, -7, 0, 1, -1, 6, -6, 2**31 - 1, -(2**31) + 1]
B = [2, 2, -2, -2, 3, -3, 3, -4, 4, -2, 7]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "float32", "float64"])
def test_floordiv_and_floormod_match_numpy_and_tf(dtype):
    rtf = real_tf()
    info = np.iinfo(dtype) if dtype.startswith("int") else None
    pairs = [(a, b) for a, b in zip(A, B)
             if info is None or (info.min <= a <= info.max and info.min <= b <= info.max)]
    a = np.array([p[0] for p in pairs], dtype)
    b = np.array([p[1] for p in pairs], dtype)
    ta, tb = tf.constant(a), tf.constant(b)
    ra, rb = rtf.constant(a), rtf.constant(b)
    for ours, theirs, ref in [
        (ta // tb, ra // rb, np.floor_divide(a, b)),
        (ta % tb, ra % rb, np.mod(a, b)),
        (tf.math.floordiv(ta, tb), rtf.math.floordiv(ra, rb), np.floor_divide(a, b)),
        (tf.math.floormod(ta, tb), rtf.math.floormod(ra, rb), np.mod(a, b)),
        (tf.truncatediv(ta, tb) if dtype.startswith("int") else ta // tb,
         rtf.truncatediv(ra, rb) if dtype.startswith("int") else ra // rb,
         (np.trunc(a / b).astype(dtype) if dtype.startswith("int") else np.floor_divide(a, b))),
    ] + ([(tf.truncatemod(ta, tb), rtf.truncatemod(ra, rb), np.fmod(a, b))]
         if dtype not in ("int8", "int16") else []):  # TF's TruncateMod has no int8/16
        assert ours.dtype.name == dtype
        np.testing.assert_array_equal(ours.numpy(), ref)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("a,b", [(7, -2), (-7, 2), (-7, -2), (5, 3), (-0.5, 0.25), (7.5, -2.0)])
def test_python_scalars_on_either_side(a, b):
    rtf = real_tf()
    np.testing.assert_array_equal((tf.constant(a) // b).numpy(), (rtf.constant(a) // b).numpy())
    np.testing.assert_array_equal((tf.constant(a) % b).numpy(), (rtf.constant(a) % b).numpy())
    np.testing.assert_array_equal((a // tf.constant(b)).numpy(), (a // rtf.constant(b)).numpy())
    np.testing.assert_array_equal((a % tf.constant(b)).numpy(), (a % rtf.constant(b)).numpy())
    assert float(tf.constant(a) % b) == np.mod(a, b)


def test_integer_division_by_zero_raises_like_tf():
    rtf = real_tf()
    for op in (lambda m: m.constant(4) // 0, lambda m: m.constant(4) % 0):
        with pytest.raises(rtf.errors.InvalidArgumentError) as theirs:
            op(rtf)
        with pytest.raises(tf.errors.InvalidArgumentError) as ours:
            op(tf)
        assert str(ours.value).split(" [Op:")[0] in str(theirs.value)
