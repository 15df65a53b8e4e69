"""sort, argsort, unique, searchsorted, clip_*, einsum, tensordot vs NumPy and real TF."""

import numpy as np
import pytest
import torch

import torchflow as tf
from tests.ops._array_diff import check, check_error
from torchflow._src.testing import assert_close, rand


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "int8", "float16",
                                   "uint8"])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
@pytest.mark.parametrize("axis", [-1, 0])
def test_sort_argsort_vs_numpy(dtype, direction, axis):
    a = rand((5, 6), dtype, seed=9, low=-3, high=3)
    ours = tf.sort(a, axis=axis, direction=direction)
    ref = np.sort(a, axis=axis)
    if direction == "DESCENDING":
        ref = np.flip(ref, axis)
    assert_close(ours, ref)
    idx = tf.argsort(a, axis=axis, direction=direction, stable=True)
    assert idx.dtype == tf.int32
    # Stable ties: ascending keeps index order; TF's descending also keeps index order.
    key = a if direction == "ASCENDING" else -a.astype(np.float64)
    assert_close(idx, np.argsort(key, axis=axis, kind="stable").astype(np.int32))


def test_sort_matches_tf_and_errors():
    check("sort", rand((3, 4), "float32"), direction="DESCENDING")
    check("argsort", [3, 1, 2, 1])
    check("argsort", [3, 1, 2, 1], direction="DESCENDING", stable=True)
    check_error("sort", [1, 2], direction="UP")
    check_error("sort", [[1, 2]], axis=2)
    check_error("sort", tf.constant(["b", "a"]))


@pytest.mark.parametrize("x", [[1, 1, 2, 4, 4, 4, 7, 8, 8], [3.5, -1.0, 3.5, 0.0],
                               np.array([5, 3, 5, 3, 1], np.int64), [b"b", b"a", b"b"],
                               np.zeros((0,), np.int32)])
@pytest.mark.parametrize("out_idx", [tf.int32, tf.int64])
def test_unique_matches_tf(x, out_idx):
    check("unique", x, out_idx=out_idx)
    check("unique_with_counts", x, out_idx=out_idx)


def test_unique_result_fields_and_errors():
    r = tf.unique([1, 1, 2])
    assert r.y.numpy().tolist() == [1, 2] and r.idx.numpy().tolist() == [0, 0, 1]
    check_error("unique", [[1]])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_tf(side):
    check("searchsorted", [1, 3, 5, 5, 7], [0, 3, 5, 6, 9], side=side)
    check("searchsorted", [[1.0, 3.0, 5.0], [0.0, 0.5, 1.0]], [[3.0, 6.0], [0.7, -1.0]],
          side=side)
    check("searchsorted", [1, 3, 5], [3, 6], side=side, out_type=tf.int64)


def test_searchsorted_errors():
    check_error("searchsorted", [[1, 3, 5]], [[3], [4]])
    with pytest.raises(ValueError):
        tf.searchsorted([1, 2], [1], side="middle")


@pytest.mark.parametrize("args", [
    (rand((3, 4), "float32"), -1.0, 1.0),
    (np.arange(12, dtype=np.int32).reshape(3, 4), 2, 7),
    (np.arange(12, dtype=np.int32).reshape(3, 4), 5, 0),
    (rand((3, 4), "float64"), np.float64(0.5), np.float64(-0.5)),
    (rand((2, 3), "float32"), rand((3,), "float32", low=-3, high=0),
     rand((3,), "float32", low=0, high=3)),
    (np.arange(6, dtype=np.uint8), 1, 3),
])
def test_clip_by_value_matches_tf(args):
    check("clip_by_value", *args)


def test_clip_by_value_errors():
    check_error("clip_by_value", np.arange(3, dtype=np.int32), 0.0, 5.0)
    check_error("clip_by_value", np.arange(3, dtype=np.int32), 0, 5.5)


def test_clip_by_value_gradient_is_inclusive():
    x = tf.constant([-2.0, -1.0, 0.0, 1.0, 2.0])
    with torch.enable_grad():
        x._t.requires_grad_(True)
        y = tf.clip_by_value(x, -1.0, 1.0)
        y._t.sum().backward()
    assert x._t.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("args,kw", [
    ((rand((3, 4), "float32"), 1.0), {}),
    ((rand((3, 4), "float32"), 100.0), {}),
    ((rand((3, 4), "float64"), 0.5), dict(axes=[1])),
    ((rand((3, 4), "float32"), 0.5), dict(axes=0)),
    ((np.zeros((3,), np.float32), 1.0), {}),
])
def test_clip_by_norm_matches_tf(args, kw):
    check("clip_by_norm", *args, rtol=1e-5, **kw)


def test_clip_by_norm_int_error():
    check_error("clip_by_norm", np.arange(3, dtype=np.int32), 1)


def test_clip_by_global_norm_matches_tf():
    a, b = rand((3,), "float32"), rand((2, 2), "float32", seed=4)
    check("clip_by_global_norm", [a, b], 1.0, rtol=1e-5)
    check("clip_by_global_norm", [a, None, b], 100.0, rtol=1e-5)
    check("clip_by_global_norm", [a], 1.0, use_norm=tf.constant(2.0), rtol=1e-5)
    clipped, norm = tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
    assert np.isnan(clipped[0].numpy()).all() and np.isinf(norm.numpy())
    with pytest.raises(TypeError):
        tf.clip_by_global_norm(tf.constant([1.0]), 1.0)


@pytest.mark.parametrize("eq,shapes,dtype", [
    ("ij,jk->ik", [(2, 3), (3, 4)], "float32"),
    ("ij,kj->ik", [(2, 3), (4, 3)], "int32"),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)], "float64"),
    ("ii->i", [(3, 3)], "float32"),
    ("ij->", [(3, 3)], "float32"),
    ("i,j->ij", [(3,), (2,)], "complex64"),
    ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 1)], "float32"),
])
def test_einsum_matches_tf(eq, shapes, dtype):
    args = [rand(s, dtype, seed=i) for i, s in enumerate(shapes)]
    check("einsum", eq, *args, rtol=1e-5)


def test_einsum_dtype_mismatch():
    check_error("einsum", "ij,jk->ik", tf.ones((2, 2), tf.int32), tf.ones((2, 2)))
    check("einsum", "ij,jk->ik", np.ones((2, 2), np.int32), np.ones((2, 2), np.float32))


@pytest.mark.parametrize("axes", [1, 0, [[1], [0]], [[0, 1], [1, 2]], ([1, 0], [2, 1])])
def test_tensordot_matches_tf(axes):
    a, b = rand((3, 4), "float32"), rand((4, 3, 4), "float32", seed=1)
    if axes == 1:
        b = rand((4, 5), "float32", seed=1)
    check("tensordot", a, b, axes, rtol=1e-5)
