"""A replay whose size guard fails after a host node ran (an iterator's ``next``, a
``tf.py_function``) traces the body again for the new sizes: that trace reuses what
the host nodes gave instead of running them twice, so no element is skipped and no
side effect repeats. Compared with real TensorFlow, where the graph handles any size."""

import numpy as np
import pytest

import torchflow as tf

tf_ref = pytest.importorskip("tensorflow")

X = np.arange(10, dtype=np.float32).reshape(5, 2)


def _broadcast_step(t, it):
    x = next(it)
    return t.broadcast_to(x[:, :1], t.shape(x))


def test_final_partial_batch_is_not_skipped():
    f = tf.function(lambda it: _broadcast_step(tf, it))
    ref = tf_ref.function(lambda it: _broadcast_step(tf_ref, it))
    it = iter(tf.data.Dataset.from_tensor_slices(X).batch(2))
    ref_it = iter(tf_ref.data.Dataset.from_tensor_slices(X).batch(2))
    for _ in range(3):
        np.testing.assert_array_equal(f(it).numpy(), ref(ref_it).numpy())
    with pytest.raises(tf.errors.OutOfRangeError):
        f(it)
    with pytest.raises(tf_ref.errors.OutOfRangeError):
        ref(ref_it)


def test_py_function_before_a_failing_guard_runs_once_per_call():
    def body(t, x, seen):
        def record(v):
            seen.append(v.numpy().tolist())
            return v[:1 + int(v.numpy()[0, 0]) % 3]  # a size the function chooses
        y = t.py_function(record, [x], t.float32)
        y = t.reshape(y, [-1, 2])
        return t.broadcast_to(y[:, :1], t.shape(y))

    seen, ref_seen = [], []
    f = tf.function(lambda x: body(tf, x, seen))
    ref = tf_ref.function(lambda x: body(tf_ref, x, ref_seen))
    inputs = [X[:3], X[1:4] - 2, X[2:5] - 3, X[:3] + 2]
    for x in inputs:
        np.testing.assert_array_equal(f(tf.constant(x)).numpy(), ref(tf_ref.constant(x)).numpy())
    assert ref_seen == [x.tolist() for x in inputs]  # TF: once per call
    assert seen == ref_seen
