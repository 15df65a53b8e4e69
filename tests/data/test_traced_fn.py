"""traced_fn.DatasetFunction: functions returning datasets are traced once and their
dataset copied per element (tests/compat/test_data_function_compat.py compares the same
programs with real TF; these check the mechanics against analytic values)."""

from __future__ import annotations

import pickle

import pytest

import torchflow as tf
from torchflow._src.data import traced_fn

CALLS: list = []


def doubled_pair(x):
    CALLS.append(1)
    return tf.data.Dataset.from_tensor_slices(tf.stack([x, x * 2]))


@pytest.fixture(autouse=True)
def _clear():
    CALLS.clear()


def test_flat_map_body_runs_once_and_every_element_gets_its_own_values():
    ds = tf.data.Dataset.range(5).flat_map(doubled_pair)
    assert [int(v) for v in ds] == [0, 0, 1, 2, 2, 4, 3, 6, 4, 8]
    assert [int(v) for v in ds] == [0, 0, 1, 2, 2, 4, 3, 6, 4, 8]
    assert CALLS == [1]


def test_a_pipeline_with_dataset_functions_pickles_and_traces_again_there():
    # A tf.data service worker gets the pipeline pickled.
    ds = tf.data.Dataset.range(6).flat_map(doubled_pair).interleave(
        doubled_pair, cycle_length=2)
    want = [int(v) for v in ds]
    assert len(CALLS) == 2
    again = pickle.loads(pickle.dumps(ds))
    assert [int(v) for v in again] == want
    assert len(CALLS) == 4  # each function traced once on each side


def test_a_closure_capturing_the_element_runs_the_body_per_element():
    def f(x):
        CALLS.append(1)
        return tf.data.Dataset.range(3).map(lambda y: y * 100 + x)

    got = [int(v) for v in tf.data.Dataset.range(4).flat_map(f)]
    assert got == [y * 100 + x for x in range(4) for y in range(3)]
    assert CALLS == [1] * 4  # no copy could hold the captured value


def test_range_with_traced_bounds_reads_them_per_copy():
    got = [int(v) for v in tf.data.Dataset.range(1, 5).interleave(
        lambda n: tf.data.Dataset.range(n, 2 * n, 1), cycle_length=1)]
    assert got == [v for n in range(1, 5) for v in range(n, 2 * n)]


def test_range_with_eager_tensor_bounds_still_checks_at_construction():
    with pytest.raises(tf.errors.InvalidArgumentError, match="step must be a non-zero"):
        tf.data.Dataset.range(0, 5, tf.constant(0, tf.int64))
    assert len(tf.data.Dataset.range(tf.constant(4, tf.int64))) == 4


def test_the_window_argument_is_replaced_in_each_copy():
    got = [b.numpy().tolist() for b in tf.data.Dataset.range(7).window(3, 3).flat_map(
        lambda w: w.map(lambda v: v * 10).batch(3))]
    assert got == [[0, 10, 20], [30, 40, 50], [60]]


def test_returning_the_argument_window_itself():
    got = [int(v) for v in tf.data.Dataset.range(5).window(2).flat_map(lambda w: w)]
    assert got == [0, 1, 2, 3, 4]


def test_a_non_dataset_result_is_a_type_error_with_tfs_text():
    fn = traced_fn.traced_dataset_fn(lambda x: x + 1)
    with pytest.raises(TypeError, match=r"^`map_func` must return a `Dataset` object\. Got "):
        fn(tf.constant(1))


def test_a_tf_function_map_func_is_traced_through_its_python_function():
    @tf.function
    def f(x):
        CALLS.append(1)
        return tf.data.Dataset.from_tensors(x + 1)

    assert [int(v) for v in tf.data.Dataset.range(3).flat_map(f)] == [1, 2, 3]
    assert CALLS == [1]
