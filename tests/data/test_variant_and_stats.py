"""tf.data.experimental.to_variant / from_variant against real TensorFlow."""

import numpy as np
import pytest
import tensorflow as tf_ref

import torchflow as tf


def _ref_and_ours():
    ref = tf_ref.data.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": [[1.0], [2.0], [3.0]]})
    ours = tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": [[1.0], [2.0], [3.0]]})
    return ref, ours


def test_to_variant_dtype_and_shape_match_tf():
    ref, ours = _ref_and_ours()
    rv, v = tf_ref.data.experimental.to_variant(ref), tf.data.experimental.to_variant(ours)
    assert v.dtype.name == rv.dtype.name == "variant"
    assert v.dtype is tf.variant
    assert v.shape.as_list() == rv.shape.as_list() == []
    assert isinstance(v, tf.Tensor)


def test_round_trip_same_elements_and_spec():
    ref, ours = _ref_and_ours()
    back_ref = tf_ref.data.experimental.from_variant(
        tf_ref.data.experimental.to_variant(ref), ref.element_spec)
    back = tf.data.experimental.from_variant(tf.data.experimental.to_variant(ours),
                                             ours.element_spec)
    assert back.element_spec == ours.element_spec
    assert repr(back.element_spec) == repr(back_ref.element_spec)
    got, want = list(back.as_numpy_iterator()), list(back_ref.as_numpy_iterator())
    assert len(got) == len(want) == 3
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g["a"], w["a"])
        np.testing.assert_array_equal(g["b"], w["b"])


def test_round_trip_after_transformations():
    ds = tf.data.Dataset.range(10).map(lambda x: x * 2).batch(4)
    back = tf.data.experimental.from_variant(tf.data.experimental.to_variant(ds),
                                             ds.element_spec)
    ref = tf_ref.data.Dataset.range(10).map(lambda x: x * 2).batch(4)
    assert [x.tolist() for x in back.as_numpy_iterator()] == \
        [x.tolist() for x in ref.as_numpy_iterator()]
    assert repr(back.element_spec) == repr(ref.element_spec)


def test_to_variant_rejects_non_dataset():
    # TF 2.4 (and 2.21) fail with AttributeError on `_variant_tensor`; ours is a TypeError.
    with pytest.raises(AttributeError):
        tf_ref.data.experimental.to_variant(3)
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        tf.data.experimental.to_variant(3)


def test_from_variant_rejects_bad_input():
    ds = tf.data.Dataset.range(3)
    with pytest.raises(TypeError, match="variant"):
        tf.data.experimental.from_variant(tf.constant(1), ds.element_spec)
    with pytest.raises(TypeError, match="variant"):
        tf.data.experimental.from_variant(3, ds.element_spec)
    v = tf.data.experimental.to_variant(ds)
    with pytest.raises(ValueError, match="structure"):
        tf.data.experimental.from_variant(v, tf.TensorSpec([], tf.string))
    with pytest.raises(ValueError, match="structure"):
        tf.data.experimental.from_variant(v, (tf.TensorSpec([], tf.int64),) * 2)


# --- StatsAggregator / latency_stats / bytes_produced_stats --------------------
# TF 2.21 no longer has these (removed after TF 2.4), so they are checked analytically.


def test_tf_2_21_lacks_stats_transformations():
    for name in ("StatsAggregator", "latency_stats", "bytes_produced_stats"):
        assert not hasattr(tf_ref.data.experimental, name)


def _with_aggregator(ds):
    agg = tf.data.experimental.StatsAggregator()
    options = tf.data.Options()
    options.experimental_stats.aggregator = agg
    return ds.with_options(options), agg


def test_latency_stats_one_sample_per_element():
    ds = tf.data.Dataset.range(5).apply(tf.data.experimental.latency_stats("lat"))
    ds, agg = _with_aggregator(ds)
    assert [int(x) for x in ds] == [0, 1, 2, 3, 4]
    samples = agg.samples("lat")
    assert len(samples) == 5 and all(s >= 0.0 for s in samples)
    assert agg.samples("other") == []


def test_bytes_produced_matches_element_sizes():
    ds = tf.data.Dataset.from_tensor_slices(
        {"a": np.zeros([3, 4], np.float32), "s": [b"x", b"yy", b"zzz"]})
    ds = ds.apply(tf.data.experimental.bytes_produced_stats("bytes"))
    ds, agg = _with_aggregator(ds)
    assert len(list(ds)) == 3
    assert agg.samples("bytes") == [4 * 4 + 1, 4 * 4 + 2, 4 * 4 + 3]


def test_no_aggregator_records_nothing_and_elements_pass_through():
    ds = tf.data.Dataset.range(3).apply(tf.data.experimental.bytes_produced_stats("b"))
    assert ds.element_spec == tf.TensorSpec([], tf.int64)
    assert [int(x) for x in ds] == [0, 1, 2]
    with pytest.raises(TypeError, match="tag"):
        tf.data.experimental.latency_stats(3)


def test_get_summary_is_a_serialized_summary_proto():
    from tensorboard.compat.proto import summary_pb2

    ds = tf.data.Dataset.range(4).apply(tf.data.experimental.bytes_produced_stats("b"))
    ds = ds.apply(tf.data.experimental.latency_stats("l"))
    ds, agg = _with_aggregator(ds)
    list(ds)
    summary = summary_pb2.Summary.FromString(agg.get_summary())
    by_tag = {v.tag: v.histo for v in summary.value}
    assert sorted(by_tag) == ["b", "l"]
    assert by_tag["b"].num == 4 and by_tag["b"].sum == 32 and by_tag["b"].sum_squares == 256
    assert by_tag["b"].min == by_tag["b"].max == 8
    assert by_tag["l"].num == 4
