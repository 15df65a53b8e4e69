"""``DenseFeatures`` / ``SequenceFeatures`` configs: the columns' configs equal
TF's, and ``from_config`` rebuilds equal columns that compute the same values."""

from __future__ import annotations

import numpy as np

import torchflow
from torchflow._src.testing import real_tf


def _columns(m):
    fc = m.feature_column
    age = fc.numeric_column("age", shape=2, default_value=[1.0, 2.0])
    thal = fc.categorical_column_with_vocabulary_list("thal", ["a", "b"], num_oov_buckets=1)
    ids = fc.categorical_column_with_identity("ids", 4, default_value=0)
    return [age, fc.bucketized_column(fc.numeric_column("x"), [0.0, 1.0]),
            fc.indicator_column(thal),
            fc.indicator_column(fc.crossed_column([thal, "word"], 7, hash_key=3)),
            fc.indicator_column(fc.weighted_categorical_column(ids, "w")),
            fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 3, dtype=m.int64))]


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def test_dense_features_config_matches_tf_and_round_trips():
    ours = torchflow.keras.layers.DenseFeatures(_columns(torchflow), name="feats").get_config()
    theirs = real_tf().keras.layers.DenseFeatures(_columns(real_tf()), name="feats").get_config()
    assert _plain(ours["feature_columns"]) == _plain(theirs["feature_columns"])
    assert ours["name"] == theirs["name"] and ours["trainable"] == theirs["trainable"]
    layer = torchflow.keras.layers.DenseFeatures.from_config(ours)
    assert layer._feature_columns == torchflow.keras.layers.DenseFeatures(
        _columns(torchflow))._feature_columns
    tf = torchflow
    feats = {"age": tf.constant([[1.0, 2.0]]), "x": tf.constant([[0.5]]),
             "thal": tf.constant([["b"]]), "word": tf.constant([["q"]]),
             "ids": tf.constant([[3]]), "w": tf.constant([[2.0]]),
             "h": tf.constant([[5]], tf.int64)}
    np.testing.assert_array_equal(layer(feats).numpy(),
                                  tf.keras.layers.DenseFeatures(_columns(tf))(feats).numpy())


def test_embedding_and_sequence_configs_round_trip():
    tf = torchflow
    fc = tf.feature_column
    emb = fc.embedding_column(fc.sequence_categorical_column_with_identity("s", 5), 3,
                              combiner="sqrtn", max_norm=2.0)
    layer = tf.keras.experimental.SequenceFeatures([emb, fc.sequence_numeric_column("n")])
    back = tf.keras.experimental.SequenceFeatures.from_config(layer.get_config())
    (num, col) = back._feature_columns  # sorted by name: "n", "s_embedding"
    assert num == fc.sequence_numeric_column("n")
    assert col.categorical_column == emb.categorical_column
    assert (col.dimension, col.combiner, col.max_norm) == (3, "sqrtn", 2.0)
    assert col.initializer.get_config() == emb.initializer.get_config()
