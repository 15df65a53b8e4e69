"""TextVectorization against real tf.keras: vocabularies learned by adapt, int
sequences, bag-of-words modes, n-grams, Dataset.map and Functional string models."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

P = tf.keras.layers.experimental.preprocessing
DOCS = np.array(["The cat sat on the mat.", "The dog ate my HOMEWORK!", "cat, dog; cat? mat",
                 "a b c d e f g", ""])


def _ref():
    return real_tf().keras.layers


@pytest.mark.parametrize("kwargs", [{}, {"max_tokens": 6}, {"output_sequence_length": 4},
                                    {"output_sequence_length": 9}, {"ngrams": 2},
                                    {"ngrams": (1, 3)}, {"standardize": None},
                                    {"split": None, "standardize": "lower_and_strip_punctuation"}])
def test_int_mode_matches_tf(kwargs):
    ours, ref = P.TextVectorization(**kwargs), _ref().TextVectorization(**kwargs)
    ours.adapt(DOCS)
    ref.adapt(DOCS)
    assert ours.get_vocabulary() == [str(v) for v in ref.get_vocabulary()]
    got = ours(DOCS)
    assert got.dtype == tf.int64
    np.testing.assert_array_equal(got.numpy(), ref(DOCS).numpy())


@pytest.mark.parametrize("mode,ref_mode", [("binary", "multi_hot"), ("count", "count"),
                                           ("tf-idf", "tf_idf")])
@pytest.mark.parametrize("max_tokens", [None, 5])
def test_bag_of_words_modes_match_tf(mode, ref_mode, max_tokens):
    ours = P.TextVectorization(max_tokens=max_tokens, output_mode=mode)
    ref = _ref().TextVectorization(max_tokens=max_tokens, output_mode=ref_mode,
                                   pad_to_max_tokens=max_tokens is not None)
    ours.adapt(DOCS)
    ref.adapt(DOCS)
    assert ours.get_vocabulary() == [str(v) for v in ref.get_vocabulary()]
    np.testing.assert_allclose(ours(DOCS).numpy(), ref(DOCS).numpy(), rtol=1e-6)


def test_fixed_vocabulary_and_tfidf_weights():
    layer = P.TextVectorization(vocabulary=["b", "a"])
    np.testing.assert_array_equal(layer(tf.constant(["a b c"])).numpy(), [[3, 2, 1]])
    assert layer.get_vocabulary() == ["", "[UNK]", "b", "a"]
    tfidf = P.TextVectorization(output_mode="tf-idf")
    tfidf.set_vocabulary(["b", "a"], df_data=[0.5, 2.0], oov_df_value=1.0)
    np.testing.assert_allclose(tfidf(np.array(["a a b z"])).numpy(), [[1.0, 0.5, 4.0]])
    with pytest.raises(ValueError):
        P.TextVectorization(output_mode="tf-idf").set_vocabulary(["a"])
    with pytest.raises(ValueError):
        P.TextVectorization(output_mode="binary", output_sequence_length=3)
    with pytest.raises(ValueError):
        P.TextVectorization(standardize="upper")


def test_callable_standardize_and_split():
    layer = P.TextVectorization(
        standardize=lambda x: tf.strings.upper(x),
        split=lambda x: tf.strings.split(x, sep="-"), vocabulary=["A", "B"])
    np.testing.assert_array_equal(layer(np.array(["a-b-c", "b"])).numpy(),
                                  [[2, 3, 1], [3, 0, 0]])


def test_adapt_from_dataset_and_map():
    ds = tf.data.Dataset.from_tensor_slices(DOCS).batch(2)
    ours = P.TextVectorization(output_sequence_length=6)
    ours.adapt(ds)
    ref = _ref().TextVectorization(output_sequence_length=6)
    ref.adapt(DOCS)
    assert ours.get_vocabulary() == [str(v) for v in ref.get_vocabulary()]
    got = np.concatenate(list(ds.map(ours).as_numpy_iterator()))
    np.testing.assert_array_equal(got, ref(DOCS).numpy())


def test_functional_model_with_string_input_and_config():
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    layer = P.TextVectorization(max_tokens=20, output_sequence_length=5)
    layer.adapt(DOCS)
    out = layer(inp)
    assert out.shape.as_list() == [None, 5] and out.dtype == tf.int64
    emb = tf.keras.layers.Embedding(20, 2)(out)
    model = tf.keras.Model(inp, emb)
    y = model.predict(DOCS[:, None])
    assert y.shape == (5, 5, 2)
    cfg = layer.get_config()
    assert cfg["max_tokens"] == 20 and cfg["output_sequence_length"] == 5
    assert P.TextVectorization.from_config(cfg).get_config() == cfg


def test_saved_model_keeps_vocabularies(tmp_path):
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    tv = P.TextVectorization(max_tokens=10, output_sequence_length=3)
    tv.adapt(np.array(["a b c", "a b", "a"]))
    tfidf = P.TextVectorization(output_mode="tf-idf")
    tfidf.adapt(np.array(["a b c", "a b", "a"]))
    model = tf.keras.Model(inp, [P.StringLookup(vocabulary=["a", "b"])(inp), tv(inp),
                                 tfidf(inp)])
    model.save(str(tmp_path / "m"))
    loaded = tf.keras.models.load_model(str(tmp_path / "m"))
    data = tf.constant([["b a"], ["a"], ["c zz"]])
    for a, b in zip(loaded(data), model(data)):
        np.testing.assert_allclose(a.numpy(), b.numpy())
