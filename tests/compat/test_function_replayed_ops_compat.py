"""Ops that used to send a traced ``tf.function`` eager (its Python on every call),
now replayed as in TF: ``tf.clip_by_global_norm`` (its NaN for an infinite norm is
computed, not read into Python) and ``tf.while_loop`` over Python numbers (TF's graph
loop makes them tensors, and its result has ``loop_vars``' structure). The same
programs under real TF and torchflow: values, result types, and how often the
Python ran.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _clip_program(m):
    runs = []

    @m.function
    def step(g1, g2):
        runs.append(1)
        (c1, c2), norm = m.clip_by_global_norm([g1, g2], 2.0)
        return c1, c2, norm

    out = []
    for scale in (0.1, 3.0, np.inf):
        g1 = m.constant(np.array([[3.0, -4.0], [1.0, 0.5]], np.float32) * scale)
        out += list(step(g1, m.constant(np.array([0.25, -2.0], np.float32))))
    return [np.asarray(t) for t in out], len(runs)


def test_clip_by_global_norm_replays_with_tf_values():
    rtf = real_tf()
    want, want_runs = _clip_program(rtf)
    got, runs = _clip_program(tf)
    assert runs == want_runs == 1
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)  # (NaN where TF has NaN)


def _loop_program(m):
    seen, runs = [], []

    @m.function
    def f(x):
        runs.append(1)
        return m.while_loop(lambda k, a: (seen.append(m.is_tensor(k)), k < 3)[1],
                            lambda k, a: (k + 1, a * 2.0), [0, x])

    out = [f(m.constant(v)) for v in (1.0, 2.5, -1.0)]
    return out, seen, len(runs)


def test_while_loop_over_python_numbers_in_a_function():
    rtf = real_tf()
    want, want_seen, want_runs = _loop_program(rtf)
    got, seen, runs = _loop_program(tf)
    assert runs == want_runs == 1 and seen == want_seen == [True]
    for g, w in zip(got, want):
        assert type(g) is type(w) is list  # loop_vars' structure, not the body's tuple
        assert [t.dtype.name for t in g] == [t.dtype.name for t in w] == ["int32", "float32"]
        np.testing.assert_allclose([t.numpy() for t in g], [t.numpy() for t in w])
