"""``tf.keras.preprocessing.text``: word splitting, hashing and the ``Tokenizer``."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict, defaultdict

import numpy as np

from torchflow._src.util.api import public

_NS = "torchflow.keras.preprocessing.text"
_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


@public(_NS)
def text_to_word_sequence(input_text, filters=_FILTERS, lower=True, split=" "):
    """Splits a text into a list of words.

    Args:
      input_text: The text.
      filters: Characters replaced by ``split`` first (punctuation, tabs, newlines).
      lower: Whether to lower-case the text.
      split: The word separator.

    Returns:
      The list of non-empty words.

    >>> import torchflow as tf
    >>> tf.keras.preprocessing.text.text_to_word_sequence("Hello, World!")
    ['hello', 'world']
    """
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [w for w in input_text.split(split) if w]


@public(_NS)
def hashing_trick(text, n, hash_function=None, filters=_FILTERS, lower=True, split=" "):
    """Maps each word of ``text`` to an index in ``[1, n)`` by hashing.

    Args:
      text: The text.
      n: The hashing space size (index 0 is kept free).
      hash_function: A function of a string, ``"md5"`` (stable across runs), or None
        for Python's ``hash`` (which differs between processes).
      filters, lower, split: As in ``text_to_word_sequence``.

    Returns:
      The list of word indices.
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(w):
            return int(hashlib.md5(w.encode()).hexdigest(), 16)
    words = text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    return [hash_function(w) % (n - 1) + 1 for w in words]


@public(_NS)
def one_hot(input_text, n, filters=_FILTERS, lower=True, split=" "):
    """``hashing_trick(input_text, n, hash_function=hash)``: word indices in ``[1, n)``.

    Args:
      input_text: str: the text.
      n: int: the vocabulary size.
      filters: str: characters removed first (punctuation, tabs, newlines by default).
      lower: bool, default True: lower-case the text.
      split: str, default ``' '``: the word separator.

    Returns:
      A list of ints in ``[1, n)``, one per word.
    """
    return hashing_trick(input_text, n, hash_function=hash, filters=filters, lower=lower,
                         split=split)


@public(_NS)
class Tokenizer:
    """Turns texts into sequences of word indices or into bag-of-words matrices.

    Index 0 is reserved; the most frequent word gets index 1 (``oov_token``, when
    given, gets 1 and stands in for unknown words).

    Args:
      num_words: Keep only the ``num_words - 1`` most frequent words when converting
        (``fit_on_texts`` still counts all of them).
      filters: Characters removed from texts.
      lower: Whether to lower-case texts.
      split: The word separator.
      char_level: Whether every character is a token.
      oov_token: A token for out-of-vocabulary words.
      document_count: The starting document count.

    Raises:
      TypeError: For an unknown keyword argument.

    >>> import torchflow as tf
    >>> t = tf.keras.preprocessing.text.Tokenizer()
    >>> t.fit_on_texts(["the cat", "the dog"])
    >>> t.texts_to_sequences(["the dog"])
    [[1, 3]]
    """

    def __init__(self, num_words=None, filters=_FILTERS, lower=True, split=" ",
                 char_level=False, oov_token=None, document_count=0, **kwargs):
        if "nb_words" in kwargs:
            num_words = kwargs.pop("nb_words")
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts = OrderedDict()
        self.word_docs = defaultdict(int)
        self.filters, self.split, self.lower = filters, split, lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs = defaultdict(int)
        self.word_index = {}
        self.index_word = {}

    def _tokens(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts) -> None:
        """Counts the words of ``texts`` (strings, or lists of tokens) and builds
        ``word_index`` by decreasing frequency."""
        for text in texts:
            self.document_count += 1
            seq = self._tokens(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        counts = sorted(self.word_counts.items(), key=lambda wc: wc[1], reverse=True)
        vocab = ([] if self.oov_token is None else [self.oov_token]) + [w for w, _ in counts]
        self.word_index = dict(zip(vocab, range(1, len(vocab) + 1)))
        self.index_word = {i: w for w, i in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences) -> None:
        """Counts documents per index from sequences (needed by ``sequences_to_matrix``'s
        tfidf mode when the tokenizer was not fit on texts)."""
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts) -> list:
        """Each text as a list of word indices (unknown or rare words dropped, or ``oov_token``)."""
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        """Yields ``texts_to_sequences``' lists one text at a time."""
        oov = self.word_index.get(self.oov_token)
        for text in texts:
            vect = []
            for w in self._tokens(text):
                i = self.word_index.get(w)
                if i is not None:
                    if self.num_words and i >= self.num_words:
                        if oov is not None:
                            vect.append(oov)
                    else:
                        vect.append(i)
                elif self.oov_token is not None:
                    vect.append(oov)
            yield vect

    def sequences_to_texts(self, sequences) -> list:
        """Each sequence of indices back to a space-joined text."""
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences):
        """Yields ``sequences_to_texts``' strings one sequence at a time."""
        oov = self.word_index.get(self.oov_token)
        for seq in sequences:
            vect = []
            for num in seq:
                word = self.index_word.get(num)
                if word is not None:
                    if self.num_words and num >= self.num_words:
                        if oov is not None:
                            vect.append(self.index_word[oov])
                    else:
                        vect.append(word)
                elif self.oov_token is not None:
                    vect.append(self.index_word[oov])
            yield " ".join(vect)

    def texts_to_matrix(self, texts, mode="binary"):
        """``sequences_to_matrix(texts_to_sequences(texts), mode)``."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """A ``(len(sequences), num_words)`` matrix of word presence/counts.

        Args:
          sequences: Lists of word indices.
          mode: ``"binary"``, ``"count"``, ``"tfidf"`` or ``"freq"``.

        Raises:
          ValueError: Without ``num_words`` on an unfit tokenizer, for tfidf before any
            fit, or for an unknown mode.
        """
        if not self.num_words:
            if not self.word_index:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on some "
                                 "text data first.")
            num_words = len(self.word_index) + 1
        else:
            num_words = self.num_words
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts = defaultdict(int)
            for j in seq:
                if j < num_words:
                    counts[j] += 1
            for j, c in list(counts.items()):
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                elif mode == "tfidf":
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = (1 + np.log(c)) * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return x

    def get_config(self) -> dict:
        """The tokenizer's settings and fitted state (the tables as JSON strings)."""
        return {
            "num_words": self.num_words, "filters": self.filters, "lower": self.lower,
            "split": self.split, "char_level": self.char_level, "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs) -> str:
        """The tokenizer as a JSON string; ``tokenizer_from_json`` reads it back."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


@public(_NS)
def tokenizer_from_json(json_string) -> Tokenizer:
    """A ``Tokenizer`` from ``Tokenizer.to_json()``'s string (also one tf.keras wrote).

    Args:
      json_string: str: the JSON that ``Tokenizer.to_json()`` returned.

    Returns:
      A ``Tokenizer``.
    """
    config = dict(json.loads(json_string).get("config"))
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = word_counts
    tokenizer.word_docs = word_docs
    tokenizer.index_docs = index_docs
    tokenizer.word_index = word_index
    tokenizer.index_word = index_word
    return tokenizer
