"""tf.CriticalSection and tf.nondifferentiable_batch_function against real TF."""

import threading
import time

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _racy_counter(lib, threads=4, steps=5):
    cs = lib.CriticalSection()
    v = lib.Variable(0)
    seen = []

    def step():
        cur = int(v.numpy())
        time.sleep(0.001)  # a race window: without the lock updates get lost
        v.assign(cur + 1)
        seen.append(cur)
        return v.read_value()

    def work():
        for _ in range(steps):
            cs.execute(step)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return int(v.numpy()), sorted(seen)


def test_critical_section_serialises_like_tf():
    t = real_tf()
    assert _racy_counter(tf) == _racy_counter(t) == (20, list(range(20)))


def test_critical_section_result_and_nesting_match_tf():
    t = real_tf()
    for lib in (tf, t):
        cs = lib.CriticalSection()
        out = cs.execute(lambda lib=lib: (lib.constant(1), lib.constant([2.0, 3.0])))
        np.testing.assert_array_equal(out[1].numpy(), [2.0, 3.0])
        with pytest.raises(ValueError, match="already running"):
            cs.execute(lambda cs=cs, lib=lib: cs.execute(lambda: lib.constant(1)))
        assert int(cs.execute(lambda lib=lib: lib.constant(5))) == 5  # the lock was released


def test_batch_function_matches_tf():
    t = real_tf()
    x = np.arange(6, dtype="float32").reshape(3, 2)
    got = tf.nondifferentiable_batch_function(1, 4, 10)(lambda a, b: a * 2 + b)(
        tf.constant(x), tf.constant([[1.0], [2.0], [3.0]]))
    want = t.nondifferentiable_batch_function(1, 4, 10)(lambda a, b: a * 2 + b)(
        t.constant(x), t.constant([[1.0], [2.0], [3.0]]))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    f = tf.nondifferentiable_batch_function(1, 4, 10)(lambda a, b: a)
    tfn = t.nondifferentiable_batch_function(1, 4, 10)(lambda a, b: a)
    for args in [(x, 1.0), (x, np.ones(2, "float32"))]:
        with pytest.raises(t.errors.InvalidArgumentError):
            tfn(*(t.constant(a) for a in args))
        with pytest.raises(tf.errors.InvalidArgumentError):
            f(*(tf.constant(a) for a in args))
    # TF 2.4 checks the arguments (2.21 fails later with an AttributeError).
    with pytest.raises(ValueError, match="supposed to be Tensors"):
        tf.nondifferentiable_batch_function(1, 4, 10)(lambda a: a)(3)
