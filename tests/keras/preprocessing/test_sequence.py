"""tf.keras.preprocessing.sequence against real tf.keras."""

from __future__ import annotations

import random

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

SEQS = [[1, 2, 3], [4, 5], [], [6, 7, 8, 9, 10]]


def _ref():
    return real_tf().keras.preprocessing.sequence


@pytest.mark.parametrize("kwargs", [
    {}, {"maxlen": 3}, {"maxlen": 3, "padding": "post"}, {"maxlen": 3, "truncating": "post"},
    {"maxlen": 6, "padding": "post", "truncating": "post", "value": -1},
    {"dtype": "float32", "value": 0.5}, {"maxlen": 2, "dtype": "int64"},
])
def test_pad_sequences_matches_tf(kwargs):
    got = tf.keras.preprocessing.sequence.pad_sequences(SEQS, **kwargs)
    want = _ref().pad_sequences(SEQS, **kwargs)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_pad_sequences_items_with_shape_and_strings():
    seqs = [np.ones((2, 3)), np.zeros((1, 3))]
    got = tf.keras.preprocessing.sequence.pad_sequences(seqs, maxlen=3, dtype="float32")
    np.testing.assert_array_equal(got, _ref().pad_sequences(seqs, maxlen=3, dtype="float32"))
    words = [["a", "bb"], ["c"]]
    got = tf.keras.preprocessing.sequence.pad_sequences(words, dtype=object, value="")
    np.testing.assert_array_equal(got, _ref().pad_sequences(words, dtype=object, value=""))


@pytest.mark.parametrize("args, kwargs", [
    ((SEQS,), {"padding": "middle"}),
    (([[1, 2, 3]],), {"maxlen": 2, "truncating": "middle"}),
    (([1, 2],), {}),
    ((SEQS,), {"value": "x"}),
    (([[[1, 2]], [[1, 2, 3]]],), {}),
])
def test_pad_sequences_errors_match_tf(args, kwargs):
    with pytest.raises(ValueError) as theirs:
        _ref().pad_sequences(*args, **kwargs)
    with pytest.raises(ValueError) as ours:
        tf.keras.preprocessing.sequence.pad_sequences(*args, **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_make_sampling_table_matches_tf():
    for size, factor in ((10, 1e-5), (1000, 1e-3)):
        np.testing.assert_allclose(
            tf.keras.preprocessing.sequence.make_sampling_table(size, factor),
            _ref().make_sampling_table(size, factor))


@pytest.mark.parametrize("kwargs", [
    {"negative_samples": 0.0, "shuffle": False},
    {"window_size": 1, "categorical": True, "negative_samples": 0.0, "shuffle": False},
    {"negative_samples": 1.0, "seed": 3},
    {"window_size": 2, "negative_samples": 2.0, "categorical": True},
    {"sampling_table": np.linspace(0.2, 1.0, 12)},
])
def test_skipgrams_match_tf_with_the_same_python_rng(kwargs):
    seq = [1, 2, 0, 3, 4, 5, 2, 11]
    random.seed(7)
    got = tf.keras.preprocessing.sequence.skipgrams(seq, 12, **kwargs)
    random.seed(7)
    want = _ref().skipgrams(seq, 12, **kwargs)
    assert got == want


@pytest.mark.parametrize("kwargs", [
    {"length": 3}, {"length": 4, "sampling_rate": 2, "batch_size": 2},
    {"length": 2, "stride": 3, "start_index": 1, "end_index": 15, "batch_size": 3},
    {"length": 3, "reverse": True, "batch_size": 5},
])
def test_timeseries_generator_matches_tf(kwargs):
    data = np.arange(40, dtype="float32").reshape(20, 2)
    targets = np.arange(20) * 10
    ours = tf.keras.preprocessing.sequence.TimeseriesGenerator(data, targets, **kwargs)
    theirs = _ref().TimeseriesGenerator(data, targets, **kwargs)
    assert len(ours) == len(theirs)
    for i in range(len(theirs)):
        (x, y), (xe, ye) = ours[i], theirs[i]
        np.testing.assert_array_equal(x, xe)
        np.testing.assert_array_equal(y, ye)
    np.random.seed(0)
    xs, _ = tf.keras.preprocessing.sequence.TimeseriesGenerator(
        data, targets, shuffle=True, **kwargs)[0]
    np.random.seed(0)
    xt, _ = _ref().TimeseriesGenerator(data, targets, shuffle=True, **kwargs)[0]
    np.testing.assert_array_equal(xs, xt)


def test_timeseries_generator_errors_and_fit():
    with pytest.raises(ValueError, match="Data and targets have to be of same length"):
        tf.keras.preprocessing.sequence.TimeseriesGenerator([1, 2], [1], length=1)
    with pytest.raises(ValueError, match="is disallowed"):
        tf.keras.preprocessing.sequence.TimeseriesGenerator([1, 2], [1, 2], length=5)
    data = np.random.RandomState(0).rand(30, 1).astype("float32")
    gen = tf.keras.preprocessing.sequence.TimeseriesGenerator(data, data, length=4,
                                                              batch_size=8)
    model = tf.keras.Sequential([tf.keras.layers.Flatten(input_shape=(4, 1)),
                                 tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = gen[0]
    assert model.predict(x).shape == (8, 1) and y.shape == (8, 1)
