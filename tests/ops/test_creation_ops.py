"""Creation and dtype-conversion ops against NumPy and real TF."""

import numpy as np
import pytest
import torch

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf

NUMERIC = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64", "bool", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape", [[], [0], [2, 3], (1, 2, 1)])
def test_zeros_ones(dtype, shape):
    d = tf.as_dtype(dtype)
    assert_close(tf.zeros(shape, d), np.zeros(shape, dtype))
    assert_close(tf.ones(shape, d), np.ones(shape, dtype))
    x = tf.constant(rand((2, 3), dtype))
    assert_close(tf.zeros_like(x), np.zeros((2, 3), dtype))
    assert_close(tf.ones_like(x), np.ones((2, 3), dtype))


def test_zeros_shape_forms_and_strings():
    assert tf.zeros(tf.TensorShape([2, 1])).shape == [2, 1]
    assert tf.zeros(tf.constant([3], tf.int64)).shape == [3]
    assert tf.zeros(4).shape == [4]
    s = tf.zeros([2], tf.string)
    assert s.dtype == tf.string
    assert list(s.numpy()) == [b"", b""]
    assert list(tf.zeros_like(tf.constant(["a", "b"])).numpy()) == [b"", b""]
    assert tf.zeros_like([1, 2], dtype=tf.float32).dtype == tf.float32
    assert tf.ones_like(tf.constant([1, 2]), dtype="float64").dtype == tf.float64


@pytest.mark.parametrize("fn,args,err", [
    ("zeros", ([-1],), "InvalidArgumentError"),
    ("ones", ([2], "string"), "TypeError"),
    ("fill", ([-2, 2], 1), "InvalidArgumentError"),
    ("ones_like", (np.array([b"a"], dtype=object),), "InvalidArgumentError"),
    ("range", (0, 5, 0), "InvalidArgumentError"),
    ("range", (5, 1, 1), "InvalidArgumentError"),
    ("range", (1, 5, -1), "InvalidArgumentError"),
])
def test_creation_errors_match_tf(fn, args, err):
    rtf = real_tf()
    with pytest.raises(Exception) as theirs:
        getattr(rtf, fn)(*args)
    with pytest.raises(Exception) as ours:
        getattr(tf, fn)(*args)
    assert type(theirs.value).__name__ == err
    assert type(ours.value).__name__ == err


@pytest.mark.parametrize("value", [1, 2.5, True, "s", np.float64(1.5), np.int64(3), 1 + 2j])
def test_fill_matches_tf(value):
    rtf = real_tf()
    ours, theirs = tf.fill([2, 3], value), rtf.fill([2, 3], value)
    assert ours.dtype.name == theirs.dtype.name
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("kw", [dict(num_rows=3), dict(num_rows=2, num_columns=4),
                                dict(num_rows=3, num_columns=2, batch_shape=[2, 1]),
                                dict(num_rows=2, dtype=tf.int32), dict(num_rows=0)])
def test_eye(kw):
    rtf = real_tf()
    rkw = dict(kw)
    if "dtype" in rkw:
        rkw["dtype"] = rkw["dtype"].name
    assert_close(tf.eye(**kw), rtf.eye(**rkw).numpy())


RANGES = [(5,), (1, 5), (5, 1, -2), (0, 1.5, 0.5), (0.0, 1.0, 0.1), (-3, 3, 2), (3, 3),
          (0, 10, 3), (10, 0, -3), (2.5,), (1, 2.0)]


@pytest.mark.parametrize("args", RANGES)
def test_range_matches_tf(args):
    rtf = real_tf()
    ours, theirs = tf.range(*args), rtf.range(*args)
    assert ours.dtype.name == theirs.dtype.name
    assert_close(ours, theirs.numpy(), rtol=1e-6)


def test_range_dtypes():
    rtf = real_tf()
    cases = [((5,), dict(dtype=tf.float64)), ((tf.constant(1, tf.int64), 5), {}),
             ((1, 5), dict(dtype="int64")), ((0, 1, 0.25), dict(dtype=tf.float64)),
             ((tf.constant(0.0, tf.float64), 2), {})]
    for args, kw in cases:
        rargs = [rtf.constant(a.numpy()) if isinstance(a, tf.Tensor) else a for a in args]
        rkw = {k: (v.name if isinstance(v, tf.DType) else v) for k, v in kw.items()}
        ours, theirs = tf.range(*args, **kw), rtf.range(*rargs, **rkw)
        assert ours.dtype.name == theirs.dtype.name, (args, kw)
        assert_close(ours, theirs.numpy())


@pytest.mark.parametrize("args,kw", [((0.0, 10.0, 5), {}), ((0, 10, 5), {}), ((1.0, 2.0, 1), {}),
                                     (([0.0, 1.0], [10.0, 5.0], 3), dict(axis=1)),
                                     (([0.0, 1.0], [10.0, 5.0], 4), dict(axis=0)),
                                     ((np.float64(-1), np.float64(1), 7), {})])
def test_linspace_matches_tf(args, kw):
    rtf = real_tf()
    ours, theirs = tf.linspace(*args, **kw), rtf.linspace(*args, **kw)
    assert ours.dtype.name == theirs.dtype.name
    assert_close(ours, theirs.numpy(), rtol=1e-6)


CASTS = [("float32", "int32"), ("float64", "int8"), ("float32", "uint8"), ("int32", "float32"),
         ("int64", "int32"), ("bool", "float32"), ("float32", "bool"), ("int32", "bool"),
         ("complex64", "float32"), ("complex128", "int32"), ("complex64", "bool"),
         ("float32", "complex64"), ("float16", "float64"), ("uint16", "int32"),
         ("int32", "uint32"), ("float64", "bfloat16"), ("bfloat16", "float32"),
         ("uint32", "float64"), ("int8", "uint64")]


@pytest.mark.parametrize("src,dst", CASTS)
def test_cast_matches_tf(src, dst):
    rtf = real_tf()
    a = rand((7,), src if src != "bfloat16" else "float32", seed=3, low=-3, high=3)
    if a.dtype.kind == "f":
        a[:3] = np.array([-1.7, 2.9, 0.0])
    ours = tf.cast(tf.constant(a, dtype=src), dst)
    theirs = rtf.cast(rtf.constant(a, dtype=src), dst)
    assert ours.dtype.name == theirs.dtype.name
    if dst == "bfloat16":
        assert_close(tf.cast(ours, "float32"), rtf.cast(theirs, "float32").numpy())
    else:
        assert_close(ours, theirs.numpy())


def test_cast_identity_and_python_values():
    x = tf.constant([1.0])
    assert tf.cast(x, tf.float32) is x
    assert tf.cast(1.5, tf.int32).numpy() == 1
    assert tf.cast([1, 0], tf.bool).numpy().tolist() == [True, False]


@pytest.mark.parametrize("value,dst", [("1", tf.float32), (1, tf.string)])
def test_cast_string_is_unimplemented_like_tf(value, dst):
    rtf = real_tf()
    with pytest.raises(rtf.errors.UnimplementedError):
        rtf.cast(rtf.constant(value), dst.name)
    with pytest.raises(tf.errors.UnimplementedError, match="Cast .* is not supported"):
        tf.cast(tf.constant(value), dst)


def test_cast_is_differentiable():
    x = tf.constant([1.0, 2.0])
    with torch.enable_grad():
        x._t.requires_grad_(True)
        y = tf.cast(x, tf.float64)
        y._t.sum().backward()
    assert x._t.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("src,dst,shape", [("float32", "int8", (3,)), ("int8", "float32", (2, 4)),
                                           ("float32", "int32", (2, 2)),
                                           ("float64", "int16", ()), ("int16", "float16", (5,)),
                                           ("complex64", "float64", (3,)),
                                           ("uint8", "int32", (4,))])
def test_bitcast_matches_tf(src, dst, shape):
    rtf = real_tf()
    a = rand(shape, src, seed=5)
    ours = tf.bitcast(tf.constant(a), dst)
    theirs = rtf.bitcast(rtf.constant(a), dst)
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_bitcast_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot bitcast from 6 to 1"):
        tf.bitcast(tf.zeros([3, 3], tf.int8), tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.bitcast(tf.constant([True]), tf.int8)


@pytest.mark.parametrize("src,dst", [("float32", "uint8"), ("float32", "int32"),
                                     ("int32", "int8"), ("int64", "uint16"), ("float64", "int64"),
                                     ("int32", "float32")])
def test_saturate_cast_matches_tf(src, dst):
    rtf = real_tf()
    a = np.array([300, -5, 3e10, -3e10, 7.5], np.float64)
    if np.dtype(src).kind in "iu":
        a = np.array([300, -5, 2**30, -(2**30), 7])
    a = a.astype(src)
    ours = tf.saturate_cast(tf.constant(a), dst)
    theirs = rtf.saturate_cast(rtf.constant(a), dst)
    assert ours.dtype.name == theirs.dtype.name
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


ONE_HOTS = [
    (([0, -1, 3, 2], 3), {}),
    (([[0, 2], [1, 1]], 3), dict(axis=0)),
    (([[0, 2], [1, 1]], 4), dict(axis=1, on_value=5, off_value=-1)),
    (([1, 0], 2), dict(on_value=2.5)),
    ((np.array([1, 0], np.int64), 3), dict(dtype=tf.int64)),
    ((3, 4), {}),
]


@pytest.mark.parametrize("args,kw", ONE_HOTS)
def test_one_hot_matches_tf(args, kw):
    rtf = real_tf()
    rkw = {k: (v.name if isinstance(v, tf.DType) else v) for k, v in kw.items()}
    ours, theirs = tf.one_hot(*args, **kw), rtf.one_hot(*args, **rkw)
    assert ours.dtype.name == theirs.dtype.name
    assert_close(ours, theirs.numpy())


def test_one_hot_errors():
    with pytest.raises(TypeError):
        tf.one_hot([0], 3, on_value=5, off_value=0.0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.one_hot([0.0], 3)


def test_identity():
    x = tf.constant([1, 2])
    assert tf.identity(x).numpy().tolist() == [1, 2]
    assert tf.identity(x) is not x
    v = tf.Variable([1.0])
    snap = tf.identity(v)
    v.assign([2.0])
    assert isinstance(snap, tf.Tensor) and snap.numpy().tolist() == [1.0]
    assert tf.identity("a").dtype == tf.string
    assert [t.numpy().tolist() for t in tf.identity_n([x, [3]])] == [[1, 2], [3]]
