"""gather, gather_nd, scatter_nd, tensor_scatter_nd_*, where, boolean_mask vs real TF."""

import numpy as np
import pytest
import torch

import torchflow as tf
from tests.ops._array_diff import check, check_error
from torchflow._src.testing import rand

P = rand((3, 4, 5), "float32", seed=11)


@pytest.mark.parametrize("indices,kw", [
    ([2, 0], {}),
    ([[0, 1], [2, 2]], dict(axis=1)),
    (np.array([4, 0, 1], np.int64), dict(axis=-1)),
    (1, dict(axis=1)),
    (np.zeros((0,), np.int32), {}),
    ([[1, 0, 2], [3, 3, 0], [0, 1, 1]], dict(axis=1, batch_dims=1)),
    ([[1, 0], [3, 3], [0, 1]], dict(axis=2, batch_dims=1)),
    ([[[0, 4], [1, 1], [2, 3], [0, 0]]] * 3, dict(batch_dims=2)),
    ([[[0, 4], [1, 1], [2, 3], [0, 0]]] * 3, dict(batch_dims=-1)),
    (np.array([[1], [0], [2]], np.int16), dict(axis=1, batch_dims=1)),
])
def test_gather_matches_tf(indices, kw):
    check("gather", P, indices, **kw)


@pytest.mark.parametrize("dtype", ["int32", "uint32", "bool", "complex128", "float16"])
def test_gather_dtypes(dtype):
    check("gather", rand((4, 3), dtype), [3, 1, 1], axis=0)


def test_gather_strings():
    s = np.array([b"a", b"b", b"c"], dtype=object)
    check("gather", s, [[2, 0], [1, 1]])


@pytest.mark.parametrize("indices,kw", [
    ([0, 5], {}), ([-1], {}), ([0.0], {}), ([0], dict(axis=3)), ([[0, 9]], dict(axis=1)),
])
def test_gather_errors_match_tf(indices, kw):
    check_error("gather", P, indices, **kw)


def test_gather_error_message():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in "
                                                             r"\[0, 3\)"):
        tf.gather(tf.zeros([3]), [0, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1,0\] = -2"):
        tf.gather(tf.zeros([3]), [[0], [-2]])


@pytest.mark.parametrize("indices,kw", [
    ([[0, 1], [2, 3]], {}),
    ([[0], [2]], {}),
    ([[[0, 1, 2]], [[2, 3, 4]]], {}),
    ([[1, 2], [0, 0], [3, 1]], dict(batch_dims=1)),
    ([[[1], [2]], [[0], [0]], [[3], [1]]], dict(batch_dims=1)),
    (np.zeros((2, 0), np.int32), {}),
])
def test_gather_nd_matches_tf(indices, kw):
    check("gather_nd", P, indices, **kw)


def test_gather_nd_errors_match_tf():
    x = np.arange(12).reshape(3, 4)
    check_error("gather_nd", x, [[0, 5]])
    check_error("gather_nd", x, [[0, 1, 2]])
    check_error("gather_nd", x, [[-1, 0]])
    check("gather_nd", np.array([b"a", b"b"], dtype=object), [[1], [0]])


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "float64", "complex64"])
def test_scatter_nd_matches_tf(dtype):
    u = rand((4,), dtype, seed=2)
    check("scatter_nd", [[1], [3], [1], [0]], u, [5])
    u2 = rand((2, 3), dtype, seed=3)
    check("scatter_nd", [[0, 1], [2, 0]], rand((2,), dtype), [3, 2])
    check("scatter_nd", [[1], [2]], u2, [4, 3])
    check("scatter_nd", [[1], [2]], u2, tf.constant([4, 3]))


def test_scatter_nd_bool_and_errors():
    check("scatter_nd", [[1], [1]], [True, True], [3])
    check_error("scatter_nd", [[5]], [1], [4])
    check_error("scatter_nd", [[1]], [1, 2], [4])


TSN = ["tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
       "tensor_scatter_nd_max", "tensor_scatter_nd_min"]


@pytest.mark.parametrize("name", TSN)
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_tensor_scatter_matches_tf(name, dtype):
    t = rand((4, 3), dtype, seed=4)
    check(name, t, [[0], [2]], rand((2, 3), dtype, seed=5))
    check(name, t, [[0, 1], [3, 2], [1, 1]], rand((3,), dtype, seed=6))
    if name != "tensor_scatter_nd_update":  # duplicates are order-dependent for update
        check(name, t, [[1, 1], [1, 1]], rand((2,), dtype, seed=8))


def test_tensor_scatter_strings_and_errors():
    s = np.array([b"a", b"b", b"c"], dtype=object)
    check("tensor_scatter_nd_update", s, [[2]], np.array([b"z"], dtype=object))
    check_error("tensor_scatter_nd_update", np.zeros(4, np.float32), [[5]], [1.0])
    check_error("tensor_scatter_nd_update", np.zeros(4, np.float32), [[1]], [1.0, 2.0])
    check("tensor_scatter_nd_add", np.zeros(4, np.float32), [[1]], [1])
    check_error("gather", P, [])


def test_scatter_gradients_flow():
    t = tf.constant(rand((4,), "float32"))
    u = tf.constant([1.0, 2.0])
    with torch.enable_grad():
        t._t.requires_grad_(True)
        u._t.requires_grad_(True)
        y = tf.tensor_scatter_nd_update(t, [[1], [3]], u)
        y2 = tf.gather(y, [1, 1, 0])
        y2._t.sum().backward()
    assert t._t.grad.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert u._t.grad.tolist() == [2.0, 0.0]


WHERES = [
    (([[True, False], [False, True]],), {}),
    (([0, 3, 0, 1],), {}),
    ((np.zeros((2, 0, 3), bool),), {}),
    (([True, False], 1, [[5], [6]]), {}),
    (([True, False], [1.0, 2.0], [3.0, 4.0]), {}),
    (([[True], [False]], rand((2, 3), "int64"), rand((1, 3), "int64", seed=2)), {}),
    (([True, False], "a", "b"), {}),
    (([True, False], np.array([1, 2], np.uint16), np.array([3, 4], np.uint16)), {}),
]


@pytest.mark.parametrize("args,kw", WHERES)
def test_where_matches_tf(args, kw):
    check("where", *args, **kw)


def test_where_errors_match_tf():
    check_error("where", np.array(True))
    check_error("where", [True, False], 1, 2.0)
    check_error("where", [1, 0], 1, 2)
    check_error("where", [True], x=[1])
    check_error("where", [True, False, True], [1, 2], [3, 4])
    check_error("where", [True], tf.constant([1]), tf.constant([1.0]))


@pytest.mark.parametrize("mask,kw", [
    ([True, False, True], {}),
    ([[True, False, True, True]] * 3, {}),
    ([True, False, False, True], dict(axis=1)),
    ([[True, False, True, False, True]] * 4, dict(axis=1)),
    ([1, 0, 1], {}),
    ([False, False, False], {}),
])
def test_boolean_mask_matches_tf(mask, kw):
    check("boolean_mask", P, mask, **kw)


def test_boolean_mask_errors_and_strings():
    check_error("boolean_mask", P, True)
    check_error("boolean_mask", P, [True, False])
    check("boolean_mask", np.array([b"a", b"b"], dtype=object), [False, True])
