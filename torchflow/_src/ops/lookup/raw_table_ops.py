"""``tf.raw_ops``' lookup-table ops on table handles (``table.resource_handle``, or
the handle ``HashTableV2`` returns): they run ``graph_exec_tables``' kernels, the
same ones loaded SavedModel graphs run."""

from __future__ import annotations

from torchflow._src.core import dtypes, errors
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import graph_exec_tables as _gx
from torchflow._src.ops.lookup.table_ops import resource_tensor

_INPUTS = {  # the tensor inputs after table_handle
    "LookupTableFindV2": ("keys", "default_value"),
    "LookupTableImportV2": ("keys", "values"),
    "LookupTableInsertV2": ("keys", "values"),
    "LookupTableRemoveV2": ("keys",),
    "LookupTableSizeV2": (),
    "LookupTableExportV2": (),
}


def _table(handle, op: str):
    if isinstance(handle, Tensor) and handle.dtype == dtypes.resource:
        handle = handle._t[()]
    if not isinstance(handle, _gx.HashTable):
        raise errors.InvalidArgumentError(
            None, None, f"table_handle of {op} must be a lookup table resource, got "
            f"{type(handle).__name__} [Op:{op}]")
    return handle


def run(op: str, **kw):
    """Runs the table op ``op`` with its raw keywords."""
    if op in ("HashTableV2", "MutableHashTableV2"):
        return resource_tensor(_gx.HashTable(dtypes.as_dtype(kw["key_dtype"]),
                                             dtypes.as_dtype(kw["value_dtype"]),
                                             op == "MutableHashTableV2"))
    if op == "MutableDenseHashTableV2":
        empty, deleted = convert_to_tensor(kw["empty_key"]), convert_to_tensor(kw["deleted_key"])
        attrs = {"value_dtype": dtypes.as_dtype(kw["value_dtype"]), "key_dtype": empty.dtype}
        return resource_tensor(_gx.HANDLERS[op](None, attrs, [empty, deleted])[0])
    table = _table(kw["table_handle"], op)
    if op == "InitializeTableFromTextFileV2":
        attrs = {k: kw[k] for k in ("key_index", "value_index", "vocab_size", "delimiter",
                                    "offset")}
        _gx.HANDLERS[op](None, attrs, [table, convert_to_tensor(kw["filename"])])
        return None
    inputs = [table] + [convert_to_tensor(kw[n]) for n in _INPUTS[op]]
    out = _gx.HANDLERS[op](None, {}, inputs)
    if op == "LookupTableExportV2":
        return tuple(out)
    return out[0] if out else None
