"""tf.constant / tf.convert_to_tensor: dtype inference, casting rules and errors vs real TF."""

import numpy as np
import pytest
import torch

import torchflow as tf
from torchflow._src.testing import real_tf

# Values whose conversion must give the same dtype, shape and values as real TF.
SAME = [
    1, -(2**31), 2**31, [1, 2**40], 1.0, True, 1j, [1, 2.0], [[1, 2], [3, 4]], (1, 2),
    [], [[]], [[1.5], [2.5]], [True, False], [1j, 2],
    np.array([1.0]), np.array([1]), np.float64(1), np.float16(1), np.int8(3),
    np.array([True]), np.zeros((2, 0, 3), np.float32), np.array(7, np.uint32),
    np.array([1, 2], np.uint64), np.arange(6, dtype=np.int16).reshape(2, 3)[:, ::2],
]


def _same(ours, theirs):
    assert ours.dtype.name == theirs.dtype.name
    assert ours.shape.as_list() == theirs.shape.as_list()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("value", SAME, ids=[repr(v)[:30] for v in SAME])
@pytest.mark.parametrize("fn", ["constant", "convert_to_tensor"])
def test_inference_matches_tf(value, fn):
    rtf = real_tf()
    _same(getattr(tf, fn)(value), getattr(rtf, fn)(value))


@pytest.mark.parametrize("value", ["héllo", b"a", ["a", b"b"], [["x"], ["y"]],
                                   np.array(["a", "bc"]), np.array([b"a"])])
def test_strings_are_utf8_bytes(value):
    rtf = real_tf()
    ours, theirs = tf.constant(value), rtf.constant(value)
    assert ours.dtype == tf.string
    assert ours.shape.as_list() == theirs.shape.as_list()
    np.testing.assert_array_equal(np.asarray(ours.numpy(), dtype=object),
                                  np.asarray(theirs.numpy(), dtype=object))


WITH_DTYPE = [
    (1, "float32"), (1, "float64"), (1, "complex64"), ([1, 2], "float16"), (1.5, "float64"),
    (1.5, "bfloat16"), ([1, 2], "uint32"), (2**64 - 1, "uint64"), ([], "int32"),
    (np.array([1.5]), "int32"), (np.float32(1.5), "float64"), ("a", "string"),
    ([[1], [2]], "int8"), (True, "bool"),
]


@pytest.mark.parametrize("value,dtype", WITH_DTYPE)
def test_explicit_dtype_matches_tf(value, dtype):
    rtf = real_tf()
    ours, theirs = tf.constant(value, dtype), rtf.constant(value, dtype)
    assert ours.dtype.name == theirs.dtype.name
    assert ours.shape.as_list() == theirs.shape.as_list()
    a, b = ours.numpy(), theirs.numpy()
    if dtype == "bfloat16":
        a, b = a.astype(np.float32), b.astype(np.float32)
    np.testing.assert_array_equal(a, b)


def test_dtype_spellings():
    assert tf.constant(1, "float64").dtype == tf.float64
    assert tf.constant(1, np.float32).dtype == tf.float32
    assert tf.constant(1, tf.float16).dtype == tf.float16


# Both TF versions (2.4 and today's) raise these types.
ERRORS = [
    ("constant", (1.5,), dict(dtype="int32"), TypeError),
    ("constant", ([1.5],), dict(dtype="int32"), TypeError),
    ("constant", (1,), dict(dtype="string"), TypeError),
    ("constant", ("1",), dict(dtype="int32"), TypeError),
    ("constant", (1j,), dict(dtype="float32"), TypeError),
    ("constant", ([1, 2, 3],), dict(shape=[2, 2]), TypeError),
    ("constant", ([[1], [2, 3]],), {}, ValueError),
    ("constant", (None,), {}, ValueError),
    ("constant", ({"a": 1},), {}, ValueError),
    ("constant", (2**63,), {}, ValueError),
    ("constant", ([1, 2**64],), {}, ValueError),
    ("convert_to_tensor", (None,), {}, ValueError),
]


@pytest.mark.parametrize("fn,args,kw,err", ERRORS)
def test_errors_match_tf(fn, args, kw, err):
    rtf = real_tf()
    with pytest.raises(err):
        getattr(rtf, fn)(*args, **kw)
    with pytest.raises(err):
        getattr(tf, fn)(*args, **kw)


def test_tensor_inputs():
    rtf = real_tf()
    t = tf.constant([1, 2])
    assert tf.convert_to_tensor(t) is t
    assert tf.constant(t) is t
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        tf.convert_to_tensor(t, tf.float32)
    with pytest.raises(TypeError):  # TF 2.4 and later refuse to retype a tensor
        rtf.constant(rtf.constant(1), rtf.float32)
    with pytest.raises(TypeError, match="Expected tensor 1 with dtype tf.float32"):
        tf.constant(tf.constant(1), tf.float32)
    assert tf.constant(t, tf.int32) is t


def test_dtype_objects_are_not_values():
    rtf = real_tf()
    with pytest.raises(ValueError):
        rtf.convert_to_tensor(rtf.float32)
    with pytest.raises(ValueError):
        tf.convert_to_tensor(tf.float32)


@pytest.mark.parametrize("value,shape", [(0, [2, 3]), (1.5, []), ([1, 2, 3, 4], [2, 2]),
                                         ("a", [2]), ([[7]], [1, 1, 1]), (3, (0, 2))])
def test_shape_argument_matches_tf(value, shape):
    rtf = real_tf()
    ours, theirs = tf.constant(value, shape=shape), rtf.constant(value, shape=shape)
    assert ours.shape.as_list() == theirs.shape.as_list()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_dtype_hint():
    rtf = real_tf()
    for value, hint in [(1, "float32"), (1.5, "int32"), ([1, 2], "int64"), ("a", "float32")]:
        _same(tf.convert_to_tensor(value, dtype_hint=hint),
              rtf.convert_to_tensor(value, dtype_hint=hint))
    t = tf.constant(1)
    assert tf.convert_to_tensor(t, dtype_hint=tf.float32) is t


def test_lists_of_tensors_are_stacked():
    rtf = real_tf()
    ours = tf.convert_to_tensor([tf.constant(1.0), tf.constant(2.0)])
    _same(ours, rtf.convert_to_tensor([rtf.constant(1.0), rtf.constant(2.0)]))
    nested = tf.constant([[tf.constant(1), tf.constant(2)], [tf.constant(3), tf.constant(4)]])
    assert nested.shape == [2, 2] and nested.numpy().tolist() == [[1, 2], [3, 4]]


def test_lists_of_tensors_keep_gradients():
    a = tf.constant(2.0)
    with torch.enable_grad():
        a._t.requires_grad_(True)
        s = tf.convert_to_tensor([a, a])
        s._t.sum().backward()
    assert a._t.grad.item() == 2.0


def test_numpy_input_is_copied():
    a = np.array([1.0, 2.0], np.float32)
    t = tf.constant(a)
    a[0] = 9.0
    assert t.numpy().tolist() == [1.0, 2.0]
    assert tf.constant(np.float32(2.5)).shape == []


def test_tensor_shape_converts_to_int32():
    rtf = real_tf()
    _same(tf.convert_to_tensor(tf.TensorShape([2, 3])),
          rtf.convert_to_tensor(rtf.TensorShape([2, 3])))


def test_constant_shape_with_unknown_dimension_is_value_error():
    # Found by pyright: n *= None raised a raw TypeError.
    rtf = real_tf()
    with pytest.raises(ValueError) as want:
        rtf.constant(1.0, shape=[None])
    with pytest.raises(ValueError) as got:
        tf.constant(1.0, shape=[None])
    assert str(got.value) == str(want.value)
