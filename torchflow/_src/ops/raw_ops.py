"""``tf.raw_ops``: TF's op-level functions, callable with keyword arguments only.

Each raw op checks its keywords the way TF's generated wrappers do (positional
arguments raise ``TypeError``) and then calls the torchflow op that implements
it. The torchflow ops are imported at call time so this module does not fix
the import order of the op families.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import re

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError, UnimplementedError, translate
from torchflow._src.ops import philox, raw_op_docs
from torchflow._src.ops._dispatch import tensor_arg, tf_type_name, wrap

_REQUIRED = inspect.Parameter.empty
_MODULES: dict = {}


def _m(name: str):
    mod = _MODULES.get(name)
    if mod is None:
        mod = _MODULES[name] = importlib.import_module("torchflow._src.ops." + name)
    return mod


def _snake(op: str) -> str:
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", op)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s).lower()
    # TF's generated wrappers prefix names that shadow builtins (``_sum``, ``_max``).
    return "_" + s if hasattr(builtins, s) else s


def _make(op: str, params: list, impl, doc: str):
    names = [p if isinstance(p, str) else p[0] for p in params]
    defaults = {p[0]: p[1] for p in params if not isinstance(p, str)}
    keys = names + ["name"]
    snake = _snake(op)
    required = [n for n in names if n not in defaults]

    def raw_op(*args, **kwargs):
        if args:
            raise TypeError(f"{snake} only takes keyword args (possible keys: {keys}). Please "
                            "pass these args as kwargs instead.")
        for k in kwargs:
            if k not in keys:
                raise TypeError(f"{snake}() got an unexpected keyword argument '{k}'")
        missing = [n for n in required if n not in kwargs]
        if missing:
            plural = "s" if len(missing) > 1 else ""
            raise TypeError(f"{snake}() missing {len(missing)} required positional argument"
                            f"{plural}: " + " and ".join(repr(n) for n in missing))
        kwargs.pop("name", None)
        for k, v in defaults.items():
            kwargs.setdefault(k, v)
        return impl(**kwargs)

    raw_op.__name__ = raw_op.__qualname__ = op
    raw_op.__module__ = "torchflow.raw_ops"
    raw_op.__doc__ = raw_op_docs.docstring(op, names, defaults, doc)
    sig = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=defaults.get(n, _REQUIRED))
           for n in names]
    sig.append(inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None))
    raw_op.__signature__ = inspect.Signature(sig)
    # For graph_exec, which checks a node's keywords once when it plans the graph and
    # then calls the implementation with the defaults filled in.
    raw_op._impl = impl  # pyright: ignore[reportFunctionMemberAccess]
    raw_op._defaults = defaults  # pyright: ignore[reportFunctionMemberAccess]
    return raw_op


# --- implementations needing more than a renamed call -----------------------------------
_NO_COMPLEX = ("float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
               "uint32, uint64, qint8, quint8, qint32, qint16, quint16")


def _real_reduce(op: str, fn: str):
    def impl(input, axis, keep_dims):
        t = tensor_arg(input)
        if t.dtype.is_complex or t.dtype is dtypes.string or t.dtype is dtypes.bool:
            raise InvalidArgumentError(
                None, None, f"Value for attr 'T' of {tf_type_name(t.dtype)} is not in the list "
                f"of allowed values: {_NO_COMPLEX}\n\t; NodeDef: {{{{node {op}}}}} [Op:{op}]")
        return getattr(_m("reduction_ops"), fn)(t, axis=axis, keepdims=keep_dims)

    return impl


def _reduce(fn: str):
    def impl(input, axis, keep_dims):
        return getattr(_m("reduction_ops"), fn)(input, axis=axis, keepdims=keep_dims)

    return impl


def _matmul(a, b, transpose_a, transpose_b, grad_a=False, grad_b=False):
    ta, tb = tensor_arg(a), tensor_arg(b)
    for i, t in enumerate((ta, tb)):
        if t.ndim != 2:
            raise InvalidArgumentError(
                None, None, f"In[{i}] is not a matrix. Instead it has shape {list(t.shape)} "
                "[Op:MatMul]")
    return _m("linalg_ops").matmul(ta, tb, transpose_a=transpose_a, transpose_b=transpose_b)


def _batch_matmul(x, y, adj_x, adj_y, grad_x=False, grad_y=False):
    return _m("linalg_ops").matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y)


def _softmax(fn: str):
    op = "Softmax" if fn == "softmax" else "LogSoftmax"

    def impl(logits):
        t = tensor_arg(logits)
        if t.ndim < 1:
            raise InvalidArgumentError(None, None,
                                       f"logits must have >= 1 dimension, got [] [Op:{op}]")
        return getattr(_m("nn_ops"), fn)(t, axis=-1)

    return impl


def _cast(x, DstT, Truncate=False):
    return _m("creation_ops").cast(x, DstT)


def _qdq_v2(input, input_min, input_max, signed_input, num_bits,
            range_given, round_mode, narrow_range, axis):
    return _m("quantization_ops").quantize_and_dequantize(
        input, input_min, input_max, signed_input=signed_input, num_bits=num_bits,
        range_given=range_given, round_mode=round_mode, narrow_range=narrow_range,
        axis=None if axis == -1 else axis)


def _qdq_v4(input, input_min, input_max, signed_input, num_bits,
            range_given, round_mode, narrow_range, axis):
    return _m("quantization_ops").quantize_and_dequantize_v2(
        input, input_min, input_max, signed_input=signed_input, num_bits=num_bits,
        range_given=range_given, round_mode=round_mode, narrow_range=narrow_range,
        axis=None if axis == -1 else axis)


def _call(mod: str, fn: str, *order, **fixed):
    """An impl that forwards raw keyword ``order[i]`` as the i-th positional argument."""

    def impl(**kw):
        return getattr(_m(mod), fn)(*(kw[k] for k in order), **fixed)

    impl._positional = (mod, fn, order, fixed)  # pyright: ignore[reportFunctionMemberAccess] - read by graph_exec
    return impl


def _rename(mod: str, fn: str, **mapping):
    """An impl that forwards raw keywords renamed by ``mapping`` (raw -> torchflow)."""

    def impl(**kw):
        return getattr(_m(mod), fn)(**{mapping.get(k, k): v for k, v in kw.items()})

    return impl


_BINARY = {
    "AddV2": ("math_ops", "add"), "Add": ("math_ops", "add"), "Sub": ("math_ops", "subtract"),
    "Mul": ("math_ops", "multiply"), "RealDiv": ("math_ops", "realdiv"),
    "FloorDiv": ("math_ops", "floordiv"), "FloorMod": ("math_ops", "floormod"),
    "Maximum": ("math_ops", "maximum"), "Minimum": ("math_ops", "minimum"),
    "Pow": ("math_ops", "pow"), "SquaredDifference": ("math_ops", "squared_difference"),
    "Equal": ("comparison_ops", "equal"), "NotEqual": ("comparison_ops", "not_equal"),
    "Less": ("comparison_ops", "less"), "LessEqual": ("comparison_ops", "less_equal"),
    "Greater": ("comparison_ops", "greater"),
    "GreaterEqual": ("comparison_ops", "greater_equal"),
    "LogicalAnd": ("comparison_ops", "logical_and"),
    "LogicalOr": ("comparison_ops", "logical_or"),
    "BitwiseAnd": ("comparison_ops", "bitwise_and"), "BitwiseOr": ("comparison_ops", "bitwise_or"),
    "BitwiseXor": ("comparison_ops", "bitwise_xor"), "LeftShift": ("comparison_ops", "left_shift"),
    "RightShift": ("comparison_ops", "right_shift"),
}
_UNARY = {
    "Abs": "abs", "Neg": "negative", "Exp": "exp", "Log": "log", "Sqrt": "sqrt",
    "Rsqrt": "rsqrt", "Square": "square", "Tanh": "tanh", "Sigmoid": "sigmoid",
    "Floor": "floor", "Ceil": "ceil", "Sign": "sign", "Reciprocal": "reciprocal",
}

_OPS: dict = {}
for _name, (_mod, _fn) in _BINARY.items():
    _OPS[_name] = _make(_name, ["x", "y"], _call(_mod, _fn, "x", "y"), f"tf.{_fn}")
for _name, _fn in _UNARY.items():
    _OPS[_name] = _make(_name, ["x"], _call("unary_math_ops", _fn, "x"), f"tf.math.{_fn}")
_OPS["LogicalNot"] = _make("LogicalNot", ["x"], _call("comparison_ops", "logical_not", "x"),
                           "tf.math.logical_not")
_OPS["Invert"] = _make("Invert", ["x"], _call("comparison_ops", "invert", "x"), "tf.bitwise.invert")
for _name, _fn in (("Sum", "reduce_sum"), ("Mean", "reduce_mean"), ("Prod", "reduce_prod"),
                   ("All", "reduce_all"), ("Any", "reduce_any")):
    _OPS[_name] = _make(_name, ["input", "axis", ("keep_dims", False)], _reduce(_fn),
                        f"tf.{_fn}")
for _name, _fn in (("Max", "reduce_max"), ("Min", "reduce_min")):
    _OPS[_name] = _make(_name, ["input", "axis", ("keep_dims", False)],
                        _real_reduce(_name, _fn), f"tf.{_fn}; rejects complex inputs")
for _name, _fn in (("Relu", "relu"), ("Relu6", "relu6"), ("Elu", "elu"), ("Selu", "selu")):
    _OPS[_name] = _make(_name, ["features"], _call("nn_ops", _fn, "features"), f"tf.nn.{_fn}")
_OPS["Softmax"] = _make("Softmax", ["logits"], _softmax("softmax"), "tf.nn.softmax, last axis")
_OPS["LogSoftmax"] = _make("LogSoftmax", ["logits"], _softmax("log_softmax"),
                           "tf.nn.log_softmax, last axis")
_OPS["BiasAdd"] = _make("BiasAdd", ["value", "bias", ("data_format", "NHWC")],
                        _call("nn_ops", "bias_add", "value", "bias", "data_format"),
                        "tf.nn.bias_add")
_OPS["MatMul"] = _make("MatMul", ["a", "b", ("transpose_a", False), ("transpose_b", False),
                                  ("grad_a", False), ("grad_b", False)], _matmul,
                       "tf.linalg.matmul on matrices")
_OPS["BatchMatMulV2"] = _make("BatchMatMulV2", ["x", "y", ("adj_x", False), ("adj_y", False),
                                                ("grad_x", False), ("grad_y", False)],
                              _batch_matmul, "tf.linalg.matmul, batched with broadcasting")
_OPS["Reshape"] = _make("Reshape", ["tensor", "shape"],
                        _call("array_ops", "reshape", "tensor", "shape"), "tf.reshape")
_OPS["Transpose"] = _make("Transpose", ["x", "perm"],
                          _call("array_ops", "transpose", "x", "perm"), "tf.transpose")
_OPS["ConcatV2"] = _make("ConcatV2", ["values", "axis"],
                         _call("array_ops", "concat", "values", "axis"), "tf.concat")
_OPS["Pack"] = _make("Pack", ["values", ("axis", 0)],
                     _call("array_ops", "stack", "values", "axis"), "tf.stack")
_OPS["ExpandDims"] = _make("ExpandDims", ["input", "axis"],
                           _call("array_ops", "expand_dims", "input", "axis"), "tf.expand_dims")
_OPS["Squeeze"] = _make("Squeeze", ["input", ("axis", [])],
                        lambda input, axis: _m("array_ops").squeeze(
                            input, axis=list(axis) or None), "tf.squeeze")
_OPS["Tile"] = _make("Tile", ["input", "multiples"],
                     _call("array_ops", "tile", "input", "multiples"), "tf.tile")
def _pad_list(paddings):
    # tf.pad reads a [rank, 2] *tensor* of paddings as a vector (array_ops.pad's int_list);
    # graphs always pass a tensor, so hand it the nested list it reads.
    if hasattr(paddings, "numpy"):
        return np.asarray(paddings.numpy()).tolist()
    return np.asarray(paddings).tolist() if isinstance(paddings, np.ndarray) else paddings


_OPS["Pad"] = _make("Pad", ["input", "paddings"],
                    lambda input, paddings: _m("array_ops").pad(input, _pad_list(paddings)),
                    "tf.pad")
_OPS["Cast"] = _make("Cast", ["x", "DstT", ("Truncate", False)], _cast, "tf.cast")
_OPS["Identity"] = _make("Identity", ["input"], _call("creation_ops", "identity", "input"),
                         "tf.identity")
_OPS["Fill"] = _make("Fill", ["dims", "value"], _call("creation_ops", "fill", "dims", "value"),
                     "tf.fill")
_OPS["ZerosLike"] = _make("ZerosLike", ["x"], _call("creation_ops", "zeros_like", "x"),
                          "tf.zeros_like")
_OPS["OnesLike"] = _make("OnesLike", ["x"], _call("creation_ops", "ones_like", "x"),
                         "tf.ones_like")
_OPS["Range"] = _make("Range", ["start", "limit", "delta"],
                      _call("creation_ops", "range", "start", "limit", "delta"), "tf.range")
_OPS["Shape"] = _make("Shape", ["input", ("out_type", dtypes.int32)],
                      _call("shape_ops", "shape", "input", "out_type"), "tf.shape")
_OPS["Size"] = _make("Size", ["input", ("out_type", dtypes.int32)],
                     _call("shape_ops", "size", "input", "out_type"), "tf.size")
_OPS["Rank"] = _make("Rank", ["input"], _call("shape_ops", "rank", "input"), "tf.rank")
_OPS["AddN"] = _make("AddN", ["inputs"], _call("math_ops", "add_n", "inputs"), "tf.add_n")
_OPS["ArgMax"] = _make("ArgMax", ["input", "dimension", ("output_type", dtypes.int64)],
                       _call("reduction_ops", "argmax", "input", "dimension", "output_type"),
                       "tf.argmax")
_OPS["ArgMin"] = _make("ArgMin", ["input", "dimension", ("output_type", dtypes.int64)],
                       _call("reduction_ops", "argmin", "input", "dimension", "output_type"),
                       "tf.argmin")
_OPS["StringJoin"] = _make("StringJoin", ["inputs", ("separator", "")],
                           _call("string_ops", "join", "inputs", "separator"),
                           "tf.strings.join")
_OPS["StringLength"] = _make("StringLength", ["input", ("unit", "BYTE")],
                             _call("string_ops", "length", "input", "unit"),
                             "tf.strings.length")
_OPS["FakeQuantWithMinMaxArgs"] = _make(
    "FakeQuantWithMinMaxArgs", ["inputs", ("min", -6.0), ("max", 6.0), ("num_bits", 8),
                                ("narrow_range", False)],
    _call("quantization_ops", "fake_quant_with_min_max_args", "inputs", "min", "max",
          "num_bits", "narrow_range"), "tf.quantization.fake_quant_with_min_max_args")
_OPS["FakeQuantWithMinMaxVars"] = _make(
    "FakeQuantWithMinMaxVars", ["inputs", "min", "max", ("num_bits", 8), ("narrow_range", False)],
    _call("quantization_ops", "fake_quant_with_min_max_vars", "inputs", "min", "max",
          "num_bits", "narrow_range"), "tf.quantization.fake_quant_with_min_max_vars")
_OPS["QuantizeAndDequantizeV2"] = _make(
    "QuantizeAndDequantizeV2",
    ["input", "input_min", "input_max", ("signed_input", True), ("num_bits", 8),
     ("range_given", False), ("round_mode", "HALF_TO_EVEN"), ("narrow_range", False),
     ("axis", -1)], _qdq_v2, "tf.quantization.quantize_and_dequantize")
_OPS["QuantizeAndDequantizeV4"] = _make(
    "QuantizeAndDequantizeV4",
    ["input", "input_min", "input_max", ("signed_input", True), ("num_bits", 8),
     ("range_given", False), ("round_mode", "HALF_TO_EVEN"), ("narrow_range", False),
     ("axis", -1)], _qdq_v4, "tf.quantization.quantize_and_dequantize_v2")


for _name, _fn in (("DivNoNan", "divide_no_nan"), ("TruncateDiv", "truncatediv"),
                   ("TruncateMod", "truncatemod")):
    _OPS[_name] = _make(_name, ["x", "y"], _call("math_ops", _fn, "x", "y"), f"tf.math.{_fn}")
_OPS["Atan2"] = _make("Atan2", ["y", "x"], _call("math_ops", "atan2", "y", "x"), "tf.math.atan2")
for _name, _fn in (("Log1p", "log1p"), ("Expm1", "expm1"), ("Round", "round"), ("Rint", "rint"),
                   ("IsNan", "is_nan"), ("IsInf", "is_inf"), ("IsFinite", "is_finite")):
    _OPS[_name] = _make(_name, ["x"], _call("unary_math_ops", _fn, "x"), f"tf.math.{_fn}")
for _name, _fn in (("Sin", "sin"), ("Cos", "cos"), ("Tan", "tan"), ("Asin", "asin"),
                   ("Acos", "acos"), ("Atan", "atan"), ("Sinh", "sinh"), ("Cosh", "cosh")):
    _OPS[_name] = _make(_name, ["x"], _call("trig_ops", _fn, "x"), f"tf.math.{_fn}")
for _name, _fn in (("Erf", "erf"), ("Erfc", "erfc"), ("Lgamma", "lgamma"),
                   ("Digamma", "digamma")):
    _OPS[_name] = _make(_name, ["x"], _call("special_unary_ops", _fn, "x"), f"tf.math.{_fn}")
for _name, _fn in (("Softplus", "softplus"), ("Softsign", "softsign")):
    _OPS[_name] = _make(_name, ["features"], _call("nn_ops", _fn, "features"), f"tf.nn.{_fn}")
_OPS["LeakyRelu"] = _make("LeakyRelu", ["features", ("alpha", 0.2)],
                          _call("nn_ops", "leaky_relu", "features", "alpha"), "tf.nn.leaky_relu")
for _name, _fn in (("Cumsum", "cumsum"), ("Cumprod", "cumprod")):
    _OPS[_name] = _make(_name, ["x", "axis", ("exclusive", False), ("reverse", False)],
                        _call("scan_ops", _fn, "x", "axis", "exclusive", "reverse"),
                        f"tf.math.{_fn}")
_OPS["SelectV2"] = _make("SelectV2", ["condition", "t", "e"],
                         _call("gather_ops", "where", "condition", "t", "e"), "tf.where")
_OPS["Where"] = _make("Where", ["condition"], _call("gather_ops", "where", "condition"),
                      "tf.where with one argument")
_OPS["GatherV2"] = _make("GatherV2", ["params", "indices", "axis", ("batch_dims", 0)],
                         lambda params, indices, axis, batch_dims: _m("gather_ops").gather(
                             params, indices, axis=axis, batch_dims=batch_dims), "tf.gather")
_OPS["GatherNd"] = _make("GatherNd", ["params", "indices"],
                         _call("gather_ops", "gather_nd", "params", "indices"), "tf.gather_nd")
_OPS["ScatterNd"] = _make("ScatterNd", ["indices", "updates", "shape"],
                          _call("gather_ops", "scatter_nd", "indices", "updates", "shape"),
                          "tf.scatter_nd")
_OPS["TensorScatterUpdate"] = _make(
    "TensorScatterUpdate", ["tensor", "indices", "updates"],
    _call("gather_ops", "tensor_scatter_nd_update", "tensor", "indices", "updates"),
    "tf.tensor_scatter_nd_update")
_OPS["OneHot"] = _make("OneHot", ["indices", "depth", "on_value", "off_value", ("axis", -1)],
                       _call("creation_ops", "one_hot", "indices", "depth", "on_value",
                             "off_value", "axis"), "tf.one_hot")
_OPS["Slice"] = _make("Slice", ["input", "begin", "size"],
                      _call("indexing", "slice", "input", "begin", "size"), "tf.slice")
_OPS["Split"] = _make("Split", ["axis", "value", "num_split"],
                      lambda axis, value, num_split: _m("array_ops").split(
                          value, num_split, axis=axis), "tf.split into equal parts")
_OPS["SplitV"] = _make("SplitV", ["value", "size_splits", "axis", "num_split"],
                       lambda value, size_splits, axis, num_split: _m("array_ops").split(
                           value, size_splits, axis=axis), "tf.split with sizes")
_OPS["Unpack"] = _make("Unpack", ["value", "num", ("axis", 0)],
                       _call("array_ops", "unstack", "value", "num", "axis"), "tf.unstack")
_OPS["ReverseV2"] = _make("ReverseV2", ["tensor", "axis"],
                          _call("array_ops", "reverse", "tensor", "axis"), "tf.reverse")
_OPS["BroadcastTo"] = _make("BroadcastTo", ["input", "shape"],
                            _call("shape_ops", "broadcast_to", "input", "shape"),
                            "tf.broadcast_to")
_OPS["Einsum"] = _make("Einsum", ["inputs", "equation"],
                       lambda inputs, equation: _m("einsum_ops").einsum(equation, *inputs),
                       "tf.einsum")
_OPS["TopKV2"] = _make("TopKV2", ["input", "k", ("sorted", True)],
                       _call("ranking_ops", "top_k", "input", "k", "sorted"), "tf.math.top_k")
_OPS["Unique"] = _make("Unique", ["x", ("out_idx", dtypes.int32)],
                       _call("sort_ops", "unique", "x", "out_idx"), "tf.unique")
_OPS["ClipByValue"] = _make("ClipByValue", ["t", "clip_value_min", "clip_value_max"],
                            _call("clip_ops", "clip_by_value", "t", "clip_value_min",
                                  "clip_value_max"), "tf.clip_by_value")
_OPS["L2Loss"] = _make("L2Loss", ["t"], _call("loss_ops", "l2_loss", "t"), "tf.nn.l2_loss")
_OPS["Conv2D"] = _make(
    "Conv2D", ["input", "filter", "strides", "padding", ("use_cudnn_on_gpu", True),
               ("explicit_paddings", []), ("data_format", "NHWC"), ("dilations", [1, 1, 1, 1])],
    lambda input, filter, strides, padding, use_cudnn_on_gpu,  # noqa: A006
    explicit_paddings, data_format, dilations: _m("conv_ops").conv2d(
        input, filter, strides, padding, data_format=data_format, dilations=dilations),
    "tf.nn.conv2d")
for _name, _fn in (("MaxPool", "max_pool"), ("AvgPool", "avg_pool")):
    _OPS[_name] = _make(_name, ["value", "ksize", "strides", "padding", ("data_format", "NHWC")],
                        _call("pooling_ops", _fn, "value", "ksize", "strides", "padding",
                              "data_format"), f"tf.nn.{_fn}")
_OPS["MatrixInverse"] = _make("MatrixInverse", ["input", ("adjoint", False)],
                              _call("linalg_decomp_ops", "inv", "input", "adjoint"),
                              "tf.linalg.inv")
_OPS["MatrixDeterminant"] = _make("MatrixDeterminant", ["input"],
                                  _call("linalg_decomp_ops", "det", "input"), "tf.linalg.det")
_OPS["Cholesky"] = _make("Cholesky", ["input"], _call("linalg_decomp_ops", "cholesky", "input"),
                         "tf.linalg.cholesky")
_OPS["Qr"] = _make("Qr", ["input", ("full_matrices", False)],
                   _call("linalg_decomp_ops", "qr", "input", "full_matrices"), "tf.linalg.qr")
_OPS["SegmentSum"] = _make("SegmentSum", ["data", "segment_ids"],
                           _call("segment_ops", "segment_sum", "data", "segment_ids"),
                           "tf.math.segment_sum")
_OPS["UnsortedSegmentSum"] = _make(
    "UnsortedSegmentSum", ["data", "segment_ids", "num_segments"],
    _call("segment_ops", "unsorted_segment_sum", "data", "segment_ids", "num_segments"),
    "tf.math.unsorted_segment_sum")


# --- ops of TF-written SavedModel graphs (Keras layers' lowerings) ------------------------
def _spatial(values, data_format: str) -> list:
    """The H, W entries of a 4-entry NHWC/NCHW attribute (strides, dilations)."""
    v = list(values)
    return v[2:4] if data_format.startswith("NC") else v[1:3]


def _resize(op: str, method: str):
    def impl(images, size, align_corners=False, half_pixel_centers=False):
        if align_corners:
            raise UnimplementedError(None, None, f"{op} with align_corners=True is not "
                                     f"supported [Op:{op}]")
        return _m("image_ops").resize(images, size, method=method)

    return impl


_OPS["DepthwiseConv2dNative"] = _make(
    "DepthwiseConv2dNative", ["input", "filter", "strides", "padding", ("explicit_paddings", []),
                              ("data_format", "NHWC"), ("dilations", [1, 1, 1, 1])],
    lambda input, filter, strides, padding, explicit_paddings, data_format,  # noqa: A006
    dilations: _m("conv_ops").depthwise_conv2d(
        input, filter, strides, padding, data_format=data_format,
        dilations=_spatial(dilations, data_format)), "tf.nn.depthwise_conv2d")
_OPS["Conv2DBackpropInput"] = _make(
    "Conv2DBackpropInput", ["input_sizes", "filter", "out_backprop", "strides", "padding",
                            ("use_cudnn_on_gpu", True), ("explicit_paddings", []),
                            ("data_format", "NHWC"), ("dilations", [1, 1, 1, 1])],
    lambda input_sizes, filter, out_backprop, strides, padding,  # noqa: A006
    use_cudnn_on_gpu, explicit_paddings, data_format, dilations: _m("conv_ops").conv2d_transpose(
        out_backprop, filter, input_sizes, strides, padding, data_format=data_format,
        dilations=dilations), "tf.nn.conv2d_transpose")
_OPS["Conv3D"] = _make(
    "Conv3D", ["input", "filter", "strides", "padding", ("data_format", "NDHWC"),
               ("dilations", [1, 1, 1, 1, 1])],
    lambda input, filter, strides, padding, data_format, dilations:  # noqa: A006
    _m("conv_ops").conv3d(input, filter, strides, padding, data_format=data_format,
                          dilations=dilations), "tf.nn.conv3d")
for _name, _fn in (("MaxPool3D", "max_pool3d"), ("AvgPool3D", "avg_pool3d")):
    _OPS[_name] = _make(_name, ["input", "ksize", "strides", "padding", ("data_format", "NDHWC")],
                        _call("pooling_ops", _fn, "input", "ksize", "strides", "padding",
                              "data_format"), f"tf.nn.{_fn}")
_OPS["ResizeNearestNeighbor"] = _make(
    "ResizeNearestNeighbor", ["images", "size", ("align_corners", False),
                              ("half_pixel_centers", False)],
    _resize("ResizeNearestNeighbor", "nearest"), "tf.image.resize, nearest")
_OPS["ResizeBilinear"] = _make(
    "ResizeBilinear", ["images", "size", ("align_corners", False), ("half_pixel_centers", False)],
    _resize("ResizeBilinear", "bilinear"), "tf.image.resize, bilinear")
_OPS["ReverseSequence"] = _make(
    "ReverseSequence", ["input", "seq_lengths", "seq_dim", ("batch_dim", 0)],
    lambda input, seq_lengths, seq_dim, batch_dim: _m("array_ops").reverse_sequence(
        input, seq_lengths, seq_axis=seq_dim, batch_axis=batch_dim), "tf.reverse_sequence")
_OPS["InvertPermutation"] = _make("InvertPermutation", ["x"],
                                  _call("ranking_ops", "invert_permutation", "x"),
                                  "tf.math.invert_permutation")
_OPS["PadV2"] = _make("PadV2", ["input", "paddings", "constant_values"],
                      lambda input, paddings, constant_values: _m("array_ops").pad(
                          input, _pad_list(paddings), constant_values=constant_values),
                      "tf.pad")
_OPS["MirrorPad"] = _make("MirrorPad", ["input", "paddings", "mode"],
                          lambda input, paddings, mode: _m("array_ops").pad(
                              input, _pad_list(paddings), mode=mode),
                          "tf.pad, REFLECT/SYMMETRIC")
for _name, _fn in (("TensorScatterAdd", "tensor_scatter_nd_add"),
                   ("TensorScatterSub", "tensor_scatter_nd_sub"),
                   ("TensorScatterMax", "tensor_scatter_nd_max"),
                   ("TensorScatterMin", "tensor_scatter_nd_min")):
    _OPS[_name] = _make(_name, ["tensor", "indices", "updates"],
                        _call("gather_ops", _fn, "tensor", "indices", "updates"), f"tf.{_fn}")


def _k_arg(k):
    """A diagonal offset input: a scalar or a [low, high] pair."""
    v = np.asarray(k.numpy() if hasattr(k, "numpy") else k).reshape(-1).tolist()
    return v[0] if len(v) == 1 else tuple(v)


_OPS["MatrixDiagPartV3"] = _make(
    "MatrixDiagPartV3", ["input", "k", "padding_value", ("align", "RIGHT_LEFT")],
    lambda input, k, padding_value, align: _m("linalg_ops").diag_part(
        input, k=_k_arg(k), padding_value=padding_value, align=align), "tf.linalg.diag_part")
_OPS["MatrixDiagV3"] = _make(
    "MatrixDiagV3", ["diagonal", "k", "num_rows", "num_cols", "padding_value",
                     ("align", "RIGHT_LEFT")],
    lambda diagonal, k, num_rows, num_cols, padding_value, align: _m("linalg_ops").diag(
        diagonal, k=_k_arg(k), num_rows=int(num_rows), num_cols=int(num_cols),
        padding_value=padding_value, align=align), "tf.linalg.diag")
_OPS["MatrixSetDiagV3"] = _make(
    "MatrixSetDiagV3", ["input", "diagonal", "k", ("align", "RIGHT_LEFT")],
    lambda input, diagonal, k, align: _m("linalg_ops").set_diag(
        input, diagonal, k=_k_arg(k), align=align), "tf.linalg.set_diag")
_OPS["ReadFile"] = _make("ReadFile", ["filename"], _call("io_ops", "read_file", "filename"),
                        "tf.io.read_file")
_OPS["WriteFile"] = _make("WriteFile", ["filename", "contents"],
                         _call("io_ops", "write_file", "filename", "contents"),
                         "tf.io.write_file")
_OPS["SpaceToDepth"] = _make("SpaceToDepth", ["input", "block_size", ("data_format", "NHWC")],
                             _call("depth_space_ops", "space_to_depth", "input", "block_size",
                                   "data_format"), "tf.nn.space_to_depth")
_OPS["DepthToSpace"] = _make("DepthToSpace", ["input", "block_size", ("data_format", "NHWC")],
                             _call("depth_space_ops", "depth_to_space", "input", "block_size",
                                   "data_format"), "tf.nn.depth_to_space")

# --- strings ---------------------------------------------------------------------------
for _name, _fn in (("StringLower", "lower"), ("StringUpper", "upper")):
    _OPS[_name] = _make(_name, ["input", ("encoding", "")],
                        _call("string_ops", _fn, "input", "encoding"), f"tf.strings.{_fn}")
_OPS["StringStrip"] = _make("StringStrip", ["input"], _call("string_ops", "strip", "input"),
                            "tf.strings.strip")
_OPS["StringToNumber"] = _make("StringToNumber", ["string_tensor", ("out_type", dtypes.float32)],
                               _call("string_ops", "to_number", "string_tensor", "out_type"),
                               "tf.strings.to_number")
_OPS["AsString"] = _make(
    "AsString", ["input", ("precision", -1), ("scientific", False), ("shortest", False),
                 ("width", -1), ("fill", "")],
    _call("string_ops", "as_string", "input", "precision", "scientific", "shortest", "width",
          "fill"), "tf.strings.as_string")
for _name in ("RegexReplace", "StaticRegexReplace"):
    _OPS[_name] = _make(_name, ["input", "pattern", "rewrite", ("replace_global", True)],
                        _call("string_ops", "regex_replace", "input", "pattern", "rewrite",
                              "replace_global"), "tf.strings.regex_replace")
for _name in ("RegexFullMatch", "StaticRegexFullMatch"):
    _OPS[_name] = _make(_name, ["input", "pattern"],
                        _call("string_ops", "regex_full_match", "input", "pattern"),
                        "tf.strings.regex_full_match")
_OPS["Substr"] = _make("Substr", ["input", "pos", "len", ("unit", "BYTE")],
                       _call("string_ops", "substr", "input", "pos", "len", "unit"),
                       "tf.strings.substr")
_OPS["ReduceJoin"] = _make(
    "ReduceJoin", ["inputs", "reduction_indices", ("keep_dims", False), ("separator", "")],
    _call("string_ops", "reduce_join", "inputs", "reduction_indices", "keep_dims", "separator"),
    "tf.strings.reduce_join")
_OPS["StringFormat"] = _make(
    "StringFormat", ["inputs", ("template", "%s"), ("placeholder", "%s"), ("summarize", 3)],
    lambda inputs, template, placeholder, summarize: _m("string_ops").format(
        template, list(inputs), placeholder=placeholder, summarize=summarize),
    "tf.strings.format")
_OPS["StringToHashBucketFast"] = _make(
    "StringToHashBucketFast", ["input", "num_buckets"],
    _call("string_hash_ops", "to_hash_bucket_fast", "input", "num_buckets"),
    "tf.strings.to_hash_bucket_fast")
_OPS["StringToHashBucketStrong"] = _make(
    "StringToHashBucketStrong", ["input", "num_buckets", "key"],
    _call("string_hash_ops", "to_hash_bucket_strong", "input", "num_buckets", "key"),
    "tf.strings.to_hash_bucket_strong")
_OPS["StringToHashBucket"] = _make(
    "StringToHashBucket", ["string_tensor", "num_buckets"],
    _call("string_hash_ops", "to_hash_bucket", "string_tensor", "num_buckets"),
    "tf.strings.to_hash_bucket")


# --- random ------------------------------------------------------------------------------
def _raw_random(op: str, kind: str):
    def impl(shape, dtype, seed=0, seed2=0):
        r = _m("random_ops")
        d = dtypes.as_dtype(dtype)
        dims = r.shape_arg(op, shape)
        dev = r.context.default_device()
        n = r._numel(dims)
        if d is dtypes.float32 or d is dtypes.float64:
            kc = r.raw_philox(op, d, seed, seed2, n)
            if kc is not None:  # TF's own numbers
                fn = {"normal": philox.normal, "uniform": philox.uniform,
                      "truncated": philox.truncated_normal}[kind]
                return wrap(fn(kc, n, d._torch, dev).reshape(dims), d)
        gen = r.raw_stream(op, d, seed, seed2, dev)
        try:
            if kind == "normal":
                x = r.sample_normal(dims, d, dev, gen)
            elif kind == "uniform":
                x = r.sample_uniform(op, dims, d, dev, gen, 0, 1)
            else:
                x = r.sample_truncated_normal(dims, d, dev, gen)
        except Exception as e:  # noqa: BLE001
            raise translate(op, e) from None
        return wrap(x, d)

    return impl


def _raw_uniform_int(shape, minval, maxval, seed=0, seed2=0):
    r = _m("random_ops")
    lo, hi = tensor_arg(minval), tensor_arg(maxval)
    dims = r.shape_arg("RandomUniformInt", shape)
    dev = r.context.default_device()
    kc = r.raw_philox("RandomUniformInt", lo.dtype, seed, seed2, r._numel(dims))
    if kc is not None:  # TF's own numbers
        a, b = int(lo), int(hi)
        if a >= b:
            raise InvalidArgumentError(None, None, f"Need minval < maxval, got {a} >= {b} "
                                                   "[Op:RandomUniformInt]")
        x = philox.uniform_int(kc, r._numel(dims), a, b, lo.dtype.size == 8, dev)
        return wrap(x.reshape(dims).to(lo.dtype._torch), lo.dtype)
    gen = r.raw_stream("RandomUniformInt", lo.dtype, seed, seed2, dev)
    return wrap(r.sample_uniform("RandomUniformInt", dims, lo.dtype, dev, gen, lo._t, hi._t),
                lo.dtype)


def _raw_multinomial(logits, num_samples, seed=0, seed2=0, output_dtype=dtypes.int64):
    r = _m("random_ops")
    lg = r._logits_arg(logits)
    od = dtypes.as_dtype(output_dtype)
    n = int(num_samples)
    if lg.ndim == 2 and lg.shape[0] > 0 and lg.shape[1] > 0 and n > 0:
        kc = r.raw_philox("Multinomial", od, seed, seed2, lg.shape[0] * ((n + 3) // 4 * 4) * 2)
        if kc is not None:  # TF's own samples
            x = philox.categorical(kc, lg.detach().cpu().numpy(), n)
            return wrap(torch.from_numpy(x).to(lg.device).to(od._torch), od)
    gen = r.raw_stream("Multinomial", od, seed, seed2, lg.device)
    return wrap(r.sample_categorical("Multinomial", lg, int(num_samples), od, gen), od)


def _raw_shuffle(value, seed=0, seed2=0):
    r = _m("random_ops")
    t = tensor_arg(value)
    a = t._t
    if a.ndim == 0:
        return t
    dev = torch.device("cpu") if isinstance(a, np.ndarray) else a.device
    n = a.shape[0]
    kc = r.raw_philox("RandomShuffle", t.dtype, seed, seed2, 0, blocks=(n + 2) // 4) \
        if 1 < n < 2**32 else None
    if kc is not None:  # TF's own permutation
        p = philox.permutation(kc, n)
        return wrap(a[p] if isinstance(a, np.ndarray) else
                    a.index_select(0, torch.from_numpy(p).to(dev)), t.dtype)
    perm = torch.randperm(a.shape[0], generator=r.raw_stream("RandomShuffle", t.dtype, seed,
                                                             seed2, dev), device=dev)
    return wrap(a[perm.numpy()] if isinstance(a, np.ndarray) else a.index_select(0, perm),
                t.dtype)


for _name, _kind, _fn in (("RandomStandardNormal", "normal", "normal"),
                          ("RandomUniform", "uniform", "uniform"),
                          ("TruncatedNormal", "truncated", "truncated_normal")):
    _OPS[_name] = _make(_name, ["shape", "dtype", ("seed", 0), ("seed2", 0)],
                        _raw_random(_name, _kind), f"tf.random.{_fn}")
_OPS["RandomUniformInt"] = _make("RandomUniformInt", ["shape", "minval", "maxval", ("seed", 0),
                                                      ("seed2", 0)], _raw_uniform_int,
                                 "tf.random.uniform with an integer dtype")
_OPS["Multinomial"] = _make("Multinomial", ["logits", "num_samples", ("seed", 0), ("seed2", 0),
                                            ("output_dtype", dtypes.int64)], _raw_multinomial,
                            "tf.random.categorical")
_OPS["RandomShuffle"] = _make("RandomShuffle", ["value", ("seed", 0), ("seed2", 0)],
                              _raw_shuffle, "tf.random.shuffle")
_OPS["StatelessRandomNormal"] = _make(
    "StatelessRandomNormal", ["shape", "seed", ("dtype", dtypes.float32)],
    lambda shape, seed, dtype: _m("stateless_random_ops").stateless_normal(
        shape, seed, dtype=dtype), "tf.random.stateless_normal")
_OPS["StatelessRandomUniform"] = _make(
    "StatelessRandomUniform", ["shape", "seed", ("dtype", dtypes.float32)],
    lambda shape, seed, dtype: _m("stateless_random_ops").stateless_uniform(
        shape, seed, dtype=dtype), "tf.random.stateless_uniform")
_OPS["StatelessRandomUniformInt"] = _make(
    "StatelessRandomUniformInt", ["shape", "seed", "minval", "maxval"],
    lambda shape, seed, minval, maxval: _m("stateless_random_ops").stateless_uniform(
        shape, seed, minval=minval, maxval=maxval, dtype=tensor_arg(minval).dtype),
    "tf.random.stateless_uniform with integers")
_OPS["StatelessTruncatedNormal"] = _make(
    "StatelessTruncatedNormal", ["shape", "seed", ("dtype", dtypes.float32)],
    lambda shape, seed, dtype: _m("stateless_random_ops").stateless_truncated_normal(
        shape, seed, dtype=dtype), "tf.random.stateless_truncated_normal")
_OPS["StatelessMultinomial"] = _make(
    "StatelessMultinomial", ["logits", "num_samples", "seed", ("output_dtype", dtypes.int64)],
    lambda logits, num_samples, seed, output_dtype: _m(
        "stateless_random_ops").stateless_categorical(logits, num_samples, seed, output_dtype),
    "tf.random.stateless_categorical")



def _table_op(op: str):
    def impl(**kw):
        return _m("lookup.raw_table_ops").run(op, **kw)

    return impl


_TABLE_OPS = {  # tf.lookup's table ops (run by ops/lookup/raw_table_ops.py)
    "HashTableV2": ["key_dtype", "value_dtype", ("container", ""), ("shared_name", ""),
                    ("use_node_name_sharing", False)],
    "MutableHashTableV2": ["key_dtype", "value_dtype", ("container", ""), ("shared_name", ""),
                           ("use_node_name_sharing", True)],
    "MutableDenseHashTableV2": ["empty_key", "deleted_key", "value_dtype", ("container", ""),
                                ("shared_name", ""), ("use_node_name_sharing", False),
                                ("value_shape", []), ("initial_num_buckets", 131072),
                                ("max_load_factor", 0.8)],
    "LookupTableFindV2": ["table_handle", "keys", "default_value"],
    "LookupTableImportV2": ["table_handle", "keys", "values"],
    "LookupTableInsertV2": ["table_handle", "keys", "values"],
    "LookupTableRemoveV2": ["table_handle", "keys"],
    "LookupTableSizeV2": ["table_handle"],
    "LookupTableExportV2": ["table_handle", "Tkeys", "Tvalues"],
    "InitializeTableFromTextFileV2": ["table_handle", "filename", "key_index", "value_index",
                                      ("vocab_size", -1), ("delimiter", "\t"), ("offset", 0)],
}
for _name, _params in _TABLE_OPS.items():
    _OPS[_name] = _make(_name, _params, _table_op(_name), "tf.lookup's tables")


def __getattr__(name: str):
    """The raw op ``name`` (TF's op name, ``AddV2``) from the ``_OPS`` table.

    The table is built above from the op specs; this module-level ``__getattr__``
    (PEP 562) is how ``from torchflow._src.ops.raw_ops import AddV2 as AddV2`` in the
    public ``torchflow.raw_ops`` finds an op, instead of copying the table into the
    module namespace.
    """
    try:
        return _OPS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list:
    return sorted(set(globals()) | set(_OPS))
