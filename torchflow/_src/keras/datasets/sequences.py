"""What ``imdb`` and ``reuters`` do to their word-index sequences (TF 2.4's rules)."""

from __future__ import annotations

import json


def remove_long_seq(maxlen, seq, label):
    """The sequences (and their labels) shorter than ``maxlen``."""
    kept = [(x, y) for x, y in zip(seq, label) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def shift(xs, start_char, index_from):
    """Prepends ``start_char`` (when not None) and adds ``index_from`` to every index."""
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in xs]
    if index_from:
        return [[w + index_from for w in x] for x in xs]
    return list(xs)


def limit_vocabulary(xs, num_words, skip_top, oov_char):
    """Indices outside ``[skip_top, num_words)`` become ``oov_char`` (dropped if None)."""
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def check_kwargs(kwargs, logger):
    """TF 2.4's ``nb_words`` alias of ``num_words``; other keywords are refused.

    Raises:
      TypeError: For any other keyword argument.
    """
    num_words = None
    if "nb_words" in kwargs:
        logger.warning("The `nb_words` argument in `load_data` has been renamed `num_words`.")
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
    return num_words


def read_word_index(path):
    """The ``{word: index}`` dict of a word-index JSON file."""
    with open(path) as f:
        return json.load(f)
