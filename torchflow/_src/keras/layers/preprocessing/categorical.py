"""``CategoryEncoding``, ``Hashing`` and ``Discretization`` (TF 2.4)."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers.preprocessing.base import PreprocessingLayer, to_numpy
from torchflow._src.ops import (
    array_ops,
    comparison_ops,
    creation_ops,
    gather_ops,
    preprocessing_ops,
    string_hash_ops,
    string_ops,
)
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.sparse import sparse_ops
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public

_NS = "torchflow.keras.layers.experimental.preprocessing"
BINARY, COUNT, TFIDF = "binary", "count", "tf-idf"


@public(_NS)
class CategoryEncoding(PreprocessingLayer):
    """Encodes integer categories as multi-hot (``binary``), ``count`` or ``tf-idf``
    vectors of length ``max_tokens``.

    Args:
      max_tokens: Number of categories (found by ``adapt`` when None).
      output_mode: ``binary`` (default), ``count`` or ``tf-idf``.
      sparse: If True, the output is a ``tf.SparseTensor`` of the non-zero entries.

    Raises:
      InvalidArgumentError: For values outside ``[0, max_tokens)``.
    """

    def __init__(self, max_tokens=None, output_mode=BINARY, sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode not in (BINARY, COUNT, TFIDF):
            raise ValueError(f"`output_mode` must be one of {(BINARY, COUNT, TFIDF)}, "
                             f"got {output_mode}")
        if max_tokens is not None and max_tokens < 1:
            raise ValueError("max_tokens must be > 1.")
        self.max_tokens, self.output_mode, self.sparse = max_tokens, output_mode, sparse
        self._idf = None

    def set_num_elements(self, num_elements):
        self.max_tokens = int(num_elements)

    def set_tfidf_data(self, tfidf_data):
        self._idf = np.asarray(to_numpy(tfidf_data), np.float32)

    def _build_from_batch(self, batch):
        self.built = True

    def _reset_state(self):
        self._max, self._docs, self._df = -1, 0, {}

    def _update_state(self, batch):
        a = np.asarray(batch, np.int64)
        a = a.reshape(a.shape[0], -1) if a.ndim > 1 else a.reshape(-1, 1)
        if a.size:
            self._max = max(self._max, int(a.max()))
        self._docs += a.shape[0]
        for row in a:
            for v in set(row.tolist()):
                self._df[v] = self._df.get(v, 0) + 1

    def _finalize_state(self):
        if self.max_tokens is None:
            self.max_tokens = self._max + 1
        df = np.zeros(self.max_tokens, np.float64)
        for k, v in self._df.items():
            if 0 <= k < self.max_tokens:
                df[k] = v
        self._idf = np.log(1.0 + self._docs / (1.0 + df)).astype(np.float32)

    def call(self, inputs):
        if self.max_tokens is None:
            raise RuntimeError("CategoryEncoding: set `max_tokens` or call `adapt` first.")
        if self.output_mode == TFIDF and self._idf is None:
            raise RuntimeError("CategoryEncoding: tf-idf needs `adapt` or set_tfidf_data.")
        depth = int(self.max_tokens)
        # Ragged and sparse inputs count their values per row (TF's ragged/sparse
        # bincount): padded with ``depth``, which no bin counts.
        if isinstance(inputs, RaggedTensor):
            values, x = inputs.flat_values, inputs.to_tensor(default_value=depth)
        elif isinstance(inputs, SparseTensor):
            values, x = inputs.values, sparse_ops.to_dense(inputs, default_value=depth)
        else:
            values = x = convert_to_tensor(inputs)
        a = np.asarray(values.numpy())
        if a.size and (a.min() < 0 or a.max() >= depth):
            raise InvalidArgumentError(
                None, None, f"Input values must be in the range 0 <= values < max_tokens "
                f"with max_tokens={self.max_tokens}")
        if x.shape.rank == 1:
            x = array_ops.expand_dims(x, 1)
        out = preprocessing_ops.category_encode(
            x, depth, self.output_mode == BINARY, self._idf if self.output_mode == TFIDF else None)
        if self.compute_dtype != "float32":
            out = creation_ops.cast(out, self.compute_dtype)
        return sparse_ops.from_dense(out) if self.sparse else out

    def compute_output_shape(self, input_shape):
        return TensorShape([TensorShape(input_shape)[0], self.max_tokens])

    def get_config(self):
        config = super().get_config()
        config.update({"max_tokens": self.max_tokens, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config


@public(_NS)
class Hashing(Layer):
    """Hashes strings or integers into ``num_bins`` bins with TF's farmhash
    fingerprint (SipHash with ``salt``), so bins equal TensorFlow's.

    Args:
      num_bins: Number of bins (including the mask bin).
      mask_value: Value hashed to bin 0 (other values use bins 1..num_bins-1).
      salt: An int or a pair of ints keying a SipHash (``to_hash_bucket_strong``).

    >>> import torchflow as tf
    >>> tf.keras.layers.experimental.preprocessing.Hashing(num_bins=3)(tf.constant([["A"], ["B"]])).shape
    TensorShape([2, 1])
    """

    def __init__(self, num_bins, mask_value=None, salt=None, **kwargs):
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"`num_bins` cannot be `None` or non-positive values. "
                             f"Received: num_bins={num_bins}")
        super().__init__(**kwargs)
        self.num_bins, self.mask_value = num_bins, mask_value
        if isinstance(salt, (tuple, list)):
            if len(salt) != 2:
                raise ValueError(f"`salt` must be an int or a pair of ints, got {salt}")
            self.salt = list(salt)
        elif salt is not None:
            self.salt = [salt, salt]
        else:
            self.salt = None

    def call(self, inputs):
        if isinstance(inputs, RaggedTensor):  # TF hashes the flat values
            return inputs.with_flat_values(self.call(inputs.flat_values))
        if isinstance(inputs, SparseTensor):  # and a sparse tensor's values
            return SparseTensor(inputs.indices, self.call(inputs.values), inputs.dense_shape)
        x = convert_to_tensor(inputs)
        if x.dtype.is_floating:
            raise ValueError(f"Hashing expects string or integer inputs, got {x.dtype.name}")
        # TF's ops: integers hash as their decimal strings.
        s = x if x.dtype is dtypes.string else string_ops.as_string(x)
        bins = self.num_bins - (0 if self.mask_value is None else 1)
        out = string_hash_ops.to_hash_bucket_fast(s, bins) if self.salt is None else \
            string_hash_ops.to_hash_bucket_strong(s, bins, self.salt)
        if self.mask_value is not None:
            out = gather_ops.where(comparison_ops.equal(x, self.mask_value),
                                   creation_ops.zeros_like(out), out + 1)
        return out

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "salt": self.salt,
                       "mask_value": self.mask_value})
        return config


@public(_NS)
class Discretization(Layer):
    """Buckets values by ``bins`` boundaries: index ``i`` for
    ``bins[i-1] <= x < bins[i]`` (int64 output).

    Args:
      bins: Sorted bucket boundaries.
    """

    def __init__(self, bins, **kwargs):
        super().__init__(**kwargs)
        self.bins = list(bins)

    def call(self, inputs):
        if isinstance(inputs, RaggedTensor):
            return inputs.with_flat_values(self.call(inputs.flat_values))
        if isinstance(inputs, SparseTensor):
            return SparseTensor(inputs.indices, self.call(inputs.values), inputs.dense_shape)
        return preprocessing_ops.bucketize(convert_to_tensor(inputs), self.bins)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["bins"] = self.bins
        return config


@public(_NS)
class CategoryCrossing(Layer):
    """Crosses categorical features: each output element joins one value from each
    input (per row, all combinations) with ``separator`` (TF 2.4).

    Args:
      depth: None (cross all inputs), an int ``d`` (every combination of 1..d
        inputs) or a tuple of combination sizes.
      separator: Joining string (default ``_X_``).

    >>> import torchflow as tf
    >>> cross = tf.keras.layers.experimental.preprocessing.CategoryCrossing()
    >>> cross([tf.constant([["a"]]), tf.constant([["x"], ])]).numpy()
    array([[b'a_X_x']], dtype=object)
    """

    def __init__(self, depth=None, name=None, separator=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.depth = depth
        self.separator = "_X_" if separator is None else separator

    def _depths(self, n):
        if self.depth is None:
            return (n,)
        if isinstance(self.depth, int):
            return tuple(range(1, self.depth + 1))
        return tuple(self.depth)

    def call(self, inputs):
        return preprocessing_ops.category_cross([convert_to_tensor(x) for x in inputs],
                                                self._depths(len(inputs)), self.separator)

    def compute_output_shape(self, input_shape):
        return TensorShape([TensorShape(input_shape[0])[0], None])

    def get_config(self):
        config = super().get_config()
        config.update({"depth": self.depth, "separator": self.separator})
        return config
