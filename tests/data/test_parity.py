"""tf.data behaviour a TF program relies on, checked against real TF: user functions run
once per element, cache files, errors from map functions, and TF's errors for bad
arguments."""

from __future__ import annotations

import collections
import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _counted(m, transform):
    """``transform(ds, fn)`` over range(12) with a py_function counting each element."""
    seen = collections.Counter()

    def f(x):
        seen[int(x)] += 1
        return x

    ds = transform(m.data.Dataset.from_tensor_slices(np.arange(12, dtype=np.int64)),
                   lambda x: m.py_function(f, [x], m.int64))
    return ds, seen


TRANSFORMS = {
    "map": lambda d, f: d.map(f),
    "map_autotune": lambda d, f: d.map(f, num_parallel_calls=tf.data.AUTOTUNE),
    "map_4": lambda d, f: d.map(f, num_parallel_calls=4),
    "map_4_nondet": lambda d, f: d.map(f, num_parallel_calls=4, deterministic=False),
    "map_autotune_nondet": lambda d, f: d.map(f, num_parallel_calls=-1, deterministic=False),
    "map_batch": lambda d, f: d.map(f).batch(5),
    "map_shuffle_batch": lambda d, f: d.map(f).shuffle(4, seed=1).batch(3),
    "filter": lambda d, f: d.filter(lambda x: f(x) % 2 == 0),
    "map_padded_batch": lambda d, f: d.map(f).padded_batch(5, padded_shapes=[]),
    "flat_map": lambda d, f: d.flat_map(lambda x: d.from_tensors(f(x))),
    "interleave": lambda d, f: d.interleave(lambda x: d.from_tensors(f(x)), cycle_length=3),
    "interleave_parallel": lambda d, f: d.interleave(lambda x: d.from_tensors(f(x)),
                                                     cycle_length=2, num_parallel_calls=2),
    "map_window": lambda d, f: d.map(f).window(4).flat_map(lambda w: w.batch(4)),
    "map_cache_repeat": lambda d, f: d.map(f).cache().repeat(3),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("ask_spec", [False, True])
def test_function_runs_once_per_element(name, ask_spec):
    rtf = real_tf()
    results = {}
    for m in (tf, rtf):
        ds, seen = _counted(m, TRANSFORMS[name])
        if ask_spec:
            ds.element_spec  # noqa: B018 - a spec computation must not call f again
        out = sorted(v for e in ds for v in np.asarray(e.numpy()).reshape(-1).tolist())
        results[m] = (out, dict(seen))
    assert results[tf] == results[rtf]
    assert set(results[tf][1].values()) == {1}


def test_scan_and_reduce_run_once_per_element():
    rtf = real_tf()
    got = {}
    for m in (tf, rtf):
        seen = collections.Counter()

        def f(s, x, seen=seen):
            seen[int(x)] += 1
            return s + x

        def step(s, x, m=m, f=f):
            y = m.py_function(f, [s, x], m.int64)
            return y, y

        ds = m.data.Dataset.range(6).apply(m.data.experimental.scan(m.constant(0, m.int64),
                                                                    step))
        ds.element_spec  # noqa: B018
        out = [int(v) for v in ds]
        total = int(m.data.Dataset.range(6).reduce(
            m.constant(0, m.int64), lambda s, x, m=m, f=f: m.py_function(f, [s, x], m.int64)))
        got[m] = (out, total, dict(seen))
    assert got[tf] == got[rtf]
    assert set(got[tf][2].values()) == {2}  # once by scan, once by reduce


def test_padded_batch_and_buckets_over_lengths_a_map_makes():
    rtf = real_tf()
    out = {}
    for m in (tf, rtf):
        ds = m.data.Dataset.range(1, 8).map(lambda x, m=m: m.fill([m.cast(x, m.int32)], x))
        pb = ds.padded_batch(3)
        bk = ds.apply(m.data.experimental.bucket_by_sequence_length(
            lambda x, m=m: m.shape(x)[0], [3, 5], [2, 2, 2]))
        out[m] = ([b.numpy().tolist() for b in pb], pb.element_spec.shape.as_list(),
                  [b.numpy().tolist() for b in bk], bk.element_spec.shape.as_list())
    assert out[tf] == out[rtf]


def test_cache_file_written_on_full_pass_then_read_without_upstream(tmp_path):
    rtf = real_tf()
    for m in (tf, rtf):
        seen = collections.Counter()

        def f(x, seen=seen):
            seen[int(x)] += 1
            return x * 3

        d = tmp_path / m.__name__
        d.mkdir()

        def make(m=m, f=f, d=d):
            return m.data.Dataset.range(6).map(
                lambda x: m.py_function(f, [x], m.int64)).cache(str(d / "c"))

        ds = make()
        it = iter(ds)
        assert [int(next(it)) for _ in range(2)] == [0, 3]
        del it
        # A partial pass leaves no cache that a later pass would take as complete.
        assert [int(x) for x in ds] == [0, 3, 6, 9, 12, 15]
        assert all(seen[i] >= 1 for i in range(6))
        files = os.listdir(d)
        assert files
        seen.clear()
        again = make()
        again.element_spec  # noqa: B018
        assert [int(x) for x in again] == [0, 3, 6, 9, 12, 15]
        assert dict(seen) == {}, m.__name__


def test_error_in_map_function_surfaces_at_iteration_and_iteration_goes_on():
    rtf = real_tf()
    for m in (tf, rtf):
        ds = m.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0]).map(
            lambda x, m=m: m.debugging.check_numerics(1.0 / x, "bad value"))
        it = iter(ds)
        assert float(next(it)) == 1.0
        with pytest.raises(m.errors.InvalidArgumentError, match="bad value"):
            next(it)
        assert float(next(it)) == 0.5


def test_error_on_first_element_is_kept_when_the_spec_is_computed():
    ds = tf.data.Dataset.from_tensor_slices([0.0, 2.0]).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "bad value"))
    assert ds.element_spec == tf.TensorSpec([], tf.float32)
    it = iter(ds)
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
        next(it)
    assert float(next(it)) == 0.5


BAD = [
    ("batch", (2.5,)), ("batch", (0,)), ("batch", ("a",)), ("batch", (None,)),
    ("take", (2.5,)), ("skip", (2.5,)), ("repeat", (2.5,)), ("shuffle", (2.5,)),
    ("shuffle", (0,)), ("shard", (2, 2)), ("shard", (0, 0)), ("shard", (2, -1)),
    ("window", (-1,)), ("window", (2, 0)), ("window", (2, 1, 0)), ("prefetch", (-5,)),
    ("padded_batch", (0,)),
]


@pytest.mark.parametrize("method,args", BAD)
def test_bad_arguments_raise_tf_errors(method, args):
    rtf = real_tf()
    errs = []
    for m in (tf, rtf):
        with pytest.raises(Exception) as info:
            list(getattr(m.data.Dataset.range(3), method)(*args))
        errs.append(info.value)
    ours, theirs = errs
    assert type(ours).__name__ == type(theirs).__name__, (ours, theirs)
    if method == "shuffle" and args == (0,):
        # TF 2.4's message; 2.21 adds "or UNKNOWN_CARDINALITY".
        assert str(ours) == "buffer_size must be greater than zero."
    else:
        assert str(ours) in str(theirs), (ours, theirs)


def test_int32_tensor_batch_size_is_rejected_as_in_tf():
    rtf = real_tf()
    for m in (tf, rtf):
        with pytest.raises(ValueError, match="requested dtype int64"):
            m.data.Dataset.range(3).batch(m.constant(2))
        assert len(list(m.data.Dataset.range(3).batch(np.int32(2)))) == 2


@pytest.mark.parametrize("pred", [lambda x: x, lambda x: tf.stack([x > 1, x > 2])])
def test_filter_predicate_must_be_a_scalar_bool(pred):
    with pytest.raises(ValueError, match=r"`predicate` must return a `tf.bool` scalar tensor, "
                                         r"but its return type is TensorSpec"):
        list(tf.data.Dataset.range(3).filter(pred))


@pytest.mark.parametrize("initial", [None, [0.9, 0.1]])
def test_rejection_resample_balances_classes_as_tf(initial):
    rtf = real_tf()
    labels = (np.random.default_rng(1).random(4000) < 0.1).astype(np.int64)
    fractions = {}
    for m in (tf, rtf):
        seen = collections.Counter()

        def cls(x, seen=seen, m=m):
            if m is tf:  # eager here: a Python counter sees each call
                seen[int(x)] += 1
            return x

        ds = m.data.Dataset.from_tensor_slices(labels).apply(
            m.data.experimental.rejection_resample(cls, [0.5, 0.5], initial_dist=initial,
                                                   seed=3))
        out = [(int(c), int(x)) for c, x in ds]
        assert all(c == x for c, x in out)
        fractions[m] = (np.mean([x for _, x in out]), len(out))
        if m is tf:
            assert sum(seen.values()) == len(labels) and set(seen) == {0, 1}
    # Both balance the classes (TF mixes in some unfiltered elements early when it
    # estimates the distribution itself, so only the balance is compared).
    for frac, n in fractions.values():
        assert 0.4 < frac < 0.6 and n > 500


METHODS = {
    "group_by_window": lambda m: m.data.Dataset.range(10).group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(2), window_size=2),
    "bucket": lambda m: m.data.Dataset.range(1, 8).map(
        lambda x: m.fill([m.cast(x, m.int32)], x)).bucket_by_sequence_length(
        lambda x: m.shape(x)[0], [3, 5], [2, 2, 2]),
    "scan": lambda m: m.data.Dataset.range(5).scan(m.constant(0, m.int64),
                                                   lambda s, x: (s + x, s)),
    "ignore_errors": lambda m: m.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0]).map(
        lambda x: m.debugging.check_numerics(1.0 / x, "x")).ignore_errors(),
    "choose": lambda m: m.data.Dataset.choose_from_datasets(
        [m.data.Dataset.range(3), m.data.Dataset.range(10, 13)],
        m.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 0, 0], np.int64))),
    "counter": lambda m: m.data.Dataset.counter(2, 3).take(3),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_newer_method_spellings_match_tf(name):
    rtf = real_tf()
    got = [[np.asarray(e.numpy()).tolist() for e in METHODS[name](m)] for m in (tf, rtf)]
    assert got[0] == got[1]


def test_get_single_element_and_save_load_methods(tmp_path):
    rtf = real_tf()
    for m in (tf, rtf):
        assert int(m.data.Dataset.from_tensors(7).get_single_element()) == 7
    ds = tf.data.Dataset.range(4).map(lambda x: x * 2)
    ds.save(str(tmp_path / "s"))
    assert [int(x) for x in tf.data.Dataset.load(str(tmp_path / "s"))] == [0, 2, 4, 6]


def test_iterator_spec_matches_tf():
    rtf = real_tf()
    for m in (tf, rtf):
        ds = m.data.Dataset.range(3).map(lambda x: (x, m.strings.as_string(x)))
        spec = m.data.IteratorSpec(ds.element_spec)
        assert iter(ds)._type_spec == spec
        assert spec.is_compatible_with(iter(ds))
        assert not spec.is_compatible_with(iter(m.data.Dataset.range(3)))
        assert repr(spec).startswith("IteratorSpec((TensorSpec(shape=(), dtype=tf.int64")


def test_sql_dataset_matches_tf(tmp_path):
    import sqlite3

    rtf = real_tf()
    db = str(tmp_path / "people.db")
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE p (name TEXT, age INTEGER, score REAL)")
        c.executemany("INSERT INTO p VALUES (?, ?, ?)",
                      [("ann", 31, 1.5), ("bob", 27, -2.0), ("cy", 40, 0.25)])
    got = []
    for m in (tf, rtf):
        ds = m.data.experimental.SqlDataset("sqlite", db, "SELECT name, age, score FROM p "
                                            "ORDER BY age", (m.string, m.int32, m.float64))
        got.append(([tuple(np.asarray(v.numpy()).tolist() for v in row) for row in ds],
                    [(s.dtype.name, s.shape.as_list()) for s in ds.element_spec]))
        with pytest.raises(m.errors.InvalidArgumentError, match="not supported by SqlDataset"):
            list(m.data.experimental.SqlDataset("mysql", db, "SELECT 1", (m.int32,)))
    assert got[0] == got[1]


def test_make_batched_features_dataset_matches_tf(tmp_path):
    rtf = real_tf()
    for f in range(2):
        with rtf.io.TFRecordWriter(str(tmp_path / f"d{f}.tfrecord")) as w:
            for i in range(5):
                ex = rtf.train.Example()
                ex.features.feature["x"].float_list.value.extend([i + 10 * f, 0.5])
                ex.features.feature["y"].int64_list.value.append(i % 2)
                w.write(ex.SerializeToString())
    got = []
    for m in (tf, rtf):
        feats = {"x": m.io.FixedLenFeature([2], m.float32),
                 "y": m.io.FixedLenFeature([], m.int64)}
        ds = m.data.experimental.make_batched_features_dataset(
            str(tmp_path / "*.tfrecord"), 3, feats, label_key="y", num_epochs=1,
            shuffle=False)
        got.append([(x["x"].numpy().tolist(), y.numpy().tolist()) for x, y in ds])
    assert got[0] == got[1]


def test_restored_iterator_keeps_its_order_after_a_spec_computation(tmp_path):
    def make():
        return tf.data.Dataset.range(20).shuffle(20, seed=7).map(lambda x: x * 2)

    it = iter(make())
    first = [int(next(it)) for _ in range(3)]
    path = tf.train.Checkpoint(it=it).save(str(tmp_path / "c"))
    rest = [int(x) for x in it]
    ds = make()
    it2 = iter(ds)
    ds.element_spec  # noqa: B018 - primes an iterator with a shuffle seed of its own
    tf.train.Checkpoint(it=it2).restore(path)
    assert [int(x) for x in it2] == rest
    assert sorted(first + rest) == list(range(0, 40, 2))
