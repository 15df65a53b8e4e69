"""tf.sparse ops against real TensorFlow: each case runs the same function with
``tf`` = real TF and ``tf`` = torchflow and compares values, dtypes, shapes and
(for bad input) the error type and message."""

from __future__ import annotations

import re

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf


def _st(tf, ind, vals, shape, dtype=None):
    v = tf.constant(vals, dtype) if dtype is not None else vals
    return tf.sparse.SparseTensor(ind, v, shape)


A = ([[0, 0], [0, 2], [1, 1], [3, 0]], [1.0, 2.0, -3.0, 4.0], [4, 3])
B = ([[0, 0], [1, 1], [2, 2]], [10.0, 3.0, -1.0], [4, 3])
S3 = ([[0, 0, 1], [0, 1, 0], [1, 0, 2], [1, 1, 1]], [1, 2, 3, 4], [2, 2, 3])
STR = ([[0, 0], [0, 1], [2, 0]], [b"a", b"bc", b"d"], [3, 2])
UNSORTED = ([[1, 0], [0, 1]], [1, 2], [2, 2])


def a(tf):
    return _st(tf, *A)


def b(tf):
    return _st(tf, *B)


def s3(tf):
    return _st(tf, *S3)


def sstr(tf):
    return _st(tf, *STR)


CASES = {
    "to_dense": lambda tf: tf.sparse.to_dense(a(tf)),
    "to_dense_default": lambda tf: tf.sparse.to_dense(a(tf), default_value=7.0),
    "to_dense_str": lambda tf: tf.sparse.to_dense(sstr(tf)),
    "to_dense_str_default": lambda tf: tf.sparse.to_dense(sstr(tf), b"?"),
    "to_dense_3d": lambda tf: tf.sparse.to_dense(s3(tf)),
    "to_dense_unsorted": lambda tf: tf.sparse.to_dense(_st(tf, *UNSORTED)),
    "to_dense_unsorted_novalidate": lambda tf: tf.sparse.to_dense(_st(tf, *UNSORTED),
                                                                   validate_indices=False),
    "to_dense_oob": lambda tf: tf.sparse.to_dense(_st(tf, [[0, 5]], [1.0], [2, 2])),
    "to_dense_repeated": lambda tf: tf.sparse.to_dense(_st(tf, [[0, 1], [0, 1]], [1, 2],
                                                           [2, 2])),
    "from_dense": lambda tf: tf.sparse.from_dense(tf.constant([[0, 3, 0], [4, 0, 5]])),
    "from_dense_str": lambda tf: tf.sparse.from_dense(tf.constant([[b"", b"x"], [b"y", b""]])),
    "from_dense_float": lambda tf: tf.sparse.from_dense(tf.constant([0.0, -1.5, 0.0])),
    "reorder": lambda tf: tf.sparse.reorder(_st(tf, [[1, 0], [0, 2], [0, 1]], [1, 2, 3],
                                                [2, 3])),
    "reorder_str": lambda tf: tf.sparse.reorder(_st(tf, [[2, 0], [0, 1]], [b"a", b"b"], [3, 2])),
    "reshape": lambda tf: tf.sparse.reshape(a(tf), [2, 6]),
    "reshape_infer": lambda tf: tf.sparse.reshape(a(tf), [-1, 2]),
    "reshape_3d": lambda tf: tf.sparse.reshape(s3(tf), [4, 3]),
    "reshape_bad": lambda tf: tf.sparse.reshape(a(tf), [5, 2]),
    "reshape_bad_infer": lambda tf: tf.sparse.reshape(a(tf), [-1, 5]),
    "slice": lambda tf: tf.sparse.slice(a(tf), [0, 1], [2, 5]),
    "slice_3d": lambda tf: tf.sparse.slice(s3(tf), [1, 0, 1], [1, 2, 2]),
    "slice_str": lambda tf: tf.sparse.slice(sstr(tf), [0, 1], [3, 1]),
    "concat1": lambda tf: tf.sparse.concat(1, [a(tf), b(tf)]),
    "concat0": lambda tf: tf.sparse.concat(0, [a(tf), b(tf)]),
    "concat_neg": lambda tf: tf.sparse.concat(-1, [a(tf), b(tf), a(tf)]),
    "concat_expand": lambda tf: tf.sparse.concat(
        1, [a(tf), _st(tf, [[0, 1], [5, 0]], [7.0, 8.0], [6, 2])], expand_nonconcat_dims=True),
    "concat_bad": lambda tf: tf.sparse.concat(1, [a(tf), _st(tf, [[0, 1]], [7.0], [6, 2])]),
    "add_sparse": lambda tf: tf.sparse.add(a(tf), b(tf)),
    "add_threshold": lambda tf: tf.sparse.add(a(tf), b(tf), threshold=2.5),
    "add_dense": lambda tf: tf.sparse.add(a(tf), tf.ones([4, 3])),
    "add_dense_first": lambda tf: tf.sparse.add(tf.ones([4, 3]), a(tf)),
    "add_shape_mismatch": lambda tf: tf.sparse.add(a(tf), _st(tf, [[0, 0]], [1.0], [4, 4])),
    "reduce_sum_all": lambda tf: tf.sparse.reduce_sum(a(tf)),
    "reduce_sum_0": lambda tf: tf.sparse.reduce_sum(a(tf), axis=0),
    "reduce_sum_1_keep": lambda tf: tf.sparse.reduce_sum(a(tf), axis=1, keepdims=True),
    "reduce_sum_neg": lambda tf: tf.sparse.reduce_sum(s3(tf), axis=[-1, 0]),
    "reduce_sum_sparse": lambda tf: tf.sparse.reduce_sum(a(tf), axis=1, output_is_sparse=True),
    "reduce_sum_sparse_keep": lambda tf: tf.sparse.reduce_sum(s3(tf), axis=1, keepdims=True,
                                                              output_is_sparse=True),
    "reduce_max_all": lambda tf: tf.sparse.reduce_max(a(tf)),
    "reduce_max_1": lambda tf: tf.sparse.reduce_max(a(tf), axis=1),
    "reduce_max_neg_values": lambda tf: tf.sparse.reduce_max(
        _st(tf, [[0, 0], [1, 1]], [-1.0, -2.0], [3, 3]), axis=1),
    "reduce_max_sparse": lambda tf: tf.sparse.reduce_max(s3(tf), axis=2, output_is_sparse=True),
    "reduce_max_int": lambda tf: tf.sparse.reduce_max(s3(tf), axis=0),
    "matmul": lambda tf: tf.sparse.sparse_dense_matmul(a(tf), tf.reshape(tf.range(6.0), [3, 2])),
    "matmul_adj_a": lambda tf: tf.sparse.sparse_dense_matmul(
        a(tf), tf.reshape(tf.range(8.0), [4, 2]), adjoint_a=True),
    "matmul_adj_b": lambda tf: tf.sparse.sparse_dense_matmul(
        a(tf), tf.reshape(tf.range(6.0), [2, 3]), adjoint_b=True),
    "matmul_dense_sparse": lambda tf: tf.sparse.sparse_dense_matmul(
        tf.reshape(tf.range(8.0), [2, 4]), a(tf)),
    "matmul_bad": lambda tf: tf.sparse.sparse_dense_matmul(a(tf), tf.ones([4, 2])),
    "segment_sum": lambda tf: tf.sparse.segment_sum(
        tf.reshape(tf.range(8.0), [4, 2]), [0, 3, 1, 2], [0, 0, 2, 2]),
    "segment_mean": lambda tf: tf.sparse.segment_mean(
        tf.reshape(tf.range(8.0), [4, 2]), [0, 3, 1], [0, 0, 2]),
    "segment_sqrt_n": lambda tf: tf.sparse.segment_sqrt_n(
        tf.reshape(tf.range(8.0), [4, 2]), [0, 3, 1], [0, 0, 2], num_segments=4),
    "segment_bad_index": lambda tf: tf.sparse.segment_sum(tf.ones([3, 2]), [0, 5], [0, 1]),
    "segment_unsorted": lambda tf: tf.sparse.segment_sum(tf.ones([3, 2]), [0, 1], [1, 0]),
    "retain": lambda tf: tf.sparse.retain(a(tf), [True, False, True, False]),
    "retain_str": lambda tf: tf.sparse.retain(sstr(tf), [False, True, True]),
    "fill_empty_rows": lambda tf: tf.sparse.fill_empty_rows(a(tf), -1.0),
    "fill_empty_rows_str": lambda tf: tf.sparse.fill_empty_rows(sstr(tf), b"pad"),
    "fill_empty_rows_3d": lambda tf: tf.sparse.fill_empty_rows(
        _st(tf, [[1, 0, 1]], [5], [3, 2, 2]), 0),
    "to_indicator": lambda tf: tf.sparse.to_indicator(
        _st(tf, [[0, 0], [0, 1], [2, 0]], [3, 1, 0], [3, 2], "int64"), 4),
    "to_indicator_oob": lambda tf: tf.sparse.to_indicator(
        _st(tf, [[0, 0], [0, 1]], [3, 7], [2, 2], "int64"), 5),
    "cross": lambda tf: tf.sparse.cross([sstr(tf), _st(tf, [[0, 0], [0, 1], [2, 0]],
                                                       [b"x", b"y", b"z"], [3, 2])]),
    "cross_dense": lambda tf: tf.sparse.cross([sstr(tf), tf.constant([[1], [2], [3]],
                                                                     tf.int64)]),
    "cross_hashed": lambda tf: tf.sparse.cross_hashed(
        [sstr(tf), tf.constant([[1], [2], [3]], tf.int64)]),
    "cross_hashed_buckets": lambda tf: tf.sparse.cross_hashed(
        [sstr(tf), tf.constant([[b"p", b"q"], [b"r", b"s"], [b"t", b"u"]])],
        num_buckets=100, hash_key=7),
    "eye": lambda tf: tf.sparse.eye(3),
    "eye_rect": lambda tf: tf.sparse.eye(2, 4, dtype=tf.int32),
    "expand_dims": lambda tf: tf.sparse.expand_dims(a(tf), 1),
    "expand_dims_neg": lambda tf: tf.sparse.expand_dims(a(tf), -1),
    "transpose": lambda tf: tf.sparse.transpose(a(tf)),
    "transpose_perm": lambda tf: tf.sparse.transpose(s3(tf), [2, 0, 1]),
    "maximum": lambda tf: tf.sparse.maximum(a(tf), b(tf)),
    "minimum": lambda tf: tf.sparse.minimum(a(tf), b(tf)),
    "split": lambda tf: tf.sparse.split(sp_input=a(tf), num_split=2, axis=1),
    "split_rows": lambda tf: tf.sparse.split(sp_input=s3(tf), num_split=2, axis=0),
    "softmax": lambda tf: tf.sparse.softmax(a(tf)),
    "reset_shape": lambda tf: tf.sparse.reset_shape(a(tf)),
    "reset_shape_new": lambda tf: tf.sparse.reset_shape(a(tf), [5, 5]),
    "map_values": lambda tf: tf.sparse.map_values(tf.math.abs, a(tf)),
    "map_values_two": lambda tf: tf.sparse.map_values(tf.add, a(tf), a(tf)),
    "mul_dense": lambda tf: a(tf) * tf.constant([1.0, 2.0, 3.0]),
    "div_dense": lambda tf: a(tf) / tf.constant(2.0),
    "neg_unsupported": lambda tf: -a(tf),
    "with_values": lambda tf: a(tf).with_values(tf.constant([1, 2, 3, 4])),
    "embedding_lookup_sparse_mean": lambda tf: tf.nn.embedding_lookup_sparse(
        tf.reshape(tf.range(12.0), [6, 2]), _st(tf, [[0, 0], [0, 1], [2, 0]], [1, 3, 5], [4, 2],
                                                "int64"), None),
    "embedding_lookup_sparse_sum_w": lambda tf: tf.nn.embedding_lookup_sparse(
        tf.reshape(tf.range(12.0), [6, 2]),
        _st(tf, [[0, 0], [0, 1], [2, 0]], [1, 3, 5], [4, 2], "int64"),
        _st(tf, [[0, 0], [0, 1], [2, 0]], [0.5, 2.0, 1.0], [4, 2]), combiner="sum"),
    "embedding_lookup_sparse_sqrtn_w": lambda tf: tf.nn.embedding_lookup_sparse(
        tf.reshape(tf.range(12.0), [6, 2]),
        _st(tf, [[0, 0], [0, 1], [2, 0]], [1, 1, 5], [4, 2], "int64"),
        _st(tf, [[0, 0], [0, 1], [2, 0]], [0.5, 2.0, 1.0], [4, 2]), combiner="sqrtn"),
    "embedding_lookup_sparse_sqrtn": lambda tf: tf.nn.embedding_lookup_sparse(
        tf.reshape(tf.range(12.0), [6, 2]),
        _st(tf, [[0, 0], [0, 1], [2, 0]], [1, 1, 5], [4, 2], "int64"), None, combiner="sqrtn"),
    "safe_embedding": lambda tf: tf.nn.safe_embedding_lookup_sparse(
        tf.reshape(tf.range(12.0), [6, 2]),
        _st(tf, [[0, 0], [0, 1], [2, 0]], [1, -3, 5], [4, 2], "int64")),
    "safe_embedding_default_w": lambda tf: tf.nn.safe_embedding_lookup_sparse(
        tf.reshape(tf.range(12.0), [6, 2]),
        _st(tf, [[0, 0], [0, 1], [2, 0]], [1, 3, 5], [4, 2], "int64"),
        _st(tf, [[0, 0], [0, 1], [2, 0]], [1.0, 0.0, 2.0], [4, 2]), combiner="sum",
        default_id=4),
    "safe_embedding_3d": lambda tf: tf.nn.safe_embedding_lookup_sparse(
        tf.reshape(tf.range(12.0), [6, 2]),
        _st(tf, [[0, 0, 0], [0, 1, 1], [1, 0, 0]], [1, 3, 5], [2, 2, 2], "int64")),
    "edit_distance": lambda tf: tf.edit_distance(
        _st(tf, [[0, 0, 0], [1, 0, 0], [1, 0, 1]], [b"a", b"b", b"c"], [2, 1, 2]),
        _st(tf, [[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]], [b"a", b"b", b"x", b"c"],
            [2, 2, 3])),
    "edit_distance_raw": lambda tf: tf.edit_distance(
        _st(tf, [[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 2], "int64"),
        _st(tf, [[0, 0], [1, 0], [1, 1]], [2, 3, 3], [2, 3], "int64"), normalize=False),
    "edit_distance_rank": lambda tf: tf.edit_distance(
        _st(tf, [[0, 0, 0]], [b"a"], [1, 1, 1]), _st(tf, [[0, 0]], [b"a"], [1, 1])),
    "bincount_sparse": lambda tf: tf.sparse.bincount(
        _st(tf, [[0, 0], [0, 1], [1, 0]], [1, 3, 1], [2, 2])),
    "bincount_rows": lambda tf: tf.sparse.bincount(tf.constant([[1, 3], [1, 1]]), axis=-1,
                                                   minlength=5),
    "bincount_weights": lambda tf: tf.sparse.bincount(tf.constant([1, 3, 1]),
                                                      weights=[0.5, 1.0, 2.0]),
    "bincount_binary": lambda tf: tf.sparse.bincount(tf.constant([1, 3, 1]),
                                                     binary_output=True),
    "bincount_maxlength": lambda tf: tf.sparse.bincount(
        _st(tf, [[0, 0], [0, 1], [1, 0]], [1, 3, 1], [2, 2]), axis=-1, maxlength=2),
    "serialize_sparse": lambda tf: tf.io.serialize_sparse(a(tf)),
    # String values: TF writes them as tensor_content, torchflow as string_val (the
    # bytes differ, both parse to the same tensor), so the round trip is compared.
    "serialize_sparse_str_roundtrip": lambda tf: tf.io.deserialize_many_sparse(
        tf.stack([tf.io.serialize_sparse(sstr(tf))]), tf.string),
    "serialize_many_sparse": lambda tf: tf.io.serialize_many_sparse(s3(tf)),
    "deserialize_many_sparse": lambda tf: tf.io.deserialize_many_sparse(
        tf.io.serialize_many_sparse(s3(tf)), tf.int32),
    "deserialize_stacked": lambda tf: tf.io.deserialize_many_sparse(tf.stack([
        tf.io.serialize_sparse(_st(tf, [[0]], [1.0], [2])),
        tf.io.serialize_sparse(_st(tf, [[1], [3]], [2.0, 3.0], [4]))]), tf.float32),
    "bad_indices_rank": lambda tf: tf.sparse.SparseTensor([0, 1], [1, 2], [3]),
    "bad_values_len": lambda tf: tf.sparse.SparseTensor([[0]], [1, 2], [3]),
    "not_sparse": lambda tf: tf.sparse.to_dense(tf.constant([1])),
}


def _canon(x):
    if isinstance(x, (list, tuple)):
        return [_canon(v) for v in x]
    if hasattr(x, "dense_shape") and hasattr(x, "indices"):
        return ("sparse", _canon(x.indices), _canon(x.values), _canon(x.dense_shape),
                tuple(x.shape.as_list()), x.dtype.name)
    arr = x.numpy()
    return ("dense", np.asarray(arr), arr.dtype.name if hasattr(arr, "dtype") else None)


def _run(tf, fn):
    try:
        return "ok", _canon(fn(tf))
    except Exception as e:  # noqa: BLE001 - both sides' errors are compared
        msg = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", str(e))
        msg = re.sub(r" name: \S*$", "", msg)
        return "err", (type(e).__name__, msg)


def _compare(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w)
        return
    assert got[0] == want[0]
    if want[0] == "sparse":
        for g, w in zip(got[1:4], want[1:4]):
            _compare(g, w)
        assert got[4:] == want[4:]
        return
    g, w = got[1], want[1]
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape, (g.shape, w.shape)
    if w.dtype.kind == "f":
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(g, w)


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_op_matches_tf(name):
    rtf = real_tf()
    fn = CASES[name]
    want = _run(rtf, fn)
    got = _run(torchflow, fn)
    assert got[0] == want[0], (got, want)
    if want[0] == "err":
        assert got[1][0] == want[1][0], (got[1], want[1])
        assert got[1][1] == want[1][1], (got[1], want[1])
    else:
        _compare(got[1], want[1])


_UNARY = ["abs", "negative", "sign", "square", "sqrt", "erf", "tanh", "sin", "tan", "asin",
          "atan", "asinh", "atanh", "bessel_i1e", "sigmoid", "exp", "log1p", "floor", "cos",
          "is_nan", "softplus"]


@pytest.mark.compat
@pytest.mark.parametrize("name", _UNARY)
def test_unary_op_on_sparse_tensor_as_tf(name):
    rtf = real_tf()
    out = []
    for m in (rtf, torchflow):
        st = m.sparse.SparseTensor([[0, 0], [1, 2]], [-0.5, 0.25], [2, 3])
        try:
            r = getattr(m.math, name)(st)
            out.append((type(r).__name__, r.indices.numpy().tolist(), r.values.numpy(),
                        r.dense_shape.numpy().tolist()))
        except Exception as e:  # noqa: BLE001 - both sides' error types are compared
            out.append((type(e).__name__,))
    assert out[1][0] == out[0][0]
    if out[0][0] == "SparseTensor":
        assert out[1][1] == out[0][1] and out[1][3] == out[0][3]
        np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-6)


@pytest.mark.compat
def test_cast_of_sparse_tensor_as_tf():
    rtf = real_tf()
    out = []
    for m in (rtf, torchflow):
        r = m.cast(m.sparse.SparseTensor([[0, 0], [1, 2]], [-1.5, 4.0], [2, 3]), m.int32)
        out.append((type(r).__name__, r.dtype.name, r.values.numpy().tolist()))
    assert out[1] == out[0]
