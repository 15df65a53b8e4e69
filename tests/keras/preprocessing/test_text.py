"""tf.keras.preprocessing.text against real tf.keras."""

from __future__ import annotations

import json

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "Cat and dog, dog and cat.",
         "A\tnew\nline"]


def _ref():
    return real_tf().keras.preprocessing.text


@pytest.mark.parametrize("kwargs", [{}, {"lower": False}, {"split": ","}, {"filters": "."}])
def test_text_to_word_sequence_matches_tf(kwargs):
    for t in TEXTS:
        assert tf.keras.preprocessing.text.text_to_word_sequence(t, **kwargs) == \
            _ref().text_to_word_sequence(t, **kwargs)


def test_hashing_trick_and_one_hot_match_tf():
    for t in TEXTS:
        for fn in (None, "md5", len):
            assert tf.keras.preprocessing.text.hashing_trick(t, 17, hash_function=fn) == \
                _ref().hashing_trick(t, 17, hash_function=fn)
        assert tf.keras.preprocessing.text.one_hot(t, 11) == _ref().one_hot(t, 11)


@pytest.mark.parametrize("kwargs", [
    {}, {"num_words": 4}, {"oov_token": "<unk>"}, {"num_words": 5, "oov_token": "<unk>"},
    {"char_level": True}, {"lower": False},
])
def test_tokenizer_matches_tf(kwargs):
    ours = tf.keras.preprocessing.text.Tokenizer(**kwargs)
    theirs = _ref().Tokenizer(**kwargs)
    ours.fit_on_texts(TEXTS)
    theirs.fit_on_texts(TEXTS)
    assert ours.word_index == theirs.word_index
    assert ours.index_word == theirs.index_word
    assert dict(ours.word_counts) == dict(theirs.word_counts)
    assert dict(ours.word_docs) == dict(theirs.word_docs)
    assert dict(ours.index_docs) == dict(theirs.index_docs)
    assert ours.document_count == theirs.document_count
    new = ["the cat ate the zebra", "unknown words only"]
    seqs = ours.texts_to_sequences(new)
    assert seqs == theirs.texts_to_sequences(new)
    assert ours.sequences_to_texts(seqs) == theirs.sequences_to_texts(seqs)
    for mode in ("binary", "count", "tfidf", "freq"):
        np.testing.assert_allclose(ours.texts_to_matrix(new, mode=mode),
                                   theirs.texts_to_matrix(new, mode=mode))
        np.testing.assert_allclose(ours.sequences_to_matrix(seqs, mode=mode),
                                   theirs.sequences_to_matrix(seqs, mode=mode))


def test_tokenizer_json_round_trip_both_ways():
    ours = tf.keras.preprocessing.text.Tokenizer(num_words=6, oov_token="?")
    ours.fit_on_texts(TEXTS)
    theirs = _ref().Tokenizer(num_words=6, oov_token="?")
    theirs.fit_on_texts(TEXTS)
    assert json.loads(ours.to_json()) == json.loads(theirs.to_json())
    back = tf.keras.preprocessing.text.tokenizer_from_json(theirs.to_json())
    assert back.texts_to_sequences(TEXTS) == theirs.texts_to_sequences(TEXTS)
    again = _ref().tokenizer_from_json(ours.to_json())
    assert again.texts_to_sequences(TEXTS) == ours.texts_to_sequences(TEXTS)


def test_tokenizer_fit_on_sequences_and_lists():
    ours, theirs = tf.keras.preprocessing.text.Tokenizer(), _ref().Tokenizer()
    lists = [["Hello", "world"], ["hello"]]
    ours.fit_on_texts(lists)
    theirs.fit_on_texts(lists)
    assert ours.word_index == theirs.word_index
    ours.fit_on_sequences([[1, 2], [1]])
    theirs.fit_on_sequences([[1, 2], [1]])
    assert dict(ours.index_docs) == dict(theirs.index_docs)
    assert ours.document_count == theirs.document_count


def test_tokenizer_errors_match_tf():
    for make in (tf.keras.preprocessing.text.Tokenizer, _ref().Tokenizer):
        with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
            make(bogus=1)
        with pytest.raises(ValueError, match="Specify a dimension"):
            make().sequences_to_matrix([[1]])
        with pytest.raises(ValueError, match="Fit the Tokenizer on some data"):
            make(num_words=3).sequences_to_matrix([[1]], mode="tfidf")
        t = make()
        t.fit_on_texts(["a b"])
        with pytest.raises(ValueError, match="Unknown vectorization mode"):
            t.sequences_to_matrix([[1]], mode="nope")
    assert tf.keras.preprocessing.text.Tokenizer(nb_words=3).num_words == 3
