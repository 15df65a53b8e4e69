"""``tf.function`` over ``tf.data`` iterators (issue 13): an iterator argument is a
reference input keyed by its type spec, so the Python body runs once per element
spec, as in TF, and each call reads whichever iterator it is given (``next(it)``,
``for batch in it``, TF's ``train_step(iterator)`` with a ``tf.range`` loop of
``next`` calls). Each program runs under real TF and torchflow; the Python run
counts, outputs, tracing counts and the end-of-data error are compared."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _next_program(m):
    runs = []

    @m.function
    def g(it):
        runs.append(1)
        return next(it)

    ds = m.data.Dataset.range(10).batch(2)
    it = iter(ds)
    out = [g(it).numpy(), g(it).numpy()]
    other = iter(ds)
    out.append(g(other).numpy())  # another iterator of the same spec: no trace
    out.append(g(it).numpy())
    first = (len(runs), g.experimental_get_tracing_count())
    out.append(g(iter(m.data.Dataset.range(3))).numpy())  # a new element spec: a trace
    return out, first, (len(runs), g.experimental_get_tracing_count())


def test_next_of_an_iterator_argument_traces_once_per_spec():
    ours, theirs = _next_program(tf), _next_program(real_tf())
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_array_equal(a, b)
    assert ours[1:] == theirs[1:] == ((1, 1), (2, 2))


def _loop_program(m):
    runs = []
    printed = []

    @m.function
    def total(it):
        runs.append(1)
        s = m.constant(0, m.int64)
        for batch in it:
            s += m.reduce_sum(batch)
        return s

    ds = m.data.Dataset.range(10).batch(2)
    out = [total(iter(ds)), total(iter(ds.take(2))), total(iter(ds.skip(1)))]
    it = iter(ds)
    printed.append(next(it).numpy().tolist())  # eager next, then the rest in the function
    out.append(total(it))
    out.append(total(it))  # exhausted: the loop runs no iteration
    return [int(x) for x in out], printed, len(runs), total.experimental_get_tracing_count()


def test_for_batch_in_iterator_is_one_recorded_loop():
    ours, theirs = _loop_program(tf), _loop_program(real_tf())
    assert ours == theirs
    assert ours[0] == [45, 6, 44, 44, 0] and ours[2] == 1


def _steps_program(m, steps=2):
    runs = []
    w = m.Variable(0.0)

    @m.function
    def train_step(iterator):
        runs.append(1)
        for _ in m.range(steps):  # steps_per_execution style: N steps per call
            batch = next(iterator)
            w.assign_add(m.cast(m.reduce_sum(batch), m.float32))
        return w.read_value()

    it = iter(m.data.Dataset.range(10).batch(2))
    out = [float(train_step(it)), float(train_step(it))]
    err = None
    try:
        train_step(it)  # one batch left: the second next() is past the end
    except Exception as e:  # noqa: BLE001 - the type is compared with TF's
        err = type(e).__name__
    return out, err, len(runs), float(w.numpy())


def test_train_step_over_an_iterator_with_next_in_a_tensor_loop():
    ours, theirs = _steps_program(tf), _steps_program(real_tf())
    assert ours == theirs
    assert ours[:3] == ([6.0, 28.0], "OutOfRangeError", 1)


def _captured_program(m):
    runs = []
    it = iter(m.data.Dataset.from_tensor_slices(np.arange(6.0, dtype=np.float32)).batch(3))

    @m.function
    def step():
        runs.append(1)
        return next(it) * 2.0

    return [step().numpy().tolist(), step().numpy().tolist()], len(runs)


def test_a_captured_iterator_is_read_on_every_call():
    ours, theirs = _captured_program(tf), _captured_program(real_tf())
    assert ours == theirs == ([[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]], 1)


def _tensor_loop_program(m):
    runs = []

    @m.function
    def squares(x):
        runs.append(1)
        s = m.constant(0.0)
        for v in x:  # a for over a tensor: a tf.while_loop gathering row i
            s += v * v
        return s

    x = m.constant([1.0, 2.0, 3.0])
    return [float(squares(x)), float(squares(x + 1.0))], len(runs)


def test_for_over_a_tensor_records_one_loop():
    ours, theirs = _tensor_loop_program(tf), _tensor_loop_program(real_tf())
    assert ours == theirs == ([14.0, 29.0], 1)
