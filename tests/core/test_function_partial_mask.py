"""An op whose output size depends on values (``tf.boolean_mask``) over an iterator's
final, partial batch inside a ``tf.function``: the replay of the full-batch trace
fails there, and the body runs as Python with the results the replay's host nodes
(``next(it)``, a ``py_function``) already gave, so no element is skipped and no side
effect repeats. Compared with real TensorFlow, whose graph handles any size."""

import numpy as np
import pytest

import torchflow as tf

tf_ref = pytest.importorskip("tensorflow")

ROWS = np.arange(10, dtype=np.float32)


def _mask_step(t):
    def step(it):
        x = next(it)
        return t.reduce_sum(t.boolean_mask(x, x > 3))
    return step


def _results(t, step, it, calls):
    return [float(step(it).numpy()) for _ in range(calls)]


def test_boolean_mask_over_the_final_partial_batch():
    f, ref = tf.function(_mask_step(tf)), tf_ref.function(_mask_step(tf_ref))
    it = iter(tf.data.Dataset.from_tensor_slices(ROWS).batch(4))
    ref_it = iter(tf_ref.data.Dataset.from_tensor_slices(ROWS).batch(4))
    got, want = _results(tf, f, it, 3), _results(tf_ref, ref, ref_it, 3)
    assert got == want == [0.0, 22.0, 17.0]
    with pytest.raises(tf_ref.errors.OutOfRangeError):
        ref(ref_it)
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        f(it)


def test_partial_batches_of_a_repeated_dataset_read_every_element():
    f, ref = tf.function(_mask_step(tf)), tf_ref.function(_mask_step(tf_ref))
    it = iter(tf.data.Dataset.from_tensor_slices(ROWS).batch(4).repeat(3))
    ref_it = iter(tf_ref.data.Dataset.from_tensor_slices(ROWS).batch(4).repeat(3))
    assert _results(tf, f, it, 9) == _results(tf_ref, ref, ref_it, 9)
    with pytest.raises(tf_ref.errors.OutOfRangeError):
        ref(ref_it)
    with pytest.raises(tf.errors.OutOfRangeError):
        f(it)


def _counted_step(t, seen):
    def count(x):
        seen.append(x.numpy().tolist())
        return x * 2.0

    def step(it):
        x = next(it)
        y = t.py_function(count, [x], t.float32)
        y.set_shape(x.shape)  # a py_function's result has no static shape in a trace
        return t.reduce_sum(t.boolean_mask(y, y > 7.0))
    return step


def test_py_function_before_the_failing_op_runs_once_per_call():
    seen, ref_seen = [], []
    f = tf.function(_counted_step(tf, seen))
    ref = tf_ref.function(_counted_step(tf_ref, ref_seen))
    it = iter(tf.data.Dataset.from_tensor_slices(ROWS).batch(4))
    ref_it = iter(tf_ref.data.Dataset.from_tensor_slices(ROWS).batch(4))
    assert _results(tf, f, it, 3) == _results(tf_ref, ref, ref_it, 3)
    assert ref_seen == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0]]
    assert seen == ref_seen  # TF: once per call
    with pytest.raises(tf.errors.OutOfRangeError):
        f(it)
    assert seen == ref_seen


def test_a_value_the_kernel_rejects_still_raises_tfs_error():
    @tf.function
    def gather(it):
        x = next(it)
        return tf.gather(x, tf.cast(tf.reduce_max(x), tf.int32))

    it = iter(tf.data.Dataset.from_tensor_slices(np.array([[0, 1], [5, 0]], np.float32)))
    assert float(gather(it).numpy()) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError):
        gather(it)
