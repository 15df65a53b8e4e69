"""``tf.keras.datasets.imdb``: IMDB movie-review sentiment from TF's ``imdb.npz``."""

from __future__ import annotations

import logging

import numpy as np

from torchflow._src.keras.datasets import ORIGIN, _cache
from torchflow._src.keras.datasets import sequences as S
from torchflow._src.keras.utils.data_utils import get_file
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")


@public("torchflow.keras.datasets.imdb")
def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
              start_char=1, oov_char=2, index_from=3, cache_dir=None, **kwargs):
    """Loads the IMDB dataset: 25,000 training and 25,000 test reviews as word indices.

    Each split is shuffled with ``seed``; every review gets ``start_char`` first and its
    indices shifted by ``index_from``; indices outside ``[skip_top, num_words)`` become
    ``oov_char``.

    Args:
      path: Where to cache the file, relative to ``~/.keras/datasets``.
      num_words: Keep the most frequent ``num_words - index_from`` words (None: all).
      skip_top: Drop (as ``oov_char``) the ``skip_top`` lowest indices.
      maxlen: Drop reviews of ``maxlen`` words or more (None: keep all).
      seed: Seed of the shuffles.
      start_char: Index marking a review's start (None: no marker).
      oov_char: Index of removed words (None: removed words are dropped).
      index_from: Added to every word index.
      cache_dir: Where to cache instead of ``~/.keras`` (tf-keras' later argument;
        TF 2.4 has none).
      **kwargs: ``nb_words``, TF's old name of ``num_words``.

    Returns:
      ``(x_train, y_train), (x_test, y_test)``: object arrays of lists of ints, and int
      labels (1 = positive).

    Raises:
      TypeError: For any other keyword argument.
      ValueError: When ``maxlen`` leaves no review in a split.
      Exception: get_file's ``URL fetch failure on ...`` when the file is not cached and
        cannot be downloaded.
    """
    num_words = S.check_kwargs(kwargs, _log) or num_words
    path = get_file(path, origin=ORIGIN + "imdb.npz",
                    file_hash="69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
                    cache_dir=_cache(cache_dir))
    with np.load(path, allow_pickle=True) as f:
        x_train, labels_train = f["x_train"], f["y_train"]
        x_test, labels_test = f["x_test"], f["y_test"]
    rng = np.random.RandomState(seed)
    indices = np.arange(len(x_train))
    rng.shuffle(indices)
    x_train, labels_train = x_train[indices], labels_train[indices]
    indices = np.arange(len(x_test))
    rng.shuffle(indices)
    x_test, labels_test = x_test[indices], labels_test[indices]
    x_train = S.shift(x_train, start_char, index_from)
    x_test = S.shift(x_test, start_char, index_from)
    if maxlen:
        x_train, labels_train = S.remove_long_seq(maxlen, x_train, labels_train)
        x_test, labels_test = S.remove_long_seq(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, "
                             "no sequence was kept. Increase maxlen.")
    xs = S.limit_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    idx = len(x_train)
    return ((np.array(xs[:idx], dtype="object"), labels[:idx]),
            (np.array(xs[idx:], dtype="object"), labels[idx:]))


@public("torchflow.keras.datasets.imdb")
def get_word_index(path="imdb_word_index.json"):
    """The IMDB word index: ``{word: index}`` (index 1 is the most frequent word).

    Args:
      path: Where to cache the file, relative to ``~/.keras/datasets``.

    Returns:
      A dict.

    Raises:
      Exception: get_file's ``URL fetch failure on ...`` when the file is not cached and
        cannot be downloaded.
    """
    return S.read_word_index(get_file(path, origin=ORIGIN + "imdb_word_index.json",
                                      file_hash="bfafd718b763782e994055a2d397834f"))
