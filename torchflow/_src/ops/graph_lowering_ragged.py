"""TF graphs of ragged and sparse values: their stand-ins in dry traces, and the TF
lowerings of the ragged ops that do not reduce to dense ops on the components.

A ``tf.function`` argument of a ``RaggedTensorSpec`` is, in TF's graph, one
placeholder per component (``flat_values``, then each ``row_splits``); a
``SparseTensorSpec`` one each for ``indices``, ``values`` and ``dense_shape``. The
dry trace that builds the graph (``core.function``) binds them to a stand-in value
of the spec made here (rows of length ``unknown`` in each ragged dimension).

Ops on a ragged argument are transparent in the op graph (``op_graph.register``):
elementwise ops dispatch to the flat values and are recorded as the dense ops they
run. The ragged ops computed directly on torch get a lowering here, as the TF ops
TF's ragged library builds: ``RaggedTensorToTensor``, row lengths as ``Sub`` of
``StridedSlice``\\ s, reductions over a ragged axis as ``UnsortedSegment*`` ops over
row ids (``UpperBound`` of the row limits), ``tf.sparse.to_dense`` as
``SparseToDense``; ``tf.sequence_mask`` as TF 2.4 builds it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchflow._src.core import dtypes, function, op_graph
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.ops import (
    graph_lowering_preprocessing,
    graph_lowering_ragged_build,
    graph_lowering_strings,
    shape_ops,
    string_hash_ops,
)
from torchflow._src.ops.ragged import ragged_convert, ragged_dispatch, ragged_reduce
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from torchflow._src.ops.sparse import sparse_math, sparse_ops
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor, SparseTensorSpec

_I32 = dtypes.int32


def _zeros(dims, dtype) -> Tensor:
    if dtype is dtypes.string:
        return wrap(np.full(tuple(dims), b"", dtype=object), dtype)
    return wrap(torch.zeros(tuple(dims), dtype=dtype._torch), dtype)


def ragged_placeholder(spec: RaggedTensorSpec, unknown: int = 1):
    """A value of ``spec`` whose unknown sizes are ``unknown``: every row of each
    ragged dimension ``unknown`` long."""
    dims = spec.shape.as_list() if spec.shape.rank is not None else None
    if spec.ragged_rank == 0:
        return function._placeholder(TensorSpec(spec.shape, spec.dtype), unknown)
    if dims is None:
        dims = [None] * (spec.ragged_rank + 1)
    d0 = dims[0]
    nrows: int = d0 if d0 is not None else unknown
    splits, n = [], nrows
    for k in range(1, spec.ragged_rank + 1):
        dk = dims[k]
        length: int = dk if dk is not None else unknown
        s = torch.arange(n + 1, dtype=spec.row_splits_dtype._torch) * length
        splits.append(wrap(s, spec.row_splits_dtype))
        n = n * length
    inner = [d if d is not None else unknown for d in dims[spec.ragged_rank + 1:]]
    fv_spec = spec.flat_values_spec
    flat = _zeros([n] + inner, fv_spec.dtype if fv_spec is not None else spec.dtype)
    return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


def sparse_placeholder(spec: SparseTensorSpec, unknown: int = 1) -> SparseTensor:
    """A value of ``spec`` with one stored value (at the origin); unknown dimensions
    ``unknown``."""
    shape = spec.shape
    rank = shape.rank if shape.rank is not None else 1
    dims = shape.as_list() if shape.rank is not None else [None]
    dense = [d if d is not None else unknown for d in dims]
    n = 1 if all(d > 0 for d in dense) else 0
    indices = wrap(torch.zeros((n, rank), dtype=torch.int64), dtypes.int64)
    values = _zeros([n], spec.dtype)
    dense_shape = wrap(torch.tensor(dense, dtype=torch.int64), dtypes.int64)
    return SparseTensor(indices, values, dense_shape)


# --- lowerings ------------------------------------------------------------------------
def _op(b, op: str, inputs: list, d, name=None, **attrs) -> str:
    return f"{b.node(op, inputs, {'T': d, **attrs}, name=name, out_dtypes=[d])}:0"


def _slice1(b, x: str, d, begin: int, end: int, begin_mask: int, end_mask: int) -> str:
    """``x[begin:end]`` of a vector (TF's ``StridedSlice``, as ``x[1:]`` builds it)."""
    return _op(b, "StridedSlice", [x, b.constant([begin], _I32), b.constant([end], _I32),
                                   b.constant([1], _I32)], d, name="strided_slice",
               Index=_I32, begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=0,
               new_axis_mask=0, shrink_axis_mask=0)


def _row_lengths_of(b, splits: Tensor) -> str:
    """``splits[1:] - splits[:-1]``, as TF's ``RaggedTensor.row_lengths``."""
    d = splits.dtype
    s = b.input(splits)
    return _op(b, "Sub", [_slice1(b, s, d, 1, 0, 0, 1), _slice1(b, s, d, 0, -1, 1, 0)], d,
               name="sub")


def _row_lengths(b, call):
    rt, axis = call.args["self"], call.args.get("axis", 1)
    if axis != 1 or not isinstance(rt, RaggedTensor):
        return _unlowered(b, call)
    return [_row_lengths_of(b, rt.row_splits)]


def _unlowered(b, call):
    out = []
    for o in _tensors(call.outputs):
        n = b.node("Unlowered", [], {"dtype": o.dtype}, out_dtypes=[o.dtype], exportable=False)
        out.append(f"{n}:0")
    return out


def _tensors(x) -> list:
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (RaggedTensor, SparseTensor)):
        spec: Any = x._type_spec
        return [c for c in spec._to_components(x) if isinstance(c, Tensor)]
    if isinstance(x, (list, tuple)):
        return [e for y in x for e in _tensors(y)]
    return []


def _to_tensor(b, call):
    """TF's ``RaggedTensorToTensor`` (shape -1 when not given, row partitions as
    ``ROW_SPLITS``)."""
    a = call.args
    rt = a["self"]
    d, si = rt.dtype, rt.row_splits_dtype
    shape = a.get("shape")
    if shape is None:
        sh = b.constant(-1, si)
    else:
        dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
        sh = b.constant([-1 if x is None else int(x) for x in dims], si)
    default = a.get("default_value")
    if default is None:
        default = b"" if d is dtypes.string else 0
    dv = b.input(default, d) if isinstance(default, Tensor) else b.constant(
        np.asarray(default, dtype=object if d is dtypes.string else d.as_numpy_dtype), d)
    splits = [b.input(s) for s in rt.nested_row_splits]
    node = b.node("RaggedTensorToTensor", [sh, b.input(rt.flat_values), dv] + splits,
                  {"T": d, "Tindex": si, "Tshape": si,
                   "num_row_partition_tensors": len(splits),
                   "row_partition_types": ["ROW_SPLITS"] * len(splits)},
                  name="RaggedToTensor/RaggedTensorToTensor", out_dtypes=[d])
    return [f"{node}:0"]


def _sequence_mask(b, call):
    """TF 2.4's ``sequence_mask``: ``Range(0, maxlen) < Cast(ExpandDims(lengths, -1))``
    (``maxlen`` the lengths' ``Max`` when not given)."""
    a = call.args
    lengths = a["lengths"]
    if not isinstance(lengths, Tensor):
        return None  # a constant result
    ld = lengths.dtype
    ln = b.input(lengths)
    maxlen = a.get("maxlen")
    if maxlen is None:
        axes = b.constant(list(range(lengths.shape.rank or 0)), _I32)
        m = _op(b, "Max", [ln, axes], ld, Tidx=_I32, keep_dims=False)
        md = ld
    elif isinstance(maxlen, Tensor):
        m, md = b.input(maxlen), maxlen.dtype
    else:
        m, md = b.constant(int(maxlen), ld), ld
    rng = f"{b.node('Range', [b.constant(0, md), m, b.constant(1, md)], {'Tidx': md}, name='SequenceMask/Range', out_dtypes=[md])}:0"
    ex = f"{b.node('ExpandDims', [ln, b.constant(-1, _I32)], {'T': ld, 'Tdim': _I32}, name='SequenceMask/ExpandDims', out_dtypes=[ld])}:0"
    if ld != md:
        ex = f"{b.node('Cast', [ex], {'SrcT': ld, 'DstT': md, 'Truncate': False}, name='SequenceMask/Cast', out_dtypes=[md])}:0"
    mask = f"{b.node('Less', [rng, ex], {'T': md}, name='SequenceMask/Less', out_dtypes=[dtypes.bool])}:0"
    out_d = dtypes.as_dtype(a.get("dtype") or dtypes.bool)
    if out_d != dtypes.bool:
        mask = f"{b.node('Cast', [mask], {'SrcT': dtypes.bool, 'DstT': out_d, 'Truncate': False}, out_dtypes=[out_d])}:0"
    return [mask]


_SEGMENT = {"sum": "UnsortedSegmentSum", "max": "UnsortedSegmentMax",
            "min": "UnsortedSegmentMin", "prod": "UnsortedSegmentProd"}
_DENSE = {"sum": "Sum", "max": "Max", "min": "Min", "prod": "Prod", "mean": "Mean"}


def _segment_ids(b, splits: Tensor) -> "tuple[str, str]":
    """The row id of each value (``UpperBound(splits[1:], range(splits[-1]))``) and the
    number of rows, as endpoints."""
    sd = splits.dtype
    s = b.input(splits)
    limits = _slice1(b, s, sd, 1, 0, 0, 1)
    total = _op(b, "StridedSlice", [s, b.constant([-1], _I32), b.constant([0], _I32),
                                    b.constant([1], _I32)], sd, Index=_I32, begin_mask=0,
                end_mask=1, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=1)
    pos = f"{b.node('Range', [b.constant(0, sd), total, b.constant(1, sd)], {'Tidx': sd}, out_dtypes=[sd])}:0"
    zero = b.constant(0, _I32)
    row = lambda x: _op(b, "ExpandDims", [x, zero], sd, Tdim=_I32)  # noqa: E731
    ids = f"{b.node('UpperBound', [row(limits), row(pos)], {'T': sd, 'out_type': sd}, out_dtypes=[sd])}:0"
    ids = _op(b, "Squeeze", [ids], sd, squeeze_dims=[0])
    shape = f"{b.node('Shape', [s], {'T': sd, 'out_type': sd}, out_dtypes=[sd])}:0"
    n = _op(b, "StridedSlice", [shape, b.constant([0], _I32), b.constant([1], _I32),
                                b.constant([1], _I32)], sd, Index=_I32, begin_mask=0,
            end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=1)
    return ids, _op(b, "Sub", [n, b.constant(1, sd)], sd)


def _column_ids(b, splits: Tensor) -> "tuple[str, str]":
    """Each value's position in its row and the longest row's length (at least 0), as
    endpoints: TF's segments for a reduction over axis 0 (``RaggedRange`` of the row
    lengths, ``Maximum(Max(row_lengths), 0)``)."""
    sd = splits.dtype
    lengths = _row_lengths_of(b, splits)
    width = _op(b, "Max", [lengths, b.constant([0], _I32)], sd, Tidx=_I32, keep_dims=False)
    width = _op(b, "Maximum", [width, b.constant(0, sd)], sd)
    rr = b.node("RaggedRange", [b.constant(0, sd), lengths, b.constant(1, sd)],
                {"T": sd, "Tsplits": dtypes.int64}, name="RaggedRange",
                out_dtypes=[dtypes.int64, sd])
    return f"{rr}:1", width


def _reduce_flat(b, kind, x, axis: int, keepdims: bool, flat_ep=None):
    """The endpoint of ``_reduce_one(kind, x, axis)``'s flat values (or dense result);
    None where there is no lowering (a ragged segment)."""
    if not isinstance(kind, str):
        return None
    if kind in ("all", "any"):  # TF: the int32 cast's segment Prod / Sum, cast back
        d = x.dtype
        src = flat_ep or b.input(x.flat_values if isinstance(x, RaggedTensor) else x)
        cast = b.node("Cast", [src], {"SrcT": d, "DstT": _I32, "Truncate": False},
                      name="Cast", out_dtypes=[_I32])
        out = _reduce_flat(b, "prod" if kind == "all" else "sum", x, axis, keepdims,
                           f"{cast}:0")
        if out is None:
            return None
        back = b.node("Cast", [out], {"SrcT": _I32, "DstT": d, "Truncate": False},
                      name="Cast", out_dtypes=[d])
        return f"{back}:0"
    if not isinstance(x, RaggedTensor):
        if kind not in _DENSE or not isinstance(x, Tensor):
            return None
        src = flat_ep or b.input(x)
        return _op(b, _DENSE[kind], [src, b.constant([axis], _I32)], x.dtype, Tidx=_I32,
                   keep_dims=bool(keepdims))
    rr = x.ragged_rank
    if axis > rr:
        return _reduce_flat(b, kind, x.flat_values, axis - rr, keepdims, flat_ep)
    if axis > 1:
        return _reduce_flat(b, kind, x.values, axis - 1, keepdims, flat_ep)
    if isinstance(x.values, RaggedTensor) or kind not in _SEGMENT:
        return None
    ids, n = _segment_ids(b, x.row_splits) if axis == 1 else _column_ids(b, x.row_splits)
    d, sd = (b.dtype_of(flat_ep) if flat_ep else None) or x.dtype, x.row_splits_dtype
    vals = flat_ep or b.input(x.values)
    out = _op(b, _SEGMENT[kind], [vals, ids, n], d, Tindices=sd, Tnumsegments=sd)
    if keepdims:
        out = _op(b, "ExpandDims", [out, b.constant(axis, _I32)], d, Tdim=_I32)
    return out


def _with_flat(b, call, flat_ep):
    """The call's output endpoints: ``flat_ep`` for its (flat) values, then the
    row splits it keeps."""
    out = call.outputs
    if isinstance(out, RaggedTensor):
        return [flat_ep] + [b.input(s) for s in out.nested_row_splits]
    return [flat_ep]


def _reduce_one(b, call):
    a = call.args
    ep = _reduce_flat(b, a["kind"], a["rt"], int(a["axis"]), bool(a["keepdims"]))
    return _unlowered(b, call) if ep is None else _with_flat(b, call, ep)


def _count(b, call):
    """Row counts for ``reduce_mean``: the sum of ``OnesLike`` of the values."""
    a = call.args
    rt, axes = a["rt"], ragged_reduce.axes_of(a["rt"], a["axis"])
    if len(axes) != 1:
        return _unlowered(b, call)
    ones = _op(b, "OnesLike", [b.input(rt.flat_values)], rt.dtype)
    ep = _reduce_flat(b, "sum", rt, axes[0], bool(a["keepdims"]), flat_ep=ones)
    return _unlowered(b, call) if ep is None else _with_flat(b, call, ep)


def _sparse_to_dense(b, call):
    """TF's ``SparseToDense(indices, dense_shape, values, default_value)``."""
    a = call.args
    st = a["sp_input"]
    if not isinstance(st, SparseTensor):
        return _unlowered(b, call)
    d = st.dtype
    default = a.get("default_value")
    if default is None:
        default = b"" if d is dtypes.string else 0
    dv = b.input(default, d) if isinstance(default, Tensor) else b.constant(
        np.asarray(default, dtype=object if d is dtypes.string else d.as_numpy_dtype), d)
    node = b.node("SparseToDense", [b.input(st.indices), b.input(st.dense_shape),
                                    b.input(st.values), dv],
                  {"T": d, "Tindices": dtypes.int64,
                   "validate_indices": bool(a.get("validate_indices", True))},
                  name="SparseToDense", out_dtypes=[d])
    return [f"{node}:0"]


def _ragged_to_sparse(b, call):
    """TF's ``RaggedTensorToSparse(rt_nested_splits, rt_dense_values)``."""
    rt = call.args["self"]
    if not isinstance(rt, RaggedTensor):
        return _unlowered(b, call)
    splits = [b.input(x) for x in rt.nested_row_splits]
    i64 = dtypes.int64
    node = b.node("RaggedTensorToSparse", splits + [b.input(rt.flat_values)],
                  {"RAGGED_RANK": len(splits), "T": rt.dtype, "Tsplits": rt.row_splits_dtype},
                  name="RaggedToSparse/RaggedTensorToSparse", out_dtypes=[i64, rt.dtype, i64])
    return [f"{node}:0", f"{node}:1", f"{node}:2"]


def _sparse_dense_matmul(b, call):
    """TF's ``SparseTensorDenseMatMul(a_indices, a_values, a_shape, b)``."""
    a = call.args
    sp, dense = a["sp_a"], a["b"]
    if not isinstance(sp, SparseTensor) or not isinstance(dense, Tensor):
        return _unlowered(b, call)
    node = b.node("SparseTensorDenseMatMul",
                  [b.input(sp.indices), b.input(sp.values), b.input(sp.dense_shape),
                   b.input(dense)],
                  {"T": sp.dtype, "Tindices": dtypes.int64,
                   "adjoint_a": bool(a.get("adjoint_a", False)),
                   "adjoint_b": bool(a.get("adjoint_b", False))},
                  name="SparseTensorDenseMatMul", out_dtypes=[sp.dtype])
    return [f"{node}:0"]


def _sparse_reduce(op: str):
    def lower(b, call):
        """TF's ``SparseReduce{Sum,Max}(indices, values, dense_shape, axes)``."""
        a = call.args
        sp, axis = a["sp_input"], a.get("axis")
        if not isinstance(sp, SparseTensor) or a.get("output_is_sparse") or \
                isinstance(axis, Tensor):
            return _unlowered(b, call)
        rank = sp.shape.rank
        axes = list(range(rank or 0)) if axis is None else (
            [int(axis)] if isinstance(axis, int) else [int(x) for x in axis])
        node = b.node(op, [b.input(sp.indices), b.input(sp.values), b.input(sp.dense_shape),
                           b.constant(axes, _I32)],
                      {"T": sp.dtype, "keep_dims": bool(a.get("keepdims") or False)},
                      name=op, out_dtypes=[sp.dtype])
        return [f"{node}:0"]

    return lower


def _hash_bucket(op: str, arg: str):
    def lower(b, call):
        """TF's ``StringToHashBucket{,Fast,Strong}`` of a string tensor (a ragged one
        dispatches to its flat values, which come here)."""
        a = call.args
        x = a[arg]
        if not isinstance(x, Tensor):
            return None  # a Python value: a constant result
        attrs: dict[str, Any] = {"num_buckets": int(a["num_buckets"])}
        if "key" in a:
            attrs["key"] = [int(k) for k in a["key"]]
        node = b.node(op, [b.input(x)], attrs, name=op, out_dtypes=[dtypes.int64])
        return [f"{node}:0"]

    return lower


for _fn, _name, _arg in ((string_hash_ops.to_hash_bucket_fast, "StringToHashBucketFast", "input"),
                       (string_hash_ops.to_hash_bucket_strong, "StringToHashBucketStrong",
                        "input"),
                       (string_hash_ops.to_hash_bucket, "StringToHashBucket", "string_tensor")):
    if not op_graph.is_registered(_fn):  # another lowering module may own it
        op_graph.register(_fn, _hash_bucket(_name, _arg))
del _fn, _name, _arg
op_graph.register(ragged_dispatch.to_sparse, _ragged_to_sparse, composite=True)
op_graph.register(sparse_math.sparse_dense_matmul, _sparse_dense_matmul, composite=True)
op_graph.register(sparse_math.reduce_sum, _sparse_reduce("SparseReduceSum"), composite=True)
op_graph.register(sparse_math.reduce_max, _sparse_reduce("SparseReduceMax"), composite=True)
op_graph.register(sparse_ops.to_dense, _sparse_to_dense, composite=True)
op_graph.register(ragged_reduce._reduce_one, _reduce_one, composite=True)
op_graph.register(ragged_reduce._count, _count, composite=True)
op_graph.register(RaggedTensor.row_lengths, _row_lengths, composite=True)
op_graph.register(ragged_convert.to_tensor, _to_tensor, composite=True)
if not op_graph.is_registered(shape_ops.sequence_mask):
    op_graph.register(shape_ops.sequence_mask, _sequence_mask)

function.register_composite_placeholder(RaggedTensorSpec, ragged_placeholder)
function.register_composite_placeholder(SparseTensorSpec, sparse_placeholder)
del graph_lowering_preprocessing, graph_lowering_ragged_build, graph_lowering_strings  # lowerings
