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

    __slots__ = ("key_dtype", "value_dtype", "table", "mutable", "empty_key", "deleted_key",
                 "index", "__weakref__")

    def __init__(self, key_dtype, value_dtype, mutable: bool, empty_key=None,
                 deleted_key=None):
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.table: dict = {}
        self.mutable = mutable
        # MutableDenseHashTableV2's reserved keys (None for the other tables)
        self.empty_key = empty_key
        self.deleted_key = deleted_key
        # (sorted keys, their values) for vectorized lookups of integer keys; None after
        # every change (the writing ops reset it)
        self.index: "tuple | None" = None


def sorted_index(t: HashTable):
    """An index of an integer-keyed, non-string-valued table for vectorized lookups
    (built once per change): ``("dense", low, present, values)`` when the keys span a
    range of at most about four times their number, else ``("sorted", keys, values)``;
    None for other tables."""
    kd, vd = t.key_dtype, t.value_dtype
    if not (isinstance(kd, dtypes.DType) and kd.is_integer and isinstance(vd, dtypes.DType)
            and vd != dtypes.string) or not t.table:
        return None
    if t.index is None:
        ks = np.fromiter(t.table.keys(), np.int64, len(t.table))
        vs = np.array(list(t.table.values()), dtype=vd.as_numpy_dtype)
        lo, hi = int(ks.min()), int(ks.max())
        if hi - lo <= 4 * len(ks) + 1024:
            present = np.zeros(hi - lo + 1, dtype=bool)
            present[ks - lo] = True
            dense = np.zeros(hi - lo + 1, dtype=vs.dtype)
            dense[ks - lo] = vs
            t.index = ("dense", lo, present, dense)
        else:
            order = np.argsort(ks, kind="stable")
            t.index = ("sorted", ks[order], vs[order])
    return t.index


def find_values(t: HashTable, keys: np.ndarray, default):
    """The values of integer ``keys`` (an array), ``default`` for a miss; None where
    the table has no index."""
    index = sorted_index(t)
    if index is None:
        return None
    k = keys.astype(np.int64, copy=False)
    if index[0] == "dense":
        _, lo, present, dense = index
        ok = (k >= lo) & (k < lo + len(present))
        off = np.where(ok, k - lo, 0)
        return np.where(ok & present[off], dense[off], np.asarray(default, dtype=dense.dtype))
    _, sk, sv = index
    pos = np.minimum(np.searchsorted(sk, k), len(sk) - 1)
    return np.where(sk[pos] == k, sv[pos], np.asarray(default, dtype=sv.dtype))


def _table(x, op: str) -> HashTable:
    if not isinstance(x, HashTable):
        raise errors.InvalidArgumentError(
            None, None, f"Input 0 of {op} must be a lookup table resource, got "
            f"{type(x).__name__} [Op:{op}]")
    return x


def _keys(t) -> tuple:
    a = np.asarray(t.numpy())
    return a.reshape(-1).tolist(), a.shape


def check_reserved(table: HashTable, keys: list, op: str) -> None:
    """A dense table refuses its empty and deleted keys (TF's messages)."""
    if table.empty_key is None:
        return
    for k in keys:
        for reserved, what in ((table.empty_key, "empty_key"), (table.deleted_key, "deleted_key")):
            if k == reserved:
                raise errors.InvalidArgumentError(
                    None, None, f"Using the {what} as a table key is not allowed [Op:{op}]")


def _check_dtype(table: HashTable, t, which: str, op: str) -> None:
    want = table.key_dtype if which == "key" else table.value_dtype
    if isinstance(want, dtypes.DType) and t.dtype != want:
        raise errors.InvalidArgumentError(
            None, None, f"Expected {which} dtype {want.name}, got {t.dtype.name} [Op:{op}]")


def _create(library, attrs, inputs, mutable=False):
    return [HashTable(attrs.get("key_dtype"), attrs.get("value_dtype"), mutable)]


def _create_mutable(library, attrs, inputs):
    return _create(library, attrs, inputs, mutable=True)


def _scalar_key(t):
    v = np.asarray(t.numpy()).reshape(-1)
    return v[0] if v.dtype == object else v[0].item()


def _create_dense(library, attrs, inputs):
    empty, deleted = _scalar_key(inputs[0]), _scalar_key(inputs[1])
    if empty == deleted:
        raise errors.InvalidArgumentError(
            None, None, "Empty and deleted keys cannot be equal [Op:MutableDenseHashTableV2]")
    return [HashTable(attrs.get("key_dtype", inputs[0].dtype), attrs.get("value_dtype"), True,
                      empty, deleted)]


def _import(library, attrs, inputs):
    table, keys, values = inputs
    t = _table(table, "LookupTableImportV2")
    t.index = None
    _check_dtype(t, keys, "key", "LookupTableImportV2")
    _check_dtype(t, values, "value", "LookupTableImportV2")
    ks, _ = _keys(keys)
    vs, _ = _keys(values)
    if len(ks) != len(vs):
        raise errors.InvalidArgumentError(
            None, None, f"Expected shape {list(keys.shape)} for value, got "
            f"{list(values.shape)} [Op:LookupTableImportV2]")
    if t.empty_key is not None:  # a dense table's buckets: the free ones hold reserved keys
        t.table = {k: v for k, v in zip(ks, vs) if k != t.empty_key and k != t.deleted_key}
    elif t.mutable:
        t.table = dict(zip(ks, vs))
    else:
        for k, v in zip(ks, vs):
            _add_static(t, k, v, "LookupTableImportV2")
    return []


def _shown(x) -> str:
    return x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)


def _add_static(t: HashTable, key, value, op: str) -> None:
    """A static table takes a repeated key only with the same value (TF's HashTable)."""
    old = t.table.setdefault(key, value)
    if old != value:
        raise errors.FailedPreconditionError(
            None, None, f"HashTable has different value for same key. Key {_shown(key)} has "
            f"{_shown(old)} and trying to add value {_shown(value)} [Op:{op}]")


def _insert(library, attrs, inputs):
    table, keys, values = inputs
    t = _table(table, "LookupTableInsertV2")
    t.index = None
    _check_dtype(t, keys, "key", "LookupTableInsertV2")
    _check_dtype(t, values, "value", "LookupTableInsertV2")
    ks, _ = _keys(keys)
    vs, _ = _keys(values)
    check_reserved(t, ks, "LookupTableInsertV2")
    t.table.update(zip(ks, vs))
    return []


def _remove(library, attrs, inputs):
    t = _table(inputs[0], "LookupTableRemoveV2")
    t.index = None
    _check_dtype(t, inputs[1], "key", "LookupTableRemoveV2")
    ks = _keys(inputs[1])[0]
    check_reserved(t, ks, "LookupTableRemoveV2")
    for k in ks:
        t.table.pop(k, None)
    return []


_TF_TYPE_NAMES = {"float32": "float", "float64": "double"}


def _parse(token: bytes, dtype, n: int):
    if dtype == dtypes.string:
        return token
    try:
        return int(token) if dtype.is_integer else float(token)
    except ValueError:
        name = _TF_TYPE_NAMES.get(dtype.name, dtype.name)
        raise errors.InvalidArgumentError(
            None, None, f"Field {token.decode('utf-8', 'replace')} in line {n} is not a valid "
            f"{name}. [Op:InitializeTableFromTextFileV2]") from None


def _from_text_file(library, attrs, inputs):
    table, filename = inputs
    t = _table(table, "InitializeTableFromTextFileV2")
    t.index = None
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
    short = 0 <= len(lines) < vocab_size
    if vocab_size >= 0:
        lines = lines[:vocab_size]
    need = max(key_index, value_index) + 1

    def column(cols: list, line: bytes, n: int, index: int, dtype):
        if index == _WHOLE_LINE:
            return _parse(line, dtype, n)
        if index == _LINE_NUMBER:
            return n + offset
        return _parse(cols[index], dtype, n)

    for n, line in enumerate(lines):
        line = line.rstrip(b"\r")
        cols = line.split(delimiter) if need > 0 else []
        if len(cols) < need:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {path} line {n} "
                f"({line.decode('utf-8', 'replace')}) : expected at least {need} got "
                f"{len(cols)} [Op:InitializeTableFromTextFileV2]")
        key = column(cols, line, n, key_index, t.key_dtype)
        value = column(cols, line, n, value_index, t.value_dtype)
        if t.mutable:
            t.table[key] = value
        else:
            _add_static(t, key, value, "InitializeTableFromTextFileV2")
    if short:  # found after reading the whole file, as TF's reader does
        raise errors.InvalidArgumentError(
            None, None, f"Invalid vocab_size in {path}: expected {vocab_size} but got "
            f"{len(lines)} [Op:InitializeTableFromTextFileV2]")
    return []


def _find(library, attrs, inputs):
    table, keys, default = inputs
    t = _table(table, "LookupTableFindV2")
    _check_dtype(t, keys, "key", "LookupTableFindV2")
    d = default.numpy()
    d = d.item() if hasattr(d, "item") and np.ndim(d) == 0 else d
    dtype = t.value_dtype if isinstance(t.value_dtype, dtypes.DType) else default.dtype
    a = np.asarray(keys.numpy())
    if a.dtype != object and np.ndim(d) == 0:
        if t.empty_key is not None:
            check_reserved(t, [r for r in (t.empty_key, t.deleted_key) if np.any(a == r)],
                           "LookupTableFindV2")
        found = find_values(t, a, d)
        if found is not None:
            return [constant(found.reshape(a.shape), dtype=dtype)]
    ks, shape = a.reshape(-1).tolist(), a.shape
    check_reserved(t, ks, "LookupTableFindV2")
    get = t.table.get
    out = [get(k, d) for k in ks]
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
    "MutableDenseHashTableV2": _create_dense,
    "LookupTableImportV2": _import,
    "LookupTableInsertV2": _insert,
    "LookupTableRemoveV2": _remove,
    "InitializeTableFromTextFileV2": _from_text_file,
    "LookupTableFindV2": _find,
    "LookupTableSizeV2": _size,
    "LookupTableExportV2": _export,
}
