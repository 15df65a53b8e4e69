"""TF lowerings (see ``graph_lowering``) of the ops the common Keras layers call:
Einsum (MultiHeadAttention), the activations with attributes or compositions
(``LeakyRelu``'s alpha, swish), clipping (``ReLU(max_value=)``), negation,
padding (ZeroPadding, causal convolutions), depthwise, separable and transposed
convolutions, and ``repeat`` (UpSampling).

Each writes nodes of TF's ops with the attributes TF's op definitions require;
``tests/compat/test_saved_model_layers.py`` runs the graphs in real TF.
"""

from __future__ import annotations

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import (
    array_ops,
    clip_ops,
    conv_ops,
    einsum_ops,
    image_ops,
    indexing,
    nn_ops,
    tensor_operators,
    unary_math_ops,
)

_I32 = dtypes.int32


def _op(b, op: str, inputs: list, d, **attrs) -> str:
    return f"{b.node(op, inputs, {'T': d, **attrs}, out_dtypes=[d])}:0"


def _ints(v, n: int) -> list:
    v = [int(v)] * n if isinstance(v, int) else [int(x) for x in v]
    return v * n if len(v) == 1 else v


def _four(v, cl: bool) -> list:
    """Strides/dilations of a 2-D op as TF's 4 ints (1 on batch and channels)."""
    v = _ints(1 if v is None else v, 2)
    if len(v) == 4:
        return v
    return [1, *v, 1] if cl else [1, 1, *v]


def _cl(data_format) -> bool:
    return not (isinstance(data_format, str) and data_format.startswith("NC"))


def _df(data_format, n: int = 2) -> str:
    if isinstance(data_format, str):
        return data_format
    return "NHWC" if n <= 2 else "NDHWC"


def _einsum(b, call):
    """``Einsum``; of more than two operands, a chain of two-operand ``Einsum``s (TF's op
    takes at most two; TF's Python contracts pairwise too), each keeping the letters a
    later operand or the output needs."""
    a = call.args
    eq = a["equation"].replace(" ", "")
    xs = list(a["inputs"])
    d = call.outputs.dtype
    eps = [b.input(x, d) for x in xs]
    if len(xs) > 2 and "->" in eq and "." not in eq:
        lhs, out = eq.split("->")
        specs = lhs.split(",")
        cur, ep = specs[0], eps[0]
        for k in range(1, len(specs)):
            later = set(out).union(*specs[k + 1:])
            res = out if k == len(specs) - 1 else "".join(
                dict.fromkeys(c for c in cur + specs[k] if c in later))
            n = b.node("Einsum", [ep, eps[k]], {"equation": f"{cur},{specs[k]}->{res}",
                                               "N": 2, "T": d}, out_dtypes=[d])
            cur, ep = res, f"{n}:0"
        return [ep]
    n = b.node("Einsum", eps, {"equation": eq, "N": len(xs), "T": d}, out_dtypes=[d])
    return [f"{n}:0"]


def _silu(b, call):
    """``x * sigmoid(beta * x)`` (TF 2.4's swish has no op of its own)."""
    a = call.args
    d = call.outputs.dtype
    x = b.input(a["features"])
    beta = a.get("beta", 1.0)
    inner = x
    if not (isinstance(beta, (int, float)) and beta == 1.0):
        inner = _op(b, "Mul", [b.input(beta, d), x], d)
    return [_op(b, "Mul", [x, _op(b, "Sigmoid", [inner], d)], d)]


def _leaky_relu(b, call):
    a = call.args
    d = call.outputs.dtype
    return [_op(b, "LeakyRelu", [b.input(a["features"])], d, alpha=float(a["alpha"]))]


def _neg(b, call):
    d = call.outputs.dtype
    return [_op(b, "Neg", [b.input(call.args["self"])], d)]


def _clip_by_value(b, call):
    """TF's graph: ``Maximum(Minimum(t, max), min)``."""
    a = call.args
    out = call.outputs
    if not isinstance(out, Tensor):
        return None  # IndexedSlices: its values' ops are recorded
    d = out.dtype
    lo = _op(b, "Minimum", [b.input(a["t"], d), b.input(a["clip_value_max"], d)], d)
    return [_op(b, "Maximum", [lo, b.input(a["clip_value_min"], d)], d)]


def _pad(b, call):
    a = call.args
    d = call.outputs.dtype
    mode = str(a.get("mode") or "CONSTANT").upper()
    pads = b.input(a["paddings"], _I32)
    tp = b.dtype_of(pads) or _I32
    x = b.input(a["tensor"])
    if mode in ("REFLECT", "SYMMETRIC"):
        return [_op(b, "MirrorPad", [x, pads], d, Tpaddings=tp, mode=mode)]
    cv = a.get("constant_values", 0)
    if isinstance(cv, (int, float)) and not isinstance(cv, bool) and cv == 0:
        return [_op(b, "Pad", [x, pads], d, Tpaddings=tp)]
    return [_op(b, "PadV2", [x, pads, b.input(cv, d)], d, Tpaddings=tp)]


def _depthwise_node(b, x: str, w: str, strides, padding, data_format, dilations, d) -> str:
    cl = _cl(data_format)
    return _op(b, "DepthwiseConv2dNative", [x, w], d, strides=_four(strides, cl),
               padding=padding, explicit_paddings=[], data_format=_df(data_format),
               dilations=_four(dilations, cl))


def _depthwise(b, call):
    a = call.args
    if not isinstance(a["padding"], str):
        return None
    d = call.outputs.dtype
    return [_depthwise_node(b, b.input(a["input"]), b.input(a["filter"], d), a["strides"],
                            a["padding"], a.get("data_format"), a.get("dilations"), d)]


def _separable(b, call):
    """TF's graph: DepthwiseConv2dNative, then a 1x1 VALID Conv2D."""
    a = call.args
    if not isinstance(a["padding"], str):
        return None
    d = call.outputs.dtype
    df = a.get("data_format")
    y = _depthwise_node(b, b.input(a["input"]), b.input(a["depthwise_filter"], d),
                        a["strides"], a["padding"], df, a.get("dilations"), d)
    return [_op(b, "Conv2D", [y, b.input(a["pointwise_filter"], d)], d, strides=[1, 1, 1, 1],
                padding="VALID", data_format=_df(df), dilations=[1, 1, 1, 1],
                use_cudnn_on_gpu=True, explicit_paddings=[])]


def _run_time_sizes(b, x: str, xd, static: list) -> str:
    """``static`` (an output shape) with its batch taken from ``x`` at run time."""
    shape = f"{b.node('Shape', [x], {'T': xd, 'out_type': _I32}, out_dtypes=[_I32])}:0"
    batch = _op(b, "Slice", [shape, b.constant([0], _I32), b.constant([1], _I32)], _I32,
                Index=_I32)
    n = b.node("ConcatV2", [batch, b.constant([int(v) for v in static[1:]], _I32),
                            b.constant(0, _I32)], {"T": _I32, "N": 2, "Tidx": _I32},
               out_dtypes=[_I32])
    return f"{n}:0"


def _conv_transpose(b, call):
    """``Conv2DBackpropInput`` / ``Conv3DBackpropInputV2`` (a 1-D one over a unit
    height, as TF's conv1d_transpose), the batch of ``output_shape`` read at run time."""
    a = call.args
    n, padding = a["n"], a["padding"]
    oshape = a["output_shape"]
    if not isinstance(padding, str) or isinstance(oshape, (Tensor, Variable)):
        return None
    d = call.outputs.dtype
    cl = _cl(a["data_format"])
    x, w = b.input(a["input"]), b.input(a["filters"], d)
    oshape = [int(v) for v in oshape]
    if n == 1:
        ax = 1 if cl else 2
        x = _op(b, "ExpandDims", [x, b.constant(ax, _I32)], d, Tdim=_I32)
        w = _op(b, "ExpandDims", [w, b.constant(0, _I32)], d, Tdim=_I32)
        oshape = oshape[:ax] + [1] + oshape[ax:]
    sizes = _run_time_sizes(b, x, d, oshape)
    m = 2 if n <= 2 else 3
    s, dl = _ints(a["strides"], n), _ints(a["dilations"] or 1, n)
    if len(s) == n:
        s = ([1] * (m - n) + s) if n == 1 else s
        s = [1, *s, 1] if cl else [1, 1, *s]
    if len(dl) == n:
        dl = ([1] * (m - n) + dl) if n == 1 else dl
        dl = [1, *dl, 1] if cl else [1, 1, *dl]
    df = ("NHWC" if cl else "NCHW") if n == 1 else _df(a["data_format"], n)
    if m == 2:
        y = _op(b, "Conv2DBackpropInput", [sizes, w, x], d, strides=s, padding=padding,
                data_format=df, dilations=dl, use_cudnn_on_gpu=True, explicit_paddings=[])
    else:
        y = _op(b, "Conv3DBackpropInputV2", [sizes, w, x], d, strides=s, padding=padding,
                data_format=df, dilations=dl, Tshape=_I32)
    if n == 1:
        y = _op(b, "Squeeze", [y], d, squeeze_dims=[1 if cl else 2])
    return [y]


def _repeat(b, call):
    """A scalar ``repeats`` along ``axis``: ExpandDims, Tile, then Reshape to the input's
    run-time shape with that axis multiplied."""
    a = call.args
    x_, reps, axis = a["input"], a["repeats"], a.get("axis")
    rank = x_.shape.rank if isinstance(x_, (Tensor, Variable)) else None
    if not isinstance(reps, int) or not isinstance(axis, int) or rank is None:
        return None
    d = call.outputs.dtype
    axis %= rank
    x = b.input(x_)
    e = _op(b, "ExpandDims", [x, b.constant(axis + 1, _I32)], d, Tdim=_I32)
    mult = [1] * (rank + 1)
    mult[axis + 1] = reps
    t = _op(b, "Tile", [e, b.constant(mult, _I32)], d, Tmultiples=_I32)
    shape = f"{b.node('Shape', [x], {'T': d, 'out_type': _I32}, out_dtypes=[_I32])}:0"
    scale = [1] * rank
    scale[axis] = reps
    new = _op(b, "Mul", [shape, b.constant(scale, _I32)], _I32)
    return [_op(b, "Reshape", [t, new], d, Tshape=_I32)]


def _index(v) -> bool:
    """Whether ``v`` may bound a slice: an int, or an integer scalar tensor."""
    return type(v) is int or (type(v) is Tensor and v.dtype in (_I32, dtypes.int64) and
                              v.shape.rank == 0)


def _slice_spec(key):
    """``(begin, end, strides, masks)`` of a Python index (ints or integer scalar
    tensors, slices bounded by them, ``...``, ``None``) as TF's ``StridedSlice`` takes
    it (an end ``(k,)``: ``k + 1``, computed in the graph); None otherwise."""
    key = key if type(key) is tuple else (key,)
    begin, end, strides = [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                           "shrink_axis_mask"), 0)
    for i, k in enumerate(key):
        bit = 1 << i
        if _index(k):
            begin.append(k)
            end.append(k + 1 if type(k) is int else (k,))
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
        elif type(k) is slice:
            if any(v is not None and not _index(v) for v in (k.start, k.stop)) or \
                    (k.step is not None and type(k.step) is not int) or k.step == 0:
                return None
            begin.append(0 if k.start is None else k.start)
            end.append(0 if k.stop is None else k.stop)
            strides.append(1 if k.step is None else k.step)
            if k.start is None:
                masks["begin_mask"] |= bit
            if k.stop is None:
                masks["end_mask"] |= bit
        elif k is Ellipsis or k is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis_mask" if k is Ellipsis else "new_axis_mask"] |= bit
        else:
            return None
    return begin, end, strides, masks


def _bounds(b, values: list, d) -> str:
    """A ``StridedSlice`` bound vector of ``d``: a constant, or a ``Pack`` where a
    tensor is among ``values`` (as TF's ``_slice_helper`` stacks them)."""
    if all(type(v) is int for v in values):
        return b.constant(values, d)
    eps = []
    for v in values:
        if type(v) is int:
            eps.append(b.constant(v, d))
        elif type(v) is tuple:
            one = b.node("AddV2", [b.input(v[0]), b.constant(1, d)], {"T": d}, out_dtypes=[d])
            eps.append(f"{one}:0")
        else:
            eps.append(b.input(v))
    n = b.node("Pack", eps, {"N": len(eps), "T": d, "axis": 0}, out_dtypes=[d])
    return f"{n}:0"


def _getitem(b, call):
    spec = _slice_spec(call.args["key"])
    out = call.outputs
    if spec is None or not spec[0] or not isinstance(out, Tensor):
        return None
    begin, end, strides, masks = spec
    kinds = {v.dtype for v in begin + [e[0] if type(e) is tuple else e for e in end]
             if type(v) is Tensor}
    if len(kinds) > 1:
        return None  # (TF cannot stack int32 and int64 bounds either)
    index = kinds.pop() if kinds else _I32
    d = out.dtype
    ins = [b.input(call.args["self"])] + [_bounds(b, v, index) for v in (begin, end, strides)]
    return [_op(b, "StridedSlice", ins, d, Index=index, **masks)]


def _tile(b, call):
    a = call.args
    d = call.outputs.dtype
    m = b.input(a["multiples"], _I32)
    return [_op(b, "Tile", [b.input(a["input"]), m], d, Tmultiples=b.dtype_of(m) or _I32)]


def _read(b, call):
    """A variable's operators (``variable * x``) read it through ``_read``."""
    return [b.read_variable(call.args["self"])]


def _abs(b, call):
    x = call.args["x"]
    out = call.outputs
    if not isinstance(x, (Tensor, Variable)) or not isinstance(out, Tensor):
        return None
    d = x.dtype
    if d.is_complex:
        n = b.node("ComplexAbs", [b.input(x)], {"T": d, "Tout": out.dtype},
                   out_dtypes=[out.dtype])
        return [f"{n}:0"]
    return [_op(b, "Abs", [b.input(x)], d)]


_RESIZE = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor",
           "bicubic": "ResizeBicubic", "area": "ResizeArea"}


def _resize(b, call):
    """TF 2's ``image.resize`` without antialiasing: the half-pixel-centre kernels
    (``ResizeArea`` has none), 3-D images batched by ExpandDims/Squeeze."""
    a = call.args
    out, x_ = call.outputs, a["images"]
    method = getattr(a.get("method"), "value", a.get("method")) or "bilinear"
    op = _RESIZE.get(method)
    if op is None or (a.get("antialias") and method in ("bilinear", "bicubic")) or \
            not isinstance(out, Tensor) or not isinstance(x_, (Tensor, Variable)):
        return None
    d = x_.dtype
    single = x_.shape.rank == 3
    size = a.get("size")
    if isinstance(size, Tensor):
        # The size may be the function's argument: an input of the node, never the
        # trace's value (a resize by aspect ratio computes it: not written).
        if a.get("preserve_aspect_ratio"):
            return None
        size_ep = b.input(size)
        if size.dtype != _I32:
            size_ep = f"{b.node('Cast', [size_ep], {'SrcT': size.dtype, 'DstT': _I32, 'Truncate': False}, out_dtypes=[_I32])}:0"
    else:
        hw = [v for v in out.shape.as_list()[-3:-1] if v is not None]
        if len(hw) != 2:
            return None
        size_ep = b.constant([int(v) for v in hw], _I32)
    x = b.input(x_)
    if single:
        x = _op(b, "ExpandDims", [x, b.constant(0, _I32)], d, Tdim=_I32)
    attrs = {"T": d, "align_corners": False}
    if op != "ResizeArea":
        attrs["half_pixel_centers"] = True
    n = b.node(op, [x, size_ep], attrs, out_dtypes=[out.dtype])
    y = f"{n}:0"
    if single:
        y = _op(b, "Squeeze", [y], out.dtype, squeeze_dims=[0])
    return [y]


def _crop(b, call):
    """TF's graph of ``crop_to_bounding_box``: one ``Slice``."""
    a = call.args
    vals = [a[k] for k in ("offset_height", "offset_width", "target_height", "target_width")]
    img = a["image"]
    if not all(type(v) is int for v in vals) or not isinstance(img, (Tensor, Variable)):
        return None
    oh, ow, th, tw = vals
    begin, size = [oh, ow, 0], [th, tw, -1]
    if img.shape.rank == 4:
        begin, size = [0] + begin, [-1] + size
    d = call.outputs.dtype
    return [_op(b, "Slice", [b.input(img), b.constant(begin, _I32), b.constant(size, _I32)],
                d, Index=_I32)]


op_graph.register(einsum_ops.einsum, _einsum)
op_graph.register(image_ops.resize, _resize)
op_graph.register(image_ops.crop_to_bounding_box, _crop)
op_graph.register(unary_math_ops.abs, _abs)
op_graph.register(array_ops.tile, _tile)
op_graph.register(Variable._read, _read)
op_graph.register(indexing.getitem, _getitem)
op_graph.register(nn_ops.silu, _silu)
op_graph.register(nn_ops.swish, _silu)
op_graph.register(nn_ops.leaky_relu, _leaky_relu)
op_graph.register(tensor_operators._neg, _neg)
op_graph.register(clip_ops.clip_by_value, _clip_by_value)
op_graph.register(array_ops.pad, _pad)
op_graph.register(conv_ops.depthwise_conv2d, _depthwise)
op_graph.register(conv_ops.separable_conv2d, _separable)
op_graph.register(conv_ops._conv_transpose, _conv_transpose)
op_graph.register(array_ops.repeat, _repeat)
