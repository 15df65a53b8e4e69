"""tf.RaggedTensor, tf.RaggedTensorSpec and tf.ragged against real TensorFlow.

Each case is one expression run under real TF and under torchflow; values,
dtypes, static shapes and ragged ranks are compared. TF 2.4 prints a ragged
tensor on one line (``"<tf.RaggedTensor %s>" % to_list()``); TF 2.21 wraps long
ones, so reprs are compared on cases that fit on one line.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RT = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
R3 = [[[1, 2], [3]], [[4]], []]


def _norm(x):
    if hasattr(x, "to_list") and hasattr(x, "ragged_rank"):
        return ("ragged", x.to_list(), x.dtype.name, x.shape.as_list(), x.ragged_rank,
                x.row_splits.dtype.name)
    if hasattr(x, "numpy"):
        a = x.numpy()
        return ("dense", a.tolist(), x.dtype.name, list(a.shape))
    if isinstance(x, (tuple, list)):
        return [_norm(v) for v in x]
    return x


def _both(fn):
    rtf = real_tf()
    want = _norm(fn(rtf))
    got = _norm(fn(tf))
    return got, want


def _nan_equal(a, b):
    return repr(a) == repr(b)  # NaN-safe, and exact for ints, floats, bytes and names


def _sparse_parts(st):
    return [st.indices, st.values, st.dense_shape]


CASES = {
    "constant": lambda t: t.ragged.constant(RT),
    "constant_float": lambda t: t.ragged.constant([[1.5], []]),
    "constant_str": lambda t: t.ragged.constant([["a", "b"], ["c"]]),
    "constant_rank3": lambda t: t.ragged.constant(R3),
    "constant_inner": lambda t: t.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1),
    "constant_splits32": lambda t: t.ragged.constant(RT, row_splits_dtype=t.int32),
    "from_row_splits": lambda t: t.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], [0, 2, 2, 5]),
    "from_row_lengths": lambda t: t.RaggedTensor.from_row_lengths([1, 2, 3], [2, 0, 1]),
    "from_value_rowids": lambda t: t.RaggedTensor.from_value_rowids([1, 2, 3], [0, 0, 2],
                                                                    nrows=4),
    "from_row_starts": lambda t: t.RaggedTensor.from_row_starts([1, 2, 3], [0, 1]),
    "from_row_limits": lambda t: t.RaggedTensor.from_row_limits([1, 2, 3], [1, 3]),
    "from_nested_row_splits": lambda t: t.RaggedTensor.from_nested_row_splits(
        [1, 2, 3, 4], [[0, 2, 3], [0, 1, 3, 4]]),
    "from_nested_row_lengths": lambda t: t.RaggedTensor.from_nested_row_lengths(
        [1, 2, 3, 4], [[2, 1], [1, 2, 1]]),
    "from_tensor": lambda t: t.RaggedTensor.from_tensor([[1, 2], [3, 4]]),
    "from_tensor_padding": lambda t: t.RaggedTensor.from_tensor([[1, 0, 0], [2, 3, 0]],
                                                                padding=0),
    "from_tensor_lengths": lambda t: t.RaggedTensor.from_tensor([[1, 0], [2, 3]], lengths=[1, 2]),
    "from_tensor_rank2": lambda t: t.RaggedTensor.from_tensor(t.zeros([2, 3, 4]), ragged_rank=2),
    "from_tensor_str": lambda t: t.RaggedTensor.from_tensor([[b"a", b""], [b"b", b"c"]],
                                                            padding=b""),
    "to_tensor": lambda t: t.ragged.constant(RT).to_tensor(),
    "to_tensor_default_shape": lambda t: t.ragged.constant(RT).to_tensor(7, shape=[2, 2]),
    "to_tensor_rank3": lambda t: t.ragged.constant(R3).to_tensor(),
    "to_tensor_str": lambda t: t.ragged.constant([["a", "b"], ["c"]]).to_tensor(),
    "row_splits": lambda t: t.ragged.constant(RT).row_splits,
    "row_lengths": lambda t: t.ragged.constant(RT).row_lengths(),
    "row_lengths_axis2": lambda t: t.ragged.constant(R3).row_lengths(axis=2),
    "value_rowids": lambda t: t.ragged.constant(RT).value_rowids(),
    "nrows": lambda t: t.ragged.constant(RT).nrows(),
    "nested_row_splits": lambda t: list(t.ragged.constant(R3).nested_row_splits),
    "flat_values": lambda t: t.ragged.constant(R3).flat_values,
    "values": lambda t: t.ragged.constant(R3).values,
    "bounding_shape": lambda t: t.ragged.constant(R3).bounding_shape(),
    "bounding_shape_axis": lambda t: t.ragged.constant(RT).bounding_shape(axis=1),
    "merge_dims_01": lambda t: t.ragged.constant(R3).merge_dims(0, 1),
    "merge_dims_12": lambda t: t.ragged.constant(R3).merge_dims(1, 2),
    "merge_dims_all": lambda t: t.ragged.constant(R3).merge_dims(0, -1),
    "with_flat_values": lambda t: t.ragged.constant(R3).with_flat_values(
        t.constant([10., 20., 30., 40.])),
    "with_row_splits_dtype": lambda t: t.ragged.constant(RT).with_row_splits_dtype(t.int32),
    "getitem_int": lambda t: t.ragged.constant(RT)[0],
    "getitem_neg": lambda t: t.ragged.constant(RT)[-2],
    "getitem_slice": lambda t: t.ragged.constant(RT)[1:3],
    "getitem_step": lambda t: t.ragged.constant(RT)[::2],
    "getitem_inner_slice": lambda t: t.ragged.constant(RT)[:, :2],
    "getitem_inner_neg_slice": lambda t: t.ragged.constant(RT)[:, -2:],
    "getitem_uniform_int": lambda t: t.RaggedTensor.from_tensor([[1, 2], [3, 4]])[:, 1],
    "getitem_ellipsis": lambda t: t.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]],
                                                    ragged_rank=1)[..., 0],
    "getitem_rank3": lambda t: [t.ragged.constant(R3)[0, 1], t.ragged.constant(R3)[:, :1]],
    "add_scalar": lambda t: t.ragged.constant(RT) + 1,
    "radd_scalar": lambda t: 1 + t.ragged.constant(RT),
    "mul_ragged": lambda t: t.ragged.constant(RT) * t.ragged.constant(RT),
    "tf_add": lambda t: t.add(t.ragged.constant(RT), 2),
    "neg": lambda t: -t.ragged.constant(RT),
    "greater": lambda t: t.ragged.constant(RT) > 3,
    "equal": lambda t: t.math.equal(t.ragged.constant(RT), 1),
    "logical": lambda t: t.logical_and(t.ragged.constant(RT) > 1, t.ragged.constant(RT) < 6),
    "not": lambda t: t.logical_not(t.ragged.constant(RT) > 1),
    "broadcast_dense": lambda t: t.ragged.constant(RT) + t.constant([[1], [2], [3], [4], [5]]),
    "exp": lambda t: t.exp(t.ragged.constant([[0.0, 1.0], [2.0]])),
    "cast": lambda t: t.cast(t.ragged.constant(RT), t.float32),
    "maximum": lambda t: t.maximum(t.ragged.constant(RT), 3),
    "reduce_sum_1": lambda t: t.reduce_sum(t.ragged.constant(RT), axis=1),
    "reduce_sum_0": lambda t: t.reduce_sum(t.ragged.constant(RT), axis=0),
    "reduce_sum_all": lambda t: t.reduce_sum(t.ragged.constant(RT)),
    "reduce_sum_keep": lambda t: t.reduce_sum(t.ragged.constant(RT), axis=1, keepdims=True),
    "reduce_max_1": lambda t: t.reduce_max(t.ragged.constant(RT), axis=1),
    "reduce_min_float": lambda t: t.reduce_min(t.ragged.constant([[1., 2.], []]), axis=1),
    "reduce_prod_1": lambda t: t.reduce_prod(t.ragged.constant(RT), axis=1),
    "reduce_any": lambda t: t.reduce_any(t.ragged.constant(RT) > 5, axis=1),
    "reduce_all": lambda t: t.reduce_all(t.ragged.constant(RT) > 0, axis=1),
    "reduce_sum_rank3_inner": lambda t: t.reduce_sum(t.ragged.constant(R3), axis=2),
    "reduce_sum_inner_uniform": lambda t: t.reduce_sum(
        t.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1), axis=2),
    "reduce_mean_float": lambda t: t.reduce_mean(t.ragged.constant([[1., 2.], [3.]]), axis=1),
    "concat_0": lambda t: t.concat([t.ragged.constant(RT), t.ragged.constant([[7]])], 0),
    "concat_1": lambda t: t.concat([t.ragged.constant(RT), t.ragged.constant(RT)], 1),
    "concat_dense": lambda t: t.concat([t.ragged.constant([[1], [2, 3]]),
                                        t.constant([[4, 5], [6, 7]])], 1),
    "ragged_stack_0": lambda t: t.ragged.stack([t.ragged.constant(RT), t.ragged.constant(RT)]),
    "ragged_stack_1": lambda t: t.ragged.stack([t.ragged.constant([[1], [2, 3]]),
                                               t.ragged.constant([[4, 5], []])], axis=1),
    "ragged_stack_dense": lambda t: t.ragged.stack([t.ragged.constant([[1, 2], [3]]),
                                                   t.constant([[4, 5, 6]])]),
    "tf_stack": lambda t: t.stack([t.ragged.constant(RT), t.ragged.constant(RT)]),
    "gather_rows": lambda t: t.gather(t.ragged.constant(RT), [2, 0]),
    "gather_ragged_indices": lambda t: t.gather([10, 20, 30], t.ragged.constant([[2], [0, 1]])),
    "where": lambda t: t.where(t.ragged.constant(RT) > 3, t.ragged.constant(RT),
                               t.ragged.constant(RT) * 0),
    "tile": lambda t: t.tile(t.ragged.constant(RT), [1, 2]),
    "tile_rows": lambda t: t.tile(t.ragged.constant([[1, 2], [3]]), [2, 3]),
    "tile_rank3": lambda t: t.tile(t.ragged.constant(R3), [1, 2, 2]),
    "reverse_1": lambda t: t.reverse(t.ragged.constant(RT), [1]),
    "reverse_0": lambda t: t.reverse(t.ragged.constant(RT), [0]),
    "reverse_rank3": lambda t: t.reverse(t.ragged.constant(R3), [2]),
    "palindrome": lambda t: t.concat([t.ragged.constant(RT), t.reverse(t.ragged.constant(RT),
                                                                       [1])], 1),
    "embedding_lookup": lambda t: t.nn.embedding_lookup(t.constant([[0., 1.], [2., 3.]]),
                                                        t.ragged.constant([[1, 0], [], [1]])),
    "to_sparse": lambda t: _sparse_parts(t.ragged.constant(RT).to_sparse()),
    "to_sparse_rank3": lambda t: _sparse_parts(t.ragged.constant(R3).to_sparse()),
    "to_sparse_inner": lambda t: _sparse_parts(t.ragged.constant(
        [[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1).to_sparse()),
    "to_sparse_str": lambda t: _sparse_parts(t.ragged.constant([["a"], [], ["b", "c"]])
                                             .to_sparse()),
    "from_sparse": lambda t: t.RaggedTensor.from_sparse(t.sparse.SparseTensor(
        [[0, 0], [0, 1], [2, 0]], [1, 2, 3], [4, 3])),
    "map_fn": lambda t: t.map_fn(t.math.square, t.ragged.constant(RT)),
    "map_fn_dense_sig": lambda t: t.map_fn(t.reduce_sum, t.ragged.constant(RT),
                                           fn_output_signature=t.int32),
    "map_fn_ragged_sig": lambda t: t.map_fn(
        lambda r: t.concat([r, r], 0), t.ragged.constant(RT),
        fn_output_signature=t.RaggedTensorSpec([None], t.int32, 0)),
    "zeros_like": lambda t: t.zeros_like(t.ragged.constant(RT)),
    "ones_like_dtype": lambda t: t.ones_like(t.ragged.constant(RT), dtype=t.float32),
    "identity": lambda t: t.identity(t.ragged.constant(R3)),
    "expand_dims_0": lambda t: t.expand_dims(t.ragged.constant(RT), 0),
    "expand_dims_1": lambda t: t.expand_dims(t.ragged.constant(RT), 1),
    "expand_dims_last": lambda t: t.expand_dims(t.ragged.constant(RT), -1),
    "expand_dims_rank3": lambda t: t.expand_dims(t.ragged.constant(R3), 2),
    "ragged_range": lambda t: t.ragged.range([3, 0, 2]),
    "ragged_range_deltas": lambda t: t.ragged.range(1, [4, 5], 2),
    "ragged_range_float": lambda t: t.ragged.range([1.5, 2.0]),
    "boolean_mask_dense": lambda t: t.ragged.boolean_mask(
        [[1, 2, 3], [4, 5, 6]], [[True, False, True], [False, False, False]]),
    "boolean_mask_ragged": lambda t: t.ragged.boolean_mask(t.ragged.constant(RT),
                                                           t.ragged.constant(RT) > 2),
    "boolean_mask_rows": lambda t: t.ragged.boolean_mask(t.ragged.constant(RT),
                                                         [True, False, True, False, True]),
    "map_flat_values": lambda t: t.ragged.map_flat_values(t.ones_like, t.ragged.constant(RT)),
    "map_flat_values_2": lambda t: t.ragged.map_flat_values(
        t.multiply, t.ragged.constant(RT), t.ragged.constant(RT)),
    "segment_ids": lambda t: t.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9]),
    "segment_ids_to_splits": lambda t: t.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4]),
}


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_tf(name):
    got, want = _both(CASES[name])
    assert _nan_equal(got, want), f"{name}: {got} != {want}"


@pytest.mark.parametrize("name", ["constant", "constant_str", "from_row_splits", "add_scalar",
                                  "getitem_slice", "ragged_range", "constant_float"])
def test_repr_matches_tf(name):
    rtf = real_tf()
    assert repr(CASES[name](tf)) == repr(CASES[name](rtf))
    assert str(CASES[name](tf)) == str(CASES[name](rtf))


def test_repr_is_one_line_as_tf24():
    # TF 2.4: "<tf.RaggedTensor %s>" % self.to_list() (2.21 wraps long values).
    rt = tf.ragged.range([12, 12, 12])
    assert repr(rt) == f"<tf.RaggedTensor {rt.to_list()}>" and "\n" not in repr(rt)


def test_spec_against_tf():
    rtf = real_tf()
    for fn in (lambda t: t.RaggedTensorSpec([2, None], t.int32),
               lambda t: t.RaggedTensorSpec([None, None, 3]),
               lambda t: t.RaggedTensorSpec([None, None], t.string, 1, t.int32),
               lambda t: t.ragged.constant(R3)._type_spec,
               lambda t: t.type_spec_from_value(t.ragged.constant(RT))):
        assert repr(fn(tf)) == repr(fn(rtf))
    s = tf.RaggedTensorSpec([2, None], tf.int32)
    assert s.is_compatible_with(tf.ragged.constant([[1], [2, 3]]))
    assert not s.is_compatible_with(tf.ragged.constant([[1.0], [2.0]]))
    assert s.most_specific_compatible_type(tf.RaggedTensorSpec([3, None], tf.int32)) == \
        tf.RaggedTensorSpec([None, None], tf.int32)
    assert s.value_type is tf.RaggedTensor and s == tf.RaggedTensorSpec([2, None], tf.int32)
    assert hash(s) == hash(tf.RaggedTensorSpec([2, None], tf.int32))


def test_nest_expand_composites_matches_tf():
    rtf = real_tf()
    for t in (tf, rtf):
        rt = t.ragged.constant(R3)
        flat = t.nest.flatten({"a": rt, "b": 1}, expand_composites=True)
        assert [f.numpy().tolist() if hasattr(f, "numpy") else f for f in flat] == \
            [[1, 2, 3, 4], [0, 2, 3, 3], [0, 2, 3, 4], 1]
        back = t.nest.pack_sequence_as({"a": rt, "b": 1}, flat, expand_composites=True)
        assert back["a"].to_list() == R3
        assert len(t.nest.flatten(rt)) == 1


def test_errors():
    with pytest.raises(ValueError, match="RaggedTensor constructor is private"):
        tf.RaggedTensor(tf.constant([1]), tf.constant([0, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.RaggedTensor.from_row_splits([1, 2], [1, 2])
    with pytest.raises(ValueError, match="all scalar values must have the same nesting depth"):
        tf.ragged.constant([[1, 2], 3])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Inputs must have identical ragged splits"):
        tf.ragged.constant([[1, 2], [3]]) + tf.ragged.constant([[1], [2, 3]])
    with pytest.raises(ValueError, match="Specify lengths or padding, but not both"):
        tf.RaggedTensor.from_tensor([[1]], lengths=[1], padding=0)
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        tf.ragged.constant([[1, 2], [3]])[:, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        tf.ragged.constant([[1, 2], [3]])[5]
    with pytest.raises(ValueError, match="outer_axis"):
        tf.ragged.constant(R3).merge_dims(2, 1)


def test_gradient_through_flat_values_and_to_tensor():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        rt = tf.RaggedTensor.from_row_splits(v * 1.0, [0, 2, 3])
        loss = tf.reduce_sum(rt.to_tensor() * tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), [1.0, 2.0, 3.0])
