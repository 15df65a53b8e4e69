"""``tf.keras.datasets.reuters``: Reuters newswire topics from TF's ``reuters.npz``."""

from __future__ import annotations

import logging

import numpy as np

from torchflow._src.keras.datasets import ORIGIN, _cache
from torchflow._src.keras.datasets import sequences as S
from torchflow._src.keras.utils.data_utils import get_file
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")


@public("torchflow.keras.datasets.reuters")
def load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2,
              seed=113, start_char=1, oov_char=2, index_from=3, cache_dir=None, **kwargs):
    """Loads the Reuters newswire dataset: 11,228 newswires as word indices, 46 topics.

    The newswires are shuffled with ``seed`` and split ``1 - test_split`` / ``test_split``;
    the index rules are ``imdb.load_data``'s.

    Args:
      path: Where to cache the file, relative to ``~/.keras/datasets``.
      num_words: Keep the most frequent ``num_words - index_from`` words (None: all).
      skip_top: Drop (as ``oov_char``) the ``skip_top`` lowest indices.
      maxlen: Drop newswires of ``maxlen`` words or more (None: keep all).
      test_split: Fraction of the newswires in the test set.
      seed: Seed of the shuffle.
      start_char: Index marking a newswire's start (None: no marker).
      oov_char: Index of removed words (None: removed words are dropped).
      index_from: Added to every word index.
      cache_dir: Where to cache instead of ``~/.keras`` (tf-keras' later argument;
        TF 2.4 has none).
      **kwargs: ``nb_words``, TF's old name of ``num_words``.

    Returns:
      ``(x_train, y_train), (x_test, y_test)``: object arrays of lists of ints, and int
      topic labels.

    Raises:
      TypeError: For any other keyword argument.
      Exception: get_file's ``URL fetch failure on ...`` when the file is not cached and
        cannot be downloaded.
    """
    num_words = S.check_kwargs(kwargs, _log) or num_words
    path = get_file(path, origin=ORIGIN + "reuters.npz",
                    file_hash="d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
                    cache_dir=_cache(cache_dir))
    with np.load(path, allow_pickle=True) as f:
        xs, labels = f["x"], f["y"]
    indices = np.arange(len(xs))
    np.random.RandomState(seed).shuffle(indices)
    xs, labels = xs[indices], labels[indices]
    xs = S.shift(xs, start_char, index_from)
    if maxlen:
        xs, labels = S.remove_long_seq(maxlen, xs, labels)
    xs = S.limit_vocabulary(xs, num_words, skip_top, oov_char)
    idx = int(len(xs) * (1 - test_split))
    return ((np.array(xs[:idx], dtype="object"), np.array(labels[:idx])),
            (np.array(xs[idx:], dtype="object"), np.array(labels[idx:])))


@public("torchflow.keras.datasets.reuters")
def get_word_index(path="reuters_word_index.json"):
    """The Reuters word index: ``{word: index}``.

    Args:
      path: Where to cache the file, relative to ``~/.keras/datasets``.

    Returns:
      A dict.

    Raises:
      Exception: get_file's ``URL fetch failure on ...`` when the file is not cached and
        cannot be downloaded.
    """
    return S.read_word_index(get_file(path, origin=ORIGIN + "reuters_word_index.json",
                                      file_hash="4d44cc38712099c9e383dc6e5f11a921"))
