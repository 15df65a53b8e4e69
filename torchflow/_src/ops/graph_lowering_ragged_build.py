"""TF lowerings of the ops that build ragged tensors from dense ones: the
``RaggedTensor.from_row_splits`` / ``from_row_lengths`` / ``from_value_rowids``
factories, ``tf.ragged.range`` and ``tf.strings.split``.

A factory's result is its values with a row partition made of TF ops on its
arguments, as TF's ragged library builds it: ``from_row_splits`` is the splits
themselves, ``from_row_lengths`` ``ConcatV2([0], Cumsum(lengths))``,
``from_value_rowids`` the ``Cumsum`` of the ids' ``DenseBincount``;
``tf.ragged.range`` is ``RaggedRange``, ``tf.strings.split`` ``StringSplitV2`` and
the row splits of its indices' row ids. The partition's validation (TF's ``Assert``
ops) is not written: a saved function trusts its arguments.
"""

from __future__ import annotations

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import string_ops
from torchflow._src.ops.ragged import ragged_convert, ragged_factory, ragged_gather
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.util import nest

_I32 = dtypes.int32


def _op(b, op: str, inputs: list, d, name=None, **attrs) -> str:
    return f"{b.node(op, inputs, {'T': d, **attrs}, name=name, out_dtypes=[d])}:0"


def refuse(b, call) -> list:
    """``Unlowered`` endpoints for the call's outputs: the graph cannot be written
    (never a constant of the values the trace computed)."""
    out = []
    for o in nest.flatten(call.outputs, expand_composites=True):
        if isinstance(o, Tensor):
            n = b.node("Unlowered", [], {"dtype": o.dtype, "source": b.reader},
                       out_dtypes=[o.dtype], exportable=False)
            b.graph.unexportable[-1] = f"Unlowered (made by {b.reader})"
            out.append(f"{n}:0")
    return out


def _result(b, out, values, splits_ep: str):
    """The endpoints of ``out`` (a RaggedTensor of ``values`` partitioned by
    ``splits_ep``): its flat values, then each row splits."""
    if not isinstance(out, RaggedTensor):
        return None
    if isinstance(values, RaggedTensor):
        if values.row_splits_dtype != out.row_splits_dtype:
            return None  # recast inner splits: not the arguments' tensors
        return [b.input(values.flat_values), splits_ep] + [
            b.input(s) for s in values.nested_row_splits]
    v = values if isinstance(values, Tensor) else convert_to_tensor(values)
    return [b.input(v), splits_ep]


def _from_row_splits(b, call):
    a = call.args
    splits = a["row_splits"]
    if not isinstance(splits, Tensor):
        return None  # a constant partition: the result's splits are a constant
    return _result(b, call.outputs, a["values"], b.input(splits))


def _splits_of_lengths(b, lengths: str, d) -> str:
    """``concat([[0], cumsum(lengths)], 0)``."""
    zero = b.constant(0, _I32)
    cs = _op(b, "Cumsum", [lengths, zero], d, name="RowPartitionFromRowLengths/Cumsum",
             Tidx=_I32, exclusive=False, reverse=False)
    return _op(b, "ConcatV2", [b.constant([0], d), cs, zero], d,
               name="RowPartitionFromRowLengths/concat", N=2, Tidx=_I32)


def _from_row_lengths(b, call):
    a = call.args
    lengths = a["row_lengths"]
    if not isinstance(lengths, Tensor):
        return None
    return _result(b, call.outputs, a["values"],
                   _splits_of_lengths(b, b.input(lengths), lengths.dtype))


def _cast(b, ep: str, src, dst) -> str:
    if src == dst:
        return ep
    n = b.node("Cast", [ep], {"SrcT": src, "DstT": dst, "Truncate": False}, name="Cast",
               out_dtypes=[dst])
    return f"{n}:0"


def _splits_of_rowids(b, ids: str, d, nrows: str) -> str:
    """Row splits of sorted row ids: the ``Cumsum`` of their ``DenseBincount`` over
    ``nrows`` bins (``nrows`` of dtype ``d``)."""
    counts = b.node("DenseBincount", [_cast(b, ids, d, _I32), _cast(b, nrows, d, _I32),
                                      b.constant([], d)],
                    {"Tidx": _I32, "T": d, "binary_output": False}, name="bincount/DenseBincount",
                    out_dtypes=[d])
    return _splits_of_lengths(b, f"{counts}:0", d)


def _from_value_rowids(b, call):
    a = call.args
    ids, nrows = a["value_rowids"], a.get("nrows")
    if not isinstance(ids, Tensor):
        return None
    d = ids.dtype
    ep = b.input(ids)
    if nrows is None:  # ids[-1] + 1, 0 for no ids: concat([ids[-1:], [-1]])[0] + 1
        last = _op(b, "StridedSlice", [ep, b.constant([-1], _I32), b.constant([0], _I32),
                                       b.constant([1], _I32)], d, name="strided_slice",
                   Index=_I32, begin_mask=0, end_mask=1, ellipsis_mask=0, new_axis_mask=0,
                   shrink_axis_mask=0)
        cat = _op(b, "ConcatV2", [last, b.constant([-1], d), b.constant(0, _I32)], d,
                  name="concat", N=2, Tidx=_I32)
        first = _op(b, "StridedSlice", [cat, b.constant([0], _I32), b.constant([1], _I32),
                                        b.constant([1], _I32)], d, name="strided_slice",
                    Index=_I32, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                    shrink_axis_mask=1)
        n = _op(b, "AddV2", [first, b.constant(1, d)], d, name="add")
    elif isinstance(nrows, Tensor):
        n = _cast(b, b.input(nrows), nrows.dtype, d)
    else:
        n = b.constant(int(nrows), d)
    return _result(b, call.outputs, a["values"], _splits_of_rowids(b, ep, d, n))


def _ragged_range(b, call):
    """TF's ``RaggedRange(starts, limits, deltas)`` (outputs: splits, values)."""
    a = call.args
    out = call.outputs
    starts, limits, deltas = a["starts"], a["limits"], a["deltas"]
    if limits is None:
        starts, limits = 0, starts
    if not any(isinstance(x, Tensor) for x in (starts, limits, deltas)):
        return None  # a constant result
    d, sd = out.dtype, out.row_splits_dtype
    eps = [_cast(b, b.input(x), x.dtype, d) if isinstance(x, Tensor) else b.constant(x, d)
           for x in (starts, limits, deltas)]
    n = b.node("RaggedRange", eps, {"T": d, "Tsplits": sd}, name="RaggedRange",
               out_dtypes=[sd, d])
    return [f"{n}:1", f"{n}:0"]


def _strings_split(b, call):
    """TF's ``StringSplitV2(input, sep)`` (sparse indices, values, shape), its result's
    row splits from the indices' row ids (``from_value_rowids`` with ``nrows`` the
    shape's first dimension)."""
    a = call.args
    x = a["input"]
    if not isinstance(x, Tensor):
        return None
    if x.shape.rank != 1:
        return refuse(b, call)  # scalar and rank > 1 inputs: not lowered
    sep = a.get("sep")
    i64 = dtypes.int64
    node = b.node("StringSplitV2", [b.input(x), b.constant(sep or b"", dtypes.string)],
                  {"maxsplit": int(a.get("maxsplit", -1))}, name="StringSplit",
                  out_dtypes=[i64, dtypes.string, i64])
    ids = _op(b, "StridedSlice", [f"{node}:0", b.constant([0, 0], _I32),
                                  b.constant([0, 1], _I32), b.constant([1, 1], _I32)], i64,
              name="strided_slice", Index=_I32, begin_mask=1, end_mask=1, ellipsis_mask=0,
              new_axis_mask=0, shrink_axis_mask=2)
    nrows = _op(b, "StridedSlice", [f"{node}:2", b.constant([0], _I32), b.constant([1], _I32),
                                    b.constant([1], _I32)], i64, name="strided_slice",
                Index=_I32, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                shrink_axis_mask=1)
    return [f"{node}:1", _splits_of_rowids(b, ids, i64, nrows)]


def _components(b, x) -> list:
    """The endpoints of ``x``'s components: flat values, then each row splits."""
    if isinstance(x, RaggedTensor):
        return [b.input(x.flat_values)] + [b.input(s) for s in x.nested_row_splits]
    return [b.input(x)]


def _gather1(b, params: str, indices: str, d, di) -> str:
    n = b.node("GatherV2", [params, indices, b.constant(0, _I32)],
               {"Tparams": d, "Tindices": di, "Taxis": _I32, "batch_dims": 0}, name="GatherV2",
               out_dtypes=[d])
    return f"{n}:0"


def _merge(b, rt, outer: int, inner: int):
    """Endpoints of ``ragged_convert._merge(rt, outer, inner)``'s components, or None
    (a dense dimension merged: not lowered)."""
    if not isinstance(rt, RaggedTensor):
        return None
    if outer == 0:
        v = rt
        for _ in range(inner):
            if not isinstance(v, RaggedTensor):
                return None
            v = v.values
        return _components(b, v)
    if outer > 1:
        sub = _merge(b, rt.values, outer - 1, inner - 1)
        return None if sub is None else [sub[0], b.input(rt.row_splits)] + sub[1:]
    sd = rt.row_splits_dtype
    s, v = b.input(rt.row_splits), rt.values
    for _ in range(inner - 1):
        if not isinstance(v, RaggedTensor) or v.row_splits_dtype != sd:
            return None
        s = _gather1(b, b.input(v.row_splits), s, sd, sd)  # the inner splits at the outer
        v = v.values
    rest = _components(b, v)
    return [rest[0], s] + rest[1:]


def _merge_dims(b, call):
    a = call.args
    rt = a["self"]
    if not isinstance(rt, RaggedTensor) or call.outputs is rt:
        return None
    rank = rt.shape.rank or 0
    outer, inner = int(a["outer_axis"]), int(a["inner_axis"])
    out = _merge(b, rt, outer + rank if outer < 0 else outer, inner + rank if inner < 0 else inner)
    return out if out is not None else refuse(b, call)


def _concat_rows(b, call):
    """Ragged tensors of one ragged rank along axis 0: ``ConcatV2`` of the values, and
    of the splits each shifted by the values before it."""
    rts = call.args["rts"]
    if not all(isinstance(r, RaggedTensor) for r in rts) and not all(
            isinstance(r, Tensor) for r in rts):
        return refuse(b, call)
    return _concat_eps(b, list(rts)) or refuse(b, call)


def _concat_eps(b, rts: list):
    zero = b.constant(0, _I32)
    if isinstance(rts[0], Tensor):
        d = rts[0].dtype
        return [_op(b, "ConcatV2", [b.input(r) for r in rts] + [zero], d, name="concat",
                    N=len(rts), Tidx=_I32)]
    sd = rts[0].row_splits_dtype
    if any(not isinstance(r, RaggedTensor) or r.row_splits_dtype != sd for r in rts):
        return None
    parts, offset = [], None
    for r in rts:
        s = b.input(r.row_splits)
        if offset is None:
            parts.append(s)
        else:
            tail = _op(b, "StridedSlice", [s, b.constant([1], _I32), b.constant([0], _I32),
                                           b.constant([1], _I32)], sd, name="strided_slice",
                       Index=_I32, begin_mask=0, end_mask=1, ellipsis_mask=0,
                       new_axis_mask=0, shrink_axis_mask=0)
            parts.append(_op(b, "AddV2", [tail, offset], sd, name="add"))
        last = _op(b, "StridedSlice", [s, b.constant([-1], _I32), b.constant([0], _I32),
                                       b.constant([1], _I32)], sd, name="strided_slice",
                   Index=_I32, begin_mask=0, end_mask=1, ellipsis_mask=0, new_axis_mask=0,
                   shrink_axis_mask=1)
        offset = last if offset is None else _op(b, "AddV2", [offset, last], sd, name="add")
    splits = _op(b, "ConcatV2", parts + [zero], sd, name="concat", N=len(parts), Tidx=_I32)
    inner = _concat_eps(b, [r.values for r in rts])
    return None if inner is None else [inner[0], splits] + inner[1:]


def _batch_rows(b, call):
    """``parts`` as the rows of one RaggedTensor: the parts concatenated along axis 0,
    under the splits of their row counts (``Pack`` of each ``Shape``'s first entry)."""
    a = call.args
    parts, rr = list(a["parts"]), int(a["ragged_rank"])
    sd = dtypes.as_dtype(a.get("splits_dtype", dtypes.int64))
    if rr and not all(isinstance(p, RaggedTensor) and p.ragged_rank == rr for p in parts) or \
            not rr and not all(isinstance(p, Tensor) for p in parts):
        return refuse(b, call)
    inner = _concat_eps(b, parts)
    if inner is None:
        return refuse(b, call)
    counts = []
    for p in parts:
        src = p.row_splits if isinstance(p, RaggedTensor) else p
        shape = f"{b.node('Shape', [b.input(src)], {'T': src.dtype, 'out_type': sd}, name='Shape', out_dtypes=[sd])}:0"
        n = _op(b, "StridedSlice", [shape, b.constant([0], _I32), b.constant([1], _I32),
                                    b.constant([1], _I32)], sd, name="strided_slice",
                Index=_I32, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                shrink_axis_mask=1)
        counts.append(_op(b, "Sub", [n, b.constant(1, sd)], sd, name="sub")
                      if isinstance(p, RaggedTensor) else n)
    lengths = _op(b, "Pack", counts, sd, name="stack", N=len(counts), axis=0)
    return [inner[0], _splits_of_lengths(b, lengths, sd)] + inner[1:]


def _boolean_mask(b, call):
    """A ragged matrix masked by a ragged bool matrix of its partition: ``GatherV2`` of
    the values at ``Where(mask)``, the splits the kept counts before each row start
    (``GatherV2(ConcatV2([0], Cumsum(Cast(mask))), splits)``)."""
    a = call.args
    data, mask = a["data"], a["mask"]
    out = call.outputs
    if not (isinstance(data, RaggedTensor) and isinstance(mask, RaggedTensor) and
            isinstance(out, RaggedTensor) and data.ragged_rank == mask.ragged_rank == 1 and
            mask.flat_values.shape.rank == 1):
        return refuse(b, call)
    sd, i64 = mask.row_splits_dtype, dtypes.int64
    m = b.input(mask.flat_values)
    where = f"{b.node('Where', [m], {'T': dtypes.bool}, name='Where', out_dtypes=[i64])}:0"
    idx = _op(b, "Squeeze", [where], i64, name="Squeeze", squeeze_dims=[1])
    vals = _gather1(b, b.input(data.flat_values), idx, data.dtype, i64)
    kept = _splits_of_lengths(b, _cast(b, m, dtypes.bool, sd), sd)
    return [vals, _gather1(b, kept, b.input(mask.row_splits), sd, sd)]


def _gather0(b, call):
    """TF's ``RaggedGather`` of the rows of a ragged-rank-1 ``params`` at a vector of
    indices (outputs: the splits, the values)."""
    a = call.args
    params, indices = a["params"], a["indices"]
    if isinstance(params, RaggedTensor) and isinstance(indices, RaggedTensor):
        return refuse(b, call)
    if not isinstance(params, RaggedTensor):  # dense rows: GatherV2 (of ragged indices'
        if not isinstance(params, Tensor):    # flat values, their splits kept)
            return refuse(b, call)
        flat = indices.flat_values if isinstance(indices, RaggedTensor) else indices
        ep = _gather1(b, b.input(params), b.input(flat), params.dtype, flat.dtype)
        return [ep] + ([b.input(s) for s in indices.nested_row_splits]
                       if isinstance(indices, RaggedTensor) else [])
    if not isinstance(indices, Tensor) or params.ragged_rank != 1 or indices.shape.rank != 1:
        return refuse(b, call)
    sd, d = params.row_splits_dtype, params.dtype
    n = b.node("RaggedGather", [b.input(params.row_splits), b.input(params.flat_values),
                                b.input(indices)],
               {"Tvalues": d, "Tindices": indices.dtype, "Tsplits": sd,
                "PARAMS_RAGGED_RANK": 1, "OUTPUT_RAGGED_RANK": 1}, name="RaggedGather",
               out_dtypes=[sd, d])
    return [f"{n}:1", f"{n}:0"]


op_graph.register(ragged_convert.merge_dims, _merge_dims, composite=True)
op_graph.register(ragged_factory.concat_rows, _concat_rows, composite=True)
op_graph.register(ragged_factory.batch_rows, _batch_rows, composite=True)
op_graph.register(ragged_factory.boolean_mask, _boolean_mask, composite=True)
op_graph.register(ragged_gather.gather0, _gather0, composite=True)
op_graph.register(RaggedTensor.from_row_splits, _from_row_splits, composite=True)
op_graph.register(RaggedTensor.from_row_lengths, _from_row_lengths, composite=True)
op_graph.register(RaggedTensor.from_value_rowids, _from_value_rowids, composite=True)
op_graph.register(ragged_factory.range, _ragged_range)
op_graph.register(string_ops.split, _strings_split)
