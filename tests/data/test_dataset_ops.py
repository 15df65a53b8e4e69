"""Every Dataset transformation against a plain-Python reference of its semantics."""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

import torchflow as tf


def values(ds):
    """Elements as plain Python values (nested tuples/dicts of lists/scalars)."""
    def conv(e):
        if isinstance(e, dict):
            return {k: conv(v) for k, v in e.items()}
        if isinstance(e, tuple):
            return tuple(conv(v) for v in e)
        a = e.numpy()
        return a.tolist() if isinstance(a, np.ndarray) else a
    return [conv(e) for e in ds]


# --- plain-Python references ----------------------------------------------------
def ref_batch(xs, n, drop=False):
    out = [xs[i:i + n] for i in range(0, len(xs), n)]
    return [b for b in out if len(b) == n] if drop else out


def ref_window(xs, size, shift, stride, drop):
    out = []
    for start in range(0, len(xs), shift):
        w = xs[start:start + (size - 1) * stride + 1:stride]
        if drop and len(w) < size:
            break
        out.append(w)
    return out


def ref_interleave(inputs, fn, cycle, block):
    """TF's interleave order, written from its documentation."""
    src = iter(inputs)
    slots = [None] * cycle
    out = []
    i = b = 0
    end = False
    while not end or any(s is not None for s in slots):
        if slots[i] is not None:
            try:
                out.append(next(slots[i]))
                b += 1
                if b == block:
                    i, b = (i + 1) % cycle, 0
                continue
            except StopIteration:
                slots[i] = None
                i, b = (i + 1) % cycle, 0
        elif not end:
            try:
                slots[i] = iter(fn(next(src)))
            except StopIteration:
                end = True
        else:
            i, b = (i + 1) % cycle, 0
    return out


R = list(range(10))

CASES = [
    ("range", lambda: tf.data.Dataset.range(10), R),
    ("range_step", lambda: tf.data.Dataset.range(2, 20, 3), list(range(2, 20, 3))),
    ("range_neg", lambda: tf.data.Dataset.range(5, 0, -2), [5, 3, 1]),
    ("map", lambda: tf.data.Dataset.range(10).map(lambda x: x * 3), [3 * x for x in R]),
    ("map_tuple_unpack", lambda: tf.data.Dataset.range(5).map(lambda x: (x, x + 1)).map(
        lambda a, b: a * b), [x * (x + 1) for x in range(5)]),
    ("filter", lambda: tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0),
     [x for x in R if x % 3 == 0]),
    ("take", lambda: tf.data.Dataset.range(10).take(4), R[:4]),
    ("take_all", lambda: tf.data.Dataset.range(10).take(-1), R),
    ("skip", lambda: tf.data.Dataset.range(10).skip(7), R[7:]),
    ("skip_all", lambda: tf.data.Dataset.range(10).skip(-1), []),
    ("repeat", lambda: tf.data.Dataset.range(3).repeat(3), [0, 1, 2] * 3),
    ("repeat_take", lambda: tf.data.Dataset.range(3).repeat().take(7),
     list(itertools.islice(itertools.cycle([0, 1, 2]), 7))),
    ("batch", lambda: tf.data.Dataset.range(10).batch(4), ref_batch(R, 4)),
    ("batch_drop", lambda: tf.data.Dataset.range(10).batch(4, drop_remainder=True),
     ref_batch(R, 4, True)),
    ("unbatch", lambda: tf.data.Dataset.range(10).batch(3).unbatch(), R),
    ("shard", lambda: tf.data.Dataset.range(10).shard(3, 1), R[1::3]),
    ("enumerate", lambda: tf.data.Dataset.range(5, 8).enumerate(2),
     [(i + 2, x) for i, x in enumerate(range(5, 8))]),
    ("concatenate", lambda: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(5, 7)),
     [0, 1, 2, 5, 6]),
    ("zip", lambda: tf.data.Dataset.zip((tf.data.Dataset.range(4), tf.data.Dataset.range(10,
                                                                                         13))),
     list(zip(range(4), range(10, 13)))),
    ("zip_nested", lambda: tf.data.Dataset.zip(
        {"a": tf.data.Dataset.range(2), "b": (tf.data.Dataset.range(2), tf.data.Dataset.range(2))}),
     [{"a": i, "b": (i, i)} for i in range(2)]),
    ("flat_map", lambda: tf.data.Dataset.range(4).flat_map(
        lambda x: tf.data.Dataset.range(x)), [y for x in range(4) for y in range(x)]),
    ("interleave", lambda: tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.range(x).map(lambda y: x * 10 + y), cycle_length=2,
        block_length=2),
     ref_interleave(range(1, 6), lambda x: [x * 10 + y for y in range(x)], 2, 2)),
    ("interleave_parallel", lambda: tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.range(x).map(lambda y: x * 10 + y), cycle_length=3,
        block_length=1, num_parallel_calls=3),
     ref_interleave(range(1, 6), lambda x: [x * 10 + y for y in range(x)], 3, 1)),
    ("window", lambda: tf.data.Dataset.range(7).window(3, 2, 1).flat_map(lambda w: w.batch(3)),
     ref_window(list(range(7)), 3, 2, 1, False)),
    ("window_stride_drop", lambda: tf.data.Dataset.range(10).window(3, 1, 2, True).flat_map(
        lambda w: w.batch(3)), ref_window(R, 3, 1, 2, True)),
    ("take_while", lambda: tf.data.Dataset.range(10).take_while(lambda x: x < 4), R[:4]),
    ("unique", lambda: tf.data.Dataset.from_tensor_slices([1, 3, 1, 2, 3]).unique(), [1, 3, 2]),
    ("cache_memory", lambda: tf.data.Dataset.range(5).cache(), list(range(5))),
    ("apply", lambda: tf.data.Dataset.range(6).apply(lambda d: d.skip(2)), list(range(2, 6))),
    ("prefetch", lambda: tf.data.Dataset.range(50).prefetch(3), list(range(50))),
    ("prefetch_autotune", lambda: tf.data.Dataset.range(50).prefetch(tf.data.AUTOTUNE),
     list(range(50))),
    ("map_parallel", lambda: tf.data.Dataset.range(100).map(lambda x: x + 1,
                                                            num_parallel_calls=4),
     list(range(1, 101))),
]


@pytest.mark.parametrize("name,make,expected", CASES, ids=[c[0] for c in CASES])
def test_transformation(name, make, expected):
    ds = make()
    assert values(ds) == expected
    # A second pass gives the same elements (a dataset is re-iterable).
    assert values(ds) == expected


@pytest.mark.parametrize("name,make,expected", CASES, ids=[c[0] for c in CASES])
def test_cardinality_matches_count_or_is_unknown(name, make, expected):
    n = int(make().cardinality())
    assert n in (len(expected), tf.data.UNKNOWN_CARDINALITY)


def test_cardinality_constants():
    assert tf.data.INFINITE_CARDINALITY == -1 and tf.data.UNKNOWN_CARDINALITY == -2
    assert int(tf.data.Dataset.range(3).repeat().cardinality()) == -1
    assert int(tf.data.Dataset.range(3).filter(lambda x: True).cardinality()) == -2
    assert int(tf.data.experimental.cardinality(tf.data.Dataset.range(10).batch(3))) == 4
    assert len(tf.data.Dataset.range(5)) == 5
    with pytest.raises(TypeError, match="infinite"):
        len(tf.data.Dataset.range(5).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(tf.data.Dataset.range(5).filter(lambda x: True))


def test_from_tensor_slices_nested_and_strings():
    ds = tf.data.Dataset.from_tensor_slices(
        {"img": np.arange(12, dtype=np.float32).reshape(3, 2, 2), "name": ["a", "bb", "c"],
         "pair": (np.array([1, 2, 3]), np.array([4.0, 5.0, 6.0]))})
    out = values(ds)
    assert out[1] == {"img": [[4.0, 5.0], [6.0, 7.0]], "name": b"bb", "pair": (2, 5.0)}
    spec = ds.element_spec
    assert spec["img"] == tf.TensorSpec([2, 2], tf.float32)
    assert spec["name"] == tf.TensorSpec([], tf.string)
    assert spec["pair"][0].dtype == tf.int64


def test_from_tensor_slices_errors():
    with pytest.raises(ValueError):
        tf.data.Dataset.from_tensor_slices((np.zeros(2), np.zeros(3)))
    with pytest.raises(ValueError):
        tf.data.Dataset.from_tensor_slices(1)


def test_from_tensors():
    ds = tf.data.Dataset.from_tensors(([1, 2], "x"))
    assert values(ds) == [([1, 2], b"x")]
    assert ds.element_spec[0] == tf.TensorSpec([2], tf.int32)


def test_namedtuple_is_passed_whole():
    P = collections.namedtuple("P", "a b")
    ds = tf.data.Dataset.from_tensor_slices(P(np.arange(3), np.arange(3) * 2))
    out = list(ds.map(lambda p: p.a + p.b))
    assert [int(x) for x in out] == [0, 3, 6]
    assert isinstance(next(iter(ds)), P)


def test_map_list_output_becomes_tuple():
    ds = tf.data.Dataset.range(2).map(lambda x: [x, x])
    assert isinstance(ds.element_spec, tuple)
    assert values(ds) == [(0, 0), (1, 1)]


def test_shuffle_is_a_permutation_and_reshuffles():
    ds = tf.data.Dataset.range(100).shuffle(100, seed=3)
    a, b = values(ds), values(ds)
    assert sorted(a) == list(range(100)) and sorted(b) == list(range(100))
    assert a != b  # reshuffle_each_iteration defaults to True
    fixed = tf.data.Dataset.range(100).shuffle(100, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)


def test_shuffle_buffer_bounds_displacement():
    # With a buffer of k, element i can not come out before position i - k + 1.
    out = values(tf.data.Dataset.range(200).shuffle(5, seed=1))
    for pos, x in enumerate(out):
        assert pos >= x - 4


def test_shuffle_global_seed_repeatable():
    tf.random.set_seed(7)
    a = values(tf.data.Dataset.range(50).shuffle(50))
    tf.random.set_seed(7)
    b = values(tf.data.Dataset.range(50).shuffle(50))
    assert a == b


def test_padded_batch_reference():
    rows = [[1], [2, 2, 2], [3, 3], [4, 4, 4, 4], [5]]
    ds = tf.data.Dataset.from_generator(lambda: iter(rows),
                                        output_signature=tf.TensorSpec([None], tf.int32))
    got = values(ds.padded_batch(2, padding_values=-1))
    want = []
    for b in ref_batch(rows, 2):
        w = max(len(r) for r in b)
        want.append([r + [-1] * (w - len(r)) for r in b])
    assert got == want
    fixed = values(ds.padded_batch(3, padded_shapes=[5]))
    assert fixed[0] == [[1, 0, 0, 0, 0], [2, 2, 2, 0, 0], [3, 3, 0, 0, 0]]
    assert ds.padded_batch(2).element_spec == tf.TensorSpec([None, None], tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError):
        values(ds.padded_batch(2, padded_shapes=[2]))


def test_batch_shape_mismatch_error():
    ds = tf.data.Dataset.from_tensors([1, 2]).concatenate(tf.data.Dataset.from_tensors([1, 2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors"):
        values(ds.batch(2))


def test_batch_element_spec():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((10, 3), np.float32))
    assert ds.batch(4).element_spec == tf.TensorSpec([None, 3], tf.float32)
    assert ds.batch(4, drop_remainder=True).element_spec == tf.TensorSpec([4, 3], tf.float32)
    assert ds.batch(4).unbatch().element_spec == tf.TensorSpec([3], tf.float32)


def test_reduce():
    assert int(tf.data.Dataset.range(10).reduce(tf.constant(0, tf.int64),
                                                lambda s, x: s + x)) == sum(R)
    pairs = tf.data.Dataset.range(4).map(lambda x: (x, x * 2))
    total = pairs.reduce(tf.constant(0, tf.int64), lambda s, e: s + e[0] + e[1])
    assert int(total) == sum(x * 3 for x in range(4))


def test_cache_file(tmp_path):
    calls = []

    def gen():
        calls.append(1)
        yield from range(4)

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64))
    cached = ds.cache(str(tmp_path / "c"))
    assert values(cached) == [0, 1, 2, 3]
    assert values(cached) == [0, 1, 2, 3]
    assert len(calls) == 1
    mem = ds.cache()
    values(mem), values(mem)
    assert len(calls) == 2


def test_from_generator_signatures_and_errors():
    def gen():
        yield 1, [1.0, 2.0]
        yield 2, [3.0]

    ds = tf.data.Dataset.from_generator(gen, output_types=(tf.int64, tf.float32),
                                        output_shapes=((), (None,)))
    assert values(ds) == [(1, [1.0, 2.0]), (2, [3.0])]
    assert ds.element_spec[1] == tf.TensorSpec([None], tf.float32)
    bad = tf.data.Dataset.from_generator(gen, output_signature=(
        tf.TensorSpec([], tf.int64), tf.TensorSpec([2], tf.float32)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        values(bad)
    with pytest.raises(TypeError):
        tf.data.Dataset.from_generator(gen)
    args_ds = tf.data.Dataset.from_generator(lambda n: range(int(n)), args=(3,),
                                             output_types=tf.int32)
    assert values(args_ds) == [0, 1, 2]


def test_filter_predicate_must_be_bool():
    with pytest.raises(ValueError, match="tf.bool"):
        values(tf.data.Dataset.range(3).filter(lambda x: x))


def test_concatenate_incompatible():
    with pytest.raises(TypeError):
        tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensors("a"))


def test_shard_errors():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.data.Dataset.range(3).shard(0, 0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.data.Dataset.range(3).shard(2, 2)


def test_as_numpy_iterator_and_repr():
    ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2]})
    out = list(ds.as_numpy_iterator())
    assert out == [{"a": 1}, {"a": 2}] and isinstance(out[0]["a"], np.integer)
    assert repr(tf.data.Dataset.range(3)) == "<RangeDataset shapes: (), types: tf.int64>"


def test_map_receives_tensors_usable_by_ops():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.uint8).reshape(3, 2))
    out = values(ds.map(lambda x: tf.cast(x, tf.float32) / 2.0))
    assert out == [[0.0, 0.5], [1.0, 1.5], [2.0, 2.5]]
