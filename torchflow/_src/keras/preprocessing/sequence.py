"""``tf.keras.preprocessing.sequence``: padding, skip-grams, time-series windows (NumPy)."""

from __future__ import annotations

import json
import random

import numpy as np

from torchflow._src.util.api import public

_NS = "torchflow.keras.preprocessing.sequence"


def _sample_shape(sequences) -> tuple:
    for x in sequences:
        if len(x):
            return np.asarray(x).shape[1:]
    return ()


@public(_NS)
def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """Pads sequences to the same length.

    Args:
      sequences: A list of sequences (each a list of scalars or of equal-shaped items).
      maxlen: The length of the output; the longest sequence's length when None.
      dtype: The output dtype (``"int32"``; ``object`` for variable-length strings).
      padding: ``"pre"`` or ``"post"``: pad before or after each sequence.
      truncating: ``"pre"`` or ``"post"``: drop values from the start or the end of
        sequences longer than ``maxlen``.
      value: The padding value (float or string).

    Returns:
      A NumPy array of shape ``(len(sequences), maxlen) + item_shape``.

    Raises:
      ValueError: For an invalid ``padding``/``truncating``, a non-iterable entry, a
        string ``value`` with a non-string dtype, or items of different shapes.

    >>> import torchflow as tf
    >>> tf.keras.preprocessing.sequence.pad_sequences([[1, 2], [3]], padding="post")
    array([[1, 2],
           [3, 0]], dtype=int32)
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths = []
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError:
            raise ValueError("`sequences` must be a list of iterables. Found non-iterable: "
                             + str(x)) from None
    sample_shape = _sample_shape(sequences)
    if maxlen is None:
        maxlen = np.max(lengths)
    is_str_dtype = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype is not object and not is_str_dtype:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
                         "You should set `dtype=object` for variable length strings.")
    out = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating == "pre":
            kept = s[-maxlen:]
        elif truncating == "post":
            kept = s[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {idx} "
                             f"is different from expected shape {sample_shape}")
        if padding == "post":
            out[idx, :len(kept)] = kept
        elif padding == "pre":
            out[idx, -len(kept):] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out


@public(_NS)
def make_sampling_table(size, sampling_factor=1e-5):
    """Word-rank sampling probabilities for ``skipgrams`` (word2vec's subsampling).

    Assumes word frequencies follow Zipf's law: the word of rank ``i`` is kept with
    probability ``min(1, sqrt(f_i))`` where ``f_i = sampling_factor * rank * (ln(rank)
    + gamma) + ...``.

    Args:
      size: The vocabulary size.
      sampling_factor: The sampling factor of the word2vec formula.

    Returns:
      A 1-D NumPy array of ``size`` probabilities (index 0 is the most common word).
    """
    gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1.0, f / np.sqrt(f))


@public(_NS)
def skipgrams(sequence, vocabulary_size, window_size=4, negative_samples=1.0,
              shuffle=True, categorical=False, sampling_table=None, seed=None):
    """Skip-gram word pairs from a sequence of word indices (0 is skipped).

    Positive pairs are words within ``window_size`` of each other (label 1); each
    negative pair joins a word with a random one from ``[1, vocabulary_size)``
    (label 0). Draws from Python's ``random`` module, as Keras does.

    Args:
      sequence: A list of word indices.
      vocabulary_size: The vocabulary size (one more than the largest index).
      window_size: How far apart the words of a positive pair may be.
      negative_samples: The number of negative pairs per positive pair.
      shuffle: Whether to shuffle the pairs (with ``seed``).
      categorical: Whether labels are ``[0, 1]``/``[1, 0]`` instead of 1/0.
      sampling_table: Keep-probabilities per index (``make_sampling_table``).
      seed: The shuffling seed.

    Returns:
      ``(couples, labels)``: lists of ``[word, context]`` pairs and their labels.
    """
    couples, labels = [], []
    for i, wi in enumerate(sequence):
        if not wi:
            continue
        if sampling_table is not None and sampling_table[wi] < random.random():
            continue
        start, end = max(0, i - window_size), min(len(sequence), i + window_size + 1)
        for j in range(start, end):
            if j == i:
                continue
            wj = sequence[j]
            if not wj:
                continue
            couples.append([wi, wj])
            labels.append([0, 1] if categorical else 1)
    if negative_samples > 0:
        n = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        random.shuffle(words)
        couples += [[words[i % len(words)], random.randint(1, vocabulary_size - 1)]
                    for i in range(n)]
        labels += ([[1, 0]] if categorical else [0]) * n
    if shuffle:
        if seed is None:
            seed = random.randint(0, 10e6)
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels


@public(_NS)
class TimeseriesGenerator:
    """Batches of sliding windows over a time series, for ``fit``.

    Item ``i`` is ``(samples, targets)``: windows of ``length`` steps (every
    ``sampling_rate``-th step) ending before each target row.

    Args:
      data: Indexable data (list or array), time along the first axis.
      targets: Targets per time step; ``len(targets) == len(data)``.
      length: The history length of each window, in time steps.
      sampling_rate: The period between steps inside a window.
      stride: The period between consecutive windows.
      start_index: Rows before this are not used as targets.
      end_index: Rows after this are not used as targets (``len(data) - 1``).
      shuffle: Whether to draw the target rows at random (NumPy's RNG).
      reverse: Whether each window runs backwards in time.
      batch_size: Windows per batch.

    Raises:
      ValueError: If ``data`` and ``targets`` differ in length, or no target row is left.
    """

    def __init__(self, data, targets, length, sampling_rate=1, stride=1, start_index=0,
                 end_index=None, shuffle=False, reverse=False, batch_size=128):
        if len(data) != len(targets):
            raise ValueError("Data and targets have to be of same length. Data length is "
                             f"{len(data)} while target length is {len(targets)}")
        self.data, self.targets = data, targets
        self.length, self.sampling_rate, self.stride = length, sampling_rate, stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle, self.reverse, self.batch_size = shuffle, reverse, batch_size
        if self.start_index > self.end_index:
            raise ValueError(f"`start_index+length={self.start_index} > end_index="
                             f"{self.end_index}` is disallowed, as no part of the sequence "
                             "would be left to be used as current step.")

    def __len__(self) -> int:
        step = self.batch_size * self.stride
        return (self.end_index - self.start_index + step) // step

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            i = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(i, min(i + self.batch_size * self.stride, self.end_index + 1),
                             self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate] for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def on_epoch_end(self) -> None:
        """Called by ``fit`` at the end of each epoch (nothing to do)."""

    def get_config(self) -> dict:
        """The generator's arguments (data and targets as JSON-ready lists)."""
        def as_list(x):
            return x.tolist() if isinstance(x, np.ndarray) else x

        return {"data": as_list(self.data), "targets": as_list(self.targets),
                "length": self.length, "sampling_rate": self.sampling_rate,
                "stride": self.stride, "start_index": self.start_index,
                "end_index": self.end_index, "shuffle": self.shuffle,
                "reverse": self.reverse, "batch_size": self.batch_size}

    def to_json(self, **kwargs) -> str:
        """``get_config()`` as a JSON string, under ``class_name``/``config``."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)
