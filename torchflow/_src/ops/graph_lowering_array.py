"""TF lowerings of array, random and image ops with data-dependent or few-op TF forms.

``searchsorted`` (``LowerBound``/``UpperBound`` of the 2-D views, as TF's Python),
``histogram_fixed_width``, ``bitcast``, ``saturate_cast`` (clamped, then ``Cast``),
``unique``, ``random.shuffle`` (``RandomShuffle``), ``random.categorical``
(``Multinomial``), ``space_to_batch(_nd)``, ``dynamic_partition``, ``dynamic_stitch``,
``nn.batch_normalization``, ``image.adjust_brightness``/``adjust_contrast``/
``per_image_standardization`` (float images), ``meshgrid`` and ``math.bincount``
(``Bincount`` of ``max + 1`` bins, as TF 2.4), ``math.invert_permutation``,
``tensordot`` (a ``MatMul`` of both sides as matrices), ``boolean_mask``
(``GatherV2`` of ``Where`` of the mask, as TF's Python), ``image.rgb_to_hsv``/
``hsv_to_rgb``, ``image.extract_patches``, ``nn.local_response_normalization``,
``random.gamma``/``poisson`` and ``clip_by_global_norm``. A
call these do not cover returns None (its results are then refused where they are
read).
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import (
    clip_ops,
    creation_ops,
    einsum_ops,
    gather_ops,
    histogram_ops,
    image_color_ops,
    image_ops,
    image_patch_ops,
    normalization_ops,
    partition_ops,
    random_ops,
    ranking_ops,
    shape_ops,
    sort_ops,
    space_batch_ops,
)
from torchflow._src.ops.graph_lowering_nn import _dropout_seeds

_I32 = dtypes.int32


def _t(x) -> bool:
    return isinstance(x, (Tensor, Variable))


class _Ops:
    """Adds single-output nodes of one dtype ``d`` to the builder ``b``."""

    def __init__(self, b, d):
        self.b, self.d = b, d

    def __call__(self, op: str, *inputs, out=None, **attrs) -> str:
        out = self.d if out is None else out
        return f"{self.b.node(op, list(inputs), {'T': self.d, **attrs}, out_dtypes=[out])}:0"

    def reduce(self, op: str, x: str, axes, keep: bool) -> str:
        return self(op, x, self.b.constant(axes, _I32), Tidx=_I32, keep_dims=keep)


def _searchsorted(b, call):
    a = call.args
    seq, values, out = a["sorted_sequence"], a["values"], call.outputs
    if not _t(seq) or not _t(values) or not isinstance(out, Tensor):
        return None
    n, m = seq.shape.as_list()[-1:], values.shape.as_list()[-1:]
    if not n or not m or n[0] is None or m[0] is None:
        return None
    d, od = seq.dtype, out.dtype
    o = _Ops(b, d)
    seq2 = o("Reshape", b.input(seq), b.constant([-1, n[0]], _I32), Tshape=_I32)
    val2 = o("Reshape", b.input(values, d), b.constant([-1, m[0]], _I32), Tshape=_I32)
    op = "UpperBound" if a.get("side", "left") == "right" else "LowerBound"
    found = o(op, seq2, val2, out=od, out_type=od)
    shape = b.node("Shape", [b.input(values, d)], {"T": d, "out_type": _I32},
                   out_dtypes=[_I32])
    return [_Ops(b, od)("Reshape", found, f"{shape}:0", Tshape=_I32)]


def _histogram(b, call):
    a = call.args
    x, out = a["values"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    o = _Ops(b, x.dtype)
    return [o("HistogramFixedWidth", b.input(x), b.input(a["value_range"], x.dtype),
              b.input(a.get("nbins", 100), _I32), out=out.dtype, dtype=out.dtype)]


def _bitcast(b, call):
    x, out = call.args["input"], call.outputs
    if not _t(x) or not isinstance(out, Tensor):
        return None
    return [_Ops(b, x.dtype)("Bitcast", b.input(x), out=out.dtype, type=out.dtype)]


def _saturate_cast(b, call):
    """TF's ``saturate_cast``: ``Maximum`` with the target's min where the source's is
    lower, ``Minimum`` with its max where the source's is higher, then ``Cast``."""
    x, out = call.args["value"], call.outputs
    if not _t(x) or not isinstance(out, Tensor) or x.dtype.is_complex or \
            out.dtype.is_complex or x.dtype == dtypes.bool or out.dtype == dtypes.bool:
        return None
    d, target = x.dtype, out.dtype
    o = _Ops(b, d)
    v = b.input(x)
    if d.min < target.min:
        v = o("Maximum", v, b.constant(target.min, d))
    if d.max > target.max:
        v = o("Minimum", v, b.constant(target.max, d))
    n = b.node("Cast", [v], {"SrcT": d, "DstT": target, "Truncate": False},
               out_dtypes=[target])
    return [f"{n}:0"]


def _unique(b, call):
    a = call.args
    x = a["x"]
    if not _t(x):
        return None
    idx = dtypes.as_dtype(a.get("out_idx", _I32))
    n = b.node("Unique", [b.input(x)], {"T": x.dtype, "out_idx": idx}, name="Unique",
               out_dtypes=[x.dtype, idx])
    return [f"{n}:0", f"{n}:1"]


def _shuffle(b, call):
    a = call.args
    x = a["value"]
    if not _t(x):
        return None
    seed, seed2 = _dropout_seeds(a.get("seed"))
    return [_Ops(b, x.dtype)("RandomShuffle", b.input(x), seed=seed, seed2=seed2)]


def _categorical(b, call):
    a = call.args
    logits, out = a["logits"], call.outputs
    if not _t(logits) or not isinstance(out, Tensor):
        return None
    seed, seed2 = _dropout_seeds(a.get("seed"))
    return [_Ops(b, logits.dtype)("Multinomial", b.input(logits),
                                  b.input(a["num_samples"], _I32), out=out.dtype,
                                  output_dtype=out.dtype, seed=seed, seed2=seed2)]


def _space_to_batch(b, call):
    a = call.args
    x = a["input"]
    if not _t(x):
        return None
    bs, pad = a["block_shape"], a["paddings"]
    db = bs.dtype if isinstance(bs, Tensor) else _I32
    dp = pad.dtype if isinstance(pad, Tensor) else _I32
    return [_Ops(b, x.dtype)("SpaceToBatchND", b.input(x), b.input(bs, db), b.input(pad, dp),
                             Tblock_shape=db, Tpaddings=dp)]


def _dynamic_partition(b, call):
    a = call.args
    x, k = a["data"], a["num_partitions"]
    if not _t(x) or not isinstance(k, int):
        return None
    n = b.node("DynamicPartition", [b.input(x), b.input(a["partitions"], _I32)],
               {"T": x.dtype, "num_partitions": k}, name="DynamicPartition",
               out_dtypes=[x.dtype] * k)
    return [f"{n}:{i}" for i in range(k)]


def _dynamic_stitch(b, call):
    a = call.args
    idx, data = a["indices"], a["data"]
    if not isinstance(idx, (list, tuple)) or not isinstance(data, (list, tuple)) or \
            len(idx) != len(data) or not data or not all(_t(t) for t in data):
        return None
    d = data[0].dtype
    n = b.node("DynamicStitch", [b.input(i, _I32) for i in idx] +
               [b.input(t, d) for t in data], {"T": d, "N": len(data)},
               name="DynamicStitch", out_dtypes=[d])
    return [f"{n}:0"]


def _batch_normalization(b, call):
    """TF's ``batch_normalization``: ``inv = rsqrt(variance + eps) * scale``;
    ``x * inv + (offset - mean * inv)`` (``-mean * inv`` without an offset)."""
    a = call.args
    x = a["x"]
    if not _t(x) or not x.dtype.is_floating:
        return None
    d = x.dtype
    o = _Ops(b, d)
    inv = o("Rsqrt", o("AddV2", b.input(a["variance"], d),
                       b.input(a["variance_epsilon"], d)))
    if a.get("scale") is not None:
        inv = o("Mul", inv, b.input(a["scale"], d))
    shift = o("Mul", b.input(a["mean"], d), inv)
    shift = o("Neg", shift) if a.get("offset") is None else \
        o("Sub", b.input(a["offset"], d), shift)
    return [o("AddV2", o("Mul", b.input(x), inv), shift)]


def _adjust_brightness(b, call):
    a = call.args
    x = a["image"]
    if not _t(x) or not x.dtype.is_floating:
        return None
    return [_Ops(b, x.dtype)("AddV2", b.input(x), b.input(a["delta"], x.dtype))]


def _adjust_contrast(b, call):
    a = call.args
    x = a["images"]
    if not _t(x) or x.dtype not in (dtypes.float32, dtypes.float16):
        return None
    return [_Ops(b, x.dtype)("AdjustContrastv2", b.input(x),
                             b.input(a["contrast_factor"], dtypes.float32))]


def _per_image_standardization(b, call):
    """TF's: ``(image - mean) / maximum(std, rsqrt(num_pixels))`` over the last three
    axes, of float32 images."""
    x = call.args["image"]
    if not _t(x) or x.dtype != dtypes.float32 or x.shape.rank is None or x.shape.rank < 3:
        return None
    dims = x.shape.as_list()[-3:]
    if None in dims:
        return None
    d = x.dtype
    o = _Ops(b, d)
    xe, axes = b.input(x), [-1, -2, -3]
    mean = o.reduce("Mean", xe, axes, True)
    dev = o("Sub", xe, mean)
    std = o("Sqrt", o.reduce("Mean", o("Square", dev), axes, True))
    floor = b.constant((dims[0] * dims[1] * dims[2]) ** -0.5, d)
    return [o("RealDiv", dev, o("Maximum", std, floor))]


def _meshgrid(b, call):
    """TF's ``meshgrid``: each input reshaped to ``-1`` on its own axis (the first two
    swapped for ``"xy"``), times ``ones`` of all the inputs' sizes."""
    a = call.args
    xs = list(a.get("args") or ())
    out = call.outputs
    kw = a.get("kwargs") or {}
    indexing = kw.get("indexing", "xy")
    if not xs or not all(_t(x) and x.shape.rank == 1 for x in xs) or \
            len({x.dtype for x in xs}) != 1 or set(kw) - {"indexing", "name"} or \
            indexing not in ("xy", "ij") or not isinstance(out, list):
        return None
    d, n = xs[0].dtype, len(xs)
    o = _Ops(b, d)
    sizes = [b.node("Size", [b.input(x)], {"T": d, "out_type": _I32}, out_dtypes=[_I32])
             for x in xs]
    sizes = [f"{s}:0" for s in sizes]
    shaped = []
    for i, x in enumerate(xs):
        dims = [1] * n
        dims[i] = -1
        shaped.append(o("Reshape", b.input(x), b.constant(dims, _I32), Tshape=_I32))
    if indexing == "xy" and n > 1:
        shaped[0] = o("Reshape", shaped[0], b.constant([1, -1] + [1] * (n - 2), _I32),
                      Tshape=_I32)
        shaped[1] = o("Reshape", shaped[1], b.constant([-1, 1] + [1] * (n - 2), _I32),
                      Tshape=_I32)
        sizes[0], sizes[1] = sizes[1], sizes[0]
    dims = b.node("Pack", sizes, {"T": _I32, "N": n, "axis": 0}, out_dtypes=[_I32])
    ones = b.node("Fill", [f"{dims}:0", b.constant(1, d)], {"T": d, "index_type": _I32},
                  out_dtypes=[d])
    return [o("Mul", s, f"{ones}:0") for s in shaped]


def _bincount(b, call):
    """TF 2.4's ``bincount``: ``Bincount`` of ``(size(arr) > 0) * (max(arr) + 1)`` bins
    (bounded by ``minlength``/``maxlength``); weights sum by ``UnsortedSegmentSum``."""
    a = call.args
    arr, out = a["arr"], call.outputs
    if not _t(arr) or arr.dtype != _I32 or a.get("axis") is not None or \
            a.get("binary_output") or arr.shape.rank is None or \
            not isinstance(out, Tensor):
        return None
    o = _Ops(b, _I32)
    xe = b.input(arr)
    shape = o("Shape", xe, out_type=_I32)
    count = o.reduce("Prod", shape, [0], False)
    nonempty = o("Greater", count, b.constant(0, _I32), out=dtypes.bool)
    flag = b.node("Cast", [nonempty], {"SrcT": dtypes.bool, "DstT": _I32, "Truncate": False},
                  out_dtypes=[_I32])
    top = o.reduce("Max", xe, list(range(arr.shape.rank)), False)
    size = o("Mul", f"{flag}:0", o("AddV2", top, b.constant(1, _I32)))
    if a.get("minlength") is not None:
        size = o("Maximum", b.input(a["minlength"], _I32), size)
    if a.get("maxlength") is not None:
        size = o("Minimum", b.input(a["maxlength"], _I32), size)
    d = out.dtype
    w = a.get("weights")
    if w is not None:
        return [_Ops(b, d)("UnsortedSegmentSum", b.input(w, d), xe, size, Tindices=_I32,
                           Tnumsegments=_I32)]
    empty = b.constant([], d)
    return [_Ops(b, d)("Bincount", xe, size, empty)]


def _shape(b, x) -> str:
    """``Shape`` of ``x`` (a traced tensor), int32."""
    n = b.node("Shape", [b.input(x)], {"T": x.dtype, "out_type": _I32}, out_dtypes=[_I32])
    return f"{n}:0"


def _gather_dims(b, shape: str, idx: list) -> str:
    """The dims ``idx`` of the int32 shape vector ``shape``."""
    n = b.node("GatherV2", [shape, b.constant(idx, _I32), b.constant(0, _I32)],
               {"Tparams": _I32, "Tindices": _I32, "Taxis": _I32, "batch_dims": 0},
               out_dtypes=[_I32])
    return f"{n}:0"


def _tensordot_side(b, x, axes: list, flipped: bool):
    """TF's ``_tensordot_reshape``: ``x`` transposed to ``free + axes`` (``axes + free``
    when ``flipped``) and reshaped to a matrix; also the free dims (a vector)."""
    rank = x.shape.rank
    free = [i for i in range(rank) if i not in axes]
    perm = axes + free if flipped else free + axes
    o, i32 = _Ops(b, x.dtype), _Ops(b, _I32)
    xe, shape = b.input(x), _shape(b, x)
    free_dims = _gather_dims(b, shape, free)
    n_free = i32.reduce("Prod", free_dims, [0], False)
    n_axes = i32.reduce("Prod", _gather_dims(b, shape, axes), [0], False)
    if perm != list(range(rank)):
        xe = o("Transpose", xe, b.constant(perm, _I32), Tperm=_I32)
    dims = [n_axes, n_free] if flipped else [n_free, n_axes]
    packed = b.node("Pack", dims, {"T": _I32, "N": 2, "axis": 0}, out_dtypes=[_I32])
    return o("Reshape", xe, f"{packed}:0", Tshape=_I32), free_dims


def _tensordot(b, call):
    """TF's ``tensordot``: both sides as matrices, ``MatMul``, reshaped to the free
    dims of ``a`` then of ``b``."""
    a = call.args
    x, y, axes = a["a"], a["b"], a["axes"]
    if not _t(x) or not _t(y) or x.dtype != y.dtype or x.shape.rank is None or \
            y.shape.rank is None or not isinstance(call.outputs, Tensor):
        return None
    rx, ry = x.shape.rank, y.shape.rank
    if isinstance(axes, int):
        if not 0 <= axes <= min(rx, ry):
            return None
        ax, ay = list(range(rx - axes, rx)), list(range(axes))
    elif isinstance(axes, (list, tuple)) and len(axes) == 2 and \
            not any(isinstance(v, Tensor) for v in axes):
        ax = [axes[0]] if isinstance(axes[0], int) else list(axes[0])
        ay = [axes[1]] if isinstance(axes[1], int) else list(axes[1])
        ax, ay = [int(v) % rx for v in ax], [int(v) % ry for v in ay]
    else:
        return None
    mx, free_x = _tensordot_side(b, x, ax, False)
    my, free_y = _tensordot_side(b, y, ay, True)
    o = _Ops(b, x.dtype)
    mm = o("MatMul", mx, my, transpose_a=False, transpose_b=False)
    dims = b.node("ConcatV2", [free_x, free_y, b.constant(0, _I32)],
                  {"T": _I32, "N": 2, "Tidx": _I32}, out_dtypes=[_I32])
    return [o("Reshape", mm, f"{dims}:0", Tshape=_I32)]


def _boolean_mask(b, call):
    """TF's ``boolean_mask``: the masked dims merged into one, ``Where`` of the
    flattened mask, ``GatherV2`` of those rows on ``axis``."""
    a = call.args
    x, mask = a["tensor"], a["mask"]
    axis = a.get("axis")
    axis = 0 if axis is None else axis
    if not _t(x) or not _t(mask) or x.shape.rank is None or mask.shape.rank is None or \
            not isinstance(axis, int) or mask.dtype != dtypes.bool or \
            not isinstance(call.outputs, Tensor):
        return None
    rank, nm = x.shape.rank, mask.shape.rank
    axis %= max(rank, 1)
    if nm == 0 or axis + nm > rank:
        return None
    d = x.dtype
    i32, i64 = _Ops(b, _I32), _Ops(b, dtypes.int64)
    xe, shape = b.input(x), _shape(b, x)
    merged = i32.reduce("Prod", _gather_dims(b, shape, list(range(axis, axis + nm))), [0],
                        True)
    parts = [_gather_dims(b, shape, list(range(axis))), merged,
             _gather_dims(b, shape, list(range(axis + nm, rank)))]
    dims = b.node("ConcatV2", parts + [b.constant(0, _I32)], {"T": _I32, "N": 3, "Tidx": _I32},
                  out_dtypes=[_I32])
    flat = _Ops(b, d)("Reshape", xe, f"{dims}:0", Tshape=_I32)
    m = _Ops(b, dtypes.bool)("Reshape", b.input(mask), b.constant([-1], _I32), Tshape=_I32)
    where = _Ops(b, dtypes.bool)("Where", m, out=dtypes.int64)
    idx = i64("Squeeze", where, squeeze_dims=[1])
    n = b.node("GatherV2", [flat, idx, b.constant(axis, _I32)],
               {"Tparams": d, "Tindices": dtypes.int64, "Taxis": _I32, "batch_dims": 0},
               out_dtypes=[d])
    return [f"{n}:0"]


def _image_unary(op: str, key: str = "images"):
    def lower(b, call):
        x = call.args[key]
        if not _t(x) or not x.dtype.is_floating or not isinstance(call.outputs, Tensor):
            return None
        return [_Ops(b, x.dtype)(op, b.input(x))]

    return lower


def _extract_patches(b, call):
    a = call.args
    x = a["images"]
    if not _t(x) or any(isinstance(a[k], Tensor) for k in ("sizes", "strides", "rates")):
        return None
    return [_Ops(b, x.dtype)("ExtractImagePatches", b.input(x),
                             ksizes=[int(v) for v in a["sizes"]],
                             strides=[int(v) for v in a["strides"]],
                             rates=[int(v) for v in a["rates"]], padding=str(a["padding"]))]


def _lrn(b, call):
    a = call.args
    x = a["input"]
    if not _t(x) or not x.dtype.is_floating or any(
            isinstance(a.get(k), Tensor) for k in ("depth_radius", "bias", "alpha", "beta")):
        return None
    return [_Ops(b, x.dtype)("LRN", b.input(x), depth_radius=int(a.get("depth_radius", 5)),
                             bias=float(a.get("bias", 1)), alpha=float(a.get("alpha", 1)),
                             beta=float(a.get("beta", 0.5)))]


def _gamma(b, call):
    """TF's ``random.gamma``: ``maximum(tiny, RandomGamma(shape, alpha + zeros_like(beta))
    / beta)``."""
    a = call.args
    out = call.outputs
    if not isinstance(out, Tensor) or not out.dtype.is_floating:
        return None
    d = out.dtype
    o = _Ops(b, d)
    shape = a["shape"]
    ds = shape.dtype if isinstance(shape, Tensor) else _I32
    beta = b.input(1 if a.get("beta") is None else a["beta"], d)
    alpha = o("AddV2", b.input(a["alpha"], d), o("ZerosLike", beta))
    seed, seed2 = _dropout_seeds(a.get("seed"))
    n = b.node("RandomGamma", [b.input(shape, ds), alpha], {"S": ds, "T": d, "seed": seed,
                                                           "seed2": seed2}, out_dtypes=[d])
    tiny = float(np.finfo(d.as_numpy_dtype).tiny)
    return [o("Maximum", b.constant(tiny, d), o("RealDiv", f"{n}:0", beta))]


def _poisson(b, call):
    a = call.args
    out = call.outputs
    if not isinstance(out, Tensor):
        return None
    shape, lam = a["shape"], a["lam"]
    ds = shape.dtype if isinstance(shape, Tensor) else _I32
    dr = lam.dtype if isinstance(lam, Tensor) else dtypes.float32
    seed, seed2 = _dropout_seeds(a.get("seed"))
    n = b.node("RandomPoissonV2", [b.input(shape, ds), b.input(lam, dr)],
               {"S": ds, "R": dr, "dtype": out.dtype, "seed": seed, "seed2": seed2},
               out_dtypes=[out.dtype])
    return [f"{n}:0"]


def _clip_by_global_norm(b, call):
    """TF's ``clip_by_global_norm``: each ``t * clip_norm * minimum(1 / norm,
    1 / clip_norm)`` (plus ``norm - norm``, so a NaN norm makes NaNs), and the norm."""
    a = call.args
    ts = a["t_list"]
    if not isinstance(ts, (list, tuple)) or not ts or not all(_t(t) for t in ts) or \
            len({t.dtype for t in ts}) != 1 or not ts[0].dtype.is_floating:
        return None
    d = ts[0].dtype
    o = _Ops(b, d)
    if a.get("use_norm") is not None:
        norm = b.input(a["use_norm"], d)
    else:
        halves = [o("L2Loss", b.input(t)) for t in ts]
        packed = b.node("Pack", halves, {"T": d, "N": len(halves), "axis": 0},
                        out_dtypes=[d])
        norm = o("Sqrt", o("Mul", o.reduce("Sum", f"{packed}:0", [0], False),
                           b.constant(2.0, d)))
    c = b.input(a["clip_norm"], d)
    one = b.constant(1.0, d)
    scale = o("Mul", c, o("Minimum", o("RealDiv", one, norm), o("RealDiv", one, c)))
    scale = o("AddV2", scale, o("Sub", norm, norm))
    return [o("Identity", o("Mul", b.input(t), scale)) for t in ts] + [norm]


def _invert_permutation(b, call):
    x = call.args["x"]
    if not _t(x):
        return None
    return [_Ops(b, x.dtype)("InvertPermutation", b.input(x))]


for _fn, _lower in (
        (ranking_ops.invert_permutation, _invert_permutation),
        (einsum_ops.tensordot, _tensordot),
        (image_color_ops.rgb_to_hsv, _image_unary("RGBToHSV")),
        (image_color_ops.hsv_to_rgb, _image_unary("HSVToRGB")),
        (image_patch_ops.extract_patches, _extract_patches),
        (normalization_ops.local_response_normalization, _lrn),
        (random_ops.gamma, _gamma),
        (random_ops.poisson, _poisson),
        (clip_ops.clip_by_global_norm, _clip_by_global_norm),
        (gather_ops.boolean_mask, _boolean_mask),
        (sort_ops.searchsorted, _searchsorted),
        (histogram_ops.histogram_fixed_width, _histogram),
        (creation_ops.bitcast, _bitcast),
        (creation_ops.saturate_cast, _saturate_cast),
        (sort_ops.unique, _unique),
        (random_ops.shuffle, _shuffle),
        (random_ops.categorical, _categorical),
        (space_batch_ops.space_to_batch, _space_to_batch),
        (space_batch_ops.space_to_batch_nd, _space_to_batch),
        (partition_ops.dynamic_partition, _dynamic_partition),
        (partition_ops.dynamic_stitch, _dynamic_stitch),
        (normalization_ops.batch_normalization, _batch_normalization),
        (image_color_ops.adjust_brightness, _adjust_brightness),
        (image_ops.adjust_contrast, _adjust_contrast),
        (image_color_ops.per_image_standardization, _per_image_standardization),
        (shape_ops.meshgrid, _meshgrid),
        (ranking_ops.bincount, _bincount)):
    if not op_graph.is_registered(_fn):
        op_graph.register(_fn, _lower)
del _fn, _lower
