"""More TF lowerings (see ``graph_lowering``): variable reads, convolutions, pooling,
fused batch normalization.

Each writes the nodes TF's own Python API builds for the call: ``Conv2D``/``Conv3D``
(a 1-D convolution is ``ExpandDims`` + ``Conv2D`` + ``Squeeze``, as in TF),
``MaxPool``/``AvgPool`` (and their ``3D`` forms), ``FusedBatchNormV3``, with
``BiasAdd`` for a Keras layer's bias. Checked by running the exported graphs in
real TF (``tests/compat/test_saved_model_save.py``).
"""

from __future__ import annotations

from torchflow._src.core import context, dtypes, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import (
    conv_ops,
    fused_layer_ops,
    nn_ops,
    normalization_ops,
    pooling_ops,
    random_ops,
)

_MAXINT32 = 2**31 - 1


def _read_value(b, call):
    return [b.read_variable(call.args["self"])]


def _channels_last(data_format) -> bool:
    return not (isinstance(data_format, str) and data_format.startswith("NC"))


def _full(v, n: int, cl: bool) -> list:
    """An int or ``n`` / ``n + 2`` ints as TF's ``n + 2`` (1 on batch and channels)."""
    if v is None:
        v = 1
    v = [int(v)] * n if isinstance(v, int) else [int(x) for x in v]
    if len(v) == 1:
        v = v * n
    if len(v) == n + 2:
        return v
    return [1] + v + [1] if cl else [1, 1] + v


def _expand(b, ep: str, axis: int, d) -> str:
    ax = b.constant(axis, dtypes.int32)
    n = b.node("ExpandDims", [ep, ax], {"T": d, "Tdim": dtypes.int32}, out_dtypes=[d])
    return f"{n}:0"


def _squeeze(b, ep: str, axis: int, d) -> str:
    n = b.node("Squeeze", [ep], {"T": d, "squeeze_dims": [axis]}, out_dtypes=[d])
    return f"{n}:0"


def _conv_nodes(b, n, x, filters, strides, padding, data_format, dilations, d):
    """The convolution's output endpoint (and the BiasAdd data_format to use)."""
    cl = _channels_last(data_format)
    exportable = isinstance(padding, str)
    pad = padding if exportable else "VALID"
    ix, iw = b.input(x), b.input(filters)
    if n == 1:  # TF: a 2-D convolution over a height of 1
        ix = _expand(b, ix, 1 if cl else 2, d)
        iw = _expand(b, iw, 0, d)
        s = _full(strides, 1, cl)
        dl = _full(dilations, 1, cl)
        s = [1, 1, s[1], 1] if cl else [1, 1, 1, s[2]]
        dl = [1, 1, dl[1], 1] if cl else [1, 1, 1, dl[2]]
        df = "NHWC" if cl else "NCHW"
    else:
        s, dl = _full(strides, n, cl), _full(dilations, n, cl)
        df = data_format if isinstance(data_format, str) else ("NHWC" if n == 2 else "NDHWC")
    attrs = {"T": d, "strides": s, "padding": pad, "data_format": df, "dilations": dl}
    if n <= 2:
        attrs.update(use_cudnn_on_gpu=True, explicit_paddings=[])
    op = "Conv3D" if n == 3 else "Conv2D"
    y = f"{b.node(op, [ix, iw], attrs, out_dtypes=[d], exportable=exportable)}:0"
    if n == 1:
        y = _squeeze(b, y, 1 if cl else 2, d)
    return y, ("NHWC" if cl else "NCHW")


def _conv(b, call):
    a = call.args
    d = call.outputs.dtype
    y, _ = _conv_nodes(b, a["n"], a["input"], a["filters"], a["strides"], a["padding"],
                       a["data_format"], a["dilations"], d)
    return [y]


def _conv_bias(b, call):
    a = call.args
    d = call.outputs.dtype
    y, df = _conv_nodes(b, a["n"], a["input"], a["filters"], a["strides"], a["padding"],
                        a["data_format"], a["dilations"], d)
    if a["bias"] is not None:
        y = f"{b.node('BiasAdd', [y, b.input(a['bias'], d)], {'T': d, 'data_format': df}, out_dtypes=[d])}:0"
    return [y]


def _pool(b, call):
    a = call.args
    d = call.outputs.dtype
    n, kind = a["n"], a["kind"]
    cl = _channels_last(a["data_format"])
    ix = b.input(a["input"])
    op = "MaxPool" if kind == "max" else "AvgPool"
    if n == 1:
        ix = _expand(b, ix, 1 if cl else 2, d)
        k, s = _full(a["ksize"], 1, cl), _full(a["strides"], 1, cl)
        k = [1, 1, k[1], 1] if cl else [1, 1, 1, k[2]]
        s = [1, 1, s[1], 1] if cl else [1, 1, 1, s[2]]
        df = "NHWC" if cl else "NCHW"
    else:
        k, s = _full(a["ksize"], n, cl), _full(a["strides"], n, cl)
        df = a["data_format"] if isinstance(a["data_format"], str) else \
            ("NHWC" if n == 2 else "NDHWC")
        if n == 3:
            op += "3D"
    attrs = {"T": d, "ksize": k, "strides": s, "padding": a["padding"], "data_format": df}
    if op == "MaxPool":
        attrs["explicit_paddings"] = []
    y = f"{b.node(op, [ix], attrs, out_dtypes=[d])}:0"
    if n == 1:
        y = _squeeze(b, y, 1 if cl else 2, d)
    return [y]


def _fused_batch_norm(b, call):
    a = call.args
    y = call.outputs[0]
    d = y.dtype
    u = dtypes.float32
    ins = [b.input(a["x"]), b.input(a["scale"], u), b.input(a["offset"], u)]
    for k in ("mean", "variance"):
        v = a[k]
        ins.append(b.input(v, u) if v is not None else b.constant([], u))
    df = a["data_format"]
    attrs = {"T": d, "U": u, "epsilon": float(a["epsilon"]),
             "exponential_avg_factor": float(a["exponential_avg_factor"]),
             "data_format": df, "is_training": bool(a["is_training"])}
    n = b.node("FusedBatchNormV3", ins, attrs, out_dtypes=[d, u, u, u, u, u])
    return [f"{n}:0", f"{n}:1", f"{n}:2"]


def _op(b, op: str, inputs: list, d, **attrs) -> str:
    return f"{b.node(op, inputs, {'T': d, **attrs}, out_dtypes=[d])}:0"


def _gelu(b, call):
    """TF 2.4's composition (it has no Gelu op): ``0.5 x (1 + erf(x / sqrt 2))``, or
    with ``approximate`` ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``."""
    a = call.args
    d = call.outputs.dtype
    x = b.input(a["features"])
    if a.get("approximate"):
        cube = _op(b, "Pow", [x, b.constant(3.0, d)], d)
        inner = _op(b, "AddV2", [x, _op(b, "Mul", [b.constant(0.044715, d), cube], d)], d)
        t = _op(b, "Tanh", [_op(b, "Mul", [b.constant(0.7978845608028654, d), inner], d)], d)
    else:
        t = _op(b, "Erf", [_op(b, "RealDiv", [x, b.constant(1.4142135623730951, d)], d)], d)
    half = _op(b, "Mul", [b.constant(0.5, d), x], d)
    return [_op(b, "Mul", [half, _op(b, "AddV2", [b.constant(1.0, d), t], d)], d)]


def _moments(b, call):
    """TF's ``nn.moments``: Mean, StopGradient, SquaredDifference, Mean (then
    Squeeze without keepdims); half precision reduced in float32."""
    a = call.args
    mean_out = call.outputs[0]
    d = mean_out.dtype
    x = b.input(a["x"])
    rank = a["x"].shape.rank
    axes = a["axes"]
    axes = [int(axes)] if isinstance(axes, int) else [int(v) for v in axes]
    axes = [v % rank if rank else v for v in axes]
    w = dtypes.float32 if d in (dtypes.float16, dtypes.bfloat16) else d
    if w != d:
        x = f"{b.node('Cast', [x], {'SrcT': d, 'DstT': w, 'Truncate': False}, out_dtypes=[w])}:0"
    ax = b.constant(axes, dtypes.int32)
    mean = _op(b, "Mean", [x, ax], w, Tidx=dtypes.int32, keep_dims=True)
    sg = _op(b, "StopGradient", [mean], w)
    var = _op(b, "Mean", [_op(b, "SquaredDifference", [x, sg], w), ax], w,
              Tidx=dtypes.int32, keep_dims=True)
    outs = []
    for v in (mean, var):
        if not a.get("keepdims"):
            v = _op(b, "Squeeze", [v], w, squeeze_dims=axes)
        if w != d:
            v = f"{b.node('Cast', [v], {'SrcT': w, 'DstT': d, 'Truncate': False}, out_dtypes=[d])}:0"
        outs.append(v)
    return outs


def _dropout_seeds(op_seed) -> tuple:
    """``seed``/``seed2`` of the graph's random op: TF's (global seed, op seed), the
    default graph seed with an op seed alone, ``(0, 0)`` (a fresh seed per kernel)
    with neither. A global seed without an op seed takes op seed 0 here (TF's graph
    takes the op's index), so export does not draw from the eager op-seed stream."""
    g = context.GLOBAL.global_seed
    if g is None and op_seed is None:
        return 0, 0
    if g is None:
        return random_ops.DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    return int(g) % _MAXINT32, 0 if op_seed is None else int(op_seed) % _MAXINT32


def _noise_shape(b, x: str, d, noise_shape) -> str:
    """TF's noise shape: ``Shape(x)``, or the given dims with x's read where None."""
    i32 = dtypes.int32
    shape = f"{b.node('Shape', [x], {'T': d, 'out_type': i32}, out_dtypes=[i32])}:0"
    if noise_shape is None:
        return shape
    if isinstance(noise_shape, Tensor):  # possibly the function's argument: an input
        ep = b.input(noise_shape)
        if noise_shape.dtype != i32:
            ep = f"{b.node('Cast', [ep], {'SrcT': noise_shape.dtype, 'DstT': i32, 'Truncate': False}, out_dtypes=[i32])}:0"
        return ep
    dims = list(noise_shape)
    if all(d is not None for d in dims):
        return b.constant([int(d) for d in dims], i32)
    parts = []
    for i, d in enumerate(dims):
        if d is not None:
            parts.append(b.constant(int(d), i32))
            continue
        n = b.node("StridedSlice", [shape, b.constant([i], i32), b.constant([i + 1], i32),
                                    b.constant([1], i32)],
                   {"T": i32, "Index": i32, "begin_mask": 0, "end_mask": 0,
                    "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 1},
                   out_dtypes=[i32])
        parts.append(f"{n}:0")
    n = b.node("Pack", parts, {"T": i32, "N": len(parts), "axis": 0}, out_dtypes=[i32])
    return f"{n}:0"


def _dropout(b, call):
    """TF 2.4's ``nn.dropout`` graph: ``x * (1 / (1 - rate))`` times the cast of
    ``RandomUniform(noise shape) >= rate``."""
    a = call.args
    x_t, rate, out = a["x"], a["rate"], call.outputs
    if not isinstance(out, Tensor):
        return None
    d = out.dtype
    x = b.input(x_t, d)
    if out is x_t:  # rate 0: x itself
        return [x]
    if isinstance(rate, Tensor):
        r = b.input(rate)
        if rate.dtype != d:
            r = f"{b.node('Cast', [r], {'SrcT': rate.dtype, 'DstT': d, 'Truncate': False}, out_dtypes=[d])}:0"
        keep = _op(b, "Sub", [b.constant(1.0, d), r], d)
        scale = _op(b, "RealDiv", [b.constant(1.0, d), keep], d)
    else:
        r = b.constant(float(rate), d)
        scale = b.constant(1.0 / (1.0 - float(rate)), d)
    scaled = _op(b, "Mul", [x, scale], d)
    seed, seed2 = _dropout_seeds(a.get("seed"))
    shape = _noise_shape(b, x, d, a.get("noise_shape"))
    rnd = b.node("RandomUniform", [shape], {"T": dtypes.int32, "dtype": d, "seed": seed,
                                            "seed2": seed2}, out_dtypes=[d])
    keep_mask = b.node("GreaterEqual", [f"{rnd}:0", r], {"T": d}, out_dtypes=[dtypes.bool])
    mask = b.node("Cast", [f"{keep_mask}:0"], {"SrcT": dtypes.bool, "DstT": d,
                                               "Truncate": False}, out_dtypes=[d])
    return [_op(b, "Mul", [scaled, f"{mask}:0"], d)]


op_graph.register(Variable.read_value, _read_value)
op_graph.register(Variable.value, _read_value)
op_graph.register(conv_ops._conv, _conv)
op_graph.register(fused_layer_ops.conv_bias, _conv_bias)
op_graph.register(pooling_ops._pool, _pool)
op_graph.register(normalization_ops.fused_batch_norm, _fused_batch_norm)
op_graph.register(nn_ops.gelu, _gelu)
op_graph.register(normalization_ops.moments, _moments)
op_graph.register(nn_ops.dropout, _dropout)

# The Keras layers' other ops (Einsum, padding, depthwise/transposed convolutions...).
from torchflow._src.ops import graph_lowering_layers  # noqa: E402, F401  (registrations)
