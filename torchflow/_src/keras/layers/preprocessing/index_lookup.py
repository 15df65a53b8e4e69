"""``StringLookup`` and ``IntegerLookup`` (TF 2.4): tokens to indices and back.

Index layout (TF 2.4): the mask token at 0 (when there is one), then
``num_oov_indices`` out-of-vocabulary indices, then the vocabulary. Several OOV
indices are chosen by TF's farmhash fingerprint, so buckets match TensorFlow.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras.layers.preprocessing.base import PreprocessingLayer, to_numpy
from torchflow._src.ops import lookup_ops, preprocessing_ops
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public

_NS = "torchflow.keras.layers.experimental.preprocessing"


def _tok(v, is_string):
    if v is None:
        return None
    if is_string:
        return v.encode("utf-8") if isinstance(v, str) else bytes(v)
    return int(v)


def _read_vocabulary(vocabulary, is_string):
    if isinstance(vocabulary, str):  # a vocabulary file, one token per line
        with open(vocabulary, "rb") as f:
            lines = [ln.rstrip(b"\r\n") for ln in f]
        return [ln if is_string else int(ln) for ln in lines]
    v = to_numpy(vocabulary).reshape(-1)
    return [_tok(t.item() if isinstance(t, np.generic) else t, is_string) for t in v]


class IndexLookup(PreprocessingLayer):
    """Shared implementation of the lookup layers (keys: bytes or int)."""

    _is_string = True

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary=None,
                 invert=False, **kwargs):
        super().__init__(**kwargs)
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. "
                             f"Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. "
                             f"Received: num_oov_indices={num_oov_indices}")
        if invert and num_oov_indices != 1:
            raise ValueError("`num_oov_indices` must be 1 when `invert` is True.")
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self._mask = _tok(mask_token, self._is_string)
        self._oov = _tok(oov_token, self._is_string)
        self.invert = invert
        self._vocab = []
        self._index = {}
        self._vocab_arg = vocabulary
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)

    @property
    def _offset(self):
        return (0 if self._mask is None else 1) + self.num_oov_indices

    def get_vocabulary(self):
        """The tokens by index: mask, OOV token(s), then the vocabulary."""
        head = ([] if self._mask is None else [self._mask]) + \
            [self._oov] * self.num_oov_indices
        out = head + list(self._vocab)
        return [t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in out]

    def vocab_size(self):
        return self._offset + len(self._vocab)

    def set_vocabulary(self, vocab):
        """Sets the vocabulary (a list, array or file path; leading mask/OOV tokens
        are accepted and skipped).

        Raises:
          ValueError: On repeated tokens, special tokens inside the vocabulary or
            more than ``max_tokens`` entries.
        """
        tokens = _read_vocabulary(vocab, self._is_string)
        if self._mask is not None and tokens[:1] == [self._mask]:
            tokens = tokens[1:]
        while self.num_oov_indices and tokens[:1] == [self._oov]:
            tokens = tokens[1:]
        if len(set(tokens)) != len(tokens):
            repeated = sorted({t for t in tokens if tokens.count(t) > 1}, key=str)
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please "
                             f"uniquify your dataset. The repeated terms are {repeated}")
        for special, what in ((self._mask, "mask"), (self._oov, "OOV")):
            if special is not None and special in tokens and not (what == "OOV" and
                                                                 self.num_oov_indices == 0):
                raise ValueError(f"Reserved {what} token {special} was found in the passed "
                                 f"vocabulary at index {tokens.index(special)}.")
        if self.max_tokens is not None and len(tokens) + self._offset > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab "
                             f"size. Passed vocab size is {len(tokens) + self._offset}, "
                             f"max vocab size is {self.max_tokens}.")
        self._vocab = tokens
        self._index = {t: i + self._offset for i, t in enumerate(tokens)}

    # adapt: token frequencies, kept in order of decreasing frequency
    def _reset_state(self):
        self._counts = {}

    def _build_from_batch(self, batch):
        self.built = True

    def _update_state(self, batch):
        if isinstance(batch, RaggedTensor):
            batch = batch.flat_values
        lookup_ops.count_tokens(lookup_ops.as_key_array(batch), self._counts)

    def _finalize_state(self):
        counts = {k: v for k, v in self._counts.items() if k != self._mask and k != self._oov}
        tokens = sorted(counts, key=lambda t: (counts[t], t), reverse=True)
        if self.max_tokens is not None:
            tokens = tokens[:max(self.max_tokens - self._offset, 0)]
        self.set_vocabulary(tokens if tokens else np.zeros((0,), object if self._is_string
                                                           else np.int64))

    def call(self, inputs):
        if isinstance(inputs, RaggedTensor):  # ragged in, ragged out (as tf.keras)
            return inputs.with_flat_values(self.call(inputs.flat_values))
        if isinstance(inputs, SparseTensor):  # sparse in, sparse out: the values looked up
            return SparseTensor(inputs.indices, self.call(inputs.values), inputs.dense_shape)
        x = convert_to_tensor(inputs)
        if self.invert:
            vocab = self.get_vocabulary()
            table = np.empty(len(vocab), dtype=object if self._is_string else np.int64)
            table[:] = [self._mask if self._mask is not None and i == 0 else
                        _tok(v, self._is_string) for i, v in enumerate(vocab)]
            return preprocessing_ops.vocab_invert(
                x, table, self._oov, dtypes.string if self._is_string else dtypes.int64)
        return preprocessing_ops.vocab_lookup(x, list(self._vocab), self._index,
                                              self.num_oov_indices,
                                              0 if self._mask is None else 1, self._mask)

    def compute_output_shape(self, input_shape):
        return input_shape

    def _vocab_config(self):
        return [t.decode("utf-8", "replace") if isinstance(t, bytes) else t
                for t in self._vocab] or None


@public(_NS)
class StringLookup(IndexLookup):
    """Maps strings to integer indices (``invert=True``: indices to strings).

    Args:
      max_tokens: Maximum vocabulary size including the mask and OOV tokens.
      num_oov_indices: Number of out-of-vocabulary indices (hashed when > 1).
      mask_token: Token mapped to index 0 (``None``: no mask index).
      oov_token: Token returned for OOV indices when inverting.
      vocabulary: Optional list, array or file path of tokens.
      encoding: Text encoding (utf-8).
      invert: Map indices back to tokens.

    >>> import torchflow as tf
    >>> lookup = tf.keras.layers.experimental.preprocessing.StringLookup(vocabulary=["a", "b"])
    >>> lookup(tf.constant([["a"], ["z"]])).numpy()
    array([[2],
           [1]])
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token="", oov_token="[UNK]",
                 vocabulary=None, encoding=None, invert=False, **kwargs):
        self.encoding = encoding or "utf-8"
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         invert, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.update({"max_tokens": self.max_tokens, "num_oov_indices": self.num_oov_indices,
                       "mask_token": None if self._mask is None else self._mask.decode(),
                       "oov_token": self._oov.decode(), "encoding": self.encoding,
                       "invert": self.invert, "vocabulary": self._vocab_config()})
        return config


@public(_NS)
class IntegerLookup(IndexLookup):
    """Maps integers to indices (``invert=True``: back), TF 2.4 argument names.

    Args:
      max_values: Maximum vocabulary size including the mask and OOV values.
      num_oov_indices: Number of out-of-vocabulary indices (hashed when > 1).
      mask_value: Value mapped to index 0 (``None``: no mask index).
      oov_value: Value returned for OOV indices when inverting.
      vocabulary: Optional list, array or file path of integers.
      invert: Map indices back to values.
    """

    _is_string = False

    def __init__(self, max_values=None, num_oov_indices=1, mask_value=0, oov_value=-1,
                 vocabulary=None, invert=False, **kwargs):
        super().__init__(max_values, num_oov_indices, mask_value, oov_value, vocabulary,
                         invert, **kwargs)

    @property
    def max_values(self):
        return self.max_tokens

    def get_config(self):
        config = super().get_config()
        config.update({"max_values": self.max_tokens, "num_oov_indices": self.num_oov_indices,
                       "mask_value": self._mask, "oov_value": self._oov,
                       "invert": self.invert, "vocabulary": self._vocab_config()})
        return config
