"""shape, size, rank, broadcast_*, meshgrid, sequence_mask, ensure_shape vs real TF."""

import numpy as np
import pytest

import torchflow as tf
from tests.ops._array_diff import check, check_error
from torchflow._src.testing import rand

S = np.array([[b"a", b"b"]], dtype=object)


@pytest.mark.parametrize("x", [rand((3, 4), "float32"), np.float32(1), rand((2, 0, 3), "int8"), S])
def test_shape_size_rank_match_tf(x):
    check("shape", x)
    check("shape", x, out_type=tf.int64)
    check("size", x)
    check("size", x, out_type=tf.int64)
    check("rank", x)
    check("shape_n", [x, x])


def test_shape_errors():
    check_error("shape", np.zeros(2), out_type=tf.float32)


@pytest.mark.parametrize("x,shape", [(rand((3, 1), "float32"), [2, 3, 4]), (np.int32(5), [2]),
                                     (rand((4,), "int64"), [3, 4]), (S, [3, 1, 2])])
def test_broadcast_to_matches_tf(x, shape):
    check("broadcast_to", x, shape)


def test_broadcast_errors_and_shapes():
    check_error("broadcast_to", np.zeros((3, 4)), [2, 4])
    check("broadcast_dynamic_shape", [2, 1], [3])
    out = tf.broadcast_dynamic_shape(np.array([5, 1, 3], np.int64), np.array([4, 1], np.int64))
    assert out.dtype == tf.int64 and out.numpy().tolist() == [5, 4, 3]
    check_error("broadcast_dynamic_shape", [2], [3])
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])) == [2, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([3])).as_list() \
        == [None, 3]
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_tf(indexing):
    check("meshgrid", [1, 2], [3, 4, 5], indexing=indexing)
    check("meshgrid", rand((2,), "float32"), rand((3,), "float32"), rand((4,), "float32"),
          indexing=indexing)


@pytest.mark.parametrize("args,kw", [(([1, 3], 4), {}), (([[1, 3]],), {}),
                                     (([1], 2), dict(dtype=tf.float32)),
                                     ((np.array([0, 2], np.int64), 3), {}),
                                     (([2, 0, 1], 0), {})])
def test_sequence_mask_matches_tf(args, kw):
    check("sequence_mask", *args, **kw)


def test_ensure_shape():
    x = tf.zeros([3, 4])
    assert tf.ensure_shape(x, [3, None]) is x
    assert tf.ensure_shape(x, None) is x
    check_error("ensure_shape", np.zeros((3, 4)), [3, 5])
    check_error("ensure_shape", np.zeros((3, 4)), [3])
    assert tf.guarantee_const(x) is x
