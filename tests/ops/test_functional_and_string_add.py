"""Exceptions raised inside tf.py_function / tf.numpy_function, against real TF."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

EXCEPTIONS = [ValueError("v"), TypeError("t"), KeyError("k"), IndexError("i"), StopIteration(),
              NotImplementedError("n"), MemoryError("m"), RuntimeError("r")]


def _raiser(e):
    def f(x):
        raise e
    return f


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return type(e).__name__
    return "no error"


@pytest.mark.parametrize("exc", EXCEPTIONS, ids=[type(e).__name__ for e in EXCEPTIONS])
def test_py_function_maps_python_errors_as_tf(exc):
    rtf = real_tf()
    want = _outcome(lambda: rtf.py_function(_raiser(exc), [1.0], rtf.float32))
    got = _outcome(lambda: tf.py_function(_raiser(exc), [1.0], tf.float32))
    assert got == want
    # eager numpy_function calls the function directly: the Python error passes through
    want = _outcome(lambda: rtf.numpy_function(_raiser(exc), [1.0], rtf.float32))
    got = _outcome(lambda: tf.numpy_function(_raiser(exc), [1.0], tf.float32))
    assert got == want == type(exc).__name__


def test_py_function_error_in_a_dataset_map_is_invalid_argument():
    rtf = real_tf()

    def run(m):
        ds = m.data.Dataset.range(3).map(
            lambda x: m.py_function(lambda v: v if v.numpy() != 1 else int("x"), [x], m.int64))
        it = iter(ds)
        out = [int(next(it))]
        with pytest.raises(m.errors.InvalidArgumentError, match="ValueError"):
            next(it)
        return out

    assert run(tf) == run(rtf) == [0]
    np.testing.assert_equal(tf.py_function(lambda v: v * 2, [3], tf.int32).numpy(), 6)


def test_scalar_string_add_is_a_string_tensor_as_tf():
    # tf.function guide: double(tf.constant("a")) returns a + a
    rtf = real_tf()
    for args in [("a", "a"), (["x", "y"], "z"), ("", "b")]:
        got = tf.add(tf.constant(args[0]), tf.constant(args[1]))
        want = rtf.add(rtf.constant(args[0]), rtf.constant(args[1]))
        assert got.shape == want.shape and got.dtype == tf.string
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert repr(tf.constant(args[0]) + tf.constant(args[1])).startswith("<tf.Tensor")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] vs. \[3\]"):
        tf.constant(["a", "b"]) + tf.constant(["a", "b", "c"])
