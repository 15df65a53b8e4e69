"""tf.data with RaggedTensor elements, against real TensorFlow (values and element_specs)."""

from __future__ import annotations

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RT = [[1, 2], [3], [], [4, 5, 6]]


def _vals(ds):
    return [e.to_list() if hasattr(e, "to_list") else
            {k: (v.to_list() if hasattr(v, "to_list") else v.numpy().tolist())
             for k, v in e.items()} if isinstance(e, dict) else e.numpy().tolist() for e in ds]


CASES = {
    "slices": lambda t: t.data.Dataset.from_tensor_slices(t.ragged.constant(RT)),
    "slices_batch": lambda t: t.data.Dataset.from_tensor_slices(t.ragged.constant(RT)).batch(3),
    "slices_batch_drop": lambda t: t.data.Dataset.from_tensor_slices(
        t.ragged.constant(RT)).batch(3, drop_remainder=True),
    "dict_batch": lambda t: t.data.Dataset.from_tensor_slices(
        {"a": t.ragged.constant(RT), "b": [1, 2, 3, 4]}).batch(2),
    "rank3_slices": lambda t: t.data.Dataset.from_tensor_slices(
        t.ragged.constant([[[1], [2, 3]], [[4]]])),
    "rank3_batch": lambda t: t.data.Dataset.from_tensor_slices(
        t.ragged.constant([[[1], [2, 3]], [[4]]])).batch(2),
    "from_tensors": lambda t: t.data.Dataset.from_tensors(t.ragged.constant(RT)),
    "map_ragged_batch": lambda t: t.data.Dataset.range(4).map(
        lambda x: t.RaggedTensor.from_row_lengths(t.range(x), [x])).batch(2),
    "map_split": lambda t: t.data.Dataset.from_tensor_slices(["a b", "c", "d e f"]).map(
        t.strings.split),
    "dense_to_ragged_map": lambda t: t.data.Dataset.range(4).map(lambda x: t.range(x)).apply(
        t.data.experimental.dense_to_ragged_batch(2)),
    "dense_to_ragged_fixed": lambda t: t.data.Dataset.from_tensor_slices(
        [[1, 2], [3, 4], [5, 6]]).apply(t.data.experimental.dense_to_ragged_batch(2)),
    "dense_to_ragged_of_ragged": lambda t: t.data.Dataset.from_tensor_slices(
        t.ragged.constant(RT)).apply(t.data.experimental.dense_to_ragged_batch(3)),
    "ragged_then_map": lambda t: t.data.Dataset.from_tensor_slices(t.ragged.constant(RT))
    .batch(2).map(lambda r: r * 2),
}


# torchflow reads a map's output spec off its first element (no tracing), so a
# dimension TF's traced spec leaves None is the first element's size there (see
# the last test); for these only the values are compared.
_FIRST_ELEMENT_SPEC = {"map_split", "ragged_then_map"}


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_tf(name):
    ours, theirs = CASES[name](tf), CASES[name](real_tf())
    if name not in _FIRST_ELEMENT_SPEC:
        assert repr(ours.element_spec) == repr(theirs.element_spec)
    else:
        o, w = ours.element_spec, theirs.element_spec
        assert (type(o).__name__, o.dtype.name, o.shape.rank) == \
            (type(w).__name__, w.dtype.name, w.shape.rank)
        assert w.shape.is_compatible_with(o.shape.as_list())
    assert _vals(ours) == _vals(theirs)


def test_batch_of_split_map_spec_is_the_traced_one():
    # The map's output spec is its trace's, as TF's: the batch dimension of
    # ``batch(2).map(split)`` is unknown (not the first batch's 2).
    ds = tf.data.Dataset.from_tensor_slices(["a b", "c", "d e f"]).batch(2).map(tf.strings.split)
    assert ds.element_spec == tf.RaggedTensorSpec([None, None], tf.string, 1)
    theirs = real_tf().data.Dataset.from_tensor_slices(["a b", "c", "d e f"]).batch(2).map(
        real_tf().strings.split)
    assert str(ds.element_spec) == str(theirs.element_spec)
    assert _vals(ds) == _vals(theirs)
