"""Each feature column through ``tf.keras.layers.DenseFeatures``, under real TF
(2.21, whose feature columns are TF 2.4's) and torchflow on the same inputs:
outputs, shapes, weight names and (for embeddings, weights set equal) values."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf


def _feature(m, spec):
    kind, value, dtype = spec
    if kind == "dense":
        return m.constant(value, dtype=getattr(m, dtype))
    indices, values, shape = value
    return m.sparse.SparseTensor(indices, m.constant(values, dtype=getattr(m, dtype)), shape)


FEATURES = {
    "n": ("dense", [[0.5], [2.0], [-3.0], [1.0]], "float32"),
    "n1": ("dense", [0.5, 2.0, -3.0, 1.0], "float64"),  # rank 1: read as [batch, 1]
    "n2": ("dense", [[1, 2], [3, 4], [5, 6], [7, 8]], "int32"),
    "t": ("dense", [["fixed"], ["normal"], ["zzz"], ["reversible"]], "string"),
    "ts": ("sparse", ([[0, 0], [0, 1], [1, 0], [3, 2]], ["a", "b", "c", "a"], [4, 3]), "string"),
    "i": ("dense", [[1], [4], [-1], [3]], "int64"),
    "ii": ("dense", [[1, 2], [0, 0], [5, -1], [3, 4]], "int32"),
    "is": ("sparse", ([[0, 0], [0, 1], [2, 0], [3, 1]], [1, 1, 2, 0], [4, 2]), "int64"),
    "w": ("sparse", ([[0, 0], [0, 1], [2, 0], [3, 1]], [0.5, 2.0, 1.5, 3.0], [4, 2]), "float32"),
    "h": ("dense", [["cat"], ["dog"], ["cat"], [""]], "string"),
    "hi": ("dense", [[10], [20], [30], [-1]], "int64"),
}

# name -> builder of the column list (fc is m.feature_column)
CASES = {
    "numeric": lambda fc, m: [fc.numeric_column("n")],
    "numeric_rank1_float64": lambda fc, m: [fc.numeric_column("n1", dtype=m.float64)],
    "numeric_shape2_normalizer": lambda fc, m: [fc.numeric_column(
        "n2", shape=(2,), dtype=m.int32, normalizer_fn=lambda x: x * 2)],
    "bucketized": lambda fc, m: [fc.bucketized_column(fc.numeric_column("n"), [-1.0, 0.5, 1.5])],
    "bucketized_2d": lambda fc, m: [fc.bucketized_column(fc.numeric_column("n2", shape=2),
                                                      [2, 4, 6])],
    "indicator_vocab": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("t", ["fixed", "normal", "reversible"]))],
    "indicator_vocab_oov": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("t", ["fixed", "normal"], num_oov_buckets=3))],
    "indicator_vocab_default": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("t", ["fixed", "normal"], default_value=1))],
    "indicator_vocab_sparse": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("ts", ["a", "b"], num_oov_buckets=1))],
    "indicator_vocab_int": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("ii", [0, 2, 3, 5], num_oov_buckets=2))],
    "indicator_identity": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_identity("i", 5))],
    "indicator_identity_multi": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_identity("ii", 6, default_value=0))],
    "indicator_hash": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_hash_bucket("h", 7))],
    "indicator_hash_int": lambda fc, m: [fc.indicator_column(
        fc.categorical_column_with_hash_bucket("hi", 5, dtype=m.int64))],
    "indicator_weighted": lambda fc, m: [fc.indicator_column(fc.weighted_categorical_column(
        fc.categorical_column_with_identity("is", 3), "w"))],
    "indicator_bucketized": lambda fc, m: [fc.indicator_column(
        fc.bucketized_column(fc.numeric_column("n"), [0.0, 1.0]))],
    "indicator_crossed": lambda fc, m: [fc.indicator_column(fc.crossed_column(
        [fc.bucketized_column(fc.numeric_column("n"), [0.0, 1.0]),
         fc.categorical_column_with_vocabulary_list("t", ["fixed", "normal", "reversible"])],
        hash_bucket_size=11))],
    "indicator_crossed_raw_keys": lambda fc, m: [fc.indicator_column(fc.crossed_column(
        ["h", "hi", "ts"], hash_bucket_size=13, hash_key=7))],
    "indicator_crossed_nested": lambda fc, m: [fc.indicator_column(fc.crossed_column(
        [fc.crossed_column(["h", "t"], 5), "hi"], hash_bucket_size=17))],
    "several_sorted_by_name": lambda fc, m: [
        fc.numeric_column("n2", shape=2, dtype=m.int32), fc.numeric_column("n"),
        fc.indicator_column(fc.categorical_column_with_identity("i", 5))],
}

EMBED_CASES = {
    "embedding_vocab_mean": lambda fc, m: [fc.embedding_column(
        fc.categorical_column_with_vocabulary_list("t", ["fixed", "normal", "reversible"]), 3)],
    "embedding_identity_sum": lambda fc, m: [fc.embedding_column(
        fc.categorical_column_with_identity("ii", 6), 2, combiner="sum")],
    "embedding_sqrtn_weighted": lambda fc, m: [fc.embedding_column(fc.weighted_categorical_column(
        fc.categorical_column_with_identity("is", 3), "w"), 4, combiner="sqrtn")],
    "embedding_max_norm": lambda fc, m: [fc.embedding_column(
        fc.categorical_column_with_vocabulary_list("ts", ["a", "b", "c"]), 3, max_norm=0.5)],
    "embedding_hash_unsafe": lambda fc, m: [fc.embedding_column(
        fc.categorical_column_with_hash_bucket("h", 5), 2, use_safe_embedding_lookup=False)],
    "embedding_crossed_and_numeric": lambda fc, m: [
        fc.embedding_column(fc.crossed_column(["h", "t"], 9), 2), fc.numeric_column("n")],
}


def _run(m, build, set_weights=False):
    cols = build(m.feature_column, m)
    layer = m.keras.layers.DenseFeatures(cols)
    feats = {k: _feature(m, v) for k, v in FEATURES.items()}
    layer(feats)  # builds the embedding tables
    if set_weights:
        rng = np.random.RandomState(0)
        layer.set_weights([rng.uniform(-1, 1, w.shape).astype("float32")
                           for w in layer.weights])
    out = layer(feats)
    return out.numpy(), [w.name[len(layer.name):] for w in layer.weights], None


@pytest.mark.parametrize("case", sorted(CASES))
def test_column_output_matches_tf(case):
    ours, names, _ = _run(torchflow, CASES[case])
    theirs, tnames, _ = _run(real_tf(), CASES[case])
    assert ours.dtype == theirs.dtype == np.float32
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    assert names == tnames == []


@pytest.mark.parametrize("case", sorted(EMBED_CASES))
def test_embedding_output_matches_tf(case):
    ours, names, _ = _run(torchflow, EMBED_CASES[case], set_weights=True)
    theirs, tnames, _ = _run(real_tf(), EMBED_CASES[case], set_weights=True)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert names == tnames


def test_default_embedding_initializer_is_truncated_normal():
    fc = torchflow.feature_column
    col = fc.embedding_column(fc.categorical_column_with_identity("i", 2000), 16)
    layer = torchflow.keras.layers.DenseFeatures([col])
    layer({"i": torchflow.constant([[1]])})
    w = layer.weights[0].numpy()
    assert w.shape == (2000, 16)
    std = 1 / np.sqrt(16)
    assert np.abs(w).max() <= 2 * std + 1e-6  # cut at two standard deviations
    # a normal cut at +-2 sigma has standard deviation 0.8796 sigma
    assert abs(w.std() - 0.8796 * std) < 0.01 * std * 5


def test_embedding_not_trainable_and_layer_trainable_flag():
    fc = torchflow.feature_column
    c = fc.categorical_column_with_identity("i", 3)
    frozen = torchflow.keras.layers.DenseFeatures([fc.embedding_column(c, 2, trainable=False)])
    frozen({"i": torchflow.constant([[1]])})
    assert len(frozen.trainable_weights) == 0 and len(frozen.non_trainable_weights) == 1
    layer = torchflow.keras.layers.DenseFeatures([fc.embedding_column(c, 2)], trainable=False)
    layer({"i": torchflow.constant([[1]])})
    assert len(layer.trainable_weights) == 0


def test_cols_to_output_tensors_and_output_shape():
    for m in (torchflow, real_tf()):
        fc = m.feature_column
        cols = [fc.numeric_column("n"), fc.indicator_column(
            fc.categorical_column_with_identity("i", 5))]
        layer = m.keras.layers.DenseFeatures(cols)
        got = {}
        out = layer({"n": m.constant([[1.0]]), "i": m.constant([[2]])},
                    cols_to_output_tensors=got)
        assert out.shape == (1, 6)
        assert sorted(c.name for c in got) == ["i_indicator", "n"]
        assert got[cols[1]].shape == (1, 5)
        assert tuple(layer.compute_output_shape((None, 1))) == (None, 6)


def test_column_reprs_names_and_shapes_match_tf():
    def describe(m):
        fc = m.feature_column
        n = fc.numeric_column("n", shape=2, default_value=1.5)
        cols = [n, fc.numeric_column("k", default_value=0),
                fc.bucketized_column(fc.numeric_column("b"), [1, 2]),
                fc.categorical_column_with_identity("i", 4),
                fc.categorical_column_with_hash_bucket("h", 9, dtype=m.int32),
                fc.categorical_column_with_vocabulary_list("v", [1, 2]),
                fc.categorical_column_with_vocabulary_list("s", ("a", "b"), num_oov_buckets=2),
                fc.crossed_column(["a", fc.categorical_column_with_identity("i", 4)], 10),
                fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 4), "w"),
                fc.indicator_column(fc.categorical_column_with_identity("i", 4)),
                fc.sequence_numeric_column("q"),
                fc.sequence_categorical_column_with_identity("r", 3)]
        out = []
        for c in cols:
            out.append((repr(c), c.name, str(getattr(c, "variable_shape", None)),
                        getattr(c, "num_buckets", None)))
        e = fc.embedding_column(fc.categorical_column_with_identity("i", 4), 3)
        out.append((e.name, str(e.variable_shape), e.combiner, e.trainable))
        return out

    ours, theirs = describe(torchflow), describe(real_tf())
    assert ours == theirs


def test_parse_example_spec_matches_tf_and_parses():
    def spec(m):
        fc = m.feature_column
        cols = [fc.numeric_column("x", shape=2, default_value=[0.0, 1.0]),
                fc.embedding_column(fc.categorical_column_with_vocabulary_list("t", ["a"]), 2),
                fc.indicator_column(fc.weighted_categorical_column(
                    fc.categorical_column_with_identity("i", 3), "w")),
                fc.crossed_column(["p", "q"], 4),
                fc.sequence_numeric_column("s", dtype=m.int64),
                fc.bucketized_column(fc.numeric_column("b", dtype=m.int64), [1])]
        return fc.make_parse_example_spec(cols)

    ours, theirs = spec(torchflow), spec(real_tf())
    assert sorted(ours) == sorted(theirs)
    assert {k: repr(v) for k, v in ours.items()} == {k: repr(v) for k, v in theirs.items()}
    rtf = real_tf()
    ex = rtf.train.Example(features=rtf.train.Features(feature={
        "t": rtf.train.Feature(bytes_list=rtf.train.BytesList(value=[b"a", b"z"])),
        "b": rtf.train.Feature(int64_list=rtf.train.Int64List(value=[3]))}))
    parsed = torchflow.io.parse_example([ex.SerializeToString()], ours)
    assert parsed["x"].numpy().tolist() == [[0.0, 1.0]]
    assert parsed["t"].values.numpy().tolist() == [b"a", b"z"]


def test_functional_model_with_dict_inputs_and_tf_function():
    tf = torchflow
    fc = tf.feature_column
    cols = [fc.numeric_column("age"), fc.embedding_column(
        fc.categorical_column_with_vocabulary_list("thal", ["a", "b"]), 2)]
    inputs = {"age": tf.keras.Input(shape=(1,), name="age"),
              "thal": tf.keras.Input(shape=(1,), name="thal", dtype=tf.string)}
    x = tf.keras.layers.DenseFeatures(cols)(inputs)
    assert x.shape.as_list() == [None, 3]
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(x))
    feats = {"age": tf.constant([[1.0], [2.0]]), "thal": tf.constant([["a"], ["q"]])}
    eager = model(feats).numpy()
    traced = tf.function(lambda f: model(f))
    np.testing.assert_allclose(traced(feats).numpy(), eager, rtol=1e-6)
    feats2 = {"age": tf.constant([[3.0], [2.0], [0.0]]), "thal": tf.constant([["b"], ["a"],
                                                                              ["b"]])}
    np.testing.assert_allclose(traced(feats2).numpy(), model(feats2).numpy(), rtol=1e-6)


def test_traced_layer_replays_sparse_and_string_features_of_new_sizes():
    tf = torchflow
    fc = tf.feature_column
    words = fc.categorical_column_with_vocabulary_list("w", ["a", "b", "c"], num_oov_buckets=2)
    cols = [fc.embedding_column(words, 3, combiner="sqrtn"), fc.indicator_column(words),
            fc.indicator_column(fc.crossed_column(["w", "h"], 11)),
            fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 5)),
            fc.bucketized_column(fc.numeric_column("x"), [0.0, 2.0])]
    layer = tf.keras.layers.DenseFeatures(cols)
    traced = tf.function(lambda f: layer(f))

    def feats(rows, nnz, seed):
        rng = np.random.RandomState(seed)
        cells = sorted(rng.choice(rows * 3, nnz, replace=False).tolist())
        indices = np.array([[c // 3, c % 3] for c in cells], np.int64).reshape(-1, 2)
        return {"w": tf.sparse.SparseTensor(indices,
                                            rng.choice(["a", "b", "c", "zz", "q"], nnz).astype(object),
                                            [rows, 3]),
                "h": tf.constant(rng.choice(["x", "y", "z"], (rows, 1))),
                "x": tf.constant(rng.uniform(-1, 3, (rows, 1)).astype("float32"))}

    for rows, nnz, seed in [(4, 5, 0), (4, 2, 1), (6, 10, 2), (3, 0, 3)]:
        f = feats(rows, nnz, seed)
        np.testing.assert_allclose(traced(f).numpy(), layer(f).numpy(), rtol=1e-6)


def test_embedding_initialized_from_checkpoint_matches_tf(tmp_path):
    rtf = real_tf()
    table = rtf.Variable(np.arange(10, dtype="float32").reshape(5, 2))
    path = rtf.train.Checkpoint(t=table).save(str(tmp_path / "ck"))

    def run(m):
        fc = m.feature_column
        col = fc.embedding_column(fc.categorical_column_with_identity("i", 5), 2,
                                  ckpt_to_load_from=path,
                                  tensor_name_in_ckpt="t/.ATTRIBUTES/VARIABLE_VALUE")
        return m.keras.layers.DenseFeatures([col])({"i": m.constant([[3], [1]])}).numpy()

    np.testing.assert_array_equal(run(torchflow), run(rtf))
    np.testing.assert_array_equal(run(torchflow), [[6.0, 7.0], [2.0, 3.0]])
