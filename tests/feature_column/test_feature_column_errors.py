"""Bad arguments and bad features give TF's error types and messages.

tf-keras 2.21 wraps errors raised in a layer's call in "Exception encountered
when calling layer ..."; TF 2.4 raised them as they are, so for call errors the
test checks that TF's text contains ours.
"""

from __future__ import annotations

import pytest

import torchflow
from torchflow._src.testing import real_tf


def _ident(fc):
    return fc.categorical_column_with_identity("i", 5)


BUILD_ERRORS = {
    "numeric_shape0": lambda fc, m: fc.numeric_column("a", shape=0),
    "numeric_key": lambda fc, m: fc.numeric_column(1),
    "numeric_dtype": lambda fc, m: fc.numeric_column("a", dtype=m.string),
    "numeric_normalizer": lambda fc, m: fc.numeric_column("a", normalizer_fn=3),
    "numeric_default_shape": lambda fc, m: fc.numeric_column("a", shape=2, default_value=[1]),
    "numeric_float_shape": lambda fc, m: fc.numeric_column("a", shape=1.5),
    "bucketized_source": lambda fc, m: fc.bucketized_column(_ident(fc), [1]),
    "bucketized_unsorted": lambda fc, m: fc.bucketized_column(fc.numeric_column("a"), [2, 1]),
    "bucketized_empty": lambda fc, m: fc.bucketized_column(fc.numeric_column("a"), []),
    "bucketized_2d": lambda fc, m: fc.bucketized_column(fc.numeric_column("a", shape=(2, 2)),
                                                        [1]),
    "identity_buckets": lambda fc, m: fc.categorical_column_with_identity("a", 0),
    "identity_default": lambda fc, m: fc.categorical_column_with_identity("a", 3,
                                                                          default_value=3),
    "hash_size": lambda fc, m: fc.categorical_column_with_hash_bucket("a", 0),
    "hash_dtype": lambda fc, m: fc.categorical_column_with_hash_bucket("a", 3,
                                                                       dtype=m.float32),
    "vocab_empty": lambda fc, m: fc.categorical_column_with_vocabulary_list("a", []),
    "vocab_dup": lambda fc, m: fc.categorical_column_with_vocabulary_list("a", ["x", "x"]),
    "vocab_dtype": lambda fc, m: fc.categorical_column_with_vocabulary_list(
        "a", ["x"], dtype=m.int64),
    "vocab_both": lambda fc, m: fc.categorical_column_with_vocabulary_list(
        "a", ["x"], default_value=0, num_oov_buckets=1),
    "vocab_oov": lambda fc, m: fc.categorical_column_with_vocabulary_list(
        "a", ["x"], num_oov_buckets=-1),
    "file_missing_arg": lambda fc, m: fc.categorical_column_with_vocabulary_file("a", None),
    "file_missing": lambda fc, m: fc.categorical_column_with_vocabulary_file("a", "/nonexist"),
    "file_size": lambda fc, m: fc.categorical_column_with_vocabulary_file(
        "a", "/nonexist", vocabulary_size=0),
    "file_both": lambda fc, m: fc.categorical_column_with_vocabulary_file(
        "a", "/x", vocabulary_size=2, num_oov_buckets=1, default_value=0),
    "crossed_one_key": lambda fc, m: fc.crossed_column(["a"], 5),
    "crossed_size": lambda fc, m: fc.crossed_column(["a", "b"], 0),
    "crossed_hashed": lambda fc, m: fc.crossed_column(
        ["a", fc.categorical_column_with_hash_bucket("h", 3)], 5),
    "crossed_numeric": lambda fc, m: fc.crossed_column(["a", fc.numeric_column("n")], 5),
    "embedding_dimension": lambda fc, m: fc.embedding_column(_ident(fc), 0),
    "embedding_initializer": lambda fc, m: fc.embedding_column(_ident(fc), 2, initializer=3),
    "embedding_ckpt": lambda fc, m: fc.embedding_column(_ident(fc), 2, ckpt_to_load_from="x"),
    "indicator_numeric": lambda fc, m: fc.indicator_column(fc.numeric_column("n")),
    "weighted_dtype": lambda fc, m: fc.weighted_categorical_column(_ident(fc), "w",
                                                                   dtype=m.string),
    "shared_eager": lambda fc, m: fc.shared_embeddings([_ident(fc)], 2),
    "dense_features_empty": lambda fc, m: m.keras.layers.DenseFeatures([]),
    "dense_features_categorical": lambda fc, m: m.keras.layers.DenseFeatures([_ident(fc)]),
    "dense_features_duplicate": lambda fc, m: m.keras.layers.DenseFeatures(
        [fc.numeric_column("a"), fc.numeric_column("a")]),
    "dense_features_not_column": lambda fc, m: m.keras.layers.DenseFeatures([3]),
    "sequence_features_numeric": lambda fc, m: m.keras.experimental.SequenceFeatures(
        [fc.numeric_column("a")]),
    "sequence_numeric_dtype": lambda fc, m: fc.sequence_numeric_column("s", dtype=m.string),
}


def _error(fn, m):
    with pytest.raises(Exception) as info:
        fn(m.feature_column, m)
    return type(info.value).__name__, str(info.value)


def _clean(msg, m):
    # TF prints its DenseColumn classes with their module path.
    return msg.replace("<class 'tensorflow.python.feature_column.feature_column_v2.",
                       "<class '").replace("<class 'torchflow._src.feature_column.base.",
                                           "<class '")


@pytest.mark.parametrize("case", sorted(BUILD_ERRORS))
def test_construction_errors_match_tf(case):
    ours = _error(BUILD_ERRORS[case], torchflow)
    theirs = _error(BUILD_ERRORS[case], real_tf())
    assert ours[0] == theirs[0]
    want = _clean(theirs[1], real_tf())
    got = _clean(ours[1], torchflow)
    if case == "dense_features_categorical" or case == "sequence_features_numeric":
        # TF names the expected class by its repr
        assert got.split(". You can")[1] == want.split(". You can")[1]
    else:
        assert got == want


def _ind(fc):
    return fc.indicator_column(_ident(fc))


CALL_ERRORS = {
    "not_a_dict": (lambda fc: [fc.numeric_column("a")], lambda m: m.constant([1.0])),
    "missing_key": (lambda fc: [fc.numeric_column("a")], lambda m: {"b": m.constant([1.0])}),
    "rank0": (lambda fc: [fc.numeric_column("a")], lambda m: {"a": m.constant(1.0)}),
    "identity_strings": (_ind, lambda m: {"i": m.constant([["x"]])}),
    "vocab_int_input": (lambda fc: [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("t", ["x", "y"]))],
        lambda m: {"t": m.constant([[1]])}),
    "numeric_sparse": (lambda fc: [fc.numeric_column("a")],
                       lambda m: {"a": m.sparse.from_dense(m.constant([[1.0]]))}),
    "sequence_in_dense_features": (lambda fc: [fc.embedding_column(
        fc.sequence_categorical_column_with_identity("q", 3), 2)],
        lambda m: {"q": m.sparse.from_dense(m.constant([[1]]))}),
    "weighted_bad_dtype": (lambda fc: [fc.indicator_column(fc.weighted_categorical_column(
        _ident(fc), "w"))], lambda m: {"i": m.constant([[1]]), "w": m.constant([[1]])}),
    "weighted_missing": (lambda fc: [fc.indicator_column(fc.weighted_categorical_column(
        _ident(fc), "w"))], lambda m: {"i": m.constant([[1]])}),
    "crossed_weighted": (lambda fc: [fc.indicator_column(fc.crossed_column(
        [fc.weighted_categorical_column(_ident(fc), "w"), "z"], 4))],
        lambda m: {"i": m.constant([[1]]), "w": m.constant([[1.0]]),
                   "z": m.constant([["a"]])}),
}


@pytest.mark.parametrize("case", sorted(CALL_ERRORS))
def test_call_errors_match_tf(case):
    build, feats = CALL_ERRORS[case]
    results = []
    for m in (torchflow, real_tf()):
        cols = build(m.feature_column)
        layer = m.keras.layers.DenseFeatures(cols if isinstance(cols, list) else [cols])
        with pytest.raises(Exception) as info:
            layer(feats(m))
        results.append((type(info.value).__name__, str(info.value)))
    ours, theirs = results
    assert ours[0] == theirs[0]
    if case == "not_a_dict":  # TF's ValueError has two arguments: the text, then the value
        ours = (ours[0], ours[1].split(", <tf.Tensor")[0][2:-1])
    assert _clean(ours[1], torchflow).split("Given (type")[0] in \
        _clean(theirs[1], real_tf()), (ours[1], theirs[1])


def test_sequence_column_in_sequence_features_must_be_sequence():
    for m in (torchflow, real_tf()):
        fc = m.feature_column
        layer = m.keras.experimental.SequenceFeatures([fc.embedding_column(_ident(fc), 2)])
        with pytest.raises(ValueError, match="categorical_column must be of type "
                                             "SequenceCategoricalColumn to use SequenceFeatures"):
            layer({"i": m.sparse.from_dense(m.constant([[1]]))})


def test_out_of_range_embedding_id_is_invalid_argument():
    tf = torchflow
    fc = tf.feature_column
    layer = tf.keras.layers.DenseFeatures([fc.embedding_column(_ident(fc), 2)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
        layer({"i": tf.constant([[7]])})
