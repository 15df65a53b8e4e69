"""The same pipeline definitions run in real TensorFlow and in torchflow; the elements,
dtypes and element_specs are compared."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

_IMG = np.arange(5 * 2 * 3, dtype=np.uint8).reshape(5, 2, 3)
_LBL = np.array([3, 1, 4, 1, 5], np.int64)
_ROWS = [[1] * n for n in [1, 5, 2, 7, 3, 3, 1, 8]]


def _ragged(m):
    return m.data.Dataset.from_generator(lambda: iter(_ROWS),
                                         output_signature=m.TensorSpec([None], m.int32))


PIPELINES = {
    "mnist_like": lambda m: m.data.Dataset.from_tensor_slices((_IMG, _LBL)).map(
        lambda x, y: (m.cast(x, m.float32) / 255.0, y), num_parallel_calls=m.data.AUTOTUNE
    ).batch(2).prefetch(m.data.AUTOTUNE),
    "dict_strings": lambda m: m.data.Dataset.from_tensor_slices(
        {"name": ["a", "bb", "ccc"], "v": np.array([1.5, 2.5, 3.5], np.float32)}).batch(2),
    "filter_enumerate": lambda m: m.data.Dataset.range(12).filter(
        lambda x: x % 2 == 0).enumerate(),
    "interleave": lambda m: m.data.Dataset.range(1, 5).interleave(
        lambda x: m.data.Dataset.range(x).map(lambda y: y + 10 * x), cycle_length=3,
        block_length=2),
    "window": lambda m: m.data.Dataset.range(9).window(4, shift=3, stride=2).flat_map(
        lambda w: w.batch(4)),
    "padded_batch": lambda m: _ragged(m).padded_batch(3, padding_values=-1),
    "unbatch_skip_take": lambda m: m.data.Dataset.range(20).batch(6).unbatch().skip(3).take(9),
    "repeat_shard": lambda m: m.data.Dataset.range(5).repeat(3).shard(4, 1),
    "zip_concat": lambda m: m.data.Dataset.zip((m.data.Dataset.range(3),
                                                m.data.Dataset.from_tensor_slices(["x", "y", "z"]))
                                               ).concatenate(
        m.data.Dataset.zip((m.data.Dataset.range(7, 8), m.data.Dataset.from_tensors("w")))),
    "group_by_window": lambda m: m.data.Dataset.range(10).apply(
        m.data.experimental.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2),
                                            window_size=2)),
    "bucket": lambda m: _ragged(m).apply(m.data.experimental.bucket_by_sequence_length(
        lambda x: m.shape(x)[0], [3, 6], [2, 2, 2])),
    "bucket_boundary": lambda m: _ragged(m).apply(
        m.data.experimental.bucket_by_sequence_length(
            lambda x: m.shape(x)[0], [3, 9], [2, 2, 2], pad_to_bucket_boundary=True)),
    "choose": lambda m: m.data.experimental.choose_from_datasets(
        [m.data.Dataset.from_tensors("a").repeat(), m.data.Dataset.range(3).map(
            lambda x: m.strings.as_string(x))],
        m.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 1], np.int64))),
    "ignore_errors": lambda m: m.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0]).map(
        lambda x: m.debugging.check_numerics(1.0 / x, "inf")).apply(
        m.data.experimental.ignore_errors()),
    "reduce_in_flat_map": lambda m: m.data.Dataset.range(4).batch(2).map(
        lambda b: m.reduce_sum(b)),
    "counter": lambda m: m.data.experimental.Counter(start=2, step=3).take(4),
    "scan": lambda m: m.data.Dataset.range(6).apply(m.data.experimental.scan(
        m.constant(0, m.int64), lambda st, x: (st + x, st * 10))),
    "group_by_reducer": lambda m: m.data.Dataset.range(10).apply(
        m.data.experimental.group_by_reducer(lambda x: x % 3, m.data.experimental.Reducer(
            lambda k: m.constant(0, m.int64), lambda st, x: st + x, lambda st: st))),
    "map_and_batch": lambda m: m.data.Dataset.range(7).apply(
        m.data.experimental.map_and_batch(lambda x: x * 2, 3)),
}


def _py(e):
    if isinstance(e, dict):
        return {k: _py(v) for k, v in e.items()}
    if isinstance(e, tuple):
        return tuple(_py(v) for v in e)
    a = e.numpy()
    return (np.asarray(a).dtype.name if np.asarray(a).dtype.kind != "O" else "bytes",
            np.asarray(a).tolist())


def _spec(s):
    if isinstance(s, dict):
        return {k: _spec(v) for k, v in s.items()}
    if isinstance(s, tuple):
        return tuple(_spec(v) for v in s)
    return (s.shape.as_list() if s.shape.rank is not None else None, s.dtype.name)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_matches_tf(name):
    rtf = real_tf()
    make = PIPELINES[name]
    ours, theirs = make(tf), make(rtf)
    assert [_py(e) for e in ours] == [_py(e) for e in theirs]
    assert _spec(ours.element_spec) == _spec(theirs.element_spec)
    if name not in ("scan", "counter_take"):
        assert int(ours.cardinality()) == int(theirs.cardinality())


def test_shuffle_statistics_match_tf():
    # Orders differ (different generators); the distribution of the first element
    # with a small buffer must agree: uniform over the first `buffer` elements.
    rtf = real_tf()
    firsts = {"tf": [], "torchflow": []}
    for seed in range(60):
        firsts["tf"].append(int(next(iter(rtf.data.Dataset.range(10).shuffle(4, seed=seed)))))
        firsts["torchflow"].append(int(next(iter(tf.data.Dataset.range(10).shuffle(4,
                                                                                  seed=seed)))))
    assert set(firsts["tf"]) <= {0, 1, 2, 3}
    assert set(firsts["torchflow"]) == {0, 1, 2, 3}


def test_assert_cardinality_errors_match_tf():
    rtf = real_tf()
    for m in (tf, rtf):
        for n in (3, 7):
            ds = m.data.Dataset.range(n).apply(m.data.experimental.assert_cardinality(5))
            assert int(ds.cardinality()) == 5
            with pytest.raises(m.errors.FailedPreconditionError,
                               match="expected to contain 5 elements"):
                list(ds)


def test_sample_from_datasets_proportions():
    ds = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.from_tensors(0).repeat(), tf.data.Dataset.from_tensors(1).repeat()],
        weights=[0.2, 0.8], seed=5).take(2000)
    ones = sum(int(x) for x in ds)
    assert 1450 < ones < 1750
    finite = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)], seed=1)
    assert sorted(int(x) for x in finite) == [0, 1, 2, 10, 11]
    stop = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(0), tf.data.Dataset.range(10, 12)], seed=1,
        stop_on_empty_dataset=True)
    assert len(list(stop)) <= 2


def test_experimental_tfrecord_writer_and_save_load(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "w.tfrecord")
    tf.data.experimental.TFRecordWriter(path).write(
        tf.data.Dataset.from_tensor_slices([b"a", b"bc"]))
    assert [r.numpy() for r in rtf.data.TFRecordDataset(path)] == [b"a", b"bc"]
    ds = tf.data.Dataset.from_tensor_slices({"x": np.arange(3), "s": ["p", "q", "r"]})
    tf.data.experimental.save(ds, str(tmp_path / "saved"))
    back = tf.data.experimental.load(str(tmp_path / "saved"))
    assert [(int(e["x"]), e["s"].numpy()) for e in back] == [(0, b"p"), (1, b"q"), (2, b"r")]
    assert back.element_spec == ds.element_spec
