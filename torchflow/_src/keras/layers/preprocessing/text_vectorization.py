"""``TextVectorization`` (TF 2.4): standardize, split, n-grams, then index or
encode with a vocabulary learned by ``adapt``."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.functional_utils import in_symbolic_pass
from torchflow._src.keras.layers.preprocessing.base import PreprocessingLayer, to_numpy
from torchflow._src.keras.layers.preprocessing.index_lookup import StringLookup
from torchflow._src.ops import array_ops, creation_ops, lookup_ops, preprocessing_ops
from torchflow._src.ops.string_ops import lower, regex_replace, split
from torchflow._src.ops.unicode_ops import ngrams
from torchflow._src.util.api import public

_NS = "torchflow.keras.layers.experimental.preprocessing"
LOWER_AND_STRIP_PUNCTUATION = "lower_and_strip_punctuation"
SPLIT_ON_WHITESPACE = "whitespace"
INT, BINARY, COUNT, TFIDF = "int", "binary", "count", "tf-idf"
DEFAULT_STRIP_REGEX = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


def _rows_as_tokens(a: np.ndarray) -> list:
    return [list(r) for r in a]


@public(_NS)
class TextVectorization(PreprocessingLayer):
    """Turns strings into token index sequences or bag-of-words vectors.

    Args:
      max_tokens: Vocabulary size limit (int mode: including padding and OOV).
      standardize: ``lower_and_strip_punctuation``, None or a callable.
      split: ``whitespace``, None or a callable returning ragged-like rows.
      ngrams: None, an int ``n`` (1..n-grams) or a tuple of n-gram sizes.
      output_mode: ``int``, ``binary``, ``count`` or ``tf-idf``.
      output_sequence_length: Pad/truncate ``int`` output to this length.
      pad_to_max_tokens: Bag-of-words outputs have ``max_tokens`` columns.
      vocabulary: Optional vocabulary list or file path.

    >>> import torchflow as tf
    >>> v = tf.keras.layers.experimental.preprocessing.TextVectorization(vocabulary=["b", "a"])
    >>> v(tf.constant(["a b c"])).numpy()
    array([[3, 2, 1]])
    """

    def __init__(self, max_tokens=None, standardize=LOWER_AND_STRIP_PUNCTUATION,
                 split=SPLIT_ON_WHITESPACE, ngrams=None, output_mode=INT,
                 output_sequence_length=None, pad_to_max_tokens=True, vocabulary=None,
                 **kwargs):
        idf_weights = kwargs.pop("idf_weights", None)
        super().__init__(**kwargs)
        if standardize not in (LOWER_AND_STRIP_PUNCTUATION, None) and not callable(standardize):
            raise ValueError(f"Unknown value for `standardize`: {standardize}")
        if split not in (SPLIT_ON_WHITESPACE, None) and not callable(split):
            raise ValueError(f"Unknown value for `split`: {split}")
        if output_mode not in (INT, BINARY, COUNT, TFIDF):
            raise ValueError(f"Unknown value for `output_mode`: {output_mode}")
        if output_sequence_length is not None and output_mode != INT:
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is "
                             "not 'int'.")
        if isinstance(ngrams, int) and ngrams < 1 or ngrams is not None and not isinstance(
                ngrams, (int, tuple, list)):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. "
                             f"Got {ngrams}")
        self.max_tokens, self._standardize, self._split = max_tokens, standardize, split
        self._ngrams_arg = ngrams
        self._ngrams = (tuple(range(1, ngrams + 1)) if isinstance(ngrams, int)
                        else tuple(ngrams) if ngrams is not None else None)
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._pad_to_max = pad_to_max_tokens
        self._lookup = StringLookup(
            max_tokens=max_tokens, num_oov_indices=1,
            mask_token="" if output_mode == INT else None, name="string_lookup_"
            + str(id(self)))
        self._idf = None
        if vocabulary is not None:
            if idf_weights is not None and output_mode == TFIDF:
                self.set_vocabulary(vocabulary, idf_weights[1:], idf_weights[0])
            else:
                self.set_vocabulary(vocabulary)

    def _standardize_split(self, inputs):
        x = inputs if isinstance(inputs, Tensor) else constant(to_numpy(inputs),
                                                               dtype=dtypes.string)
        if x.shape.rank == 2 and x.shape[-1] == 1 and self._split is not None:
            x = constant(to_numpy(x)[:, 0], dtype=dtypes.string)
        if self._standardize == LOWER_AND_STRIP_PUNCTUATION:
            x = regex_replace(lower(x), DEFAULT_STRIP_REGEX, "")
        elif callable(self._standardize):
            x = self._standardize(x)
        if self._split is None:
            a = to_numpy(x)
            return [list(r) for r in (a if a.ndim == 2 else a.reshape(-1, 1))]
        if callable(self._split):
            out = self._split(x)
            if isinstance(out, (list, tuple)):  # one token row per element
                return [list(to_numpy(r).reshape(-1)) for r in out]
            if hasattr(out, "to_list"):
                return [[t if isinstance(t, bytes) else str(t).encode() for t in r]
                        for r in out.to_list()]
            return _rows_as_tokens(to_numpy(out))
        return [s.split() for s in to_numpy(x).reshape(-1)]

    def _grams(self, rows):
        if self._ngrams is None:
            return rows
        out = []
        for toks in rows:
            g = []
            for n in self._ngrams:
                g.extend(b" ".join(toks[i:i + n]) for i in range(len(toks) - n + 1))
            out.append(g)
        return out

    def _token_rows(self, inputs):
        return self._grams(self._standardize_split(inputs))

    # adapt
    def _build_from_batch(self, batch):
        self.built = True

    def _reset_state(self):
        self._counts, self._df, self._docs = {}, {}, 0

    def _update_state(self, batch):
        rows = self._token_rows(batch)
        for toks in rows:
            for t in toks:
                self._counts[t] = self._counts.get(t, 0) + 1
            for t in set(toks):
                self._df[t] = self._df.get(t, 0) + 1
        self._docs += len(rows)

    def _finalize_state(self):
        lk = self._lookup
        lk._counts = self._counts
        lk._finalize_state()
        if self._output_mode == TFIDF:
            df = np.asarray([self._df.get(t, 0) for t in lk._vocab], np.float64)
            idf = np.log(1.0 + self._docs / (1.0 + df))
            oov = float(idf.mean()) if len(idf) else 0.0
            self._idf = np.concatenate([[oov], idf]).astype(np.float32)

    def get_vocabulary(self):
        """The vocabulary by index (int mode: ``''`` and ``[UNK]`` first)."""
        return self._lookup.get_vocabulary()

    def set_vocabulary(self, vocab, df_data=None, oov_df_value=None):
        """Sets the vocabulary (and for ``tf-idf`` the per-token idf weights).

        Raises:
          ValueError: For ``tf-idf`` without ``df_data``, or as ``StringLookup``.
        """
        self._lookup.set_vocabulary(vocab)
        if self._output_mode == TFIDF:
            if df_data is None:
                raise ValueError("df_data must be set if output_mode is TFIDF")
            w = np.asarray(to_numpy(df_data), np.float32).reshape(-1)
            oov = float(w.mean()) if oov_df_value is None else float(oov_df_value)
            self._idf = np.concatenate([[oov], w]).astype(np.float32)

    def _depth(self):
        n = self._lookup.vocab_size()
        return self.max_tokens if self._pad_to_max and self.max_tokens else n

    def call(self, inputs):
        x = inputs if isinstance(inputs, Tensor) else constant(to_numpy(inputs),
                                                               dtype=dtypes.string)
        if self._standardize in (LOWER_AND_STRIP_PUNCTUATION, None) \
                and self._split == SPLIT_ON_WHITESPACE and not (
                    self._output_mode == INT and not self._output_sequence_length and
                    in_symbolic_pass()):
            if x.shape.rank == 2 and x.shape[-1] == 1:
                x = array_ops.squeeze(x, [1])
            if x.shape.rank == 1:
                return self._call_ops(x)
        return preprocessing_ops.on_host(self._call_host, x)

    def _call_ops(self, x):
        """The default pipeline as ops that have TF lowerings: ``lower``,
        ``regex_replace``, ``split``, ``ngrams``, the vocabulary lookup, then padding
        (int) or per-row counts."""
        if self._standardize == LOWER_AND_STRIP_PUNCTUATION:
            x = regex_replace(lower(x), DEFAULT_STRIP_REGEX, "")
        words = split(x)
        if self._ngrams is not None:
            words = ngrams(words, self._ngrams, separator=" ")
        lk = self._lookup
        if self._output_mode == INT:
            ids = words.with_flat_values(preprocessing_ops.vocab_lookup(
                words.flat_values, list(lk._vocab), lk._index, 1, 1, b""))
            n = self._output_sequence_length
            return ids.to_tensor(0, shape=None if n is None else [None, n])
        depth = self._depth()
        ids = words.with_flat_values(preprocessing_ops.vocab_lookup(
            words.flat_values, list(lk._vocab), lk._index, 1, 0))
        idf = None
        if self._output_mode == TFIDF:
            if self._idf is None:
                raise RuntimeError("TextVectorization: tf-idf needs `adapt` or idf data.")
            idf = np.zeros(depth, np.float32)
            idf[:min(depth, len(self._idf))] = self._idf[:depth]
        out = preprocessing_ops.category_encode(ids.to_tensor(depth), depth,
                                                self._output_mode == BINARY, idf)
        return out if self.compute_dtype == "float32" else creation_ops.cast(
            out, self.compute_dtype)

    def _call_host(self, inputs):
        rows = self._token_rows(inputs)
        lk = self._lookup
        if self._output_mode == INT and self._split is None:
            # no split: one token per element, output shaped like the input
            keys = lookup_ops.as_key_array(to_numpy(inputs))
            if self._standardize is not None:
                keys = np.asarray([r[0] for r in rows], dtype=object).reshape(keys.shape) \
                    if keys.size else keys
            return constant(lookup_ops.lookup(keys, lk._index, 1, 1, b""), dtype=dtypes.int64)
        if self._output_mode == INT:
            length = self._output_sequence_length or max([len(r) for r in rows] + [0])
            if not self._output_sequence_length and in_symbolic_pass():
                # Keras' placeholder strings are empty: a length that differs between
                # its two placeholder batches makes the time dimension None, as TF's
                # (None, None) output (a length-0 one broke the layers after it).
                length = len(rows) + 1
            out = np.zeros((len(rows), length), np.int64)
            for i, toks in enumerate(rows):
                if toks:
                    keys = np.empty(len(toks), dtype=object)
                    keys[:] = toks
                    idx = lookup_ops.lookup(keys, lk._index, 1, 1, b"")[:length]
                    out[i, :len(idx)] = idx
            return constant(out, dtype=dtypes.int64)
        depth = self._depth()
        width = max([len(r) for r in rows] + [1])
        idx = np.full((len(rows), width), -1, np.int64)
        for i, toks in enumerate(rows):
            if toks:
                keys = np.empty(len(toks), dtype=object)
                keys[:] = toks
                idx[i, :len(toks)] = lookup_ops.lookup(keys, lk._index, 1, 0)
        enc = np.zeros((len(rows), depth + 1), np.float32)
        r = np.repeat(np.arange(len(rows)), width)
        np.add.at(enc, (r, np.where(idx >= 0, idx, depth).reshape(-1)), 1.0)
        enc = enc[:, :depth]
        if self._output_mode == BINARY:
            enc = np.minimum(enc, 1.0)
        elif self._output_mode == TFIDF:
            if self._idf is None:
                raise RuntimeError("TextVectorization: tf-idf needs `adapt` or idf data.")
            w = np.zeros(depth, np.float32)
            w[:min(depth, len(self._idf))] = self._idf[:depth]
            enc = enc * w
        return constant(enc.astype(self.compute_dtype), dtype=self.compute_dtype)

    def compute_output_shape(self, input_shape):
        n = TensorShape(input_shape)[0]
        if self._output_mode == INT:
            return TensorShape([n, self._output_sequence_length])
        return TensorShape([n, self._depth()])

    def get_config(self):
        config = super().get_config()
        config.update({"max_tokens": self.max_tokens,
                       "standardize": self._standardize if isinstance(self._standardize, str)
                       or self._standardize is None else None,
                       "split": self._split if isinstance(self._split, str) or
                       self._split is None else None,
                       "ngrams": self._ngrams_arg, "output_mode": self._output_mode,
                       "output_sequence_length": self._output_sequence_length,
                       "pad_to_max_tokens": self._pad_to_max})
        # the vocabulary (and idf weights) travel in the config so that a saved model
        # restores them (TF 2.4 kept them in SavedModel assets instead)
        vocab = self._lookup._vocab_config()
        if vocab:
            config["vocabulary"] = vocab
            if self._output_mode == TFIDF and self._idf is not None:
                config["idf_weights"] = [float(v) for v in self._idf]
        return config


