"""TF's lookup-table ops for ``graph_exec``: the hash tables of ``tf.lookup`` and of
Keras' StringLookup / IntegerLookup / TextVectorization layers.

A SavedModel keeps a table as a resource whose ``_create_resource`` function runs
``HashTableV2`` and whose ``_initialize`` function fills it
(``LookupTableImportV2`` or ``InitializeTableFromTextFileV2`` from an asset);
functions then look keys up with ``LookupTableFindV2``. The table here is a
``HashTable`` object: a Python dict from key (``bytes`` for strings) to value.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, errors
from torchflow._src.core.convert import constant

_WHOLE_LINE, _LINE_NUMBER = -2, -1


class HashTable:
    """A lookup table resource: ``key_dtype`` keys to ``value_dtype`` values."""

    __slots__ = ("key_dtype", "value_dtype", "table", "mutable")

    def __init__(self, key_dtype, value_dtype, mutable: bool):
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.table: dict = {}
        self.mutable = mutable


def _table(x, op: str) -> HashTable:
    if not isinstance(x, HashTable):
        raise errors.InvalidArgumentError(
            None, None, f"Input 0 of {op} must be a lookup table resource, got "
            f"{type(x).__name__} [Op:{op}]")
    return x


def _keys(t) -> tuple:
    a = np.asarray(t.numpy())
    return a.reshape(-1).tolist(), a.shape


def _check_dtype(table: HashTable, t, which: str, op: str) -> None:
    want = table.key_dtype if which == "key" else table.value_dtype
    if isinstance(want, dtypes.DType) and t.dtype != want:
        raise errors.InvalidArgumentError(
            None, None, f"Expected {which} dtype {want.name}, got {t.dtype.name} [Op:{op}]")


def _create(library, attrs, inputs, mutable=False):
    return [HashTable(attrs.get("key_dtype"), attrs.get("value_dtype"), mutable)]


def _create_mutable(library, attrs, inputs):
    return _create(library, attrs, inputs, mutable=True)


def _import(library, attrs, inputs):
    table, keys, values = inputs
    t = _table(table, "LookupTableImportV2")
    _check_dtype(t, keys, "key", "LookupTableImportV2")
    _check_dtype(t, values, "value", "LookupTableImportV2")
    ks, _ = _keys(keys)
    vs, _ = _keys(values)
    if len(ks) != len(vs):
        raise errors.InvalidArgumentError(
            None, None, f"Expected shape {list(keys.shape)} for value, got "
            f"{list(values.shape)} [Op:LookupTableImportV2]")
    if t.mutable:
        t.table = dict(zip(ks, vs))
    else:
        t.table.update(zip(ks, vs))
    return []


def _insert(library, attrs, inputs):
    table, keys, values = inputs
    t = _table(table, "LookupTableInsertV2")
    ks, _ = _keys(keys)
    vs, _ = _keys(values)
    t.table.update(zip(ks, vs))
    return []


def _remove(library, attrs, inputs):
    t = _table(inputs[0], "LookupTableRemoveV2")
    for k in _keys(inputs[1])[0]:
        t.table.pop(k, None)
    return []


def _parse(token: bytes, dtype):
    if dtype == dtypes.string:
        return token
    if dtype.is_integer:
        return int(token)
    return float(token)


def _from_text_file(library, attrs, inputs):
    table, filename = inputs
    t = _table(table, "InitializeTableFromTextFileV2")
    path = filename.numpy()
    path = path.decode("utf-8") if isinstance(path, bytes) else str(path)
    key_index = int(attrs.get("key_index", _WHOLE_LINE))
    value_index = int(attrs.get("value_index", _LINE_NUMBER))
    vocab_size = int(attrs.get("vocab_size", -1))
    delimiter = attrs.get("delimiter", "\t")
    delimiter = delimiter.encode() if isinstance(delimiter, str) else delimiter
    offset = int(attrs.get("offset", 0))
    try:
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
    except OSError as e:
        raise errors.NotFoundError(None, None, f"{path}; {e.strerror} "
                                   "[Op:InitializeTableFromTextFileV2]") from None
    if lines and lines[-1] == b"":
        lines.pop()
    if vocab_size >= 0:
        lines = lines[:vocab_size]

    def column(line: bytes, n: int, index: int, dtype):
        if index == _WHOLE_LINE:
            return _parse(line, dtype) if dtype != dtypes.string else line
        if index == _LINE_NUMBER:
            return n + offset
        cols = line.split(delimiter)
        if index >= len(cols):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {path} line {n} ({line!r}) for "
                f"column {index} [Op:InitializeTableFromTextFileV2]")
        return _parse(cols[index], dtype)

    for n, line in enumerate(lines):
        line = line.rstrip(b"\r")
        t.table[column(line, n, key_index, t.key_dtype)] = column(
            line, n, value_index, t.value_dtype)
    return []


def _find(library, attrs, inputs):
    table, keys, default = inputs
    t = _table(table, "LookupTableFindV2")
    _check_dtype(t, keys, "key", "LookupTableFindV2")
    ks, shape = _keys(keys)
    d = default.numpy()
    d = d.item() if hasattr(d, "item") and np.ndim(d) == 0 else d
    get = t.table.get
    out = [get(k, d) for k in ks]
    dtype = t.value_dtype if isinstance(t.value_dtype, dtypes.DType) else default.dtype
    arr = np.array(out, dtype=object if dtype == dtypes.string else dtype.as_numpy_dtype)
    return [constant(arr.reshape(shape), dtype=dtype)]


def _size(library, attrs, inputs):
    return [constant(len(_table(inputs[0], "LookupTableSizeV2").table), dtype=dtypes.int64)]


def _export(library, attrs, inputs):
    t = _table(inputs[0], "LookupTableExportV2")
    kd = t.key_dtype
    vd = t.value_dtype
    ks = np.array(list(t.table), dtype=object if kd == dtypes.string else kd.as_numpy_dtype)
    vs = np.array(list(t.table.values()),
                  dtype=object if vd == dtypes.string else vd.as_numpy_dtype)
    return [constant(ks, dtype=kd), constant(vs, dtype=vd)]


HANDLERS = {
    "HashTableV2": _create,
    "MutableHashTableV2": _create_mutable,
    "LookupTableImportV2": _import,
    "LookupTableInsertV2": _insert,
    "LookupTableRemoveV2": _remove,
    "InitializeTableFromTextFileV2": _from_text_file,
    "LookupTableFindV2": _find,
    "LookupTableSizeV2": _size,
    "LookupTableExportV2": _export,
}
