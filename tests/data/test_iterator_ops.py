"""Iterators: end of sequence, Optional, save/restore."""

from __future__ import annotations

import pytest

import torchflow as tf


def test_python_iteration_ends_with_stop_iteration():
    it = iter(tf.data.Dataset.range(2))
    assert [int(next(it)), int(next(it))] == [0, 1]
    with pytest.raises(StopIteration):
        next(it)


def test_get_next_raises_out_of_range():
    it = iter(tf.data.Dataset.range(1))
    assert int(it.get_next()) == 0
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    assert isinstance(it, tf.data.Iterator)
    assert it.element_spec == tf.TensorSpec([], tf.int64)


def test_get_next_as_optional():
    it = iter(tf.data.Dataset.from_tensors((1, "a")))
    opt = it.get_next_as_optional()
    assert bool(opt.has_value())
    v = opt.get_value()
    assert int(v[0]) == 1 and v[1].numpy() == b"a"
    empty = it.get_next_as_optional()
    assert not bool(empty.has_value())
    assert empty.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.string))
    with pytest.raises(tf.errors.InvalidArgumentError):
        empty.get_value()
    assert bool(tf.data.experimental.Optional.from_value(3).has_value())


@pytest.mark.parametrize("make", [
    lambda: tf.data.Dataset.range(20).map(lambda x: x * 2).batch(3),
    lambda: tf.data.Dataset.range(20).shuffle(8, seed=2).repeat(2),
    lambda: tf.data.Dataset.range(20).shuffle(20).batch(4).prefetch(2),
    lambda: tf.data.Dataset.range(6).interleave(lambda x: tf.data.Dataset.range(x),
                                                cycle_length=3),
], ids=["map_batch", "shuffle_seed_repeat", "shuffle_unseeded_prefetch", "interleave"])
def test_save_restore_continues_where_it_left(make):
    it = iter(make())
    for _ in range(4):
        next(it)
    state = it._save()
    rest = [x.numpy().tolist() for x in it]
    other = iter(make())
    other._restore(state)
    assert [x.numpy().tolist() for x in other] == rest


def test_trackable_protocol_round_trip():
    ds = tf.data.Dataset.range(10).shuffle(10, seed=4).batch(2)
    it = iter(ds)
    next(it)
    saved = it._serialize_to_tensors()
    assert saved["ITERATOR_STATE"].dtype == tf.string
    rest = [x.numpy().tolist() for x in it]
    other = iter(ds)
    other._restore_from_tensors(saved)
    assert [x.numpy().tolist() for x in other] == rest
