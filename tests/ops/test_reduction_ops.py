"""Reductions, argmax/argmin, scans, top_k/in_top_k/bincount: NumPy tables and
differential tests against real TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import logsumexp

import torchflow as tf
from tests.ops._math_helpers import rand, run_both
from torchflow._src.testing import assert_close

AXES = [None, 0, -1, [0, 1], (1,), [], [-1, 0]]


def _np_axis(axis):
    if isinstance(axis, list):
        return tuple(axis)
    return axis


REDUCTIONS = [
    ("reduce_sum", np.sum, ["float32", "float64", "int8", "int32", "int64", "uint8", "uint32",
                            "complex64"]),
    ("reduce_prod", np.prod, ["float32", "float64", "int32", "int64", "uint16"]),
    ("reduce_max", np.max, ["float16", "float32", "int8", "int32", "uint8", "uint64"]),
    ("reduce_min", np.min, ["float32", "float64", "int16", "int64", "uint32"]),
    ("reduce_mean", np.mean, ["float32", "float64", "complex128"]),
    ("reduce_logsumexp", logsumexp, ["float32", "float64"]),
    ("reduce_std", np.std, ["float32", "float64", "complex64"]),
    ("reduce_variance", np.var, ["float32", "float64"]),
    ("reduce_euclidean_norm", lambda x, axis, keepdims: np.sqrt(
        np.sum(np.abs(x) ** 2, axis=axis, keepdims=keepdims)), ["float32", "float64"]),
]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name,ref,dts", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reductions_match_numpy(name, ref, dts, axis, keepdims):
    fn = getattr(tf.math, name)
    for dt in dts:
        x = rand((3, 4), dt, seed=7, low=-2, high=2)
        out = fn(tf.constant(x), axis=axis, keepdims=keepdims)
        if axis == []:
            expected = x if name not in ("reduce_std", "reduce_variance") else np.zeros_like(
                x.real)
        else:
            expected = ref(x, axis=_np_axis(axis), keepdims=keepdims)
        expected = np.asarray(expected).astype(out.dtype.as_numpy_dtype)
        tol = 2e-3 if dt == "float16" else 1e-5
        assert_close(out, expected, rtol=tol, atol=tol)


def test_integer_mean_is_truncating_division():
    x = np.array([[-3, -4, 5], [7, 1, 1]], np.int32)
    out = tf.reduce_mean(tf.constant(x), axis=1)
    assert out.dtype == tf.int32
    assert out.numpy().tolist() == [int(-2 / 3), 3]  # (-2)/3 truncates to 0
    assert tf.reduce_mean(tf.constant([-3, -4])).numpy() == -3


def test_empty_reductions_give_identities():
    e = tf.zeros([0, 3])
    assert_close(tf.reduce_sum(e, 0), np.zeros(3, np.float32))
    assert_close(tf.reduce_prod(e, 0), np.ones(3, np.float32))
    assert_close(tf.reduce_max(e, 0), np.full(3, -np.inf, np.float32))
    assert_close(tf.reduce_min(tf.constant(np.zeros((0,), np.int32))), np.int32(2**31 - 1))
    assert np.isnan(tf.reduce_mean(e).numpy())
    assert tf.reduce_mean(tf.constant(np.zeros((0,), np.int32))).numpy() == 0


def test_axis_tensor_and_errors():
    x = tf.constant([[1, 2], [3, 4]])
    assert_close(tf.reduce_sum(x, axis=tf.constant([0])), np.array([4, 6], np.int32))
    assert_close(tf.reduce_sum(x, axis=tf.constant(-1, tf.int64)), np.array([3, 7], np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        tf.reduce_sum(x, axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate"):
        tf.reduce_sum(x, axis=[0, -2])
    with pytest.raises(TypeError):
        tf.reduce_sum(x, axis=1.0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.reduce_sum(x, axis=tf.constant(0.0))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.reduce_all(x)
    with pytest.raises(TypeError):
        tf.math.reduce_variance(x)


DIFF = [
    ("math.reduce_sum", {"axis": 1}), ("math.reduce_prod", {"axis": 0, "keepdims": True}),
    ("math.reduce_max", {}), ("math.reduce_min", {"axis": -1}), ("math.reduce_mean", {"axis": 0}),
    ("math.reduce_any", {"axis": 1}), ("math.reduce_all", {}),
    ("math.reduce_logsumexp", {"axis": 1}), ("math.reduce_std", {"axis": 0}),
    ("math.reduce_variance", {}), ("math.reduce_euclidean_norm", {"axis": 1}),
    ("math.argmax", {"axis": 1}), ("math.argmin", {}), ("math.argmax", {"output_type": "int32"}),
    ("math.cumsum", {"axis": 1, "exclusive": True}), ("math.cumprod", {"reverse": True}),
    ("math.cumsum", {"axis": -1, "exclusive": True, "reverse": True}),
    ("math.cumulative_logsumexp", {"axis": 1}), ("math.count_nonzero", {"axis": 0}),
    ("math.l2_normalize", {"axis": 1}), ("math.is_non_decreasing", {}),
    ("math.is_strictly_increasing", {}),
]


@pytest.mark.parametrize("name,kwargs", DIFF, ids=[f"{n}-{k}" for n, k in DIFF])
def test_differential_vs_tf(name, kwargs):
    for dt in ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint32",
               "complex64", "bool"]:
        x = rand((3, 4), dt, seed=8, low=-3, high=3)
        tol = 2e-3 if dt == "float16" else 1e-5
        run_both(name, [x], dt, kwargs=kwargs, rtol=tol, atol=tol)


def test_argmax_errors_and_ties():
    assert tf.argmax(tf.constant([1.0, 3.0, 3.0])).numpy() == 1
    assert tf.argmin(tf.constant([[2, 1, 1]]), axis=1).numpy().tolist() == [1]
    assert tf.argmax(tf.constant([1.0])).dtype == tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        tf.argmax(tf.zeros([0]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.argmax(tf.constant([1.0, 2.0]), axis=1)


def test_cumsum_matches_numpy():
    x = rand((3, 5), "int32", seed=10)
    for axis in (0, 1, -1):
        assert_close(tf.cumsum(tf.constant(x), axis=axis), np.cumsum(x, axis=axis).astype(np.int32))
        rev = np.flip(np.cumsum(np.flip(x, axis), axis=axis), axis)
        assert_close(tf.cumsum(tf.constant(x), axis=axis, reverse=True), rev.astype(np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.cumsum(tf.constant([1.0]), axis=2)


def test_top_k_matches_tf_and_numpy():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, -1.0, 0.0, 5.0]], np.float32)
    v, i = tf.math.top_k(tf.constant(x), k=3)
    assert i.dtype == tf.int32
    assert i.numpy().tolist() == [[1, 2, 3], [0, 3, 2]]
    assert_close(v, -np.sort(-x, axis=1)[:, :3])
    for dt in ["float32", "int32", "uint8", "float64"]:
        run_both("math.top_k", [rand((3, 6), dt, seed=11)], dt, kwargs={"k": 4})
        run_both("math.top_k", [rand((6,), dt, seed=11)], dt, kwargs={"k": 7})
    r = tf.math.top_k(tf.constant([1, 2]))
    assert r.values.numpy().tolist() == [2] and r.indices.numpy().tolist() == [1]


def test_in_top_k_matches_tf():
    from torchflow._src.testing import real_tf

    rtf = real_tf()
    preds = np.array([[0.1, 0.5, 0.5, 0.2], [0.3, 0.3, 0.1, 0.9], [np.nan, 1, 2, 3]], np.float32)
    targets = np.array([2, 0, 0], np.int32)
    for k in (1, 2, 3):
        ours = tf.math.in_top_k(tf.constant(targets), tf.constant(preds), k)
        theirs = rtf.math.in_top_k(rtf.constant(targets), rtf.constant(preds), k)
        assert ours.numpy().tolist() == theirs.numpy().tolist()


@pytest.mark.parametrize("kwargs", [{}, {"minlength": 7}, {"maxlength": 2},
                                    {"minlength": 6, "maxlength": 3}, {"dtype": "float32"},
                                    {"binary_output": True}])
def test_bincount_matches_tf(kwargs):
    x = rand((10,), "int32", seed=12, low=0, high=5)
    run_both("math.bincount", [x], "int32", kwargs=kwargs)
    run_both("math.bincount", [x.reshape(2, 5)], "int32", kwargs=kwargs)
    w = rand((10,), "float32", seed=13)
    from torchflow._src.testing import real_tf

    rtf = real_tf()
    if kwargs.get("binary_output"):
        for lib in (tf, rtf):
            with pytest.raises(ValueError):
                lib.math.bincount(lib.constant(x), weights=lib.constant(w), **kwargs)
        return
    ours = tf.math.bincount(tf.constant(x), weights=tf.constant(w), **kwargs)
    theirs = rtf.math.bincount(rtf.constant(x), weights=rtf.constant(w), **kwargs)
    assert_close(ours, theirs.numpy(), rtol=1e-5)


def test_bincount_axis_and_errors():
    x = np.array([[1, 1], [0, 2]], np.int32)
    assert tf.math.bincount(tf.constant(x), axis=-1).numpy().tolist() == [[0, 2, 0], [1, 0, 1]]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.bincount(tf.constant([-1, 1]))
    assert tf.math.bincount(tf.constant(np.zeros(0, np.int32))).shape == [0]


def test_confusion_matrix():
    m = tf.math.confusion_matrix([1, 2, 4], [2, 2, 4])
    expected = np.zeros((5, 5), np.int32)
    expected[1, 2] = 1
    expected[2, 2] = 1
    expected[4, 4] = 1
    assert_close(m, expected)
