"""``tf.lookup``'s tables: ``StaticHashTable``, ``StaticVocabularyTable`` and
``tf.lookup.experimental.DenseHashTable``.

A table is a resource, as in TF: a SavedModel writes it as a ``SavedResource``
whose ``_create_resource`` function makes the table (``HashTableV2``) and whose
``_initialize`` function fills it from its initializer; functions that look keys up
capture its handle.
"""

from __future__ import annotations

import uuid

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.function import function
from torchflow._src.ops.graph_exec_tables import HashTable
from torchflow._src.ops.lookup import table_ops
from torchflow._src.ops.lookup.initializers import TableInitializerBase
from torchflow._src.ops.math_ops import add
from torchflow._src.util.api import public

_SUPPORTED_VOCAB_KEYS = (dtypes.int64, dtypes.string)


def _keys_of(keys):
    """The dense key tensor of ``keys`` and a function rebuilding a composite around
    the looked-up values (a ``SparseTensor``'s or ``RaggedTensor``'s values)."""
    if hasattr(keys, "with_values"):  # RaggedTensor, SparseTensor
        return keys.values, keys.with_values
    return keys, None


class LookupTable:
    """A table resource (TF's ``TrackableResource`` + ``LookupInterface``)."""

    _is_lookup_table = True  # a SavedModel writes it as a SavedResource

    def __init__(self, key_dtype, value_dtype, mutable: bool = False):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._resource = HashTable(self._key_dtype, self._value_dtype, mutable)
        self._shared_name = f"hash_table_{uuid.uuid4()}"
        self._functions = None

    @property
    def key_dtype(self):
        """The table's key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The table's value dtype."""
        return self._value_dtype

    @property
    def name(self):
        """The table's name (None for a table made eagerly, as in TF 2.4)."""
        return None

    @property
    def resource_handle(self):
        """The table's handle: a scalar ``tf.resource`` tensor."""
        return table_ops.resource_tensor(self._resource)

    def _check_keys(self, keys, want=None) -> None:
        want = want or self._key_dtype
        if keys.dtype != want:
            raise TypeError(f"Signature mismatch. Keys must be dtype {want}, got {keys.dtype}.")

    def size(self, name=None):
        """The number of entries.

        Args:
          name: A name for the operation (optional).

        Returns:
          An int64 scalar tensor.
        """
        return table_ops.size(self)

    def lookup(self, keys, name=None):
        """The values of ``keys``."""
        raise NotImplementedError

    def __getitem__(self, keys):
        """``table[keys]`` is ``table.lookup(keys)``."""
        return self.lookup(keys)

    # --- SavedModel (TF's CapturableResource protocol) ---------------------------------
    def _create_resource(self):
        return table_ops.create_table(self, self._shared_name)

    def _initialize(self):
        return None

    def _destroy_resource(self):
        return None

    def _list_functions_for_serialization(self, unused_functions=None) -> dict:
        if self._functions is None:
            def _creator():
                return self._create_resource()

            def _initializer():
                self._initialize()
                return 1  # TF's dummy result

            def _destroyer():
                self._destroy_resource()
                return 1

            self._functions = {
                name: function(fn, input_signature=[], autograph=False)
                for name, fn in (("_create_resource", _creator), ("_initialize", _initializer),
                                 ("_destroy_resource", _destroyer))}
        return dict(self._functions)

    def _checkpoint_dependencies(self) -> list:
        init = getattr(self, "_initializer", None)
        return [("_initializer", init)] if init is not None else []


def _check_initializer(initializer) -> None:
    if not isinstance(initializer, TableInitializerBase):
        raise TypeError(f"initializer must be a table initializer (such as "
                        f"tf.lookup.KeyValueTensorInitializer), got {initializer!r}")


@public("torchflow.lookup")
class StaticHashTable(LookupTable):
    """A hash table whose contents are fixed once its initializer has run.

    Args:
      initializer: The table's initializer (``KeyValueTensorInitializer``,
        ``TextFileInitializer``, ...).
      default_value: The value of a missing key (the table's value dtype).
      name: A name for the operation (optional).

    Raises:
      TypeError: ``default_value`` does not convert to the value dtype.

    >>> import torchflow as tf
    >>> table = tf.lookup.StaticHashTable(
    ...     tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2]), -1)
    >>> table.lookup(tf.constant(["a", "x"])).numpy()
    array([ 1, -1], dtype=int32)
    """

    def __init__(self, initializer, default_value, name=None):
        _check_initializer(initializer)
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._initializer = initializer
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._table_name = name
        shared = initializer._shared_name
        if shared:
            self._shared_name = shared
        with graph_trace.paused():  # made inside a tf.function: filled once, at trace time
            self._initialize()

    @property
    def default_value(self):
        """The value of a missing key."""
        return self._default_value

    def _initialize(self):
        return self._initializer.initialize(self)

    def lookup(self, keys, name=None):
        """The value of each key, ``default_value`` for a missing one.

        Args:
          keys: A tensor (or ``SparseTensor``/``RaggedTensor``) of the key dtype.
          name: A name for the operation (optional).

        Returns:
          A tensor of values, of ``keys``' shape (a composite keeps its structure).

        Raises:
          TypeError: ``keys`` is not of the key dtype.
        """
        values, rebuild = _keys_of(keys)
        self._check_keys(values)
        if self._value_dtype == dtypes.string:
            # string values live in NumPy, out of a replay's sight
            graph_trace.mark_eager("a lookup table gives string values")
        out = table_ops.find(self, values, self._default_value)
        return rebuild(out) if rebuild is not None else out

    def export(self, name=None):
        """The table's entries.

        Args:
          name: A name for the operation (optional).

        Returns:
          ``(keys, values)``: two 1-D tensors of the key and value dtypes.
        """
        return table_ops.export(self)


@public("torchflow.lookup")
class StaticVocabularyTable(LookupTable):
    """A string (or int64) to id table that puts out-of-vocabulary keys into buckets.

    A key in the vocabulary gets its id; another key gets
    ``Fingerprint64(key) % num_oov_buckets + vocab_size`` (an integer key is hashed
    as its decimal string, as TF's ``AsString`` writes it).

    Args:
      initializer: The vocabulary (values int64), or None for buckets only.
      num_oov_buckets: The number of out-of-vocabulary buckets (> 0).
      lookup_key_dtype: The dtype of the keys ``lookup`` takes (default: the
        initializer's; an integer dtype for an int64 vocabulary).
      name: A name for the operation (optional).

    Raises:
      ValueError: ``num_oov_buckets`` is not positive.
      TypeError: The initializer's dtypes are not supported.

    >>> import torchflow as tf
    >>> init = tf.lookup.KeyValueTensorInitializer(
    ...     ["emerson", "lake", "palmer"], tf.constant([0, 1, 2], tf.int64))
    >>> table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=5)
    >>> table.lookup(tf.constant(["palmer", "king", "crimson"])).numpy()
    array([2, 6, 7])
    """

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None):
        if num_oov_buckets <= 0:
            raise ValueError("oov_buckets must be > 0.")
        if initializer is not None:
            _check_initializer(initializer)
            if initializer.key_dtype not in _SUPPORTED_VOCAB_KEYS:
                raise TypeError(f"Invalid key dtype, expected one of "
                                f"({dtypes.int64}, {dtypes.string}), but got "
                                f"{initializer.key_dtype}.")
            if initializer.value_dtype != dtypes.int64:
                raise TypeError(f"Invalid value dtype, expected {dtypes.int64} but got "
                                f"{initializer.value_dtype}.")
            key_dtype = initializer.key_dtype
            lookup_key_dtype = dtypes.as_dtype(lookup_key_dtype or key_dtype)
            if key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError(f"Invalid key dtype, expected "
                                f"{'integer' if key_dtype.is_integer else 'non-integer'} but "
                                f"got {lookup_key_dtype}.")
            self._table = StaticHashTable(initializer, -1)
            # As in TF, the inner table is not a dependency: the vocabulary table is
            # the resource (its handle is the inner table's), and tracks the initializer.
            super().__init__(key_dtype, dtypes.int64)
            self._resource = self._table._resource
            self._shared_name = self._table._shared_name
            self._initializer = initializer
        else:
            lookup_key_dtype = dtypes.string
            self._table = None
            super().__init__(dtypes.string, dtypes.int64)
            self._is_lookup_table = False  # no resource: hash buckets only
        self._num_oov_buckets = int(num_oov_buckets)
        self._lookup_key_dtype = lookup_key_dtype

    @property
    def key_dtype(self):
        """The dtype of the keys ``lookup`` takes."""
        return self._lookup_key_dtype

    def _initialize(self):
        if self._table is not None:
            return self._initializer.initialize(self)
        return None

    def _list_functions_for_serialization(self, unused_functions=None) -> dict:
        if self._table is None:
            return {}
        return super()._list_functions_for_serialization(unused_functions)

    def size(self, name=None):
        """The number of ids: the vocabulary size plus ``num_oov_buckets``.

        Args:
          name: A name for the operation (optional).

        Returns:
          An int64 scalar tensor.
        """
        n = self._num_oov_buckets
        if self._table is None:
            return convert_to_tensor(n, dtype=dtypes.int64)
        return add(table_ops.size(self), convert_to_tensor(n, dtype=dtypes.int64))

    def lookup(self, keys, name=None):
        """The id of each key (int64), of ``keys``' shape.

        Args:
          keys: A tensor (or ``SparseTensor``/``RaggedTensor``) of ``lookup_key_dtype``.
          name: A name for the operation (optional).

        Returns:
          The ids: a key's vocabulary id, or its out-of-vocabulary bucket.

        Raises:
          TypeError: ``keys`` is not of ``lookup_key_dtype``.
        """
        values, rebuild = _keys_of(keys)
        self._check_keys(values, self._lookup_key_dtype)
        out = table_ops.vocab_lookup(self if self._table is not None else None, values,
                                     self._num_oov_buckets)
        return rebuild(out) if rebuild is not None else out
