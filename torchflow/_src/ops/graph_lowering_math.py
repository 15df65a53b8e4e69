"""TF lowerings of common array, math and random ops that are one TF op (or a few).

``argmax``/``argmin`` (``ArgMax``), ``cumsum``/``cumprod``, ``top_k`` (``TopKV2``),
``sort``/``argsort`` (``TopKV2`` of the values, negated for ascending, as TF's
``sort``), ``one_hot``, ``slice``, ``roll``, the segment reductions, ``gather_nd``,
``scatter_nd``, ``tensor_scatter_nd_*``, ``broadcast_to``, ``linalg.band_part``,
``round``, ``nn.l2_loss``, ``add_n``, ``size``, ``depth_to_space``/``space_to_depth``
``random.uniform``/``normal``/``truncated_normal`` (the kernel, scaled and shifted
as TF's wrappers do), ``reverse_sequence``, ``in_top_k``, the softmax
cross-entropies (their fused kernels), ``sigmoid_cross_entropy_with_logits``,
``linalg.diag``/``diag_part``/``trace``, the image flips, ``count_nonzero``,
``l2_normalize``, ``reduce_logsumexp``/``variance``/``std``, the Euclidean ``norm``,
``clip_by_norm`` and ``rgb_to_grayscale`` (the ops TF's Python writes for them). Tensor arguments (sizes, shapes, axes) are inputs of
their nodes, never the trace's values; a call these do not cover returns None (its
results are then refused where they come from the inputs).
"""

from __future__ import annotations

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import (
    array_ops,
    clip_ops,
    creation_ops,
    depth_space_ops,
    gather_ops,
    image_color_ops,
    image_ops,
    linalg_ops,
    loss_ops,
    math_ops,
    random_ops,
    ranking_ops,
    reduction_ops,
    scan_ops,
    segment_ops,
    shape_ops,
    sort_ops,
    unary_math_ops,
)
from torchflow._src.ops.graph_lowering_nn import _dropout_seeds
from torchflow._src.ops.indexing import slice as slice_op

_I32 = dtypes.int32
_I64 = dtypes.int64


def _t(x) -> bool:
    return isinstance(x, (Tensor, Variable))


def _int_dtype(*vals):
    """The dtype of the first tensor among ``vals`` (int32 when they are Python values)."""
    for v in vals:
        if isinstance(v, Tensor):
            return v.dtype
    return _I32


def _one(b, op: str, inputs: list, attrs: dict, out) -> list:
    n = b.node(op, inputs, attrs, name=op, out_dtypes=[out.dtype])
    return [f"{n}:0"]


def _arg_minmax(op: str):
    def lower(b, call):
        a = call.args
        x, out = a["input"], call.outputs
        if not _t(x) or not isinstance(out, Tensor):
            return None
        axis = a.get("axis")
        axis = 0 if axis is None else axis
        d = _int_dtype(axis)
        return _one(b, op, [b.input(x), b.input(axis, d)],
                    {"T": x.dtype, "Tidx": d, "output_type": out.dtype}, out)

    return lower


def _scan(op: str):
    def lower(b, call):
        a = call.args
        x, out = a["x"], call.outputs
        if not _t(x) or not isinstance(out, Tensor):
            return None
        axis = a.get("axis", 0)
        d = _int_dtype(axis)
        return _one(b, op, [b.input(x), b.input(axis, d)],
                    {"T": x.dtype, "Tidx": d, "exclusive": bool(a.get("exclusive", False)),
                     "reverse": bool(a.get("reverse", False))}, out)

    return lower


def _top_k(b, call):
    a = call.args
    x = a["input"]
    if not _t(x):
        return None
    n = b.node("TopKV2", [b.input(x), b.input(a.get("k", 1), _I32)],
               {"T": x.dtype, "sorted": bool(a.get("sorted", True))}, name="TopKV2",
               out_dtypes=[x.dtype, _I32])
    return [f"{n}:0", f"{n}:1"]


def _sorted(indices: bool):
    """TF's ``sort``/``argsort`` along the last axis: ``TopKV2`` over the whole axis, of
    the values negated for ``ASCENDING`` (floats and signed integers, as TF 2.4)."""
    def lower(b, call):
        a = call.args
        x, out = a["values"], call.outputs
        if not _t(x) or not isinstance(out, Tensor) or not (
                x.dtype.is_floating or (x.dtype.is_integer and not x.dtype.is_unsigned)):
            return None
        rank, axis = x.shape.rank, a.get("axis", -1)
        if rank is None or not isinstance(axis, int) or axis % max(rank, 1) != rank - 1:
            return None
        k = x.shape.as_list()[-1]
        if k is None:
            return None
        d = x.dtype
        ascending = a.get("direction", "ASCENDING") == "ASCENDING"
        v = b.input(x)
        if ascending:
            v = f"{b.node('Neg', [v], {'T': d}, out_dtypes=[d])}:0"
        n = b.node("TopKV2", [v, b.constant(k, _I32)], {"T": d, "sorted": True},
                   name="TopKV2", out_dtypes=[d, _I32])
        if indices:
            if out.dtype != _I32:
                return None
            return [f"{n}:1"]
        if ascending:
            return [f"{b.node('Neg', [f'{n}:0'], {'T': d}, out_dtypes=[d])}:0"]
        return [f"{n}:0"]

    return lower


def _one_hot(b, call):
    a = call.args
    idx, out = a["indices"], call.outputs
    if not _t(idx) or not isinstance(out, Tensor):
        return None
    d = out.dtype
    on, off = a.get("on_value"), a.get("off_value")
    axis = a.get("axis")
    return _one(b, "OneHot", [b.input(idx), b.input(a["depth"], _I32),
                              b.input(1 if on is None else on, d),
                              b.input(0 if off is None else off, d)],
                {"T": d, "TI": idx.dtype, "axis": -1 if axis is None else int(axis)}, out)


def _slice(b, call):
    a = call.args
    x, out = a["input_"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    d = _int_dtype(a["begin"], a["size"])
    return _one(b, "Slice", [b.input(x), b.input(a["begin"], d), b.input(a["size"], d)],
                {"T": x.dtype, "Index": d}, out)


def _roll(b, call):
    a = call.args
    x, out = a["input"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    ds, da = _int_dtype(a["shift"]), _int_dtype(a["axis"])
    return _one(b, "Roll", [b.input(x), b.input(a["shift"], ds), b.input(a["axis"], da)],
                {"T": x.dtype, "Tshift": ds, "Taxis": da}, out)


def _unsorted_segment(op: str):
    def lower(b, call):
        a = call.args
        x, out = a["data"], call.outputs
        if not _t(x) or not isinstance(out, Tensor):
            return None
        di, dn = _int_dtype(a["segment_ids"]), _int_dtype(a["num_segments"])
        return _one(b, op, [b.input(x), b.input(a["segment_ids"], di),
                            b.input(a["num_segments"], dn)],
                    {"T": x.dtype, "Tindices": di, "Tnumsegments": dn}, out)

    return lower


def _segment(op: str):
    def lower(b, call):
        a = call.args
        x, out = a["data"], call.outputs
        if not _t(x) or not isinstance(out, Tensor):
            return None
        di = _int_dtype(a["segment_ids"])
        return _one(b, op, [b.input(x), b.input(a["segment_ids"], di)],
                    {"T": x.dtype, "Tindices": di}, out)

    return lower


def _gather_nd(b, call):
    a = call.args
    x, out = a["params"], call.outputs
    if not _t(x) or not isinstance(out, Tensor) or a.get("batch_dims", 0) != 0:
        return None
    di = _int_dtype(a["indices"])
    return _one(b, "GatherNd", [b.input(x), b.input(a["indices"], di)],
                {"Tparams": x.dtype, "Tindices": di}, out)


def _scatter_nd(b, call):
    a = call.args
    out = call.outputs
    if not isinstance(out, Tensor):
        return None
    di = _int_dtype(a["indices"], a["shape"])
    return _one(b, "ScatterNd", [b.input(a["indices"], di), b.input(a["updates"], out.dtype),
                                 b.input(a["shape"], di)], {"T": out.dtype, "Tindices": di},
                out)


def _tensor_scatter(op: str):
    def lower(b, call):
        a = call.args
        x, out = a["tensor"], call.outputs
        if not _t(x) or not isinstance(out, Tensor):
            return None
        di = _int_dtype(a["indices"])
        return _one(b, op, [b.input(x), b.input(a["indices"], di),
                            b.input(a["updates"], x.dtype)],
                    {"T": x.dtype, "Tindices": di}, out)

    return lower


def _broadcast_to(b, call):
    a = call.args
    x, out = a["input"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    d = _int_dtype(a["shape"])
    return _one(b, "BroadcastTo", [b.input(x), b.input(a["shape"], d)],
                {"T": x.dtype, "Tidx": d}, out)


def _band_part(b, call):
    a = call.args
    x, out = a["input"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    d = _int_dtype(a["num_lower"], a["num_upper"])
    d = d if d in (_I32, _I64) else _I64
    return _one(b, "MatrixBandPart", [b.input(x), b.input(a["num_lower"], d),
                                      b.input(a["num_upper"], d)], {"T": x.dtype, "Tindex": d},
                out)


def _unary(op: str, key: str):
    def lower(b, call):
        x, out = call.args[key], call.outputs
        if not _t(x) or not isinstance(out, Tensor):
            return None
        return _one(b, op, [b.input(x)], {"T": x.dtype}, out)

    return lower


def _add_n(b, call):
    xs, out = call.args["inputs"], call.outputs
    if not isinstance(xs, (list, tuple)) or not xs or not isinstance(out, Tensor) or \
            not all(_t(x) for x in xs):
        return None
    return _one(b, "AddN", [b.input(x, out.dtype) for x in xs],
                {"T": out.dtype, "N": len(xs)}, out)


def _size(b, call):
    x, out = call.args["input"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    return _one(b, "Size", [b.input(x)], {"T": x.dtype, "out_type": out.dtype}, out)


def _depth_space(op: str):
    def lower(b, call):
        a = call.args
        x, out = a["input"], call.outputs
        if not _t(x) or not isinstance(out, Tensor):
            return None
        fmt = a.get("data_format", "NHWC")
        return _one(b, op, [b.input(x)], {"T": x.dtype, "block_size": int(a["block_size"]),
                                          "data_format": fmt}, out)

    return lower


def _random(kind: str):
    """``RandomUniform`` / ``RandomStandardNormal`` / ``TruncatedNormal`` of the shape,
    then ``* (maxval - minval) + minval`` or ``* stddev + mean``, as TF's wrappers."""
    op = {"uniform": "RandomUniform", "normal": "RandomStandardNormal",
          "truncated": "TruncatedNormal"}[kind]

    def lower(b, call):
        a = call.args
        out = call.outputs
        if not isinstance(out, Tensor) or not out.dtype.is_floating:
            return None
        d = out.dtype
        shape = a["shape"]
        ds = _int_dtype(shape)
        seed, seed2 = _dropout_seeds(a.get("seed"))
        n = b.node(op, [b.input(shape, ds)], {"T": ds, "dtype": d, "seed": seed,
                                              "seed2": seed2}, name=op, out_dtypes=[d])
        if kind == "uniform":
            lo, hi = a.get("minval", 0), a.get("maxval")
            hi = 1 if hi is None else hi
            span = b.node("Sub", [b.input(hi, d), b.input(lo, d)], {"T": d},
                          out_dtypes=[d])
            scale, shift = f"{span}:0", b.input(lo, d)
        else:
            scale, shift = b.input(a.get("stddev", 1.0), d), b.input(a.get("mean", 0.0), d)
        m = b.node("Mul", [f"{n}:0", scale], {"T": d}, out_dtypes=[d])
        s = b.node("AddV2", [f"{m}:0", shift], {"T": d}, out_dtypes=[d])
        return [f"{s}:0"]

    return lower


for _fn, _lower in (
        (reduction_ops.argmax, _arg_minmax("ArgMax")),
        (reduction_ops.argmin, _arg_minmax("ArgMin")),
        (scan_ops.cumsum, _scan("Cumsum")),
        (scan_ops.cumprod, _scan("Cumprod")),
        (scan_ops.cumulative_logsumexp, _scan("CumulativeLogsumexp")),
        (ranking_ops.top_k, _top_k),
        (sort_ops.sort, _sorted(False)),
        (sort_ops.argsort, _sorted(True)),
        (creation_ops.one_hot, _one_hot),
        (slice_op, _slice),
        (array_ops.roll, _roll),
        (segment_ops.unsorted_segment_sum, _unsorted_segment("UnsortedSegmentSum")),
        (segment_ops.unsorted_segment_max, _unsorted_segment("UnsortedSegmentMax")),
        (segment_ops.unsorted_segment_min, _unsorted_segment("UnsortedSegmentMin")),
        (segment_ops.unsorted_segment_prod, _unsorted_segment("UnsortedSegmentProd")),
        (segment_ops.segment_sum, _segment("SegmentSum")),
        (segment_ops.segment_mean, _segment("SegmentMean")),
        (segment_ops.segment_max, _segment("SegmentMax")),
        (segment_ops.segment_min, _segment("SegmentMin")),
        (segment_ops.segment_prod, _segment("SegmentProd")),
        (gather_ops.gather_nd, _gather_nd),
        (gather_ops.scatter_nd, _scatter_nd),
        (gather_ops.tensor_scatter_nd_update, _tensor_scatter("TensorScatterUpdate")),
        (gather_ops.tensor_scatter_nd_add, _tensor_scatter("TensorScatterAdd")),
        (gather_ops.tensor_scatter_nd_sub, _tensor_scatter("TensorScatterSub")),
        (gather_ops.tensor_scatter_nd_max, _tensor_scatter("TensorScatterMax")),
        (gather_ops.tensor_scatter_nd_min, _tensor_scatter("TensorScatterMin")),
        (shape_ops.broadcast_to, _broadcast_to),
        (linalg_ops.band_part, _band_part),
        (unary_math_ops.round, _unary("Round", "x")),
        (loss_ops.l2_loss, _unary("L2Loss", "t")),
        (math_ops.add_n, _add_n),
        (shape_ops.size, _size),
        (depth_space_ops.depth_to_space, _depth_space("DepthToSpace")),
        (depth_space_ops.space_to_depth, _depth_space("SpaceToDepth")),
        (random_ops.uniform, _random("uniform")),
        (random_ops.normal, _random("normal")),
        (random_ops.truncated_normal, _random("truncated"))):
    if not op_graph.is_registered(_fn):
        op_graph.register(_fn, _lower)
del _fn, _lower


# --- composites TF writes as a few ops ---------------------------------------------------
def _sum(b, x: str, d, axes, keep_dims: bool) -> str:
    n = b.node("Sum", [x, b.constant(axes, _I32)], {"T": d, "Tidx": _I32,
                                                   "keep_dims": keep_dims}, out_dtypes=[d])
    return f"{n}:0"


def _axes(axis, rank):
    if axis is None:
        return None if rank is None else list(range(rank))
    if isinstance(axis, Tensor):
        return None
    return [int(axis)] if isinstance(axis, int) else [int(v) for v in axis]


def _reverse_sequence(b, call):
    a = call.args
    x, out = a["input"], call.outputs
    if not _t(x) or not isinstance(out, Tensor) or a.get("seq_axis") is None:
        return None
    dl = _int_dtype(a["seq_lengths"])
    dl = dl if dl in (_I32, _I64) else _I64
    return _one(b, "ReverseSequence", [b.input(x), b.input(a["seq_lengths"], dl)],
                {"T": x.dtype, "Tlen": dl, "seq_dim": int(a["seq_axis"]),
                 "batch_dim": int(a.get("batch_axis") or 0)}, out)


def _in_top_k(b, call):
    a = call.args
    p, out = a["predictions"], call.outputs
    if not _t(p) or not isinstance(out, Tensor):
        return None
    dt = _int_dtype(a["targets"], a["k"])
    return _one(b, "InTopKV2", [b.input(p), b.input(a["targets"], dt), b.input(a["k"], dt)],
                {"T": dt}, out)


def _sparse_softmax_ce(b, call):
    a = call.args
    x, out = a["logits"], call.outputs
    if not _t(x) or not isinstance(out, Tensor) or x.shape.rank != 2:
        return None
    dl = _int_dtype(a["labels"])
    n = b.node("SparseSoftmaxCrossEntropyWithLogits", [b.input(x), b.input(a["labels"], dl)],
               {"T": x.dtype, "Tlabels": dl}, name="SparseSoftmaxCrossEntropyWithLogits",
               out_dtypes=[x.dtype, x.dtype])
    return [f"{n}:0"]


def _softmax_ce(b, call):
    a = call.args
    x, out = a["logits"], call.outputs
    if not _t(x) or not isinstance(out, Tensor) or x.shape.rank != 2 or \
            a.get("axis", -1) not in (-1, 1):
        return None
    n = b.node("SoftmaxCrossEntropyWithLogits", [b.input(x), b.input(a["labels"], x.dtype)],
               {"T": x.dtype}, name="SoftmaxCrossEntropyWithLogits",
               out_dtypes=[x.dtype, x.dtype])
    return [f"{n}:0"]


def _sigmoid_ce(b, call):
    """TF's stable form: ``relu(x) - x * z + log1p(exp(-|x|))``."""
    a = call.args
    x, out = a.get("logits"), call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    d = x.dtype
    xe, z = b.input(x), b.input(a["labels"], d)

    def op(name, *ins):
        return f"{b.node(name, list(ins), {'T': d}, out_dtypes=[d])}:0"

    tail = op("Log1p", op("Exp", op("Neg", op("Abs", xe))))
    return [op("AddV2", op("Sub", op("Relu", xe), op("Mul", xe, z)), tail)]


def _diag_part(b, call):
    a = call.args
    x, out = a["input"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    return _one(b, "MatrixDiagPartV3", [b.input(x), b.input(a.get("k", 0), _I32),
                                        b.input(a.get("padding_value", 0), x.dtype)],
                {"T": x.dtype, "align": a.get("align", "RIGHT_LEFT")}, out)


def _diag(b, call):
    a = call.args
    x, out = a["diagonal"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    return _one(b, "MatrixDiagV3", [b.input(x), b.input(a.get("k", 0), _I32),
                                    b.input(a.get("num_rows", -1), _I32),
                                    b.input(a.get("num_cols", -1), _I32),
                                    b.input(a.get("padding_value", 0), x.dtype)],
                {"T": x.dtype, "align": a.get("align", "RIGHT_LEFT")}, out)


def _trace(b, call):
    """TF's ``trace``: the sum of ``MatrixDiagPartV3`` over the last axis."""
    x, out = call.args["x"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    d = x.dtype
    n = b.node("MatrixDiagPartV3", [b.input(x), b.constant(0, _I32), b.constant(0, d)],
               {"T": d, "align": "RIGHT_LEFT"}, out_dtypes=[d])
    return [_sum(b, f"{n}:0", d, [-1], False)]


def _flip(width: bool):
    """``ReverseV2`` on the width (height) axis of an image or a batch of them."""
    def lower(b, call):
        x, out = call.args["image"], call.outputs
        rank = x.shape.rank if _t(x) else None
        if rank not in (3, 4) or not isinstance(out, Tensor):
            return None
        axis = rank - 2 if width else rank - 3
        return _one(b, "ReverseV2", [b.input(x), b.constant([axis], _I32)],
                    {"T": x.dtype, "Tidx": _I32}, out)

    return lower


def _count_nonzero(b, call):
    """TF's ``count_nonzero``: ``NotEqual(x, 0)`` as int64, summed, cast to ``dtype``."""
    a = call.args
    x, out = a["input"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    axes = _axes(a.get("axis"), x.shape.rank)
    if axes is None:
        return None
    ne = b.node("NotEqual", [b.input(x), b.constant(0, x.dtype)], {"T": x.dtype},
                out_dtypes=[dtypes.bool])
    i = b.node("Cast", [f"{ne}:0"], {"SrcT": dtypes.bool, "DstT": _I64, "Truncate": False},
               out_dtypes=[_I64])
    total = _sum(b, f"{i}:0", _I64, axes, bool(a.get("keepdims")))
    if out.dtype == _I64:
        return [total]
    c = b.node("Cast", [total], {"SrcT": _I64, "DstT": out.dtype, "Truncate": False},
               out_dtypes=[out.dtype])
    return [f"{c}:0"]


def _l2_normalize(b, call):
    """TF's ``l2_normalize``: ``x * rsqrt(maximum(sum(x**2, axis), epsilon))``."""
    a = call.args
    x, out = a["x"], call.outputs
    axis = a.get("axis") if a.get("axis") is not None else a.get("dim")
    if not _t(x) or not isinstance(out, Tensor) or not x.dtype.is_floating:
        return None
    axes = _axes(axis, x.shape.rank)
    if axes is None:
        return None
    d = x.dtype
    xe = b.input(x)
    sq = b.node("Square", [xe], {"T": d}, out_dtypes=[d])
    total = _sum(b, f"{sq}:0", d, axes, True)
    mx = b.node("Maximum", [total, b.constant(float(a.get("epsilon", 1e-12)), d)], {"T": d},
                out_dtypes=[d])
    inv = b.node("Rsqrt", [f"{mx}:0"], {"T": d}, out_dtypes=[d])
    return _one(b, "Mul", [xe, f"{inv}:0"], {"T": d}, out)


for _fn, _lower in (
        (array_ops.reverse_sequence, _reverse_sequence),
        (ranking_ops.in_top_k, _in_top_k),
        (loss_ops.sparse_softmax_cross_entropy_with_logits, _sparse_softmax_ce),
        (loss_ops.softmax_cross_entropy_with_logits, _softmax_ce),
        (loss_ops.sigmoid_cross_entropy_with_logits, _sigmoid_ce),
        (linalg_ops.diag_part, _diag_part),
        (linalg_ops.diag, _diag),
        (linalg_ops.trace, _trace),
        (image_ops.flip_left_right, _flip(True)),
        (image_ops.flip_up_down, _flip(False)),
        (reduction_ops.count_nonzero, _count_nonzero),
        (reduction_ops.l2_normalize, _l2_normalize)):
    if not op_graph.is_registered(_fn):
        op_graph.register(_fn, _lower)
del _fn, _lower


# --- reductions TF's Python writes as several ops -----------------------------------------
class _Ops:
    """Node helpers on float tensors of one dtype ``d`` (each returns an endpoint)."""

    def __init__(self, b, d):
        self.b, self.d = b, d

    def __call__(self, op: str, *inputs, **attrs) -> str:
        return f"{self.b.node(op, list(inputs), {'T': self.d, **attrs}, out_dtypes=[self.d])}:0"

    def reduce(self, op: str, x: str, axes, keep: bool) -> str:
        return self(op, x, self.b.constant(axes, _I32), Tidx=_I32, keep_dims=keep)


def _float_reduce_args(a, key="input_tensor"):
    x = a[key]
    if not _t(x) or not x.dtype.is_floating:
        return None, None
    return x, _axes(a.get("axis"), x.shape.rank)


def _logsumexp(b, call):
    """TF's ``reduce_logsumexp``: the max (0 where not finite) taken out, held by
    ``StopGradient``; ``log(sum(exp(x - max))) + max``."""
    a = call.args
    x, axes = _float_reduce_args(a)
    if x is None or axes is None or not isinstance(call.outputs, Tensor):
        return None
    d, keep = x.dtype, bool(a.get("keepdims"))
    o = _Ops(b, d)
    xe = b.input(x)
    raw = o.reduce("Max", xe, axes, True)
    finite = b.node("IsFinite", [raw], {"T": d}, out_dtypes=[dtypes.bool])
    zeros = o("ZerosLike", raw)
    mx = o("StopGradient", o("SelectV2", f"{finite}:0", raw, zeros))
    out = o("AddV2", o("Log", o.reduce("Sum", o("Exp", o("Sub", xe, mx)), axes, keep)),
            mx if keep else o("Squeeze", mx, squeeze_dims=axes))
    return [out]


def _moments(std: bool):
    """TF's ``reduce_variance``: ``mean(square(abs(x - mean(x)))))``; ``reduce_std`` its
    square root."""
    def lower(b, call):
        a = call.args
        x, axes = _float_reduce_args(a)
        if x is None or axes is None or not isinstance(call.outputs, Tensor):
            return None
        o = _Ops(b, x.dtype)
        xe = b.input(x)
        mean = o.reduce("Mean", xe, axes, True)
        var = o.reduce("Mean", o("Square", o("Abs", o("Sub", xe, mean))), axes,
                       bool(a.get("keepdims")))
        return [o("Sqrt", var) if std else var]

    return lower


def _norm(b, call):
    """The Euclidean norm, as TF writes it: ``sqrt(sum(x * x))`` over ``axis`` (kept,
    then squeezed unless ``keepdims``)."""
    a = call.args
    x = a["tensor"]
    if not _t(x) or not x.dtype.is_floating or a.get("ord", "euclidean") not in (
            "euclidean", 2, 2.0) or not isinstance(call.outputs, Tensor):
        return None
    axis = a.get("axis")
    if isinstance(axis, (list, tuple)) and len(axis) != 1:
        return None  # a matrix norm
    axes = _axes(axis, x.shape.rank)
    if axes is None:
        return None
    o = _Ops(b, x.dtype)
    xe = b.input(x)
    n = o("Sqrt", o.reduce("Sum", o("Mul", xe, xe), axes, True))
    return [n if a.get("keepdims") else o("Squeeze", n, squeeze_dims=axes)]


def _clip_by_norm(b, call):
    """TF's ``clip_by_norm``: ``t * clip_norm / maximum(l2norm(t), clip_norm)``, the
    norm's square root taken where it is positive."""
    a = call.args
    x = a["t"]
    if not _t(x) or not x.dtype.is_floating or not isinstance(call.outputs, Tensor):
        return None
    axes = _axes(a.get("axes"), x.shape.rank)
    if axes is None:
        return None
    d = x.dtype
    o = _Ops(b, d)
    xe, c = b.input(x), b.input(a["clip_norm"], d)
    l2sum = o.reduce("Sum", o("Mul", xe, xe), axes, True)
    pos = b.node("Greater", [l2sum, b.constant(0, d)], {"T": d}, out_dtypes=[dtypes.bool])
    safe = o("SelectV2", f"{pos}:0", l2sum, o("OnesLike", l2sum))
    l2norm = o("SelectV2", f"{pos}:0", o("Sqrt", safe), l2sum)
    return [o("Identity", o("RealDiv", o("Mul", xe, c), o("Maximum", l2norm, c)))]


def _rgb_to_grayscale(b, call):
    """``sum(image * [0.2989, 0.5870, 0.1140], -1)`` for float images (TF's weights)."""
    x = call.args["images"]
    if not _t(x) or not x.dtype.is_floating or not isinstance(call.outputs, Tensor):
        return None
    o = _Ops(b, x.dtype)
    w = b.constant([0.2989, 0.5870, 0.1140], x.dtype)
    return [o.reduce("Sum", o("Mul", b.input(x), w), [-1], True)]


for _fn, _lower in (
        (reduction_ops.reduce_logsumexp, _logsumexp),
        (reduction_ops.reduce_variance, _moments(False)),
        (reduction_ops.reduce_std, _moments(True)),
        (linalg_ops.norm, _norm),
        (clip_ops.clip_by_norm, _clip_by_norm),
        (image_color_ops.rgb_to_grayscale, _rgb_to_grayscale)):
    if not op_graph.is_registered(_fn):
        op_graph.register(_fn, _lower)
del _fn, _lower
