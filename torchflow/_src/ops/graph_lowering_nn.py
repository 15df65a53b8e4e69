"""More TF lowerings (see ``graph_lowering``): variable reads, convolutions, pooling,
fused batch normalization.

Each writes the nodes TF's own Python API builds for the call: ``Conv2D``/``Conv3D``
(a 1-D convolution is ``ExpandDims`` + ``Conv2D`` + ``Squeeze``, as in TF),
``MaxPool``/``AvgPool`` (and their ``3D`` forms), ``FusedBatchNormV3``, with
``BiasAdd`` for a Keras layer's bias. Checked by running the exported graphs in
real TF (``tests/compat/test_saved_model_save.py``).
"""

from __future__ import annotations

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.variables import Variable
from torchflow._src.ops import conv_ops, fused_layer_ops, normalization_ops, pooling_ops


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


op_graph.register(Variable.read_value, _read_value)
op_graph.register(Variable.value, _read_value)
op_graph.register(conv_ops._conv, _conv)
op_graph.register(fused_layer_ops.conv_bias, _conv_bias)
op_graph.register(pooling_ops._pool, _pool)
op_graph.register(normalization_ops.fused_batch_norm, _fused_batch_norm)
