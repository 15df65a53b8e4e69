"""A sparse-feature model end to end, under real TF and torchflow: VarLenFeature ids
parsed from TFRecords in a tf.data pipeline, tf.nn.safe_embedding_lookup_sparse over
an embedding variable, a dense head, GradientTape (the table's gradient an
IndexedSlices) and a Keras Adagrad; losses and weights compared step for step."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

VOCAB, DIM = 30, 4


def _write(tf, path):
    rng = np.random.default_rng(3)
    with tf.io.TFRecordWriter(path) as w:
        for i in range(10):
            n = int(rng.integers(0, 4))  # some examples have no ids at all
            ids = rng.integers(-1, VOCAB, n).tolist()  # -1: an invalid id, pruned
            ex = tf.train.Example(features=tf.train.Features(feature={
                "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids)),
                "label": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 10]))}))
            w.write(ex.SerializeToString())


def _train(tf, path):
    feats = {"ids": tf.io.VarLenFeature(tf.int64), "label": tf.io.FixedLenFeature([], tf.float32)}
    ds = tf.data.TFRecordDataset(path).batch(4).map(lambda r: tf.io.parse_example(r, feats))
    rng = np.random.default_rng(0)
    table = tf.Variable(rng.uniform(-1, 1, (VOCAB, DIM)).astype(np.float32))
    w = tf.Variable(rng.uniform(-1, 1, (DIM, 1)).astype(np.float32))
    opt = getattr(tf.keras.optimizers, "legacy", tf.keras.optimizers).Adagrad(0.3)
    trace = []
    for _ in range(2):
        for batch in ds:
            with tf.GradientTape() as tape:
                emb = tf.nn.safe_embedding_lookup_sparse(table, batch["ids"], combiner="sqrtn")
                pred = tf.squeeze(emb @ w, 1)
                loss = tf.reduce_mean((pred - batch["label"]) ** 2)
            g_table, g_w = tape.gradient(loss, [table, w])
            opt.apply_gradients([(g_table, table), (g_w, w)])
            trace.append((type(g_table).__name__, float(loss), table.numpy(), w.numpy()))
    return trace


def test_sparse_feature_model_matches_tf(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "feats.tfrecord")
    _write(rtf, path)
    want = _train(rtf, path)
    got = _train(torchflow, path)
    assert len(got) == len(want) == 6
    for g, w in zip(got, want):
        assert g[0] == w[0] == "IndexedSlices"
        np.testing.assert_allclose(g[1], w[1], rtol=1e-5)
        np.testing.assert_allclose(g[2], w[2], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g[3], w[3], rtol=1e-5, atol=1e-6)
