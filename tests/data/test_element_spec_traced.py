"""``element_spec`` of ``map`` and friends is the function's traced signature, as in TF:
the same pipelines are built under real TensorFlow and torchflow and their specs (and
values) compared. Unknown dimensions stay unknown, value-dependent sizes are unknown,
static ones known (issue 19)."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

_M = np.arange(15, dtype=np.int32).reshape(5, 3)
_SENT = ["the cat sat", "a dog", "one two three four", "hi"]
Pair = collections.namedtuple("Pair", ["a", "b"])


def _vary(m):
    return m.data.Dataset.range(1, 6).map(lambda x: m.range(x))


def _py_double(m):
    return lambda x: m.py_function(lambda v: v * 2, [x], m.int64)


def _np_pair(m):
    def f(x):
        return m.numpy_function(lambda v: (np.float32(v) / 2, v + 1), [x], [m.float32, m.int64])
    return f


def _py_set_shape(m):
    def f(x):
        y = m.py_function(lambda v: v * 2, [x], m.int64)
        y.set_shape([])
        return y
    return f


def _rotate(m):
    # The pattern of TF's tf.data guide: a py_function, then set_shape(im_shape).
    def tf_rotate(image, label):
        im_shape = image.shape
        [image] = m.py_function(lambda im: np.rot90(im.numpy()), [image], [m.float32])
        image.set_shape(im_shape)
        return image, label
    return tf_rotate


PIPELINES = {
    "batch_map": lambda m: m.data.Dataset.range(10).batch(3).map(lambda x: x * 2),
    "batch_drop_remainder_map": lambda m: m.data.Dataset.range(10).batch(
        3, drop_remainder=True).map(lambda x: x * 2),
    "range_of_element": _vary,
    "padded_batch_varying": lambda m: _vary(m).padded_batch(2),
    "padded_batch_values": lambda m: _vary(m).padded_batch(2, padding_values=np.int64(-1)),
    "padded_batch_shapes": lambda m: _vary(m).padded_batch(2, padded_shapes=[6]),
    "bucket_by_sequence_length": lambda m: _vary(m).apply(
        m.data.experimental.bucket_by_sequence_length(lambda x: m.shape(x)[0], [3, 5],
                                                      [2, 2, 2])),
    "tuple_out": lambda m: m.data.Dataset.range(5).map(lambda x: (x, m.range(x), x > 2)),
    "list_out_is_tuple": lambda m: m.data.Dataset.range(5).map(lambda x: [x, x + 1]),
    "dict_out": lambda m: m.data.Dataset.range(5).map(
        lambda x: {"ids": m.range(x), "len": m.cast(x, m.float32)}),
    "dict_in_dict_out": lambda m: m.data.Dataset.from_tensor_slices(
        {"a": _M, "b": np.arange(5.0)}).map(lambda d: {"s": m.reduce_sum(d["a"]) + 1,
                                                        "v": d["a"][:2], "b": d["b"]}),
    "tuple_in": lambda m: m.data.Dataset.from_tensor_slices((_M, np.arange(5))).map(
        lambda a, b: (m.concat([a, a], 0), b * 2)),
    "dtype_changes": lambda m: m.data.Dataset.range(4).map(
        lambda x: (m.cast(x, m.float16), m.cast(x, m.uint8), m.strings.as_string(x))),
    "unique": lambda m: m.data.Dataset.range(5).map(lambda x: m.unique(m.stack([x, x, 1])).y),
    "boolean_mask_rows": lambda m: m.data.Dataset.from_tensor_slices(_M).map(
        lambda r: m.boolean_mask(r, r > 4)),
    "boolean_mask_2d": lambda m: m.data.Dataset.from_tensors(_M).map(
        lambda a: m.boolean_mask(a, a[:, 0] > 4)),
    "where_one_arg": lambda m: m.data.Dataset.from_tensor_slices(_M).map(
        lambda r: m.where(r > 4)),
    "py_function": lambda m: m.data.Dataset.range(4).map(_py_double(m)),
    "py_function_batched": lambda m: m.data.Dataset.range(4).map(_py_double(m)).batch(2),
    "py_function_set_shape": lambda m: m.data.Dataset.range(4).map(_py_set_shape(m)),
    "numpy_function": lambda m: m.data.Dataset.range(4).map(_np_pair(m)),
    "string_split_batched_ragged": lambda m: m.data.Dataset.from_tensor_slices(_SENT).batch(
        2).map(m.strings.split),
    "string_split_scalar": lambda m: m.data.Dataset.from_tensor_slices(_SENT).map(
        m.strings.split),
    "string_split_padded": lambda m: m.data.Dataset.from_tensor_slices(_SENT).map(
        m.strings.split).padded_batch(2),
    "string_length": lambda m: m.data.Dataset.from_tensor_slices(_SENT).map(
        lambda s: (m.strings.length(s), s)),
    "ragged_input_map": lambda m: m.data.Dataset.from_tensor_slices(
        m.ragged.constant([[1, 2], [3], [4, 5, 6], [7]])).batch(2).map(lambda r: r * 2),
    "sparse_out": lambda m: m.data.Dataset.range(4).map(
        lambda x: m.sparse.from_dense(m.stack([x, 0, x]))),
    "filter_batch": lambda m: m.data.Dataset.range(10).filter(lambda x: x % 2 == 0).batch(2),
    "map_map": lambda m: _vary(m).map(lambda v: m.reduce_sum(v)).map(lambda s: m.fill([2], s)),
    "shape_arith": lambda m: m.data.Dataset.range(9).batch(4).map(
        lambda x: m.zeros(m.shape(x)[0] * 2)),
    "reshape_batch": lambda m: m.data.Dataset.range(9).batch(4).map(
        lambda x: m.reshape(x, [-1, 1])),
    "static_reshape": lambda m: m.data.Dataset.from_tensor_slices(_M).map(
        lambda r: m.reshape(r, [3, 1])),
    "cond_branches": lambda m: m.data.Dataset.range(5).map(
        lambda x: m.cond(x > 2, lambda: m.zeros([2]), lambda: m.ones([2]))),
    "unbatch_after_map": lambda m: m.data.Dataset.range(10).batch(3).map(
        lambda x: x + 1).unbatch(),
    "cache_prefetch": lambda m: _vary(m).cache().prefetch(2),
    "parallel_map": lambda m: m.data.Dataset.range(10).batch(3).map(
        lambda x: m.range(m.reduce_sum(x)), num_parallel_calls=2, deterministic=True),
    "parallel_map_autotune": lambda m: _vary(m).map(
        lambda v: v * 3, num_parallel_calls=m.data.AUTOTUNE),
    "enumerate_zip": lambda m: m.data.Dataset.zip((_vary(m), m.data.Dataset.range(5).map(
        lambda x: m.range(2 * x)))).enumerate(),
    "interleave": lambda m: m.data.Dataset.range(1, 4).interleave(
        lambda x: m.data.Dataset.from_tensors(m.range(x)), cycle_length=2),
    "flat_map_slices": lambda m: m.data.Dataset.range(1, 4).flat_map(
        lambda x: m.data.Dataset.from_tensor_slices(m.stack([x, x * 2]))),
    "window_flat_map": lambda m: m.data.Dataset.range(7).window(3).flat_map(
        lambda w: w.batch(3)),
    "group_by_window": lambda m: m.data.Dataset.range(10).group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(3), 3),
    "scan": lambda m: m.data.Dataset.range(5).apply(m.data.experimental.scan(
        np.int64(0), lambda s, x: (s + x, (s, m.range(x))))),
    "group_by_reducer": lambda m: m.data.Dataset.range(10).apply(
        m.data.experimental.group_by_reducer(lambda x: x % 3, m.data.experimental.Reducer(
            lambda k: (k, np.int64(0)), lambda s, x: (s[0], s[1] + x),
            lambda key, total: {"key": key, "ids": m.range(total % 5)}))),
    "guide_py_function_set_shape": lambda m: m.data.Dataset.from_tensor_slices(
        (np.zeros([4, 6, 6, 1], np.float32), np.arange(4))).map(_rotate(m)).batch(2),
    "slice_of_unknown_dim": lambda m: m.data.Dataset.range(10).batch(3).map(lambda x: x[:2]),
    "ragged_slices_sliced": lambda m: m.data.Dataset.from_tensor_slices(
        m.ragged.constant([[1, 2], [3], [4, 5, 6]])).map(lambda r: r[:1]),
    "sparse_input": lambda m: m.data.Dataset.from_tensors(m.sparse.SparseTensor(
        [[0, 1]], [3], [2, 4])).map(lambda s: m.sparse.to_dense(s)),
    "sparse_batched_input": lambda m: m.data.Dataset.range(4).map(
        lambda x: m.sparse.from_dense(m.stack([x, 0]))).batch(2).map(lambda s: s),
    "gather_one_hot": lambda m: m.data.Dataset.range(3).map(
        lambda x: (m.gather(m.constant([10, 20, 30]), x), m.one_hot(x, 4))),
    "keepdims_of_batch": lambda m: m.data.Dataset.range(10).batch(3).map(
        lambda x: m.reduce_sum(x, keepdims=True)),
    "csv_lines": lambda m: m.data.Dataset.from_tensor_slices(["1,a,2.5", "2,b,0"]).map(
        lambda line: m.io.decode_csv(line, [[0], [""], [0.0]])),
    "to_number": lambda m: m.data.Dataset.from_tensor_slices(["1", "2.5"]).map(
        m.strings.to_number),
    "image_resize": lambda m: m.data.Dataset.from_tensors(np.zeros([5, 7, 3], np.float32)).map(
        lambda i: m.image.resize(i, [4, 4])),
    "rejection_resample": lambda m: _vary(m).map(lambda v: (v, m.size(v) % 2)).apply(
        m.data.experimental.rejection_resample(lambda v, c: c, [0.5, 0.5],
                                               initial_dist=[0.5, 0.5], seed=3)).map(
        lambda c, e: (c, e[0])).take(0),
    "namedtuple_out": lambda m: m.data.Dataset.range(3).map(lambda x: Pair(x, m.range(x))),
}


def _values(m, ds):
    return [[np.asarray(v.numpy()).tolist() for v in m.nest.flatten(e, expand_composites=True)]
            for e in ds]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_element_spec_is_tfs(name):
    theirs = PIPELINES[name](real_tf())
    ours = PIPELINES[name](tf)
    assert str(ours.element_spec) == str(theirs.element_spec)
    assert _values(tf, ours) == _values(real_tf(), theirs)


@pytest.mark.parametrize("parallel", [None, 2])
def test_py_function_sees_each_element_once_after_the_spec_is_traced(parallel):
    per_element: list = []

    def f(x):
        return tf.py_function(lambda v: (per_element.append(int(v)), v)[1], [x],
                              tf.int64) + 1

    ds = tf.data.Dataset.range(5).map(f, num_parallel_calls=parallel)
    assert ds.element_spec == tf.TensorSpec(None, tf.int64)  # TF: unknown shape
    assert per_element == []
    assert sorted(int(v) for v in ds) == [1, 2, 3, 4, 5]
    assert sorted(per_element) == [0, 1, 2, 3, 4]


def test_python_of_a_static_map_runs_once_with_the_spec_asked_first():
    # TF traces the function once; the recording the spec's trace made serves the
    # elements, so the body's Python does not run again.
    calls: list = []

    def f(x):
        calls.append(1)
        return x * 2

    ds = tf.data.Dataset.range(4).map(f)
    assert ds.element_spec == tf.TensorSpec([], tf.int64)
    assert [int(v) for v in ds] == [0, 2, 4, 6]
    assert [int(v) for v in ds] == [0, 2, 4, 6]
    assert calls == [1]


def test_variable_writes_do_not_run_in_the_spec_trace():
    v = tf.Variable(0, dtype=tf.int64)
    ds = tf.data.Dataset.range(4).map(lambda x: v.assign_add(x) + 0)
    assert ds.element_spec == tf.TensorSpec([], tf.int64)
    assert int(v.numpy()) == 0
    assert [int(a) for a in ds] == [0, 1, 3, 6]


def test_empty_input_has_the_traced_spec():
    ours = tf.data.Dataset.range(0).map(lambda x: tf.range(x))
    theirs = real_tf().data.Dataset.range(0).map(lambda x: real_tf().range(x))
    assert str(ours.element_spec) == str(theirs.element_spec)
    assert list(ours) == []


def _count_program(m, kind):
    runs: list = []

    def f(x):
        runs.append(1)
        if kind == "py_function":
            y = m.py_function(lambda v: v + 1, [x], m.int64)
            return m.reshape(y, [])
        if kind == "dict_ragged":
            return {"r": m.RaggedTensor.from_row_lengths(m.stack([x, x, x]), [1, 2]),
                    "x": (x, m.cast(x, m.float32))}
        return x * 2

    ds = m.data.Dataset.range(4).map(f)
    spec = str(ds.element_spec)
    got = [_values(m, ds) for _ in range(2)]
    return spec, got, len(runs)


@pytest.mark.parametrize("kind", ["static", "py_function", "dict_ragged"])
def test_the_spec_trace_is_the_functions_one_trace(kind):
    # TF traces the function once, when the dataset is built; asking for the spec and
    # iterating twice runs its Python no more often here.
    ours = _count_program(tf, kind)
    theirs = _count_program(real_tf(), kind)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    assert ours[2] == theirs[2] == 1


def test_asking_for_the_spec_leaves_random_values_alone():
    def values(ask):
        tf.random.set_seed(7)
        ds = tf.data.Dataset.range(3).map(lambda x: tf.random.uniform([2]) + tf.cast(
            x, tf.float32))
        if ask:
            assert ds.element_spec == tf.TensorSpec([2], tf.float32)
        return [v.numpy().tolist() for v in ds]

    assert values(True) == values(False)


def _batched_runs(m, n, size):
    runs: list = []

    def f(x):
        runs.append(1)
        return x * 2

    ds = m.data.Dataset.range(n).batch(size).map(f)
    spec = str(ds.element_spec)
    return spec, [v.numpy().tolist() for v in ds], len(runs)


def test_a_map_over_equal_batches_runs_python_once_as_in_tf():
    # The spec's trace stands in the batch size for the unknown batch dimension, so
    # its recording serves every full batch.
    ours, theirs = _batched_runs(tf, 20, 4), _batched_runs(real_tf(), 20, 4)
    assert ours == theirs
    assert ours[2] == 1


def test_a_map_over_batches_with_a_short_last_one_runs_python_at_most_twice():
    # TF: once. Here the short last batch is recorded once more.
    ours, theirs = _batched_runs(tf, 20, 3), _batched_runs(real_tf(), 20, 3)
    assert ours[:2] == theirs[:2]
    assert ours[2] <= 2


def test_a_spec_asked_inside_a_traced_function_keeps_the_outer_traces_notes():
    # The map function asks for another dataset's spec while its own trace runs.
    def f(x):
        y = tf.py_function(lambda v: v * 2, [x], tf.int64)
        y.set_shape([])
        inner = tf.data.Dataset.from_tensors(x).map(lambda v: tf.range(v))
        assert inner.element_spec == tf.TensorSpec([None], tf.int64)
        return y, tf.py_function(lambda v: v + 1, [x], tf.int64)

    ds = tf.data.Dataset.range(1, 4).map(f)
    assert ds.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec(None, tf.int64))
    assert [(int(y), int(z)) for y, z in ds] == [(2, 2), (4, 3), (6, 4)]


def _dataset_fn_program(m, kind):
    runs: list = []

    def pair(x):
        runs.append(1)
        return m.data.Dataset.from_tensor_slices(m.stack([x, x * 2]))

    def per_window(w):
        runs.append(1)
        return w.batch(3)

    if kind == "flat_map":
        ds = m.data.Dataset.range(5).flat_map(pair)
    elif kind == "window_flat_map":
        ds = m.data.Dataset.range(7).window(3).flat_map(per_window)
    else:
        ds = m.data.Dataset.range(10).group_by_window(lambda x: x % 2,
                                                      lambda k, w: per_window(w), 3)
    spec = str(ds.element_spec)
    return spec, [_values(m, ds) for _ in range(2)], len(runs)


@pytest.mark.parametrize("kind", ["flat_map", "window_flat_map", "group_by_window"])
def test_dataset_functions_trace_once_with_the_spec_asked(kind):
    ours = _dataset_fn_program(tf, kind)
    theirs = _dataset_fn_program(real_tf(), kind)
    assert ours == theirs
    assert ours[2] == 1
