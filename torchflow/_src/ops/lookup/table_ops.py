"""The lookup-table ops behind ``tf.lookup``'s tables.

Each op runs on a ``graph_exec_tables.HashTable`` (the table object loaded
SavedModel graphs use too), is one host node of traced functions (a replay looks
the keys up again, so a mutable table's later contents are seen, as in TF), and is
written as TF's op in the graphs SavedModel writes: the table is a captured
resource handle (``b.resource``), a vocabulary file a captured string (its asset).
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, graph_trace, op_graph
from torchflow._src.core.convert import constant
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import graph_exec_tables as _gx
from torchflow._src.ops.string_hash_ops import fingerprint64

HashTable = _gx.HashTable
_I64 = dtypes.int64


def resource_tensor(table: HashTable) -> Tensor:
    """A scalar ``resource`` tensor holding ``table`` (``table.resource_handle``)."""
    holder = np.empty((), dtype=object)
    holder[()] = table
    return wrap(holder, dtypes.resource)


_BUCKETS: dict = {}  # (key, num_oov) -> bucket: out-of-vocabulary keys repeat, and
_MAX_BUCKETS = 1 << 16  # Fingerprint64 written in Python costs microseconds a key


def _oov_buckets(keys: np.ndarray, num_oov: int) -> np.ndarray:
    """``Fingerprint64(AsString(key)) % num_oov`` of each key (TF's OOV bucket)."""
    out = np.empty(keys.size, np.int64)
    get = _BUCKETS.get
    for i, k in enumerate(keys.reshape(-1).tolist()):
        b = get((k, num_oov))
        if b is None:
            if len(_BUCKETS) >= _MAX_BUCKETS:
                _BUCKETS.clear()
            data = k if isinstance(k, bytes) else str(int(k)).encode()
            b = _BUCKETS[(k, num_oov)] = fingerprint64(data) % num_oov
        out[i] = b
    return out.reshape(keys.shape)


def _no_effect(*args, **kwargs):
    return None  # a trace without execution leaves the table as it is


@graph_trace.host_op(dry=graph_trace.RUN)
def create_table(table, shared_name: str, dense_keys=None) -> Tensor:
    """The handle of ``table``; written as ``HashTableV2`` (``MutableDenseHashTableV2``
    with ``dense_keys``, its empty and deleted keys and bucket count)."""
    return resource_tensor(table._resource)


@graph_trace.host_op(dry=_no_effect)
def import_values(table, keys: Tensor, values: Tensor) -> None:
    """``LookupTableImportV2``: fills a static table from ``keys`` and ``values``."""
    _gx.HANDLERS["LookupTableImportV2"](None, {}, [table._resource, keys, values])


@graph_trace.host_op(dry=_no_effect)
def init_from_text_file(table, vocab_file, key_index: int, value_index: int,
                        vocab_size: int, delimiter: str, offset: int) -> None:
    """``InitializeTableFromTextFileV2`` of ``vocab_file`` (an object with ``_path``)."""
    attrs = {"key_index": key_index, "value_index": value_index, "vocab_size": vocab_size,
             "delimiter": delimiter, "offset": offset}
    _gx.HANDLERS["InitializeTableFromTextFileV2"](
        None, attrs, [table._resource, constant(vocab_file._path)])


def _find_stand_in(table, keys: Tensor, default: Tensor) -> Tensor:
    # a trace's stand-in keys may be a dense table's reserved keys: no lookup
    d = table._resource.value_dtype
    fill = np.asarray(default.numpy()).reshape(-1)[0]
    return constant(np.full(np.shape(keys.numpy()), fill, dtype=object if d == dtypes.string else
                            d.as_numpy_dtype), dtype=d)


@graph_trace.host_op(dry=_find_stand_in)
def find(table, keys: Tensor, default: Tensor) -> Tensor:
    """``LookupTableFindV2``: the value of each key, ``default`` for a missing one."""
    return _gx.HANDLERS["LookupTableFindV2"](None, {}, [table._resource, keys, default])[0]


@graph_trace.host_op(dry=graph_trace.RUN)
def size(table) -> Tensor:
    """``LookupTableSizeV2``: the number of keys (int64)."""
    return constant(np.int64(len(table._resource.table)), dtype=_I64)


@graph_trace.host_op(dry=graph_trace.RUN)
def export(table) -> "tuple[Tensor, Tensor]":
    """``LookupTableExportV2``: the keys and values."""
    keys, values = _gx.HANDLERS["LookupTableExportV2"](None, {}, [table._resource])
    return keys, values


@graph_trace.host_op(dry=_no_effect)
def insert(table, keys: Tensor, values: Tensor) -> None:
    """``LookupTableInsertV2``: sets the values of ``keys``."""
    _gx.HANDLERS["LookupTableInsertV2"](None, {}, [table._resource, keys, values])


@graph_trace.host_op(dry=_no_effect)
def remove(table, keys: Tensor) -> None:
    """``LookupTableRemoveV2``: removes ``keys`` (missing ones are ignored)."""
    _gx.HANDLERS["LookupTableRemoveV2"](None, {}, [table._resource, keys])


@graph_trace.host_op(dry=graph_trace.RUN)
def vocab_lookup(table, keys: Tensor, num_oov: int) -> Tensor:
    """``StaticVocabularyTable.lookup``: a key's id, or ``Fingerprint64`` of its string
    form modulo ``num_oov`` plus the vocabulary size (int64 keys)."""
    flat = np.asarray(keys.numpy())
    flat = flat.astype(np.int64) if flat.dtype != object else flat
    if table is None:
        return constant(_oov_buckets(flat, num_oov), dtype=_I64)
    t = table._resource
    ids = _gx.find_values(t, flat, -1) if flat.dtype != object else None
    if ids is None:
        get = t.table.get
        ids = np.fromiter((get(k, -1) for k in flat.reshape(-1).tolist()), np.int64,
                          flat.size).reshape(flat.shape)
    miss = ids == -1
    if miss.any():  # Fingerprint64 only for the keys out of the vocabulary
        ids = ids.astype(np.int64, copy=True)
        ids[miss] = _oov_buckets(flat[miss], num_oov) + len(t.table)
    return constant(ids.astype(np.int64, copy=False), dtype=_I64)


# --- TF graphs ------------------------------------------------------------------------

def _n(b, op: str, inputs: list, attrs: dict, d, name: str | None = None) -> str:
    return f"{b.node(op, inputs, attrs, name=name or op, out_dtypes=[d])}:0"


def _lower_create(b, call):
    a = call.args
    t: HashTable = a["table"]._resource
    attrs = {"container": "", "shared_name": a["shared_name"], "key_dtype": t.key_dtype,
             "value_dtype": t.value_dtype}
    if a.get("dense_keys") is None:
        attrs["use_node_name_sharing"] = False
        return [_n(b, "HashTableV2", [], attrs, dtypes.resource, "hash_table")]
    empty, deleted, num_buckets = a["dense_keys"]
    attrs.update(use_node_name_sharing=False, value_shape=op_graph.shape_attr([]),
                 initial_num_buckets=num_buckets, max_load_factor=0.8)
    kd = t.key_dtype
    ins = [b.constant(np.asarray(empty, dtype=object if kd == dtypes.string else
                                 kd.as_numpy_dtype), kd),
           b.constant(np.asarray(deleted, dtype=object if kd == dtypes.string else
                                 kd.as_numpy_dtype), kd)]
    return [_n(b, "MutableDenseHashTableV2", ins, attrs, dtypes.resource,
               "MutableDenseHashTable")]


def _handle(b, table) -> str:
    return b.resource(table, name="table_handle")


def _lower_import(b, call):
    a = call.args
    t = a["table"]
    b.node("LookupTableImportV2", [_handle(b, t), b.input(a["keys"]), b.input(a["values"])],
           {"Tin": t._resource.key_dtype, "Tout": t._resource.value_dtype}, name="table_init/LookupTableImportV2")
    return []


def _lower_text_file(b, call):
    a = call.args
    path = b.resource(a["vocab_file"], dtypes.string, name="asset_path")
    attrs = {"key_index": a["key_index"], "value_index": a["value_index"],
             "vocab_size": a["vocab_size"], "delimiter": a["delimiter"], "offset": a["offset"]}
    b.node("InitializeTableFromTextFileV2", [_handle(b, a["table"]), path], attrs,
           name="text_file_init/InitializeTableFromTextFileV2")
    return []


def _lower_find(b, call):
    a = call.args
    t = a["table"]
    return [_n(b, "LookupTableFindV2", [_handle(b, t), b.input(a["keys"]),
                                        b.input(a["default"])],
               {"Tin": t._resource.key_dtype, "Tout": t._resource.value_dtype},
               t._resource.value_dtype,
               "hash_table_Lookup/LookupTableFindV2")]


def _lower_size(b, call):
    return [_n(b, "LookupTableSizeV2", [_handle(b, call.args["table"])], {}, _I64,
               "hash_table_Size/LookupTableSizeV2")]


def _lower_export(b, call):
    t = call.args["table"]
    node = b.node("LookupTableExportV2", [_handle(b, t)],
                  {"Tkeys": t._resource.key_dtype, "Tvalues": t._resource.value_dtype},
                  name="hash_table_lookup_table_export_values/LookupTableExportV2",
                  out_dtypes=[t._resource.key_dtype, t._resource.value_dtype])
    return [f"{node}:0", f"{node}:1"]


def _lower_insert(b, call):
    a = call.args
    t = a["table"]
    b.node("LookupTableInsertV2", [_handle(b, t), b.input(a["keys"]), b.input(a["values"])],
           {"Tin": t._resource.key_dtype, "Tout": t._resource.value_dtype}, name="LookupTableInsertV2")
    return []


def _lower_remove(b, call):
    t = call.args["table"]
    b.node("LookupTableRemoveV2", [_handle(b, t), b.input(call.args["keys"])],
           {"Tin": t._resource.key_dtype}, name="LookupTableRemoveV2")
    return []


def _lower_vocab(b, call):
    a = call.args
    t, keys, num_oov = a["table"], a["keys"], int(a["num_oov"])
    d, x = keys.dtype, b.input(keys)
    if t is not None and t._resource.key_dtype == _I64 and d != _I64:
        x = _n(b, "Cast", [x], {"SrcT": d, "DstT": _I64, "Truncate": False}, _I64)
        d = _I64
    s = x if d == dtypes.string else _n(
        b, "AsString", [x], {"T": d, "precision": -1, "scientific": False, "shortest": False,
                             "width": -1, "fill": ""}, dtypes.string, "hash_bucket/AsString")
    buckets = _n(b, "StringToHashBucketFast", [s], {"num_buckets": num_oov}, _I64,
                 "hash_bucket")
    if t is None:
        return [buckets]
    h = _handle(b, t)
    minus1 = b.constant(np.int64(-1), _I64)
    ids = _n(b, "LookupTableFindV2", [h, x, minus1], {"Tin": t._resource.key_dtype, "Tout": _I64}, _I64,
             "hash_table_Lookup/LookupTableFindV2")
    sz = _n(b, "LookupTableSizeV2", [h], {}, _I64, "hash_table_Size/LookupTableSizeV2")
    buckets = _n(b, "AddV2", [buckets, sz], {"T": _I64}, _I64, "Add")
    hit = _n(b, "NotEqual", [ids, minus1], {"T": _I64, "incompatible_shape_error": True},
             dtypes.bool, "NotEqual")
    return [_n(b, "SelectV2", [hit, ids, buckets], {"T": _I64}, _I64, "SelectV2")]


for _fn, _lower in ((create_table, _lower_create), (import_values, _lower_import),
                    (init_from_text_file, _lower_text_file), (find, _lower_find),
                    (size, _lower_size), (export, _lower_export), (insert, _lower_insert),
                    (remove, _lower_remove), (vocab_lookup, _lower_vocab)):
    op_graph.register(_fn, _lower)
