"""Functions passed to ``Dataset.map``/``filter`` are traced, as in TF: the same
program under real TF and torchflow runs the function's Python the same number of
times, its ``py_function`` once per element, sees ``executing_eagerly()`` False,
and yields the same values (sequential and parallel maps, two epochs)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def program(m, parallel):
    python_calls, eager_seen, per_element = [], [], []

    def f(x):
        python_calls.append(1)
        eager_seen.append(m.executing_eagerly())
        y = m.py_function(lambda v: per_element.append(int(v)) or v, [x], m.int64)
        return m.cast(y, m.float32) * 2.0 + 1.0

    def keep(x):
        python_calls.append(2)
        return x > 3.0

    ds = m.data.Dataset.range(6).map(f, num_parallel_calls=2 if parallel else None)
    ds = ds.filter(keep)
    epochs = [sorted(float(v) for v in ds) for _ in range(2)]
    return epochs, sorted(python_calls), eager_seen, sorted(per_element)


@pytest.mark.parametrize("parallel", [False, True], ids=["sequential", "parallel"])
def test_map_and_filter_python_runs_at_trace_only(parallel):
    rtf = real_tf()
    ours = program(tf, parallel)
    theirs = program(rtf, parallel)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]  # one trace of each function
    assert ours[2] == theirs[2] == [False]
    assert ours[3] == theirs[3] == sorted(list(range(6)) * 2)  # py_function: every element


def test_new_element_shapes_still_give_the_right_values():
    ds = tf.data.Dataset.from_generator(lambda: (np.ones(n, np.float32) for n in (1, 2, 3, 2)),
                                        output_signature=tf.TensorSpec([None], tf.float32))
    got = [float(v) for v in ds.map(lambda x: tf.reduce_sum(x) + tf.cast(tf.size(x), tf.float32))]
    assert got == [2.0, 4.0, 6.0, 4.0]
