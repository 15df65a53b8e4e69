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

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops._dispatch import tensor_arg, tf_type_name

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
    raw_op.__doc__ = f"TF's ``{op}`` op ({doc}). Keyword arguments only."
    sig = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=defaults.get(n, _REQUIRED))
           for n in names]
    sig.append(inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None))
    raw_op.__signature__ = inspect.Signature(sig)
    return raw_op


# --- implementations needing more than a renamed call -----------------------------------
_NO_COMPLEX = ("float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
               "uint32, uint64, qint8, quint8, qint32, qint16, quint16")


def _real_reduce(op: str, fn: str):
    def impl(input, axis, keep_dims):  # noqa: A002 - TF's name
        t = tensor_arg(input)
        if t.dtype.is_complex or t.dtype is dtypes.string or t.dtype is dtypes.bool:
            raise InvalidArgumentError(
                None, None, f"Value for attr 'T' of {tf_type_name(t.dtype)} is not in the list "
                f"of allowed values: {_NO_COMPLEX}\n\t; NodeDef: {{{{node {op}}}}} [Op:{op}]")
        return getattr(_m("reduction_ops"), fn)(t, axis=axis, keepdims=keep_dims)

    return impl


def _reduce(fn: str):
    def impl(input, axis, keep_dims):  # noqa: A002
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
    def impl(logits):
        t = tensor_arg(logits)
        if t.ndim < 1:
            raise InvalidArgumentError(None, None, "logits must have >= 1 dimension, got [] "
                                                   f"[Op:{'Softmax' if fn == 'softmax' else 'LogSoftmax'}]")
        return getattr(_m("nn_ops"), fn)(t, axis=-1)

    return impl


def _cast(x, DstT, Truncate=False):  # noqa: N803 - TF's attribute names
    return _m("creation_ops").cast(x, DstT)


def _qdq_v2(input, input_min, input_max, signed_input, num_bits, range_given, round_mode,  # noqa: A002
            narrow_range, axis):
    return _m("quantization_ops").quantize_and_dequantize(
        input, input_min, input_max, signed_input=signed_input, num_bits=num_bits,
        range_given=range_given, round_mode=round_mode, narrow_range=narrow_range,
        axis=None if axis == -1 else axis)


def _qdq_v4(input, input_min, input_max, signed_input, num_bits, range_given, round_mode,  # noqa: A002
            narrow_range, axis):
    return _m("quantization_ops").quantize_and_dequantize_v2(
        input, input_min, input_max, signed_input=signed_input, num_bits=num_bits,
        range_given=range_given, round_mode=round_mode, narrow_range=narrow_range,
        axis=None if axis == -1 else axis)


def _call(mod: str, fn: str, *order, **fixed):
    """An impl that forwards raw keyword ``order[i]`` as the i-th positional argument."""

    def impl(**kw):
        return getattr(_m(mod), fn)(*(kw[k] for k in order), **fixed)

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
}
_UNARY = {
    "Abs": "abs", "Neg": "negative", "Exp": "exp", "Log": "log", "Sqrt": "sqrt",
    "Rsqrt": "rsqrt", "Square": "square", "Tanh": "tanh", "Sigmoid": "sigmoid", "Sin": "sin",
    "Cos": "cos", "Floor": "floor", "Ceil": "ceil", "Sign": "sign", "Reciprocal": "reciprocal",
}

_OPS: dict = {}
for _name, (_mod, _fn) in _BINARY.items():
    _OPS[_name] = _make(_name, ["x", "y"], _call(_mod, _fn, "x", "y"), f"tf.{_fn}")
for _name, _fn in _UNARY.items():
    _OPS[_name] = _make(_name, ["x"], _call("unary_math_ops", _fn, "x"), f"tf.math.{_fn}")
_OPS["LogicalNot"] = _make("LogicalNot", ["x"], _call("comparison_ops", "logical_not", "x"),
                           "tf.math.logical_not")
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
                                  ("grad_a", False), ("grad_b", False)], _matmul, "tf.linalg.matmul on matrices")
_OPS["BatchMatMulV2"] = _make("BatchMatMulV2", ["x", "y", ("adj_x", False), ("adj_y", False),
                                                ("grad_x", False), ("grad_y", False)],
                              _batch_matmul, "batched tf.linalg.matmul with broadcasting")
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
                        lambda input, axis: _m("array_ops").squeeze(  # noqa: A006
                            input, axis=list(axis) or None), "tf.squeeze")
_OPS["Tile"] = _make("Tile", ["input", "multiples"],
                     _call("array_ops", "tile", "input", "multiples"), "tf.tile")
_OPS["Pad"] = _make("Pad", ["input", "paddings"],
                    _call("array_ops", "pad", "input", "paddings"), "tf.pad")
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


# Explicit names for the public module's import lines (and static analysis).
AddV2 = _OPS["AddV2"]
Add = _OPS["Add"]
Sub = _OPS["Sub"]
Mul = _OPS["Mul"]
RealDiv = _OPS["RealDiv"]
FloorDiv = _OPS["FloorDiv"]
FloorMod = _OPS["FloorMod"]
Maximum = _OPS["Maximum"]
Minimum = _OPS["Minimum"]
Pow = _OPS["Pow"]
SquaredDifference = _OPS["SquaredDifference"]
Equal = _OPS["Equal"]
NotEqual = _OPS["NotEqual"]
Less = _OPS["Less"]
LessEqual = _OPS["LessEqual"]
Greater = _OPS["Greater"]
GreaterEqual = _OPS["GreaterEqual"]
LogicalAnd = _OPS["LogicalAnd"]
LogicalOr = _OPS["LogicalOr"]
LogicalNot = _OPS["LogicalNot"]
Abs = _OPS["Abs"]
Neg = _OPS["Neg"]
Exp = _OPS["Exp"]
Log = _OPS["Log"]
Sqrt = _OPS["Sqrt"]
Rsqrt = _OPS["Rsqrt"]
Square = _OPS["Square"]
Tanh = _OPS["Tanh"]
Sigmoid = _OPS["Sigmoid"]
Sin = _OPS["Sin"]
Cos = _OPS["Cos"]
Floor = _OPS["Floor"]
Ceil = _OPS["Ceil"]
Sign = _OPS["Sign"]
Reciprocal = _OPS["Reciprocal"]
Sum = _OPS["Sum"]
Mean = _OPS["Mean"]
Prod = _OPS["Prod"]
All = _OPS["All"]
Any = _OPS["Any"]
Max = _OPS["Max"]
Min = _OPS["Min"]
Relu = _OPS["Relu"]
Relu6 = _OPS["Relu6"]
Elu = _OPS["Elu"]
Selu = _OPS["Selu"]
Softmax = _OPS["Softmax"]
LogSoftmax = _OPS["LogSoftmax"]
BiasAdd = _OPS["BiasAdd"]
MatMul = _OPS["MatMul"]
BatchMatMulV2 = _OPS["BatchMatMulV2"]
Reshape = _OPS["Reshape"]
Transpose = _OPS["Transpose"]
ConcatV2 = _OPS["ConcatV2"]
Pack = _OPS["Pack"]
ExpandDims = _OPS["ExpandDims"]
Squeeze = _OPS["Squeeze"]
Tile = _OPS["Tile"]
Pad = _OPS["Pad"]
Cast = _OPS["Cast"]
Identity = _OPS["Identity"]
Fill = _OPS["Fill"]
ZerosLike = _OPS["ZerosLike"]
OnesLike = _OPS["OnesLike"]
Range = _OPS["Range"]
Shape = _OPS["Shape"]
Size = _OPS["Size"]
Rank = _OPS["Rank"]
AddN = _OPS["AddN"]
ArgMax = _OPS["ArgMax"]
ArgMin = _OPS["ArgMin"]
StringJoin = _OPS["StringJoin"]
StringLength = _OPS["StringLength"]
QuantizeAndDequantizeV2 = _OPS["QuantizeAndDequantizeV2"]
QuantizeAndDequantizeV4 = _OPS["QuantizeAndDequantizeV4"]
