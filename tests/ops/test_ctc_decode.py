"""CTC decoders against real TF on random logits: tf.nn.ctc_greedy_decoder,
tf.nn.ctc_beam_search_decoder and tf.keras.backend.ctc_decode (indices, values,
dense shapes, dtypes, log probabilities and errors); and ctc_loss /
collapse_repeated on the inputs where TF's dense-label loss is not plain CTC."""

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


_X6 = _logits(6, 2, 4, seed=0, scale=1.0)
_IRREGULAR = [
    # label sequences the frames cannot fit: TF's log(1e-307) final weights, not inf
    ("infeasible", np.array([[1, 1, 1, 1]] * 2, np.int32), _X6[:4], [4, 4], [4, 4], None),
    ("short_logit_length", np.array([[1, 2], [3, 1]], np.int32), _X6, [2, 2], [6, 1], None),
    # a label length past the labels: no final state at all
    ("label_length_past_labels", np.array([[1, 2], [1, 1]], np.int32), _X6, [3, 2], [6, 6],
     None),
    # labels outside the classes emit log 1 in TF's dense loss (its one-hot is zeros)
    ("label_out_of_range", np.array([[1, 7], [-1, 1]], np.int32), _X6, [2, 2], [6, 6], None),
    ("label_equal_to_blank", np.array([[1, 2], [0, 1]], np.int32), _X6, [2, 2], [6, 6], 2),
    ("regular_with_blank_index", np.array([[1, 1, 1], [3, 1, 2]], np.int32), _X6, [3, 3],
     [6, 3], -1),
]


@pytest.mark.parametrize("labels,logits,label_length,logit_length,blank",
                         [c[1:] for c in _IRREGULAR], ids=[c[0] for c in _IRREGULAR])
def test_ctc_loss_irregular_inputs_value_and_gradient_match_tf(labels, logits, label_length,
                                                               logit_length, blank):
    t = real_tf()
    weights = np.array([1.0, 0.5], np.float32)
    out = []
    for m in (t, tf):
        v = m.Variable(logits)
        with m.GradientTape() as tape:
            loss = m.nn.ctc_loss(labels, v, label_length, logit_length, blank_index=blank)
            total = m.reduce_sum(loss * weights)
        out.append((loss.numpy(), tape.gradient(total, v).numpy()))
    (want_l, want_g), (got_l, got_g) = out
    assert np.isfinite(got_l).all()
    np.testing.assert_allclose(got_l, want_l, rtol=1e-6, atol=1e-3)
    np.testing.assert_allclose(got_g, want_g, atol=1e-4)
