"""CTC decoders against real TF on random logits: tf.nn.ctc_greedy_decoder,
tf.nn.ctc_beam_search_decoder and tf.keras.backend.ctc_decode (indices, values,
dense shapes, dtypes, log probabilities and errors); and two ctc_loss /
collapse_repeated edge cases found next to them."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf


def _logits(frames, batch, classes, seed, dtype="float32", scale=2.0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(frames, batch, classes)) * scale).astype(dtype)


def _assert_sparse_equal(got, want):
    assert got.indices.dtype == tf.int64 and got.values.dtype == tf.int64
    assert got.dense_shape.dtype == tf.int64
    np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    np.testing.assert_array_equal(got.dense_shape.numpy(), want.dense_shape.numpy())


@pytest.mark.parametrize("merge_repeated", [True, False])
@pytest.mark.parametrize("blank_index", [None, 0, 2, -1, -4])
def test_greedy_decoder_matches_tf(merge_repeated, blank_index):
    # blank_index is newer than TF 2.4 (which always used the last class); 2.21 is the
    # reference for it
    t = real_tf()
    # few classes and a small scale: many repeats, blanks and near-ties
    x = _logits(9, 4, 5, seed=3, scale=0.7)
    x[4, 1] = x[4, 1, 0]  # an exact tie in one frame: the first class wins
    lengths = np.array([9, 6, 0, 3], np.int32)
    want_d, want_p = t.nn.ctc_greedy_decoder(x, lengths, merge_repeated, blank_index)
    got_d, got_p = tf.nn.ctc_greedy_decoder(x, lengths, merge_repeated, blank_index)
    assert len(got_d) == 1
    _assert_sparse_equal(got_d[0], want_d[0])
    assert_close(got_p, want_p.numpy(), rtol=1e-6)


def test_greedy_decoder_float64_and_tensor_inputs():
    t = real_tf()
    x = _logits(5, 2, 4, seed=4, dtype="float64")
    want_d, want_p = t.nn.ctc_greedy_decoder(t.constant(x), t.constant([5, 2]))
    got_d, got_p = tf.nn.ctc_greedy_decoder(tf.constant(x), tf.constant([5, 2]))
    _assert_sparse_equal(got_d[0], want_d[0])
    assert got_p.dtype == tf.float64
    assert_close(got_p, want_p.numpy(), rtol=1e-12)


@pytest.mark.parametrize("beam_width,top_paths", [(1, 1), (3, 2), (8, 3), (100, 4)])
@pytest.mark.parametrize("seed", [0, 1])
def test_beam_search_decoder_matches_tf(beam_width, top_paths, seed):
    t = real_tf()
    x = _logits(8, 3, 5, seed=seed)
    lengths = np.array([8, 5, 2], np.int32)
    want_d, want_p = t.nn.ctc_beam_search_decoder(x, lengths, beam_width, top_paths)
    got_d, got_p = tf.nn.ctc_beam_search_decoder(x, lengths, beam_width, top_paths)
    assert len(got_d) == len(want_d) == top_paths
    for g, w in zip(got_d, want_d):
        _assert_sparse_equal(g, w)
    assert got_p.dtype == tf.float32 and got_p.shape == (3, top_paths)
    assert_close(got_p, want_p.numpy(), rtol=1e-5, atol=1e-5)


def test_beam_search_decoder_more_classes_narrow_beam():
    # pruning matters: 12 classes, beam 4, 10 frames
    t = real_tf()
    x = _logits(10, 2, 12, seed=7, scale=1.0)
    want_d, want_p = t.nn.ctc_beam_search_decoder(x, [10, 7], beam_width=4, top_paths=4)
    got_d, got_p = tf.nn.ctc_beam_search_decoder(x, [10, 7], beam_width=4, top_paths=4)
    for g, w in zip(got_d, want_d):
        _assert_sparse_equal(g, w)
    assert_close(got_p, want_p.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("greedy,beam_width,top_paths", [(True, 100, 1), (False, 5, 3),
                                                         (False, 100, 1)])
def test_keras_ctc_decode_matches_tf(greedy, beam_width, top_paths):
    t = real_tf()
    rng = np.random.default_rng(11)
    y = rng.dirichlet(np.full(4, 0.5), size=(3, 7)).astype(np.float32)  # softmax outputs
    lengths = np.array([7, 5, 2])
    want_d, want_p = t.keras.backend.ctc_decode(y, lengths, greedy, beam_width, top_paths)
    got_d, got_p = tf.keras.backend.ctc_decode(y, lengths, greedy, beam_width, top_paths)
    assert len(got_d) == len(want_d)
    for g, w in zip(got_d, want_d):
        assert g.dtype == tf.int64 and g.shape == (3, 7)
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert got_p.shape == tuple(want_p.shape)
    assert_close(got_p, want_p.numpy(), rtol=1e-5, atol=1e-5)


_X = np.zeros((4, 2, 3), np.float32)
_BAD = [
    ("greedy_2d", lambda m: m.nn.ctc_greedy_decoder(_X[0], [1, 1])),
    ("greedy_len_2d", lambda m: m.nn.ctc_greedy_decoder(_X, [[1, 1]])),
    ("greedy_len_batch", lambda m: m.nn.ctc_greedy_decoder(_X, [1, 1, 1])),
    ("greedy_len_long", lambda m: m.nn.ctc_greedy_decoder(_X, [5, 1])),
    ("greedy_blank", lambda m: m.nn.ctc_greedy_decoder(_X, [1, 1], blank_index=5)),
    ("greedy_empty", lambda m: m.nn.ctc_greedy_decoder(np.zeros((4, 2, 0), np.float32),
                                                       [1, 1])),
    ("beam_2d", lambda m: m.nn.ctc_beam_search_decoder(_X[0], [1, 1])),
    ("beam_top_gt_width", lambda m: m.nn.ctc_beam_search_decoder(_X, [1, 1], 2, 3)),
    ("beam_top_0", lambda m: m.nn.ctc_beam_search_decoder(_X, [1, 1], top_paths=0)),
    ("beam_width_0", lambda m: m.nn.ctc_beam_search_decoder(_X, [1, 1], beam_width=0)),
    ("beam_len_long", lambda m: m.nn.ctc_beam_search_decoder(_X, [5, 1])),
    ("beam_len_batch", lambda m: m.nn.ctc_beam_search_decoder(_X, [1, 1, 1])),
    ("beam_few_leaves", lambda m: m.nn.ctc_beam_search_decoder(_X, [0, 1], top_paths=2)),
    ("greedy_int_tensor", lambda m: m.nn.ctc_greedy_decoder(m.constant(_X.astype("int32")),
                                                            [1, 1])),
]


@pytest.mark.parametrize("call", [c[1] for c in _BAD], ids=[c[0] for c in _BAD])
def test_decoder_errors_match_tf(call):
    t = real_tf()
    with pytest.raises(t.errors.OpError) as want:
        call(t)
    with pytest.raises(tf.errors.OpError) as got:
        call(tf)
    assert type(got.value).__name__ == type(want.value).__name__, (want.value, got.value)


def test_empty_sequences_decode_to_nothing():
    t = real_tf()
    want_d, want_p = t.nn.ctc_beam_search_decoder(_X, [0, 0])
    got_d, got_p = tf.nn.ctc_beam_search_decoder(_X, [0, 0])
    _assert_sparse_equal(got_d[0], want_d[0])
    assert_close(got_p, want_p.numpy())
    want_d, want_p = t.nn.ctc_greedy_decoder(_X, [0, 0])
    got_d, got_p = tf.nn.ctc_greedy_decoder(_X, [0, 0])
    _assert_sparse_equal(got_d[0], want_d[0])
    assert_close(got_p, want_p.numpy())


def test_ctc_loss_logit_length_past_the_frames_means_all_frames():
    # TF's dense-label loss masks with sequence_mask(logit_length, frames); torch's
    # kernel rejected the length
    t = real_tf()
    x = _logits(6, 2, 4, seed=5)
    labels = np.array([[1, 2], [1, 1]], np.int32)
    want = t.nn.ctc_loss(labels, x, [2, 2], [9, 6])
    got = tf.nn.ctc_loss(labels, x, [2, 2], [9, 6])
    assert_close(got, want.numpy(), rtol=1e-5, atol=1e-5)


def test_collapse_repeated_seq_length_of_another_batch_raises_value_error():
    t = real_tf()
    with pytest.raises(ValueError):
        t.nn.collapse_repeated([[1, 1, 2]], [3, 3])
    with pytest.raises(ValueError, match="one length per row"):
        tf.nn.collapse_repeated([[1, 1, 2]], [3, 3])
