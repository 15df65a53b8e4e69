"""Python's number protocols on scalar tensors (format, %, round, int, index),
compared with real TensorFlow."""

import operator

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

# (constructor args, format spec): the values f-strings and str.format take.
FORMATS = [
    ((1.23456,), ".3f"), ((1.23456,), ""), ((1.23456,), "10.2e"), ((7,), "d"), ((7,), "5"),
    ((7,), "x"), ((-7,), "+d"), ((True,), ""), ((True,), "d"), ((2.5, "float64"), ".1%"),
    ((1.5, "float16"), ".2f"), ((1.5, "bfloat16"), ".2f"), ((1 + 2j,), ".2f"),
    (("abc",), ""), (([1.5, 2.5],), ""), ((7, "int64"), ",d"), ((3, "uint8"), "03d"),
]


@pytest.mark.parametrize("args,spec", FORMATS)
def test_format_matches_tf(args, spec):
    rtf = real_tf()
    expected = format(rtf.constant(*args), spec)
    assert format(tf.constant(*args), spec) == expected
    assert ("{:" + spec + "}").format(tf.constant(*args)) == expected


@pytest.mark.parametrize("args,spec", [((1.5,), "d"), (([1.5, 2.5],), ".2f"),
                                       (("abc",), ">5"), (([1, 2],), "d")])
def test_bad_format_raises_like_tf(args, spec):
    rtf = real_tf()
    with pytest.raises((TypeError, ValueError)) as theirs:
        format(rtf.constant(*args), spec)
    with pytest.raises(type(theirs.value)) as ours:
        format(tf.constant(*args), spec)
    # TF delegates to NumPy / bytes formatting: the same message.
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("fmt,value", [("%d", 1.7), ("%d", 7), ("%.2f", 1.23456), ("%.2f", 7),
                                       ("%x", 255), ("%5.1f", -2.25), ("%e", 3.0),
                                       ("%i", -3), ("%g", 0.5)])
def test_percent_formatting_matches_tf(fmt, value):
    rtf = real_tf()
    assert fmt % tf.constant(value) == fmt % rtf.constant(value)


def test_python_conversions_match_tf():
    rtf = real_tf()
    for value in [1.23456, -2.5, 7, 0, True]:
        ours, theirs = tf.constant(value), rtf.constant(value)
        for fn in (int, float, complex, bool):
            r = fn(ours)
            assert r == fn(theirs) and type(r) is type(fn(theirs))
    seq = list(range(10, 20))
    for dt in ("int32", "int64"):
        i = tf.constant(3, dt)
        assert seq[i] == seq[rtf.constant(3, dt)] == 13
        assert list(range(i)) == [0, 1, 2]
        assert operator.index(i) == 3 and hex(i) == "0x3"
        assert seq[tf.constant(1, dt):tf.constant(3, dt)] == [11, 12]


@pytest.mark.parametrize("value", [1.5, True, [1]])
def test_index_rejects_what_tf_rejects(value):
    rtf = real_tf()
    with pytest.raises((TypeError, AttributeError)):
        operator.index(rtf.constant(value))
    with pytest.raises(TypeError):
        operator.index(tf.constant(value))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("value", [2.5, 3.5, -2.5, 1.23456, 1255, [1.25, 2.35, -0.5]])
@pytest.mark.parametrize("ndigits", [None, 0, 1, 2, -1, -2])
def test_round_is_tensor_around(dtype, value, ndigits):
    # TF's Tensor.__round__ is tnp.around (NumPy's around, half to even, same dtype);
    # TF 2.21 fails inside it without numpy behaviour, so NumPy is the reference.
    x = np.asarray(value).astype(dtype)
    t = tf.constant(x)
    r = round(t) if ndigits is None else round(t, ndigits)
    assert isinstance(r, tf.Tensor) and r.dtype == t.dtype
    np.testing.assert_array_equal(r.numpy(), np.around(x, ndigits or 0))


def test_round_rejects_strings_and_bools():
    for value in ["a", True]:
        with pytest.raises(TypeError):
            round(tf.constant(value))


def test_scalar_iteration_and_len_raise_like_tf():
    rtf = real_tf()
    for fn in (list, len, iter):
        with pytest.raises(TypeError) as theirs:
            fn(rtf.constant(1.0))
        with pytest.raises(TypeError) as ours:
            fn(tf.constant(1.0))
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor."):
        list(tf.Variable(1.0))


def test_bool_of_tensors_matches_tf():
    rtf = real_tf()
    for value in [0.0, 2.0, [3.0], [], [[0]]]:
        assert bool(tf.constant(value)) == bool(rtf.constant(value))
    with pytest.raises(ValueError) as theirs:
        bool(rtf.constant([1.0, 2.0]))
    with pytest.raises(ValueError) as ours:
        bool(tf.constant([1.0, 2.0]))
    assert str(ours.value) == str(theirs.value)


def test_variable_format_like_tf():
    rtf = real_tf()
    assert "%d" % tf.Variable(2.5) == "%d" % rtf.Variable(2.5)
    assert int(tf.Variable(2.5)) == 2
    with pytest.raises(TypeError, match="unsupported format string"):
        format(tf.Variable(2.5), ".3f")  # TF's ResourceVariable has no __format__
