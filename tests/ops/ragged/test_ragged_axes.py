"""Ragged ops along every axis, checked against plain-Python references on nested lists.

The references implement the definitions directly: a reduction over axis 0 or a
ragged axis combines the rows position by position (a result row as long as the
longest), a gather along axis k indexes each row at depth k, concatenation along
axis k joins the rows at depth k.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf

RR2 = [[[1, 2], [3]], [[5, 6]], [[], [7, 8, 9]]]
RR1 = [[1, 2, 3], [4], [5, 6]]


def _combine(rows, op, ident, depth):
    """Position-by-position combination of ``rows`` (nested lists ``depth`` deep)."""
    if depth == 0:  # numbers: an empty row gives the op's identity
        out = ident
        for r in rows:
            out = op(out, r)
        return out
    width = max((len(r) for r in rows), default=0)
    return [_combine([r[i] for r in rows if i < len(r)], op, ident, depth - 1)
            for i in range(width)]


def _reduce_ref(x, axis, op, ident, rank):
    if axis == 0:
        return _combine(x, op, ident, rank - 1)
    return [_reduce_ref(row, axis - 1, op, ident, rank - 1) for row in x]


def _as_list(x):
    return x.to_list() if isinstance(x, tf.RaggedTensor) else x.numpy().tolist()


@pytest.mark.parametrize("data,rank,axis", [(RR1, 2, 0), (RR1, 2, 1), (RR2, 3, 0),
                                            (RR2, 3, 1), (RR2, 3, 2)])
@pytest.mark.parametrize("kind", ["sum", "max", "prod"])
def test_reduce_matches_positionwise_reference(data, rank, axis, kind):
    op = {"sum": lambda a, b: a + b, "max": max, "prod": lambda a, b: a * b}[kind]
    ident = {"sum": 0, "max": int(np.iinfo(np.int32).min), "prod": 1}[kind]
    fn = {"sum": tf.reduce_sum, "max": tf.reduce_max, "prod": tf.reduce_prod}[kind]
    got = fn(tf.ragged.constant(data), axis=axis)
    assert _as_list(got) == _reduce_ref(data, axis, op, ident, rank)


def test_reduce_keepdims_and_several_axes():
    rt = tf.ragged.constant(RR2)
    assert tf.reduce_sum(rt, axis=[0, 1]).numpy().tolist() == [1 + 3 + 5 + 7, 2 + 6 + 8, 9]
    kept = tf.reduce_sum(rt, axis=1, keepdims=True)
    assert kept.to_list() == [[[4, 2]], [[5, 6]], [[7, 8, 9]]]
    assert tf.reduce_sum(rt, axis=0, keepdims=True).to_list() == [[[1 + 5, 2 + 6], [3 + 7, 8, 9]]]


def test_mean_variance_std_per_row():
    rows = [[1., 2., 3.], [5., 6.], [4.]]
    rt = tf.ragged.constant(rows)
    np.testing.assert_allclose(tf.reduce_mean(rt, axis=1).numpy(), [np.mean(r) for r in rows])
    np.testing.assert_allclose(tf.math.reduce_variance(rt, axis=1).numpy(),
                               [np.var(r) for r in rows], rtol=1e-6)
    np.testing.assert_allclose(tf.math.reduce_std(rt, axis=1).numpy(),
                               [np.std(r) for r in rows], rtol=1e-6)
    # axis 0: the values at each position, over the rows that have it
    cols = [[1., 5., 4.], [2., 6.], [3.]]
    np.testing.assert_allclose(tf.math.reduce_std(rt, axis=0).numpy(),
                               [np.std(c) for c in cols], rtol=1e-6)


def test_uniform_inner_dimension_reductions():
    data = [[[1, 2], [3, 4]], [[5, 6]], []]
    rt = tf.ragged.constant(data, ragged_rank=1)
    out = tf.reduce_sum(rt, axis=1)
    assert isinstance(out, tf.Tensor) and out.shape == (3, 2)
    assert out.numpy().tolist() == [[4, 6], [5, 6], [0, 0]]
    assert tf.reduce_sum(rt, axis=2).to_list() == [[3, 7], [11], []]
    assert tf.reduce_sum(rt, axis=0).numpy().tolist() == [[6, 8], [3, 4]]


def test_gather_along_inner_axes():
    rt = tf.ragged.constant(RR1)
    # axis 1: each row at the same indices (TF checks indices only against all values)
    assert tf.gather(tf.ragged.constant([[1, 2, 3], [4, 5], [6, 7]]), [1, 0],
                     axis=1).numpy().tolist() == [[2, 1], [5, 4], [7, 6]]
    per_row = tf.ragged.constant([[2, 0], [], [1]])
    expected = [[row[i] for i in idx] for row, idx in zip(RR1, per_row.to_list())]
    assert tf.gather(rt, per_row, batch_dims=1).to_list() == expected
    uniform = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert tf.gather(uniform, [1, 0], axis=2).to_list() == [[[2, 1], [4, 3]], [[6, 5]]]
    assert tf.gather(tf.ragged.constant(RR2), [0], axis=1).to_list() == [
        [r[0]] for r in RR2]


def test_gather_nd_index_tuples():
    rt = tf.ragged.constant(RR2)
    tuples = [[0, 0, 1], [2, 1, 2], [1, 0, 0]]
    assert tf.gather_nd(rt, tuples).numpy().tolist() == [RR2[i][j][k] for i, j, k in tuples]
    assert tf.gather_nd(rt, [[2, 1], [0, 0]]).to_list() == [RR2[2][1], RR2[0][0]]
    assert tf.gather_nd(tf.ragged.constant(RR1), [[1], [0]]).to_list() == [RR1[1], RR1[0]]
    with pytest.raises(ValueError, match="batch_dims"):
        tf.gather_nd(rt, [[0]], batch_dims=1)


def test_concat_and_stack_along_inner_axes():
    a = tf.ragged.constant(RR2)
    b_data = [[[7], []], [[9, 1, 2]], [[0], [1]]]
    b = tf.ragged.constant(b_data)
    assert tf.concat([a, b], axis=2).to_list() == [
        [x + y for x, y in zip(ra, rb)] for ra, rb in zip(RR2, b_data)]
    assert tf.stack([a, b], axis=2).to_list() == [
        [[x, y] for x, y in zip(ra, rb)] for ra, rb in zip(RR2, b_data)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="identical ragged splits"):
        tf.concat([a, tf.ragged.constant([[[1]], [[2]], [[3]]])], axis=2)
    with pytest.raises(ValueError, match="out of bounds"):
        tf.concat([a, b], axis=3)


def test_shape_size_rank():
    rt = tf.ragged.constant(RR2)
    assert int(tf.size(rt)) == 8 and tf.size(rt).dtype == tf.int32
    assert int(tf.rank(rt)) == 3
    st = tf.sparse.SparseTensor([[0, 1]], [5.], [2, 3])
    assert tf.shape(st).numpy().tolist() == [2, 3] and tf.shape(st).dtype == tf.int32
    assert int(tf.size(st)) == 6 and int(tf.rank(st)) == 2
    with pytest.raises(ValueError, match="has no len"):
        tf.shape(rt)


@pytest.mark.parametrize("text,maxsplit,expected", [
    (b"  a  b c", 1, [b"a", b"b c"]),
    (b"d", 1, [b"d", b""]),
    (b" ", 1, []),
    (b"  a b ", 0, [b"  a b "]),
    (b"x  y ", 2, [b"x", b"y", b""]),
    (b"x y", -1, [b"x", b"y"]),
])
def test_whitespace_split_with_maxsplit(text, maxsplit, expected):
    assert tf.strings.split(tf.constant([text]), maxsplit=maxsplit).to_list() == [expected]


def test_unicode_decode_one_replacement_per_ill_formed_subsequence():
    # b"\xe2\x82" is one truncated 3-byte sequence: one U+FFFD covering 2 bytes
    cps, offs = tf.strings.unicode_decode_with_offsets([b"a\xe2\x82b"], "UTF-8")
    assert cps.to_list() == [[97, 0xFFFD, 98]] and offs.to_list() == [[0, 1, 3]]
    # UTF-16-BE: a lone high surrogate (2 bytes), then a truncated trailing byte
    cps = tf.strings.unicode_decode([b"\xd8\x00\x00b\x00"], "UTF-16-BE", replacement_char=63)
    assert cps.to_list() == [[63, 98, 63]]
    assert tf.strings.unicode_decode([b"\xffa"], "UTF-8", errors="ignore").to_list() == [[97]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting"):
        tf.strings.unicode_decode([b"\xff"], "UTF-8", errors="strict")


def test_reduce_join_along_ragged_axes():
    rt = tf.ragged.constant([[["a", "b"], ["c"]], [["d"]]])
    assert tf.strings.reduce_join(rt, axis=0, separator="|").to_list() == [
        [b"a|d", b"b"], [b"c"]]
    assert tf.strings.reduce_join(rt, axis=2).to_list() == [[b"ab", b"c"], [b"d"]]


def test_from_generator_with_ragged_signature_batches():
    def gen():
        yield tf.ragged.constant([[1], [2, 3]])
        yield tf.ragged.constant([[4, 5, 6]])
    spec = tf.RaggedTensorSpec([None, None], tf.int32)
    ds = tf.data.Dataset.from_generator(gen, output_signature=spec)
    assert ds.element_spec == spec
    (batch,) = list(ds.batch(2))
    assert batch.to_list() == [[[1], [2, 3]], [[4, 5, 6]]]


def test_unsorted_segment_of_rows_combines_positionwise():
    rt = tf.ragged.constant(RR1)
    ids = [1, 0, 1]
    # segment 1 holds rows [1, 2, 3] and [5, 6]: position-wise [6, 8, 3]
    assert tf.math.unsorted_segment_sum(rt, ids, 2).to_list() == [[4], [1 + 5, 2 + 6, 3]]
    assert tf.math.unsorted_segment_max(rt, ids, 3).to_list() == [[4], [5, 6, 3], []]
    mean = tf.math.unsorted_segment_mean(tf.cast(rt, tf.float32), ids, 2).to_list()
    np.testing.assert_allclose(mean[1], [3., 4., 3.])
    per_value = tf.ragged.constant([[0, 1, 0], [1], [0, 0]])
    got = tf.math.unsorted_segment_sum(rt, per_value, 2).numpy().tolist()
    assert got == [1 + 3 + 5 + 6, 2 + 4]


def test_where_one_hot_squeeze_partition():
    rt = tf.ragged.constant(RR2)
    coords = tf.where(rt > 2).numpy().tolist()
    assert coords == [[i, j, k] for i, a in enumerate(RR2) for j, b in enumerate(a)
                      for k, v in enumerate(b) if v > 2]
    oh = tf.one_hot(tf.ragged.constant(RR1), 7)
    assert oh.to_list() == [[list(np.eye(7)[v]) for v in row] for row in RR1]
    assert tf.squeeze(tf.ragged.constant([[1], [2], [3]]), axis=1).numpy().tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="axis"):
        tf.squeeze(tf.ragged.constant(RR1))
    parts = tf.dynamic_partition(tf.ragged.constant(RR1), [1, 0, 1], 2)
    assert [p.to_list() for p in parts] == [[RR1[1]], [RR1[0], RR1[2]]]
    sdp = tf.ragged.stack_dynamic_partitions([10, 20, 30, 40], [2, 0, 2, 2], 3)
    assert sdp.to_list() == [[20], [], [10, 30, 40]]


def test_ragged_cross_is_the_per_row_product():
    a = [[b"a", b"b"], [b"c"]]
    b = [[b"d"], [b"e", b"f"]]
    got = tf.ragged.cross([tf.ragged.constant(a), tf.ragged.constant(b)]).to_list()
    assert got == [[x + b"_X_" + y for x in ra for y in rb] for ra, rb in zip(a, b)]


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.float32])
def test_row_sums_inside_function_follow_each_calls_splits(dtype):
    # The segment sum makes no host read, so a traced function may replay it: each
    # call's own row partition must be used, not the traced one.
    @tf.function
    def f(x):
        return tf.reduce_sum(x, axis=1)

    for rows in ([[1, 2, 3], [4], [5, 6]], [[1, 2], [4], [5, 6, 7]], [[1], [2, 3], []], [[7]],
                 [[1, 2, 3], [4], [5, 6]]):
        got = f(tf.ragged.constant(rows, dtype=dtype))
        assert got.dtype == dtype
        assert got.numpy().tolist() == [sum(r) for r in rows]
