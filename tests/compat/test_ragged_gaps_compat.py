"""Ragged and sparse tensors along every axis, under real TF and torchflow, compared.

Each case is a small program in the style of TF's ragged-tensor and tensor guides,
run once with real TF and once with torchflow: values, dtypes, ragged ranks, row
splits dtypes, shapes and error types must agree. Where TF 2.4 and the installed
TF 2.21 differ, the case pins TF 2.4's behaviour and says so.
"""

from __future__ import annotations

import numpy as np
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


_BAD_UTF8 = [b"a\xe2\x82b", b"\xff\xfe", b"\xc3", b"ab\xffc", b"\xed\xa0\x80x",
             b"\xf0\x9f\x98\x80", b"\x01a"]
_BAD_UTF16 = [b"\x00a\xd8\x00\x00b", b"\x00a\x00", b"\xdc\x00", b"\xd8\x3d\xde\x00"]


def _words(t):
    return t.ragged.constant([["Hello", "bye 1"], ["c"]])


STRINGS = {
    "split": lambda t: t.strings.split(t.constant(["a b c", "d e", ""])),
    "split_2d": lambda t: t.strings.split(t.constant([["a b c", "d e"], ["f", ""]])),
    "split_ragged": lambda t: t.strings.split(t.ragged.constant([["a b", "c"], ["d e f"]])),
    "split_sep_maxsplit": lambda t: t.strings.split(t.constant(["a,,b,c", ""]), ",", 1),
    # TF's whitespace split puts the (possibly empty) rest after the maxsplit-th token.
    "split_ws_maxsplit1": lambda t: t.strings.split(
        t.constant(["  a  b c", "d", " ", "", "x y"]), maxsplit=1),
    "split_ws_maxsplit2": lambda t: t.strings.split(
        t.constant(["a  b c", "d e f", "  x  y "]), maxsplit=2),
    "split_ws_maxsplit0": lambda t: t.strings.split(t.constant(["  a  b c", " "]), maxsplit=0),
    "ngrams": lambda t: t.strings.ngrams(t.ragged.constant([["a", "b", "c"], ["d"]]), 2),
    "ngrams_widths": lambda t: t.strings.ngrams(t.ragged.constant([["a", "b", "c"], ["d"]]),
                                                [1, 2], separator="-"),
    "ngrams_pad": lambda t: t.strings.ngrams(t.ragged.constant([["a", "b", "c"], ["d"]]), 3,
                                             pad_values=("<s>", "</s>"), padding_width=1),
    "ngrams_short": lambda t: t.strings.ngrams(t.ragged.constant([["a", "b", "c"], ["d"]]), 2,
                                               preserve_short_sequences=True),
    "ngrams_of_split_3d": lambda t: t.strings.ngrams(
        t.strings.split(t.constant([["a b c"], ["d e"]])), 2),
    "ngrams_width0": lambda t: t.strings.ngrams(t.ragged.constant([["a"]]), 0),
    "ngrams_int": lambda t: t.strings.ngrams(t.ragged.constant([[1, 2], [3]]), 2),
    "unicode_split": lambda t: t.strings.unicode_split(t.constant(["héllo", "wö"]), "UTF-8"),
    "unicode_split_ragged": lambda t: t.strings.unicode_split(
        t.ragged.constant([["héllo"], ["a", "bc"]]), "UTF-8"),
    "unicode_decode_replace": lambda t: t.strings.unicode_decode_with_offsets(
        t.constant(_BAD_UTF8), "UTF-8"),
    "unicode_decode_ignore": lambda t: t.strings.unicode_decode(t.constant(_BAD_UTF8), "UTF-8",
                                                                errors="ignore"),
    "unicode_decode_replacement_char": lambda t: t.strings.unicode_decode(
        t.constant(_BAD_UTF8), "UTF-8", replacement_char=63, replace_control_characters=True),
    "unicode_decode_strict": lambda t: t.strings.unicode_decode(t.constant(_BAD_UTF8), "UTF-8",
                                                                errors="strict"),
    "unicode_split_replace": lambda t: t.strings.unicode_split_with_offsets(
        t.constant(_BAD_UTF8), "UTF-8"),
    "unicode_decode_utf16": lambda t: t.strings.unicode_decode_with_offsets(
        t.constant(_BAD_UTF16), "UTF-16-BE"),
    "unicode_decode_utf16_2d": lambda t: t.strings.unicode_decode(
        t.constant([["héllo", "wö"], ["a", "b"]]), "UTF-16-BE"),
    "unicode_decode_utf32": lambda t: t.strings.unicode_decode_with_offsets(
        t.constant([b"\x00\x00\x00a\x00\x11\x00\x00", b"\x00\x00\x00", b"\x00\x00\xd8\x00"]),
        "UTF-32-BE"),
    "unicode_transcode_replace": lambda t: t.strings.unicode_transcode(
        t.constant(_BAD_UTF8), "UTF-8", "UTF-16-BE"),
    "unicode_transcode_strict": lambda t: t.strings.unicode_transcode(
        t.constant(_BAD_UTF8), "UTF-8", "UTF-8", errors="strict"),
    "unicode_transcode_ragged": lambda t: t.strings.unicode_transcode(
        t.ragged.constant([["héllo"], ["a"]]), "UTF-8", "UTF-16-BE"),
    "unicode_encode_strict": lambda t: t.strings.unicode_encode(
        t.ragged.constant([[104, -1], [0x110000]]), "UTF-8", errors="strict"),
    "unicode_encode_replace": lambda t: t.strings.unicode_encode(
        t.ragged.constant([[104, -1], [0x110000]]), "UTF-8"),
    "as_string_ragged": lambda t: t.strings.as_string(t.ragged.constant([[1.5, 2], [3]]),
                                                      precision=2),
    "reduce_join_axis0": lambda t: t.strings.reduce_join(_words(t), axis=0, separator=" "),
    "reduce_join_axis1_keepdims": lambda t: t.strings.reduce_join(_words(t), axis=1,
                                                                  keepdims=True),
    "reduce_join_all": lambda t: t.strings.reduce_join(_words(t), separator="|"),
    "reduce_join_rr2_axis0": lambda t: t.strings.reduce_join(
        t.ragged.constant([[["a", "b"], ["c"]], [["d"]]]), axis=0, separator="|"),
    "reduce_join_rr2_axis1": lambda t: t.strings.reduce_join(
        t.ragged.constant([[["a", "b"], ["c"]], [["d"]]]), axis=1, separator="|"),
    "reduce_join_rr2_axis2": lambda t: t.strings.reduce_join(
        t.ragged.constant([[["a", "b"], ["c"]], [["d"]]]), axis=2, separator="|"),
    "lower_ragged": lambda t: t.strings.lower(_words(t)),
    "length_ragged": lambda t: t.strings.length(_words(t), unit="UTF8_CHAR"),
    "hash_ragged": lambda t: t.strings.to_hash_bucket_fast(_words(t), 7),
}


@pytest.mark.parametrize("name", sorted(STRINGS))
def test_ragged_strings(name):
    _check(STRINGS[name])


def _gen_ragged(t):
    def gen():
        yield t.ragged.constant([[1], [2, 3]]), 1
        yield t.ragged.constant([[4, 5, 6]]), 2
    sig = (t.RaggedTensorSpec(shape=[None, None], dtype=t.int32), t.TensorSpec([], t.int32))
    return t.data.Dataset.from_generator(gen, output_signature=sig)


def _gen_bad(t, value):
    def gen():
        yield value(t)
    sig = t.RaggedTensorSpec(shape=[None, None], dtype=t.int32)
    return t.data.Dataset.from_generator(gen, output_signature=sig)


def _gen_sparse(t):
    def gen():
        yield t.sparse.SparseTensor([[0, 0]], [1], [2, 2])
        yield t.sparse.SparseTensor([[1, 1], [1, 0]], [2, 3], [2, 2])
    return t.data.Dataset.from_generator(
        gen, output_signature=t.SparseTensorSpec(shape=[2, 2], dtype=t.int32))


def _slices(t):
    return t.data.Dataset.from_tensor_slices(_rt(t))


DATA = {
    "from_generator_ragged": lambda t: (_gen_ragged(t).element_spec, list(_gen_ragged(t))),
    "from_generator_ragged_batch": lambda t: (_gen_ragged(t).batch(2).element_spec,
                                              list(_gen_ragged(t).batch(2))),
    "from_generator_wrong_dtype": lambda t: list(_gen_bad(
        t, lambda t: t.ragged.constant([[1.], [2, 3]]))),
    "from_generator_dense_for_ragged": lambda t: list(_gen_bad(t, lambda t: [[1], [2]])),
    "from_generator_wrong_ragged_rank": lambda t: list(_gen_bad(
        t, lambda t: t.ragged.constant([[[1]], [[2, 3]]]))),
    "from_generator_sparse": lambda t: (_gen_sparse(t).element_spec,
                                        [t.sparse.to_dense(x) for x in _gen_sparse(t)]),
    "slices_spec": lambda t: (_slices(t).element_spec, list(_slices(t))),
    "slices_rr2": lambda t: list(t.data.Dataset.from_tensor_slices(_rt3(t)).batch(2)),
    "batch_unbatch": lambda t: list(_slices(t).batch(2).unbatch()),
    "batch_drop_remainder": lambda t: (_slices(t).batch(2, True).element_spec,
                                       list(_slices(t).batch(2, True))),
    "zip_spec": lambda t: t.data.Dataset.zip((_slices(t), _slices(t))).element_spec,
    "concatenate_batch": lambda t: list(_slices(t).concatenate(_slices(t)).batch(4)),
    "filter": lambda t: list(_slices(t).filter(lambda x: t.size(x) > 1)),
    "cache_repeat": lambda t: list(_slices(t).cache().repeat(2).batch(4)),
    "batch_map_to_tensor": lambda t: list(_slices(t).batch(2).map(lambda x: x.to_tensor())),
    "batch_map_reduce": lambda t: list(_slices(t).batch(2).map(
        lambda x: t.reduce_sum(x, axis=1))),
    "padded_batch_ragged": lambda t: _slices(t).padded_batch(2),
    "dense_to_ragged_batch": lambda t: list(t.data.Dataset.range(6).map(
        lambda x: t.range(x % 3)).apply(t.data.experimental.dense_to_ragged_batch(4))),
    "dense_to_ragged_batch_int32": lambda t: list(t.data.Dataset.range(6).map(
        lambda x: t.range(x % 3)).apply(t.data.experimental.dense_to_ragged_batch(
            4, drop_remainder=True, row_splits_dtype=t.int32))),
    "dense_to_ragged_batch_uniform": lambda t: (lambda ds: (ds.element_spec, list(ds)))(
        t.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).apply(
            t.data.experimental.dense_to_ragged_batch(2))),
    "dense_to_ragged_batch_of_ragged": lambda t: (lambda ds: (ds.element_spec, list(ds)))(
        _slices(t).apply(t.data.experimental.dense_to_ragged_batch(2))),
    "dense_to_sparse_batch": lambda t: [x for x in t.data.Dataset.range(6).map(
        lambda x: t.range(x % 3)).apply(t.data.experimental.dense_to_sparse_batch(2, [5]))],
    "text_batch_split": lambda t: list(t.data.Dataset.from_tensor_slices(
        ["a b", "c d e", "f"]).batch(2).map(t.strings.split)),
    "text_batch_split_unbatch": lambda t: list(t.data.Dataset.from_tensor_slices(
        ["a b", "c d e", "f"]).batch(2).map(t.strings.split).unbatch()),
}


@pytest.mark.parametrize("name", sorted(DATA))
def test_ragged_datasets(name):
    _check(DATA[name])


CONVERSION = {
    # A RaggedTensor is not a Tensor: no len(), and ops without a ragged form fail
    # converting it, even when its rows happen to be of one length.
    "len": lambda t: len(_rt(t)),
    "iterate_rows": lambda t: list(_rt(t)),
    "convert_rectangular": lambda t: t.convert_to_tensor(t.ragged.constant([[1, 2], [3, 4]])),
    "convert": lambda t: t.convert_to_tensor(_rt(t)),
    "argmax_no_ragged_form": lambda t: t.math.argmax(t.cast(_rt(t), t.float32), axis=1),
    "unstack_no_ragged_form": lambda t: t.unstack(_rt(t)),
    "boolean_mask_no_ragged_form": lambda t: t.boolean_mask(_rt(t), [True, False, True]),
    # TF 2.4 has no RaggedTensor.__eq__ (tf.__operators__.eq came in later versions;
    # TF 2.21 compares elementwise): == is Python's identity test.
    "eq_is_identity": lambda t: (lambda r: (r == r, r == _rt(t)))(_rt(t)),
}


@pytest.mark.parametrize("name", sorted(set(CONVERSION) - {"eq_is_identity"}))
def test_ragged_is_not_a_tensor(name):
    _check(CONVERSION[name])


def test_ragged_eq_is_identity_as_tf24():
    assert CONVERSION["eq_is_identity"](tf) == (True, False)


def _words2(t):
    return t.ragged.constant([["a", "b"], ["c"]])


CROSS = {
    "cross": lambda t: t.ragged.cross([_words2(t), t.ragged.constant([["d"], ["e", "f"]])]),
    "cross_int_and_string": lambda t: t.ragged.cross(
        [_rt(t), t.ragged.constant([["a"], ["b"], ["c"]])]),
    "cross_dense": lambda t: t.ragged.cross([t.ragged.constant([["a", "b"], []]),
                                             t.constant([["d"], ["e"]])]),
    "cross_sparse": lambda t: t.ragged.cross([_words2(t), t.sparse.SparseTensor(
        [[0, 0], [1, 1]], ["d", "e"], [2, 2])]),
    "cross_hashed": lambda t: t.ragged.cross_hashed(
        [_words2(t), t.ragged.constant([["d"], ["e", "f"]])]),
    "cross_hashed_buckets": lambda t: t.ragged.cross_hashed(
        [_words2(t), t.ragged.constant([[1], [2, 3]], dtype=t.int64)], num_buckets=10,
        hash_key=5),
    "cross_batch_mismatch": lambda t: t.ragged.cross([_words2(t), t.ragged.constant([["d"]])]),
    "stack_dynamic_partitions": lambda t: t.ragged.stack_dynamic_partitions(
        [1, 2, 3, 4], [1, 0, 1, 1], 3),
    "stack_dynamic_partitions_ragged": lambda t: t.ragged.stack_dynamic_partitions(
        t.ragged.constant([[1, 2], [3], [], [4]]), [1, 0, 1, 1], 2),
    "stack_dynamic_partitions_2d": lambda t: t.ragged.stack_dynamic_partitions(
        t.constant([[1, 2], [3, 4], [5, 6]]), [1, 0, 1], 2),
    "stack_dynamic_partitions_out_of_range": lambda t: t.ragged.stack_dynamic_partitions(
        [1, 2, 3, 4], [1, 0, 5, 1], 2),
}


@pytest.mark.parametrize("name", sorted(CROSS))
def test_ragged_cross_and_partitions(name):
    _check(CROSS[name])


MORE_OPS = {
    "segment_sum_ragged_ids": lambda t: t.math.unsorted_segment_sum(
        _rt(t), t.ragged.constant([[0, 1, 0], [1], [0, 0]]), 2),
    "segment_sum_rows": lambda t: t.math.unsorted_segment_sum(_rt(t), [1, 0, 1], 2),
    "segment_max_empty_segment": lambda t: t.math.unsorted_segment_max(_rt(t), [1, 0, 1], 3),
    "segment_mean_rows": lambda t: t.math.unsorted_segment_mean(_rtf(t), [1, 0, 1], 2),
    "segment_sqrt_n_rows": lambda t: t.math.unsorted_segment_sqrt_n(_rtf(t), [1, 0, 1], 2),
    "segment_prod_rows": lambda t: t.math.unsorted_segment_prod(_rt(t), [1, 0, 1], 2),
    "segment_ids_mismatch": lambda t: t.math.unsorted_segment_min(
        _rt(t), t.ragged.constant([[0, 1], [1], [0, 0]]), 2),
    "segment_ragged_ids_dense_data": lambda t: t.math.unsorted_segment_sum(
        [1, 2], t.ragged.constant([[0, 1]]), 2),
    "dynamic_partition_rows": lambda t: t.dynamic_partition(_rt(t), [0, 1, 0], 2),
    "dynamic_partition_ragged": lambda t: t.dynamic_partition(
        _rt(t), t.ragged.constant([[0, 1, 0], [1], [0, 0]]), 2),
    "squeeze_inner": lambda t: t.squeeze(t.ragged.constant([[[1], [2]], [[3]]], ragged_rank=1),
                                         axis=2),
    "squeeze_neg": lambda t: t.squeeze(t.ragged.constant([[[1], [2]], [[3]]], ragged_rank=1),
                                       axis=-1),
    "squeeze_ragged_len1": lambda t: t.squeeze(t.ragged.constant([[1], [2], [3]]), axis=1),
    "squeeze_not_squeezable": lambda t: t.squeeze(_rt(t), axis=1),
    "squeeze_no_axis": lambda t: t.squeeze(_rt(t)),
    "clip_by_value": lambda t: t.clip_by_value(_rtf(t), 2., 5.),
    "dropout_rate0": lambda t: t.nn.dropout(_rtf(t), 0.0),
    "add_n": lambda t: t.math.add_n([_rt(t), _rt(t), _rt(t)]),
    "where_condition": lambda t: t.where(_rt(t) > 2),
    "where_condition_rr2": lambda t: t.where(_rt3(t) > 2),
    "where_condition_uniform": lambda t: t.where(
        t.ragged.constant([[[1, 2], [3, 0]], [[5, 6]]], ragged_rank=1)),
    "one_hot": lambda t: t.one_hot(_rt(t), 7),
    "one_hot_axis2": lambda t: t.one_hot(_rt(t), 7, axis=2),
    "one_hot_ragged_axis": lambda t: t.one_hot(_rt(t), 7, axis=1),
    "one_hot_on_off": lambda t: t.one_hot(_rt(t), 3, on_value=5, off_value=-1),
}


@pytest.mark.parametrize("name", sorted(MORE_OPS))
def test_more_ragged_dispatch(name):
    _check(MORE_OPS[name])


def test_text_vectorization_has_no_ragged_or_sparse_output_in_tf24():
    # TF 2.4's TextVectorization has no ragged= or sparse= argument (added in TF 2.7;
    # tf-keras 2.21 accepts them): output_mode="int" pads to a dense Tensor.
    TV = tf.keras.layers.experimental.preprocessing.TextVectorization
    for kw in ("ragged", "sparse"):
        with pytest.raises(TypeError, match=kw):
            TV(**{kw: True})
    t = real_tf()
    layers = [m.keras.layers.experimental.preprocessing.TextVectorization() for m in (tf, t)]
    outs = []
    for layer, m in zip(layers, (tf, t)):
        layer.adapt(m.constant(["a b c", "b c", "c"]))
        outs.append(layer(m.constant(["a b", "c d e f"])))
    assert isinstance(outs[0], tf.Tensor)
    assert outs[0].numpy().tolist() == outs[1].numpy().tolist()


def _examples(t):
    def ex(vals, w):
        return t.train.Example(features=t.train.Features(feature={
            "v": t.train.Feature(int64_list=t.train.Int64List(value=vals)),
            "w": t.train.Feature(float_list=t.train.FloatList(value=w)),
            "s": t.train.Feature(bytes_list=t.train.BytesList(value=[b"x"] * len(vals))),
        })).SerializeToString()
    return [ex([1, 2, 3], [0.5]), ex([4], [1., 2.]), ex([], [])]


PARSING = {
    "varlen": lambda t: t.io.parse_example(_examples(t), {"v": t.io.VarLenFeature(t.int64)}),
    "ragged": lambda t: t.io.parse_example(_examples(t), {"v": t.io.RaggedFeature(t.int64)}),
    "ragged_int32_splits": lambda t: t.io.parse_example(
        _examples(t), {"v": t.io.RaggedFeature(t.int64, row_splits_dtype=t.int32)}),
    "ragged_uniform_partition": lambda t: t.io.parse_example(_examples(t), {
        "v": t.io.RaggedFeature(t.int64, value_key="v",
                                partitions=[t.io.RaggedFeature.UniformRowLength(1)])}),
    # TF returns the VarLen features, then the dense ones, then the ragged ones, each
    # group by sorted key, whatever the order of the features dict.
    "key_order": lambda t: list(t.io.parse_example(_examples(t), {
        "s": t.io.RaggedFeature(t.string), "w": t.io.VarLenFeature(t.float32),
        "d": t.io.FixedLenFeature([], t.int64, default_value=0),
        "v": t.io.VarLenFeature(t.int64)})),
    "key_order_single": lambda t: list(t.io.parse_single_example(_examples(t)[0], {
        "s": t.io.RaggedFeature(t.string), "w": t.io.VarLenFeature(t.float32),
        "v": t.io.FixedLenSequenceFeature([], t.int64, allow_missing=True)})),
    "single_ragged": lambda t: t.io.parse_single_example(
        _examples(t)[0], {"v": t.io.RaggedFeature(t.int64)}),
    "mapped_batch_ragged": lambda t: list(t.data.Dataset.from_tensor_slices(_examples(t)).batch(
        2).map(lambda s: t.io.parse_example(s, {"v": t.io.RaggedFeature(t.int64)}))),
}


@pytest.mark.parametrize("name", sorted(PARSING))
def test_parse_ragged_and_varlen(name):
    _check(PARSING[name])


FROM_SPARSE = {
    "right_ragged": lambda t: t.RaggedTensor.from_sparse(
        t.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], [1., 2., 3.], [3, 4])),
    "not_right_ragged": lambda t: t.RaggedTensor.from_sparse(
        t.sparse.SparseTensor([[0, 0], [1, 2]], [1., 2.], [3, 4])),
    "first_skips_a_cell": lambda t: t.RaggedTensor.from_sparse(
        t.sparse.SparseTensor([[0, 1]], [1.], [3, 4])),
    "int32_splits": lambda t: t.RaggedTensor.from_sparse(
        t.sparse.SparseTensor([[1, 0]], [1], [2, 4]), row_splits_dtype=t.int32),
    "not_sparse": lambda t: t.RaggedTensor.from_sparse(t.constant([[1]])),
}


@pytest.mark.parametrize("name", sorted(FROM_SPARSE))
def test_from_sparse(name):
    _check(FROM_SPARSE[name])


def test_text_vectorization_in_functional_model_as_tf():
    # keras-preprocessing_layers guide: Input(string) -> TextVectorization -> Embedding
    # -> LSTM; the token dimension is None (not 0) and the model runs on any length.
    def run(t):
        P = t.keras.layers.experimental.preprocessing
        tv = P.TextVectorization(output_mode="int")
        tv.adapt(t.constant(["the cat sat", "a dog ran", "the bird"]))
        inp = t.keras.Input(shape=(1,), dtype="string")
        ids = tv(inp)
        emb = t.keras.layers.Embedding(len(tv.get_vocabulary()), 3)
        lstm = t.keras.layers.LSTM(2)
        model = t.keras.Model(inp, lstm(emb(ids)))
        emb.set_weights([np.linspace(-1, 1, emb.get_weights()[0].size, dtype=np.float32)
                         .reshape(emb.get_weights()[0].shape)])
        lstm.set_weights([np.full(w.shape, 0.1, np.float32) for w in lstm.get_weights()])
        out = model(t.constant([["the cat sat"], ["a fish"]]))
        return tuple(ids.shape.as_list()), out.numpy()

    (ours_shape, ours), (theirs_shape, theirs) = run(tf), run(real_tf())
    assert ours_shape == theirs_shape == (None, None)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
