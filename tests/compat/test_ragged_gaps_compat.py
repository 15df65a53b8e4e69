"""Ragged and sparse tensors along every axis, under real TF and torchflow, compared.

Each case is a small program in the style of TF's ragged-tensor and tensor guides,
run once with real TF and once with torchflow: values, dtypes, ragged ranks, row
splits dtypes, shapes and error types must agree. Where TF 2.4 and the installed
TF 2.21 differ, the case pins TF 2.4's behaviour and says so.
"""

from __future__ import annotations

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _norm(x, t):
    """A comparable description of a result: kind, dtype, structure and values."""
    if isinstance(x, (tuple, list)):
        return type(x).__name__, [_norm(v, t) for v in x]
    if isinstance(x, dict):
        return "dict", {k: _norm(v, t) for k, v in x.items()}
    if isinstance(x, t.RaggedTensor):
        return ("ragged", x.dtype.name, x.ragged_rank, x.row_splits.dtype.name,
                str(x.shape), _values(x.to_list()))
    if isinstance(x, t.SparseTensor):
        return ("sparse", x.dtype.name, x.indices.numpy().tolist(),
                _values(x.values.numpy().tolist()), x.dense_shape.numpy().tolist())
    if isinstance(x, t.TypeSpec):
        return "spec", repr(x)
    if hasattr(x, "numpy"):
        a = x.numpy()
        return "tensor", x.dtype.name, a.shape, _values(a.tolist())
    return "py", repr(x)


def _values(v):
    """Nested lists with floats rounded (float32 sums differ in the last ulp)."""
    if isinstance(v, list):
        return [_values(e) for e in v]
    if isinstance(v, float):
        return "nan" if v != v else round(v, 5)
    return v


def _run(fn, t):
    try:
        return _norm(fn(t), t)
    except Exception as e:  # noqa: BLE001 - the error type is what is compared
        return "error", type(e).__name__


def _check(fn):
    ours, theirs = _run(fn, tf), _run(fn, real_tf())
    assert ours == theirs


def _rt(t):
    return t.ragged.constant([[1, 2, 3], [4], [5, 6]])


def _rt3(t):  # ragged_rank 2
    return t.ragged.constant([[[1, 2], [3]], [[5, 6]], [[], [7, 8, 9]]])


def _rtu(t):  # ragged_rank 1 with a uniform inner dimension of 2
    return t.ragged.constant([[[1, 2], [3, 4]], [[5, 6]], []], ragged_rank=1)


def _rtf(t):
    return t.ragged.constant([[1., 2, 3], [], [5, 6]])


REDUCTIONS = {
    "sum_axis0": lambda t: t.reduce_sum(_rt(t), axis=0),
    "mean_axis0": lambda t: t.reduce_mean(t.cast(_rt(t), t.float32), axis=0),
    "sum_axis0_keepdims": lambda t: t.reduce_sum(_rt(t), axis=0, keepdims=True),
    "sum_axis1_keepdims": lambda t: t.reduce_sum(_rt(t), axis=1, keepdims=True),
    "sum_axes01": lambda t: t.reduce_sum(_rt(t), axis=[0, 1]),
    "max_empty_row": lambda t: t.reduce_max(_rtf(t), axis=1),
    "min_axis0": lambda t: t.reduce_min(_rt(t), axis=0),
    "prod_axis_neg1": lambda t: t.reduce_prod(_rt(t), axis=-1),
    "rr2_sum_axis0": lambda t: t.reduce_sum(_rt3(t), axis=0),
    "rr2_sum_axis1": lambda t: t.reduce_sum(_rt3(t), axis=1),
    "rr2_max_axis2": lambda t: t.reduce_max(_rt3(t), axis=2),
    "rr2_sum_axes01": lambda t: t.reduce_sum(_rt3(t), axis=[0, 1]),
    "rr2_sum_axes12": lambda t: t.reduce_sum(_rt3(t), axis=[1, 2]),
    "rr2_mean_axis1": lambda t: t.reduce_mean(t.cast(_rt3(t), t.float64), axis=1),
    "rr2_sum_axis1_keepdims": lambda t: t.reduce_sum(_rt3(t), axis=1, keepdims=True),
    "rr2_sum_axis0_keepdims": lambda t: t.reduce_sum(_rt3(t), axis=0, keepdims=True),
    "rr2_any_axis1": lambda t: t.reduce_any(_rt3(t) > 4, axis=1),
    "rr2_all_axis0": lambda t: t.reduce_all(_rt3(t) > 1, axis=0),
    "uniform_sum_axis1": lambda t: t.reduce_sum(_rtu(t), axis=1),
    "uniform_sum_axis2": lambda t: t.reduce_sum(_rtu(t), axis=2),
    "uniform_sum_axis0": lambda t: t.reduce_sum(_rtu(t), axis=0),
    "uniform_mean_axis1": lambda t: t.reduce_mean(t.cast(_rtu(t), t.float32), axis=1),
    "uniform_sum_axes12": lambda t: t.reduce_sum(_rtu(t), axis=[1, 2]),
    "variance_axis1": lambda t: t.math.reduce_variance(_rtf(t), axis=1),
    "std_axis1": lambda t: t.math.reduce_std(_rtf(t), axis=1),
    "std_axis0": lambda t: t.math.reduce_std(_rtf(t), axis=0),
    "variance_all": lambda t: t.math.reduce_variance(_rtf(t)),
    "axis_out_of_range": lambda t: t.reduce_sum(_rt(t), axis=2),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_ragged_reductions(name):
    _check(REDUCTIONS[name])


def _sparse(t):
    return t.sparse.SparseTensor([[0, 0], [1, 2]], [1., 2.], [3, 4])


SHAPES = {
    "size": lambda t: t.size(_rt(t)),
    "size_int64": lambda t: t.size(_rt3(t), out_type=t.int64),
    "size_uniform": lambda t: t.size(_rtu(t)),
    "rank": lambda t: t.rank(_rt3(t)),
    "rank_uniform": lambda t: t.rank(_rtu(t)),
    "sparse_shape": lambda t: t.shape(_sparse(t)),
    "sparse_shape_int64": lambda t: t.shape(_sparse(t), out_type=t.int64),
    "sparse_size": lambda t: t.size(_sparse(t)),
    "sparse_rank": lambda t: t.rank(_sparse(t)),
    "bounding_shape": lambda t: _rt3(t).bounding_shape(),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape_queries(name):
    _check(SHAPES[name])


def test_shape_of_ragged_raises_as_tf24():
    # TF 2.4's tf.shape has no ragged form (DynamicRaggedShape came in later
    # versions; TF 2.21 returns one): it converts the argument to a Tensor and
    # fails with this ValueError, which 2.21's tf.convert_to_tensor still raises.
    with pytest.raises(ValueError, match="has no len") as ours:
        tf.shape(_rt(tf))
    with pytest.raises(ValueError) as theirs:
        real_tf().convert_to_tensor(_rt(real_tf()))
    assert str(ours.value) == str(theirs.value).strip()


def test_variance_of_int_ragged_raises_as_tf24():
    # TF 2.4's reduce_variance rejects integer input (TF 2.21 casts it to float).
    with pytest.raises(TypeError, match="Input must be either real or complex"):
        tf.math.reduce_variance(_rt(tf), axis=1)
    with pytest.raises(TypeError, match="Input must be either real or complex"):
        tf.math.reduce_variance(tf.constant([1, 2]))


STRUCTURAL = {
    "gather_axis0": lambda t: t.gather(_rt(t), [2, 0]),
    "gather_axis0_2d_indices": lambda t: t.gather(_rt(t), [[2, 0], [1, 1]]),
    "gather_ragged_indices": lambda t: t.gather(_rt(t), t.ragged.constant([[2], [0, 1]])),
    "gather_axis0_out_of_range": lambda t: t.gather(_rt(t), [5]),
    "gather_axis1": lambda t: t.gather(_rt(t), [0, 1], axis=1),
    "gather_axis1_2d": lambda t: t.gather(_rt(t), [[0], [1]], axis=1),
    "gather_axis1_ragged_indices": lambda t: t.gather(_rt(t), t.ragged.constant([[0], [1, 0]]),
                                                      axis=1),
    "gather_dense_ragged_indices_axis1": lambda t: t.gather(
        t.constant([[1, 2, 3], [4, 5, 6]]), t.ragged.constant([[0], [1, 0]]), axis=1),
    "gather_rr2_axis1": lambda t: t.gather(_rt3(t), [0], axis=1),
    "gather_uniform_axis2": lambda t: t.gather(_rtu(t), [1, 0], axis=2),
    "gather_uniform_axis_neg1": lambda t: t.gather(_rtu(t), [1], axis=-1),
    "gather_batch_dims1": lambda t: t.gather(t.ragged.constant([[1, 2, 3], [4, 5], [5, 6]]),
                                             [[1, 0], [0, 1], [1, 1]], batch_dims=1),
    "gather_batch_dims1_vector": lambda t: t.gather(
        t.ragged.constant([[1, 2, 3], [4, 5], [5, 6]]), [1, 0, 1], batch_dims=1),
    "gather_batch_dims1_ragged": lambda t: t.gather(
        _rt(t), t.ragged.constant([[1, 0], [], [1]]), batch_dims=1, axis=1),
    "gather_batch_dims1_rr2": lambda t: t.gather(
        _rt3(t), t.ragged.constant([[1, 0], [0], [1]]), batch_dims=1),
    "gather_dense_ragged_batch_dims1": lambda t: t.gather(
        t.constant([[1, 2, 3], [4, 5, 6]]), t.ragged.constant([[0], [1, 0]]), axis=1,
        batch_dims=1),
    "gather_float_indices": lambda t: t.gather(_rt(t), t.constant([0.5])),
    "gather_nd_points": lambda t: t.gather_nd(_rt(t), [[0, 1], [2, 0]]),
    "gather_nd_rows": lambda t: t.gather_nd(_rt(t), [[1], [2]]),
    "gather_nd_rank1_index": lambda t: t.gather_nd(_rt(t), [1]),
    "gather_nd_rank1_point": lambda t: t.gather_nd(_rt(t), [1, 0]),
    "gather_nd_rr2_rows": lambda t: t.gather_nd(_rt3(t), [[0, 0], [2, 1]]),
    "gather_nd_rr2_points": lambda t: t.gather_nd(_rt3(t), [[0, 0, 1], [2, 1, 2]]),
    "gather_nd_3d_indices": lambda t: t.gather_nd(_rt(t), [[[0, 1]], [[2, 0]]]),
    "gather_nd_uniform": lambda t: t.gather_nd(_rtu(t), [[0, 1, 0], [1, 0, 1]]),
    "gather_nd_ragged_indices": lambda t: t.gather_nd(
        _rt(t), t.ragged.constant([[[1, 0]], [[0, 2], [2, 1]]], ragged_rank=1)),
    "gather_nd_ragged_innermost": lambda t: t.gather_nd(
        _rt(t), t.ragged.constant([[[1], [2]], [[0]]])),
    "gather_nd_batch_dims": lambda t: t.gather_nd(_rt(t), [[1], [0], [1]], batch_dims=1),
    "concat_axis0": lambda t: t.concat([_rt(t), t.ragged.constant([[7], [8, 9]])], axis=0),
    "concat_axis1": lambda t: t.concat([_rt(t), t.ragged.constant([[7], [8, 9], []])], 1),
    "concat_axis_neg1": lambda t: t.concat([_rt(t), t.ragged.constant([[7], [8, 9], []])], -1),
    "concat_dense_axis1": lambda t: t.concat([_rt(t), t.constant([[7], [8], [9]])], axis=1),
    "concat_uniform_axis2": lambda t: t.concat(
        [_rtu(t), t.ragged.constant([[[7], [8]], [[9]], []], ragged_rank=1)], axis=2),
    "concat_uniform_mismatch": lambda t: t.concat(
        [_rtu(t), t.ragged.constant([[[7, 8]], [[9, 10]], []], ragged_rank=1)], axis=2),
    "concat_rr2_axis2": lambda t: t.concat(
        [_rt3(t), t.ragged.constant([[[7], []], [[9, 1, 2]], [[0], [1]]])], axis=2),
    "concat_rr2_axis1": lambda t: t.concat(
        [_rt3(t), t.ragged.constant([[[7], []], [[9, 1, 2]], []])], axis=1),
    "concat_axis_out_of_range": lambda t: t.concat([_rt(t), _rt(t)], axis=2),
    "concat_rank_mismatch": lambda t: t.concat([_rt(t), t.constant([7, 8])], axis=0),
    "concat_dtype_mismatch": lambda t: t.concat([_rt(t), t.ragged.constant([[7.]])], axis=0),
    "stack_axis0": lambda t: t.stack([_rt(t), t.ragged.constant([[7], [8, 9], []])], axis=0),
    "stack_axis1_dense": lambda t: t.stack([_rt(t), t.constant([[7], [8], [9]])], axis=1),
    "stack_rr2_axis2": lambda t: t.stack(
        [_rt3(t), t.ragged.constant([[[7], []], [[9, 1, 2]], [[0], [1]]])], axis=2),
    "stack_rr2_axis3": lambda t: t.stack([_rt3(t), _rt3(t) * 10], axis=3),
    "stack_axis2_mismatch": lambda t: t.stack(
        [_rt(t), t.ragged.constant([[7], [8, 9], []])], axis=2),
    "ragged_stack_axis_neg1": lambda t: t.ragged.stack([_rt(t), _rt(t) + 1], axis=-1),
}


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
def test_ragged_gather_concat_stack(name):
    _check(STRUCTURAL[name])
