"""tf.strings.to_number over a table of inputs, every out_type, against real TF:
what parses, to what value, and what raises (a string that is not a number must
never become one: "abc" was read as hex 2748.0)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

INPUTS = [
    "abc", "1e3", " 12", "12 ", "\t7\n", "0x10", "0X1p3", "0x1.8p1", "0x", "inf", "-inf",
    "nan", "NaN", "-nan", "nan(123)", "Infinity", "infinity", "INF", "+5", "-0", "1.5",
    ".5", "5.", "1e", "e3", "", " ", "1_000", "12abc", "1,5", "\u0661\u0662", "0b101",
    "010", "1.0", "1e2", "+-1", "--1", "1d3", "1f", "2147483647", "2147483648",
    "-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808", "1e40",
    "-1e400", "1e-50", "3.4028235e38", "3.5e38", "1e308", "1e309", "4.9e-324", "2e-324",
]


@pytest.mark.parametrize("out_type", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("text", INPUTS)
def test_to_number_matches_tf(text, out_type):
    rtf = real_tf()
    try:
        expected = rtf.strings.to_number(text, out_type=getattr(rtf, out_type)).numpy()
    except rtf.errors.InvalidArgumentError as e:
        with pytest.raises(tf.errors.InvalidArgumentError) as ours:
            tf.strings.to_number(text, out_type=getattr(tf, out_type))
        assert str(ours.value).split(" [Op:")[0] in str(e)
        return
    got = tf.strings.to_number(text, out_type=getattr(tf, out_type)).numpy()
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_to_number_error_names_the_string():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"StringToNumberOp could not correctly convert string: abc "
                             r"\[Op:StringToNumber\]"):
        tf.strings.to_number(["1", "abc"])
