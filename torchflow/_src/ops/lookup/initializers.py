"""``tf.lookup``'s table initializers: ``KeyValueTensorInitializer``,
``TextFileInitializer`` (with ``TextFileIndex``) and
``tf.lookup.experimental.DatasetInitializer``."""

from __future__ import annotations

import os

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant, convert_to_tensor
from torchflow._src.ops.lookup import table_ops
from torchflow._src.util.api import public


@public("torchflow.lookup")
class TextFileIndex:
    """The special columns of a ``TextFileInitializer``.

    ``WHOLE_LINE`` (-2) takes the whole line as the key or value,
    ``LINE_NUMBER`` (-1) the line's number (from 0).

    >>> import torchflow as tf
    >>> tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER
    (-2, -1)
    """

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TableInitializerBase:
    """What initializes a table: the key and value dtypes and ``initialize(table)``."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The expected key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The expected value dtype."""
        return self._value_dtype

    @property
    def _shared_name(self):
        return None

    def _checkpoint_dependencies(self) -> list:
        return []

    def initialize(self, table):
        """Fills ``table`` (a ``StaticHashTable``)."""
        raise NotImplementedError


@public("torchflow.lookup")
class KeyValueTensorInitializer(TableInitializerBase):
    """Initializes a table from a tensor of keys and a tensor of values.

    Args:
      keys: The keys (a tensor or a value convertible to one).
      values: The values, one per key.
      key_dtype: The keys' dtype (default: inferred from ``keys``).
      value_dtype: The values' dtype (default: inferred from ``values``).
      name: A name for the operation (optional).

    >>> import torchflow as tf
    >>> init = tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2])
    >>> init.key_dtype, init.value_dtype
    (tf.string, tf.int32)
    """

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """Fills ``table`` with the keys and values (``LookupTableImportV2``).

        Raises:
          TypeError: The table's dtypes are not the initializer's.
        """
        _check_table_dtypes(table, self._key_dtype, self._value_dtype)
        table_ops.import_values(table, self._keys, self._values)


def _check_table_dtypes(table, key_dtype, value_dtype) -> None:
    # the table's own key dtype (a vocabulary table's lookup_key_dtype may differ)
    if key_dtype != table._key_dtype:
        raise TypeError(f"Invalid key dtype, expected {table._key_dtype} but got {key_dtype}.")
    if value_dtype != table._value_dtype:
        raise TypeError(f"Invalid value dtype, expected {table._value_dtype} but got "
                        f"{value_dtype}.")


class VocabularyFile:
    """The file a ``TextFileInitializer`` reads: a SavedModel asset of its table, so
    ``assets/`` carries a copy and the saved initializer reads that copy."""

    def __init__(self, path: str):
        self._path = path
        self.asset_path = constant(path)

    def __repr__(self) -> str:
        return f"VocabularyFile({self._path!r})"


def _check_index(index, dtype, which: str) -> None:
    kind = "Keys" if which == "key" else "Values"
    if index < TextFileIndex.WHOLE_LINE:
        raise ValueError(f"Invalid {which} index {index}.")
    if index == TextFileIndex.LINE_NUMBER and dtype != dtypes.int64:
        raise ValueError(f"Signature mismatch. {kind} must be dtype {dtypes.int64}, got "
                         f"{dtype}.")
    if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and dtype != dtypes.string:
        raise ValueError(f"Signature mismatch. {kind} must be integer or string, got "
                         f"{dtype}.")


@public("torchflow.lookup")
class TextFileInitializer(TableInitializerBase):
    """Initializes a table from a text file, one entry per line.

    The key and value of each line come from the column ``key_index`` and
    ``value_index`` of the line split at ``delimiter``, or from the whole line
    (``TextFileIndex.WHOLE_LINE``) or its number (``TextFileIndex.LINE_NUMBER``,
    plus ``value_index_offset``).

    Args:
      filename: The file's path (a string or scalar string tensor).
      key_dtype: The keys' dtype.
      key_index: The keys' column.
      value_dtype: The values' dtype.
      value_index: The values' column.
      vocab_size: The number of lines to read (all if None).
      delimiter: The column delimiter.
      name: A name for the operation (optional).
      value_index_offset: Added to the line number when it is the value.

    Raises:
      ValueError: An index, dtype or ``vocab_size`` is invalid (TF 2.4's messages).

    >>> import torchflow as tf
    >>> init = tf.lookup.TextFileInitializer(
    ...     "vocab.txt", tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
    ...     tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)
    >>> init.value_dtype
    tf.int64
    """

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        _check_index(key_index, key_dtype, "key")
        _check_index(value_index, value_dtype, "value")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        if hasattr(filename, "numpy"):
            filename = filename.numpy()
        if isinstance(filename, bytes):
            filename = filename.decode("utf-8")
        self._filename_arg = os.fspath(filename)
        self._filename = VocabularyFile(self._filename_arg)
        self._key_index = int(key_index)
        self._value_index = int(value_index)
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        self._offset = int(value_index_offset)
        super().__init__(key_dtype, value_dtype)

    @property
    def _shared_name(self):
        if self._vocab_size:
            return (f"hash_table_{self._filename_arg}_{self._vocab_size}_{self._key_index}_"
                    f"{self._value_index}")
        return f"hash_table_{self._filename_arg}_{self._key_index}_{self._value_index}"

    def initialize(self, table):
        """Fills ``table`` from the file (``InitializeTableFromTextFileV2``).

        Raises:
          NotFoundError: The file does not exist.
          InvalidArgumentError: A line has too few columns or a field does not parse.
        """
        _check_table_dtypes(table, self._key_dtype, self._value_dtype)
        table_ops.init_from_text_file(
            table, self._filename, self._key_index, self._value_index,
            -1 if self._vocab_size is None else int(self._vocab_size), self._delimiter,
            self._offset)


@public("torchflow.lookup.experimental")
class DatasetInitializer(TableInitializerBase):
    """Initializes a table from a ``tf.data.Dataset`` of ``(key, value)`` pairs.

    Args:
      dataset: A dataset whose elements are pairs of scalar tensors.

    Raises:
      ValueError: The elements are not pairs.
      TypeError: The elements are not scalars.

    >>> import torchflow as tf
    >>> ds = tf.data.Dataset.from_tensor_slices((["a", "b"], [1, 2]))
    >>> tf.lookup.experimental.DatasetInitializer(ds).value_dtype
    tf.int32
    """

    def __init__(self, dataset):
        spec = dataset.element_spec
        if not isinstance(spec, tuple) or len(spec) != 2:
            raise ValueError(f"Elements of the dataset must be 2-tuples, got {spec!r}.")
        for s in spec:
            if s.shape.rank != 0:
                raise TypeError(f"Elements of the dataset must be scalars, got {s!r}.")
        self.dataset = dataset
        super().__init__(spec[0].dtype, spec[1].dtype)

    def initialize(self, table):
        """Fills ``table`` with the dataset's pairs."""
        _check_table_dtypes(table, self._key_dtype, self._value_dtype)
        keys, values = [], []
        for k, v in self.dataset:
            keys.append(k.numpy())
            values.append(v.numpy())
        kd, vd = self._key_dtype, self._value_dtype
        table_ops.import_values(
            table,
            constant(np.array(keys, dtype=object if kd == dtypes.string else kd.as_numpy_dtype),
                     dtype=kd),
            constant(np.array(values, dtype=object if vd == dtypes.string else
                              vd.as_numpy_dtype), dtype=vd))
