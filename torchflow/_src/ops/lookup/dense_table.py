"""``tf.lookup.experimental.DenseHashTable``: a mutable table with reserved empty and
deleted keys (TF's ``MutableDenseHashTableV2``)."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, errors, graph_trace
from torchflow._src.core.convert import constant, convert_to_tensor
from torchflow._src.core.function import function
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.ops.graph_exec_tables import HashTable
from torchflow._src.ops.lookup import table_ops
from torchflow._src.ops.lookup.tables import LookupTable, _keys_of
from torchflow._src.ops.string_hash_ops import hash64
from torchflow._src.util.api import public

_MASK = (1 << 64) - 1
_MAX_LOAD = 0.8  # TF's max_load_factor


def _np(dtype):
    return object if dtype == dtypes.string else dtype.as_numpy_dtype


def _scalar(value, dtype):
    t = convert_to_tensor(value, dtype=dtype)
    v = t.numpy()
    return v if isinstance(v, bytes) else v.item()


@public("torchflow.lookup.experimental")
class DenseHashTable(LookupTable):
    """A mutable hash table (open addressing in TF) that reserves two keys.

    ``empty_key`` and ``deleted_key`` mark free and deleted buckets in TF's layout and
    may never be inserted, looked up or erased.

    Args:
      key_dtype: The keys' dtype.
      value_dtype: The values' dtype.
      default_value: The value of a missing key.
      empty_key: A key that is never used.
      deleted_key: Another key that is never used.
      initial_num_buckets: The initial bucket count (a power of 2; default 2**17).
      name: A name for the operation.
      checkpoint: Whether the table's contents are saved in checkpoints.

    Raises:
      InvalidArgumentError: ``empty_key`` equals ``deleted_key`` (TF's message).

    With ``checkpoint=True`` the contents are saved as TF saves them: the bucket
    arrays ``table-keys`` and ``table-values`` (``[num_buckets, 1]``, free buckets
    holding ``empty_key``), laid out by TF's hash and probing so TF can read them.

    Differences from TensorFlow 2.4: ``export`` returns the entries only, not TF's
    buckets with their empty keys.

    >>> import torchflow as tf
    >>> t = tf.lookup.experimental.DenseHashTable(
    ...     tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1)
    >>> t.insert(tf.constant([1, 2], tf.int64), tf.constant([10, 20], tf.int64))
    >>> t.lookup(tf.constant([2, 3], tf.int64)).numpy()
    array([20, -1])
    """

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True):
        super().__init__(key_dtype, value_dtype, mutable=True)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype,
                                                name="default_value")
        empty = _scalar(empty_key, self._key_dtype)
        deleted = _scalar(deleted_key, self._key_dtype)
        if empty == deleted:
            raise errors.InvalidArgumentError(
                None, None, "Empty and deleted keys cannot be equal "
                "[Op:MutableDenseHashTableV2]")
        self._resource = HashTable(self._key_dtype, self._value_dtype, True, empty, deleted)
        self._initial_num_buckets = int(initial_num_buckets or 2 ** 17)
        self._name = name
        self._checkpoint = checkpoint
        self._num_buckets = self._initial_num_buckets

    def _create_resource(self):
        r = self._resource
        return table_ops.create_table(self, self._shared_name,
                                      (r.empty_key, r.deleted_key, self._initial_num_buckets))

    def _keys(self, keys):
        return convert_to_tensor(keys, dtype=self._key_dtype, name="keys")

    def lookup(self, keys, name=None):
        """The value of each key, the default value for a missing one.

        Args:
          keys: The keys (converted to the key dtype; a ``SparseTensor`` or
            ``RaggedTensor`` keeps its structure).
          name: A name for the operation (optional).

        Returns:
          A tensor of values of ``keys``' shape.

        Raises:
          InvalidArgumentError: A key is the empty or deleted key.
        """
        values, rebuild = _keys_of(keys)
        values = self._keys(values)
        if self._value_dtype == dtypes.string:
            graph_trace.mark_eager("a lookup table gives string values")
        out = table_ops.find(self, values, self._default_value)
        return rebuild(out) if rebuild is not None else out

    def insert_or_assign(self, keys, values, name=None):
        """Sets the value of each key (inserting missing ones).

        Args:
          keys: The keys (converted to the key dtype).
          values: One value per key (converted to the value dtype).
          name: A name for the operation (optional).

        Raises:
          InvalidArgumentError: A key is the empty or deleted key.
        """
        table_ops.insert(self, self._keys(keys),
                         convert_to_tensor(values, dtype=self._value_dtype, name="values"))
        self._grow()

    def _grow(self) -> None:
        while len(self._resource.table) > self._num_buckets * _MAX_LOAD:
            self._num_buckets *= 2  # TF doubles its buckets past the load factor

    def insert(self, keys, values, name=None):
        """Sets the value of each key (``insert_or_assign``).

        Raises:
          InvalidArgumentError: A key is the empty or deleted key.
        """
        return self.insert_or_assign(keys, values, name)

    def erase(self, keys, name=None):
        """Removes ``keys`` (missing ones are ignored).

        Args:
          keys: The keys (converted to the key dtype).
          name: A name for the operation (optional).

        Raises:
          InvalidArgumentError: A key is the empty or deleted key.
        """
        table_ops.remove(self, self._keys(keys))

    def remove(self, keys, name=None):
        """Removes ``keys`` (``erase``).

        Raises:
          InvalidArgumentError: A key is the empty or deleted key.
        """
        return self.erase(keys, name)

    def export(self, name=None):
        """The entries.

        Returns:
          ``(keys, values)``: two 1-D tensors (TF returns its bucket arrays instead).
        """
        return table_ops.export(self)

    # --- checkpoints (TF's "table" saveable) ------------------------------------------
    _saveable_attribute = "table"

    def _serialize_to_tensors(self) -> dict:
        """The bucket arrays TF's ``MutableDenseHashTable`` exports: each entry at the
        bucket TF's lookup probes for it (hash & mask, then quadratic steps)."""
        if not self._checkpoint:
            return {}
        r = self._resource
        self._grow()
        nb = self._num_buckets
        keys = np.full(nb, r.empty_key, dtype=_np(self._key_dtype))
        values = np.zeros(nb, dtype=_np(self._value_dtype))
        if self._value_dtype == dtypes.string:
            values[:] = b""
        used = np.zeros(nb, dtype=bool)
        mask = nb - 1
        for k, v in r.table.items():
            b = (hash64(k) if isinstance(k, bytes) else int(k) & _MASK) & mask
            probes = 0
            while used[b]:
                probes += 1
                b = (b + probes) & mask
            used[b] = True
            keys[b], values[b] = k, v
        return {"table-keys": constant(keys.reshape(nb, 1), dtype=self._key_dtype),
                "table-values": constant(values.reshape(nb, 1), dtype=self._value_dtype)}

    def _restore_from_tensors(self, tensors: dict) -> None:
        r = self._resource
        if "table-keys" not in tensors:
            return
        keys = np.asarray(tensors["table-keys"].numpy()).reshape(-1).tolist()
        values = np.asarray(tensors["table-values"].numpy()).reshape(-1).tolist()
        r.index = None
        r.table = {k: v for k, v in zip(keys, values) if k != r.empty_key and
                   k != r.deleted_key}
        self._num_buckets = max(self._num_buckets, len(keys))
        self._grow()

    def _saveable_functions(self) -> dict:
        """``{"table": (save, restore)}``: the functions a SavedModel keeps for the
        contents (TF's ``saveable_objects``): ``save(checkpoint_key)`` names the bucket
        tensors (``key-keys``, ``key-values``), ``restore(keys, values)`` imports them."""
        if not self._checkpoint:
            return {}
        if getattr(self, "_saveables", None) is None:
            def save(checkpoint_key):
                keys, values = table_ops.export(self)
                return [{"name": checkpoint_key + "-keys", "slice_spec": constant(""),
                         "tensor": keys},
                        {"name": checkpoint_key + "-values", "slice_spec": constant(""),
                         "tensor": values}]

            def restore(keys, values):
                table_ops.import_values(self, keys, values)
                return 1

            self._saveables = {"table": (
                function(save, input_signature=[TensorSpec([], dtypes.string)],
                         autograph=False),
                function(restore, input_signature=[TensorSpec(None, self._key_dtype),
                                                   TensorSpec(None, self._value_dtype)],
                         autograph=False))}
        return self._saveables
