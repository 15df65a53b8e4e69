"""``tf.keras.experimental.SequenceFeatures`` and the sequence columns against
real TF: padded sequence values, sequence lengths, embedding lookups (weights
set equal), and an RNN over the result in a trained model."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf


def _features(m):
    words = m.sparse.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1]],
                                  m.constant(["a", "c", "b", "b", "q", "a"]), [3, 3])
    ids = m.sparse.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1]],
                                m.constant([1, 3, 0, 2, 2, 1], dtype=m.int64), [3, 3])
    price = m.sparse.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1]],
                                  m.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), [3, 3])
    pairs = m.sparse.SparseTensor(
        [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 0], [1, 1], [2, 0], [2, 1],
         [2, 2], [2, 3]], m.constant([float(v) for v in range(12)]), [3, 6])
    return {"words": words, "ids": ids, "price": price, "pairs": pairs}


CASES = {
    "numeric": lambda fc, m: [fc.sequence_numeric_column("price")],
    "numeric_shape2_default": lambda fc, m: [fc.sequence_numeric_column(
        "pairs", shape=(2,), default_value=-1.0)],
    "numeric_normalizer": lambda fc, m: [fc.sequence_numeric_column(
        "price", normalizer_fn=lambda sp: m.sparse.SparseTensor(
            sp.indices, sp.values * 10.0, sp.dense_shape))],
    "indicator_vocab": lambda fc, m: [fc.indicator_column(
        fc.sequence_categorical_column_with_vocabulary_list("words", ["a", "b", "c"]))],
    "indicator_hash": lambda fc, m: [fc.indicator_column(
        fc.sequence_categorical_column_with_hash_bucket("words", 5))],
    "indicator_identity_and_numeric": lambda fc, m: [
        fc.indicator_column(fc.sequence_categorical_column_with_identity("ids", 4)),
        fc.sequence_numeric_column("price")],
}

EMBED_CASES = {
    "embedding_vocab": lambda fc, m: [fc.embedding_column(
        fc.sequence_categorical_column_with_vocabulary_list("words", ["a", "b", "c"],
                                                            num_oov_buckets=1), 3)],
    "embedding_identity_sum_and_indicator": lambda fc, m: [
        fc.embedding_column(fc.sequence_categorical_column_with_identity("ids", 4), 2,
                            combiner="sum"),
        fc.indicator_column(fc.sequence_categorical_column_with_vocabulary_list(
            "words", ["a", "b"], num_oov_buckets=2))],
}


def _run(m, build, set_weights=False):
    layer = m.keras.experimental.SequenceFeatures(build(m.feature_column, m))
    feats = _features(m)
    layer(feats)
    if set_weights:
        rng = np.random.RandomState(1)
        layer.set_weights([rng.uniform(-1, 1, w.shape).astype("float32")
                           for w in layer.weights])
    seq, length = layer(feats)
    return seq.numpy(), length.numpy(), [w.name[len(layer.name):] for w in layer.weights]


@pytest.mark.parametrize("case", sorted(CASES) + sorted(EMBED_CASES))
def test_sequence_features_match_tf(case):
    build = CASES.get(case) or EMBED_CASES[case]
    ours = _run(torchflow, build, set_weights=case in EMBED_CASES)
    theirs = _run(real_tf(), build, set_weights=case in EMBED_CASES)
    assert ours[0].shape == theirs[0].shape
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-6)
    assert ours[1].dtype == theirs[1].dtype
    assert ours[1].tolist() == theirs[1].tolist()
    assert ours[2] == theirs[2]


def test_sequence_lengths_must_agree():
    tf = torchflow
    fc = tf.feature_column
    layer = tf.keras.experimental.SequenceFeatures(
        [fc.sequence_numeric_column("a"), fc.sequence_numeric_column("b")])
    a = tf.sparse.SparseTensor([[0, 0], [0, 1]], [1.0, 2.0], [1, 2])
    b = tf.sparse.SparseTensor([[0, 0]], [1.0], [1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        layer({"a": a, "b": b})


def _rnn_program(m):
    fc = m.feature_column
    cols = [fc.embedding_column(fc.sequence_categorical_column_with_vocabulary_list(
        "words", ["a", "b", "c"]), 3), fc.sequence_numeric_column("price")]
    seq_layer = m.keras.experimental.SequenceFeatures(cols)
    rnn = m.keras.layers.SimpleRNN(4)
    head = m.keras.layers.Dense(1)
    feats = _features(m)
    y = m.constant([[1.0], [0.0], [1.0]])

    def forward(f):
        seq, length = seq_layer(f)
        return head(rnn(seq, mask=m.sequence_mask(length)))

    forward(feats)
    rng = np.random.RandomState(2)
    weights = seq_layer.weights + rnn.weights + head.weights
    for w in weights:
        w.assign(rng.uniform(-0.5, 0.5, w.shape).astype("float32"))
    opt = m.keras.optimizers.SGD(0.1)
    losses = []
    for _ in range(3):
        with m.GradientTape() as tape:
            loss = m.reduce_mean((forward(feats) - y) ** 2)
        grads = tape.gradient(loss, weights)
        opt.apply_gradients(zip(grads, weights))
        losses.append(float(loss))
    return losses, [w.numpy() for w in weights]


def test_rnn_over_sequence_features_trains_like_tf():
    ours, theirs = _rnn_program(torchflow), _rnn_program(real_tf())
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
