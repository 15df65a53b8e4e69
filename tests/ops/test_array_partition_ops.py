"""dynamic_partition/stitch, unravel_index, invert_permutation, space_to_batch family
against real TF."""

import numpy as np
import pytest
import torch

import torchflow as tf
from tests.ops._array_diff import check, check_error
from torchflow._src.ops.ranking_ops import invert_permutation
from torchflow._src.testing import rand, real_tf


@pytest.mark.parametrize("data,parts,n", [
    ([10, 20, 30, 40], [1, 0, 1, 2], 3),
    (rand((3, 2), "float32"), [0, 0, 0], 2),
    (rand((2, 3, 2), "int64"), [[0, 1, 1], [1, 0, 1]], 2),
    (np.array([b"a", b"b", b"c"], dtype=object), [1, 0, 1], 2),
])
def test_dynamic_partition_matches_tf(data, parts, n):
    check("dynamic_partition", data, parts, n)


def test_dynamic_partition_errors():
    check_error("dynamic_partition", [1, 2], [0, 5], 2)
    check_error("dynamic_partition", [1, 2], [0, 1, 1], 2)


def test_dynamic_stitch_matches_tf():
    check("dynamic_stitch", [[6], [4, 1], [[5, 2], [0, 3]]],
          [[61.0], [41.0, 11.0], [[51.0, 21.0], [1.0, 31.0]]])
    check("dynamic_stitch", [[0, 2], [2, 1]], [rand((2, 3), "int32"), rand((2, 3), "int32", 1)])
    check("dynamic_stitch", [[1], [0]], [np.array([b"x"], dtype=object),
                                         np.array([b"y"], dtype=object)])


def test_dynamic_stitch_is_differentiable():
    a = tf.constant([1.0, 2.0])
    with torch.enable_grad():
        a._t.requires_grad_(True)
        y = tf.dynamic_stitch([[1, 0], [2]], [a, tf.constant([5.0])])
        y._t.sum().backward()
    assert a._t.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("indices,dims", [([5], [2, 3]), (4, [2, 3]), ([0, 7, 23], [2, 3, 4]),
                                          (tf.constant([3], tf.int64), tf.constant([4], tf.int64))])
def test_unravel_index_matches_tf(indices, dims):
    check("unravel_index", indices, dims)


def test_unravel_index_errors():
    check_error("unravel_index", [6], [2, 3])


def test_parallel_stack_and_static_value():
    check_error("parallel_stack", [rand((2,), "float32"), rand((2,), "float32", 1)])
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert tf.get_static_value(3) == 3


def test_invert_permutation_matches_tf():
    rtf = real_tf()
    for p in ([3, 4, 0, 2, 1], [0], np.array([1, 0], np.int32)):
        ours, theirs = invert_permutation(p), rtf.math.invert_permutation(p)
        assert ours.dtype.name == theirs.dtype.name
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(tf.errors.InvalidArgumentError):
        invert_permutation([0, 0])
    with pytest.raises(rtf.errors.InvalidArgumentError):
        rtf.math.invert_permutation([0, 0])


S2B = [
    ((1, 4, 4, 1), [2, 2], [[0, 0], [0, 0]]),
    ((2, 3, 5, 2), [2, 3], [[1, 0], [0, 1]]),
    ((1, 4, 3), [2], [[0, 0]]),
    ((2, 2, 4, 3, 1), [1, 2, 3], [[0, 0], [0, 0], [0, 0]]),
]


@pytest.mark.parametrize("shape,block,pads", S2B)
def test_space_to_batch_round_trip_matches_tf(shape, block, pads):
    x = rand(shape, "float32", seed=3)
    y = check("space_to_batch_nd", x, block, pads)
    check("space_to_batch", x, block, pads)
    check("batch_to_space", y.numpy(), block, pads)


def test_space_batch_errors_and_paddings():
    check_error("space_to_batch_nd", np.zeros((1, 3, 3, 1), np.float32), [2, 2], [[0, 0], [0, 0]])
    check_error("batch_to_space", np.zeros((3, 2, 2, 1), np.float32), [2, 2], [[0, 0], [0, 0]])
    check("required_space_to_batch_paddings", [5, 7], [2, 3])
    check("required_space_to_batch_paddings", [5, 7], [2, 3], base_paddings=[[1, 0], [2, 2]])
