"""TF lowerings of the ops: what node(s) a call of each op is in a TF graph.

See ``torchflow._src.core.op_graph``. Each lowering gets the builder ``b`` and the
call (its bound arguments in ``call.args``, its result in ``call.outputs``) and
returns the endpoints of the result's tensors. Nodes carry TF's op names and the
attributes TF's op definitions require, so a graph made of them runs in TF.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import convert, custom_gradient, dtypes, op_graph
from torchflow._src.core.op_graph import shape_attr
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import (
    _math_common,
    array_ops,
    comparison_ops,
    creation_ops,
    fused_layer_ops,
    gather_ops,
    linalg_ops,
    logging_ops,
    math_ops,
    nn_ops,
    reduction_ops,
    shape_ops,
)

_REVERSED = {torch.rsub, _math_common.rdiv, _math_common.rpow}


def _dtype_of(x):
    if isinstance(x, (Tensor, Variable)):
        return x.dtype
    return None


def _out_dtype(call, k=0):
    flat = [o for o in _flat(call.outputs)]
    return flat[k].dtype if k < len(flat) else None


def _flat(x):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [e for y in x for e in _flat(y)]
    return []


def _binary(b, call):
    a = call.args
    x, y = a["x"], a["y"]
    d = _dtype_of(x) or _dtype_of(y)
    if a.get("fn") in _REVERSED:
        x, y = y, x
    ix, iy = b.input(x, d), b.input(y, d)
    out = _out_dtype(call)
    op = a["op"]
    if op == "AddV2" and d == dtypes.string:
        op = "Add"  # TF's string concatenation: AddV2 has no string kernel
    n = b.node(op, [ix, iy], {"T": d}, out_dtypes=[out])
    return [f"{n}:0"]


def _unary(key):
    def lower(b, call):
        a = call.args
        x = a[key]
        d = _dtype_of(x)
        n = b.node(a["op"], [b.input(x)], {"T": d}, out_dtypes=[_out_dtype(call)])
        return [f"{n}:0"]

    return lower


def _matmul(b, call):
    a = call.args
    x, y = a["a"], a["b"]
    d = _dtype_of(x) or _dtype_of(y)
    ix, iy = b.input(x, d), b.input(y, d)
    rank = len(x.shape) if isinstance(x, (Tensor, Variable)) else np.ndim(x)
    ta = bool(a.get("transpose_a") or a.get("adjoint_a"))
    tb = bool(a.get("transpose_b") or a.get("adjoint_b"))
    if rank == 2 and (len(y.shape) if isinstance(y, (Tensor, Variable)) else np.ndim(y)) == 2:
        n = b.node("MatMul", [ix, iy], {"T": d, "transpose_a": ta, "transpose_b": tb},
                   out_dtypes=[d])
    else:
        n = b.node("BatchMatMulV2", [ix, iy], {"T": d, "adj_x": ta, "adj_y": tb},
                   out_dtypes=[d])
    return [f"{n}:0"]


def _dense(b, call):
    a = call.args
    x, k, bias = a["x"], a["kernel"], a["bias"]
    d = _dtype_of(x)
    m = b.node("MatMul", [b.input(x), b.input(k)], {"T": d, "transpose_a": False,
                                                     "transpose_b": False}, out_dtypes=[d])
    if bias is None:
        return [f"{m}:0"]
    n = b.node("BiasAdd", [f"{m}:0", b.input(bias)], {"T": d, "data_format": "NHWC"},
               out_dtypes=[d])
    return [f"{n}:0"]


def _bias_add(b, call):
    a = call.args
    d = _dtype_of(a["value"])
    fmt = a.get("data_format") or "NHWC"
    fmt = "NCHW" if str(fmt).startswith("NC") else "NHWC"
    n = b.node("BiasAdd", [b.input(a["value"]), b.input(a["bias"], d)],
               {"T": d, "data_format": fmt}, out_dtypes=[d])
    return [f"{n}:0"]


def _constant(b, call):
    out = call.outputs
    if not isinstance(out, Tensor):
        return None
    name = call.args.get("name")
    return [b.constant(out, name=name if isinstance(name, str) else None)]


def _filled(value):
    """``tf.zeros``/``tf.ones``: a constant, or ``Fill`` where the shape holds tensors
    (TF's graph has the run-time shape there; a constant would hold the trace's)."""

    def lower(b, call):
        out = call.outputs
        shape = call.args.get("shape")
        if not isinstance(out, Tensor):
            return None
        if not (isinstance(shape, (Tensor, Variable)) or (type(shape) in (list, tuple) and any(
                isinstance(e, (Tensor, Variable)) for e in shape))):
            return _constant(b, call)
        dims = b.input(shape, dtypes.int32)
        fill = b.constant(np.asarray(value, out.dtype.as_numpy_dtype), out.dtype)
        n = b.node("Fill", [dims, fill], {"T": out.dtype,
                                          "index_type": b.dtype_of(dims) or dtypes.int32},
                   out_dtypes=[out.dtype])
        return [f"{n}:0"]

    return lower


def _cast(b, call):
    x = call.args["x"]
    out = call.outputs
    if not isinstance(x, (Tensor, Variable)):  # a Python value: TF's constant of it, cast
        return [b.constant(out)]
    src = _dtype_of(x) or out.dtype
    n = b.node("Cast", [b.input(x)], {"SrcT": src, "DstT": out.dtype, "Truncate": False},
               out_dtypes=[out.dtype])
    return [f"{n}:0"]


def _identity(b, call):
    x = call.args["input"]
    n = b.node("Identity", [b.input(x)], {"T": _dtype_of(x) or call.outputs.dtype},
               out_dtypes=[call.outputs.dtype])
    return [f"{n}:0"]


def _reshape(b, call):
    a = call.args
    x, shape = a["tensor"], a["shape"]
    d = _dtype_of(x) or call.outputs.dtype
    ishape = b.input(shape, dtypes.int32)
    n = b.node("Reshape", [b.input(x), ishape],
               {"T": d, "Tshape": b.dtype_of(ishape) or dtypes.int32}, out_dtypes=[d])
    return [f"{n}:0"]


def _reduction(op):
    def lower(b, call):
        a = call.args
        x = a["input_tensor"]
        d = _dtype_of(x) or call.outputs.dtype
        axis = a.get("axis")
        if axis is None:
            rank = len(x.shape)
            axis = list(range(rank))
        iaxis = b.input(axis, dtypes.int32)
        n = b.node(op, [b.input(x), iaxis],
                   {"T": d, "Tidx": b.dtype_of(iaxis) or dtypes.int32,
                    "keep_dims": bool(a.get("keepdims"))}, out_dtypes=[call.outputs.dtype])
        return [f"{n}:0"]

    return lower


def _softmax(b, call):
    """``Softmax`` (``LogSoftmax``) over the last axis; another ``axis`` is swapped
    with the last by ``Transpose`` before and after, as TF's graph does."""
    a = call.args
    x = a["logits"]
    d = call.outputs.dtype
    op = "LogSoftmax" if call.fn is _LOG_SOFTMAX else "Softmax"
    rank = len(x.shape)
    axis = a.get("axis")
    axis = rank - 1 if axis is None else int(axis) % rank
    ix = b.input(x)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    if axis != rank - 1:
        p = b.constant(perm, dtypes.int32)
        ix = f"{b.node('Transpose', [ix, p], {'T': d, 'Tperm': dtypes.int32}, out_dtypes=[d])}:0"
    n = f"{b.node(op, [ix], {'T': d}, out_dtypes=[d])}:0"
    if axis != rank - 1:
        p = b.constant(perm, dtypes.int32)
        n = f"{b.node('Transpose', [n, p], {'T': d, 'Tperm': dtypes.int32}, out_dtypes=[d])}:0"
    return [n]


_LOG_SOFTMAX = nn_ops.log_softmax.__code__


def _where(b, call):
    a = call.args
    if a.get("x") is None:
        c = a["condition"]
        n = b.node("Where", [b.input(c)], {"T": _dtype_of(c) or dtypes.bool},
                   out_dtypes=[dtypes.int64])
        return [f"{n}:0"]
    d = call.outputs.dtype
    n = b.node("SelectV2", [b.input(a["condition"], dtypes.bool), b.input(a["x"], d),
                            b.input(a["y"], d)], {"T": d}, out_dtypes=[d])
    return [f"{n}:0"]


def _compare(op):
    def lower(b, call):
        a = call.args
        x, y = a["x"], a["y"]
        d = _dtype_of(x) or _dtype_of(y)
        attrs: dict = {"T": d}
        if op in ("Equal", "NotEqual"):
            attrs["incompatible_shape_error"] = bool(a.get("incompatible_shape_error", True))
        n = b.node(op, [b.input(x, d), b.input(y, d)], attrs, out_dtypes=[dtypes.bool])
        return [f"{n}:0"]

    return lower


_TORCH_COMPARE = {torch.lt: "Less", torch.le: "LessEqual", torch.gt: "Greater",
                  torch.ge: "GreaterEqual", torch.eq: "Equal", torch.ne: "NotEqual"}


def _compare_op(b, call):
    """The comparison operators' shared fast path (``x > 0``), by its torch function."""
    op = _TORCH_COMPARE.get(call.args["fn"])
    return None if op is None else _compare(op)(b, call)


def _equal_op(b, call):
    return _compare(call.args["op"])(b, call)


def _assign(op):
    def lower(b, call):
        a = call.args
        var = a["self"]
        value = a.get("value", a.get("delta"))
        n = b.node(op, [b.handle(var), b.input(value, var.dtype)], {"dtype": var.dtype},
                   out_dtypes=[])
        del n
        return []

    return lower


def _print(b, call):
    a = call.args
    inputs = [x for x in _flat(list(a.get("inputs", ()))) if isinstance(x, Tensor)]
    eps = [b.input(x) for x in inputs]
    fmt = b.node("StringFormat", eps, {"T": [x.dtype for x in inputs],
                                       "template": " ".join(["{}"] * len(inputs)),
                                       "placeholder": "{}", "summarize": 3},
                 out_dtypes=[dtypes.string])
    b.node("PrintV2", [f"{fmt}:0"], {"output_stream": "stderr", "end": "\n"}, out_dtypes=[])
    return []


def _convert_to_tensor(b, call):
    out = call.outputs
    v = call.args.get("value")
    if isinstance(v, (Tensor, Variable)):
        return [b.input(v)]
    return [b.constant(out)]


def _like(op):
    def lower(b, call):
        x = call.args["input"]
        out = call.outputs
        src = b.input(x)
        if call.args.get("dtype") is not None and _dtype_of(x) != out.dtype:
            src = f"{b.node('Cast', [src], {'SrcT': _dtype_of(x), 'DstT': out.dtype, 'Truncate': False}, out_dtypes=[out.dtype])}:0"
        n = b.node(op, [src], {"T": out.dtype}, out_dtypes=[out.dtype])
        return [f"{n}:0"]

    return lower


def _fill(b, call):
    a = call.args
    out = call.outputs
    dims = b.input(a["dims"], dtypes.int32)
    n = b.node("Fill", [dims, b.input(a["value"], out.dtype)],
               {"T": out.dtype, "index_type": b.dtype_of(dims) or dtypes.int32},
               out_dtypes=[out.dtype])
    return [f"{n}:0"]


def _shape(b, call):
    a = call.args
    out = call.outputs
    x = a["input"]
    n = b.node("Shape", [b.input(x)], {"T": _dtype_of(x), "out_type": out.dtype},
               out_dtypes=[out.dtype])
    return [f"{n}:0"]


def _transpose(b, call):
    a = call.args
    x = a["a"]
    perm = a.get("perm")
    if perm is None:
        perm = list(reversed(range(len(x.shape))))
    p = b.input(perm, dtypes.int32)
    d = _dtype_of(x)
    n = b.node("ConjugateTranspose" if a.get("conjugate") and d is not None and d.is_complex
               else "Transpose",
               [b.input(x), p], {"T": d, "Tperm": b.dtype_of(p) or dtypes.int32},
               out_dtypes=[d])
    return [f"{n}:0"]


def _concat(b, call):
    a = call.args
    vals = list(a["values"])
    d = call.outputs.dtype
    ax = b.input(a["axis"], dtypes.int32)
    n = b.node("ConcatV2", [b.input(v, d) for v in vals] + [ax],
               {"N": len(vals), "T": d, "Tidx": b.dtype_of(ax) or dtypes.int32}, out_dtypes=[d])
    return [f"{n}:0"]


def _stack(b, call):
    a = call.args
    return [b.pack(list(a["values"]), call.outputs.dtype, int(a.get("axis") or 0))]


def _squeeze(b, call):
    a = call.args
    ax = a.get("axis")
    dims = [] if ax is None else ([int(ax)] if isinstance(ax, int) else [int(i) for i in ax])
    d = call.outputs.dtype
    n = b.node("Squeeze", [b.input(a["input"])], {"T": d, "squeeze_dims": dims}, out_dtypes=[d])
    return [f"{n}:0"]


def _expand_dims(b, call):
    a = call.args
    d = call.outputs.dtype
    ax = b.input(a["axis"], dtypes.int32)
    n = b.node("ExpandDims", [b.input(a["input"]), ax],
               {"T": d, "Tdim": b.dtype_of(ax) or dtypes.int32}, out_dtypes=[d])
    return [f"{n}:0"]


def _gather(b, call):
    a = call.args
    d = call.outputs.dtype
    idx = b.input(a["indices"], dtypes.int32)
    ax = b.input(a.get("axis") or 0, dtypes.int32)
    n = b.node("GatherV2", [b.input(a["params"]), idx, ax],
               {"Tparams": d, "Tindices": b.dtype_of(idx) or dtypes.int32,
                "Taxis": b.dtype_of(ax) or dtypes.int32,
                "batch_dims": int(a.get("batch_dims") or 0)}, out_dtypes=[d])
    return [f"{n}:0"]


def _stop_gradient(b, call):
    x = call.args["input"]
    d = call.outputs.dtype
    n = b.node("StopGradient", [b.input(x)], {"T": d}, out_dtypes=[d])
    return [f"{n}:0"]


def _named_binary(op):
    def lower(b, call):
        a = call.args
        d = call.outputs.dtype
        n = b.node(op, [b.input(a["x"], d), b.input(a["y"], d)], {"T": d}, out_dtypes=[d])
        return [f"{n}:0"]

    return lower


op_graph.register(_math_common.binary_op, _binary)
op_graph.register(creation_ops.zeros_like, _like("ZerosLike"))
op_graph.register(creation_ops.ones_like, _like("OnesLike"))
op_graph.register(creation_ops.fill, _fill)
op_graph.register(creation_ops.zeros, _filled(0))
op_graph.register(creation_ops.ones, _filled(1))
op_graph.register(shape_ops.shape, _shape)
op_graph.register(array_ops.transpose, _transpose)
op_graph.register(array_ops.concat, _concat)
op_graph.register(array_ops.stack, _stack)
op_graph.register(array_ops.squeeze, _squeeze)
op_graph.register(array_ops.expand_dims, _expand_dims)
op_graph.register(gather_ops.gather, _gather)
op_graph.register(custom_gradient.stop_gradient, _stop_gradient)
op_graph.register(math_ops.maximum, _named_binary("Maximum"))
op_graph.register(math_ops.minimum, _named_binary("Minimum"))
op_graph.register(_math_common.unary_op, _unary("x"))
op_graph.register(nn_ops._unary, _unary("features"))
op_graph.register(linalg_ops.matmul, _matmul)
op_graph.register(fused_layer_ops.dense, _dense)
op_graph.register(nn_ops.bias_add, _bias_add)
op_graph.register(nn_ops.softmax, _softmax)
op_graph.register(nn_ops.log_softmax, _softmax)
op_graph.register(convert.constant, _constant)
op_graph.register(convert.convert_to_tensor, _convert_to_tensor)
op_graph.register(creation_ops.cast, _cast)
op_graph.register(creation_ops.identity, _identity)
op_graph.register(array_ops.reshape, _reshape)
op_graph.register(gather_ops.where, _where)
op_graph.register(comparison_ops.equal_op, _equal_op)
op_graph.register(_math_common.compare_op, _compare_op)
for _fn, _op in ((reduction_ops.reduce_sum, "Sum"), (reduction_ops.reduce_mean, "Mean"),
                 (reduction_ops.reduce_max, "Max"), (reduction_ops.reduce_min, "Min"),
                 (reduction_ops.reduce_prod, "Prod"), (reduction_ops.reduce_all, "All"),
                 (reduction_ops.reduce_any, "Any")):
    op_graph.register(_fn, _reduction(_op))
for _fn, _op in ((comparison_ops.less, "Less"), (comparison_ops.less_equal, "LessEqual"),
                 (comparison_ops.greater, "Greater"),
                 (comparison_ops.greater_equal, "GreaterEqual")):
    op_graph.register(_fn, _compare(_op))
op_graph.register(comparison_ops.equal, _compare("Equal"))
op_graph.register(comparison_ops.not_equal, _compare("NotEqual"))


def _logical(op):
    def lower(b, call):
        a = call.args
        n = b.node(op, [b.input(a["x"], dtypes.bool), b.input(a["y"], dtypes.bool)], {},
                   out_dtypes=[dtypes.bool])
        return [f"{n}:0"]

    return lower


def _logical_xor(b, call):
    # TF has no LogicalXor kernel: tf.math.logical_xor is (x OR y) AND NOT (x AND y).
    a = call.args
    x, y = b.input(a["x"], dtypes.bool), b.input(a["y"], dtypes.bool)
    both = b.node("LogicalAnd", [x, y], {}, out_dtypes=[dtypes.bool])
    either = b.node("LogicalOr", [x, y], {}, out_dtypes=[dtypes.bool])
    neither = b.node("LogicalNot", [f"{both}:0"], {}, out_dtypes=[dtypes.bool])
    n = b.node("LogicalAnd", [f"{either}:0", f"{neither}:0"], {}, out_dtypes=[dtypes.bool])
    return [f"{n}:0"]


def _logical_not(b, call):
    n = b.node("LogicalNot", [b.input(call.args["x"], dtypes.bool)], {},
               out_dtypes=[dtypes.bool])
    return [f"{n}:0"]


op_graph.register(comparison_ops.logical_and, _logical("LogicalAnd"))
op_graph.register(comparison_ops.logical_or, _logical("LogicalOr"))
op_graph.register(comparison_ops.logical_xor, _logical_xor)
op_graph.register(comparison_ops.logical_not, _logical_not)
for _fn, _op in ((comparison_ops.bitwise_and, "BitwiseAnd"),
                 (comparison_ops.bitwise_or, "BitwiseOr"),
                 (comparison_ops.bitwise_xor, "BitwiseXor"),
                 (comparison_ops.left_shift, "LeftShift"),
                 (comparison_ops.right_shift, "RightShift")):
    op_graph.register(_fn, _named_binary(_op))
for _name, _op in (("assign", "AssignVariableOp"), ("assign_add", "AssignAddVariableOp"),
                   ("assign_sub", "AssignSubVariableOp")):
    op_graph.register(getattr(Variable, _name), _assign(_op))
op_graph.register(logging_ops.print, _print)
del _fn, _op, _name
__all__ = ["shape_attr"]

# More lowerings (variable reads, convolutions, pooling) register on import.
from torchflow._src.ops import (  # noqa: E402  (for their registrations)
    graph_lowering_array,  # noqa: F401  (after nn: takes its random seeds)
    graph_lowering_control,  # noqa: F401
    graph_lowering_image_codec,  # noqa: F401
    graph_lowering_linalg,  # noqa: F401
    graph_lowering_loops,  # noqa: F401
    graph_lowering_math,  # noqa: F401  (after nn: takes its random seeds)
    graph_lowering_nn,  # noqa: F401
    graph_lowering_parsing,  # noqa: F401
    graph_lowering_rnn,  # noqa: F401  (recurrent kernels' While loops; after nn)
    graph_lowering_tensor_array,  # noqa: F401
)
