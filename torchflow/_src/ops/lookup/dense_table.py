"""``tf.lookup.experimental.DenseHashTable``: a mutable table with reserved empty and
deleted keys (TF's ``MutableDenseHashTableV2``)."""

from __future__ import annotations

from torchflow._src.core import dtypes, errors, graph_trace
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.ops.graph_exec_tables import HashTable
from torchflow._src.ops.lookup import table_ops
from torchflow._src.ops.lookup.tables import LookupTable, _keys_of
from torchflow._src.util.api import public


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

    Differences from TensorFlow 2.4: ``export`` returns the entries only, not TF's
    buckets with their empty keys; the contents are not written to checkpoints.

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

    def _create_resource(self):
        r = self._resource
        return table_ops.create_table(self, self._shared_name,
                                      (r.empty_key, r.deleted_key, self._initial_num_buckets))

    def _keys(self, keys):
        return convert_to_tensor(keys, dtype=self._key_dtype, name="keys")

    def lookup(self, keys, name=None):
        """The value of each key, the default value for a missing one.

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

        Raises:
          InvalidArgumentError: A key is the empty or deleted key.
        """
        table_ops.insert(self, self._keys(keys),
                         convert_to_tensor(values, dtype=self._value_dtype, name="values"))

    def insert(self, keys, values, name=None):
        """``insert_or_assign``."""
        return self.insert_or_assign(keys, values, name)

    def erase(self, keys, name=None):
        """Removes ``keys`` (missing ones are ignored).

        Raises:
          InvalidArgumentError: A key is the empty or deleted key.
        """
        table_ops.remove(self, self._keys(keys))

    def remove(self, keys, name=None):
        """``erase``."""
        return self.erase(keys, name)

    def export(self, name=None):
        """The keys and values of the entries, as two tensors."""
        return table_ops.export(self)
