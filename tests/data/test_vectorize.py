"""Map vectorization and the fused shuffle+batch path give exactly the elements of the
plain per-element path (which the other tests check against Python references)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf

_RNG = np.random.default_rng(0)
_X = _RNG.integers(0, 256, size=(2500, 4, 3), dtype=np.uint8)
_Y = _RNG.integers(0, 10, size=2500)
_S = np.array([f"s{i}" for i in range(2500)])


def _source(vectorize: bool):
    o = tf.data.Options()
    o.experimental_optimization.map_vectorization.enabled = vectorize
    return tf.data.Dataset.from_tensor_slices((_X, _Y, _S)).with_options(o)


PIPES = {
    "map_shuffle_batch": lambda d: d.map(lambda x, y, s: (tf.cast(x, tf.float32) / 255.0, y, s))
    .shuffle(700, seed=3, reshuffle_each_iteration=False).batch(128),
    "parallel_map_shuffle_batch": lambda d: d.map(
        lambda x, y, s: {"x": tf.cast(x, tf.float32) * 2.0, "y": y},
        num_parallel_calls=tf.data.AUTOTUNE).shuffle(
        5000, seed=1, reshuffle_each_iteration=False).batch(100, drop_remainder=True),
    "shuffle_batch": lambda d: d.shuffle(300, seed=2, reshuffle_each_iteration=False).batch(64),
    "map_batch": lambda d: d.map(lambda x, y, s: (x, y * 2)).batch(7),
    "map_elements": lambda d: d.map(lambda x, y, s: tf.cast(x, tf.int32) + 1),
    # Not row-wise: a reduction over the whole element; must fall back.
    "non_rowwise": lambda d: d.map(lambda x, y, s: x - tf.reduce_max(x)).shuffle(
        300, seed=1, reshuffle_each_iteration=False).batch(64),
    # Not row-wise: per-element randomness.
    "random": lambda d: d.map(lambda x, y, s: tf.random.stateless_uniform(
        [2], seed=[1, 2])).batch(5),
}


def _np(ds):
    out = []
    for e in ds:
        flat = tf.nest.flatten(e)
        out.append([(t.numpy().dtype, np.asarray(t.numpy()).tolist()) for t in flat])
    return out


@pytest.mark.parametrize("name", sorted(PIPES))
def test_vectorized_equals_per_element(name):
    make = PIPES[name]
    fast, slow = make(_source(True)), make(_source(False))
    assert _np(fast) == _np(slow)
    assert fast.element_spec == slow.element_spec


def test_vectorized_map_error_is_per_element_and_iteration_goes_on():
    ds = tf.data.Dataset.from_tensor_slices(np.array([1.0, 0.0, 2.0], np.float32)).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "inf"))
    it = iter(ds)
    assert float(next(it)) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError):
        next(it)
    assert float(next(it)) == 0.5


def test_fused_shuffle_memory_is_bounded_by_the_buffer():
    from torchflow._src.data import rowwise

    ds = _source(True).map(lambda x, y, s: x).shuffle(200, seed=0).batch(10)
    it = iter(ds)
    next(it)
    frame = it._it.gi_frame
    arena = frame.f_locals["arena"]
    assert arena.cap == 200 + rowwise.vectorize._CHUNK + 10
