"""TF lowerings of ``preprocessing_ops`` (Keras' lookup and category-encoding
layers) as dense TF ops:

- ``vocab_lookup``: ``Equal`` of the keys against the vocabulary constant, ``Any``
  for hits, ``ArgMax`` for their position; misses are ``StringToHashBucketFast`` /
  ``FloorMod`` buckets (several OOV indices) or a ``Fill``; the mask key is 0.
- ``vocab_invert``: ``GatherV2`` of the tokens at the in-range indices, the default
  elsewhere (``SelectV2``).
- ``category_encode``: ``DenseBincount`` per row (``binary_output`` for multi-hot),
  times the idf weights for tf-idf.
- ``bucketize``: ``Bucketize`` (cast to int64); ``category_cross`` and ``on_host``
  (host code of the layers) are not written (refused).
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import preprocessing_ops
from torchflow._src.ops.graph_lowering_ragged_build import refuse

_I32, _I64, _B = dtypes.int32, dtypes.int64, dtypes.bool


def _n(b, op: str, inputs: list, attrs: dict, d) -> str:
    return f"{b.node(op, inputs, attrs, name=op, out_dtypes=[d])}:0"


def _const(b, values, d) -> str:
    arr = np.asarray(values, dtype=object if d is dtypes.string else d.as_numpy_dtype)
    return b.constant(arr, d)


def _fill_like(b, x: str, xd, value: str, d) -> str:
    shape = _n(b, "Shape", [x], {"T": xd, "out_type": _I32}, _I32)
    return _n(b, "Fill", [shape, value], {"T": d, "index_type": _I32}, d)


def _select(b, cond: str, x: str, y: str, d) -> str:
    return _n(b, "SelectV2", [cond, x, y], {"T": d}, d)


def _vocab_lookup(b, call):
    a = call.args
    x = a["x"]
    if not isinstance(x, Tensor):
        return None
    d, X = x.dtype, b.input(x)
    num_oov, start, mask = int(a["num_oov"]), int(a["oov_start"]), a.get("mask_key")
    if num_oov > 1:
        if d is dtypes.string:
            bucket = _n(b, "StringToHashBucketFast", [X], {"num_buckets": num_oov}, _I64)
        else:
            xi = X if d is _I64 else _n(b, "Cast", [X], {"SrcT": d, "DstT": _I64,
                                                          "Truncate": False}, _I64)
            bucket = _n(b, "FloorMod", [xi, b.constant(np.int64(num_oov), _I64)], {"T": _I64},
                        _I64)
        miss = _n(b, "AddV2", [bucket, b.constant(np.int64(start), _I64)], {"T": _I64}, _I64)
    else:
        miss = _fill_like(b, X, d, b.constant(np.int64(start if num_oov else -1), _I64), _I64)
    if mask is not None:
        is_mask = _n(b, "Equal", [X, _const(b, mask, d)],
                     {"T": d, "incompatible_shape_error": True}, _B)
        miss = _select(b, is_mask, _fill_like(b, X, d, b.constant(np.int64(0), _I64), _I64),
                       miss, _I64)
    tokens = list(a["tokens"])
    if not tokens:
        return [miss]
    minus1 = b.constant(-1, _I32)
    eq = _n(b, "Equal", [_n(b, "ExpandDims", [X, minus1], {"T": d, "Tdim": _I32}, d),
                         _const(b, tokens, d)], {"T": d, "incompatible_shape_error": True}, _B)
    found = _n(b, "Any", [eq, minus1], {"keep_dims": False, "Tidx": _I32}, _B)
    as_int = _n(b, "Cast", [eq], {"SrcT": _B, "DstT": _I32, "Truncate": False}, _I32)
    pos = _n(b, "ArgMax", [as_int, minus1], {"T": _I32, "Tidx": _I32, "output_type": _I64},
             _I64)
    offset = int(a["index"][tokens[0]])
    hit = _n(b, "AddV2", [pos, b.constant(np.int64(offset), _I64)], {"T": _I64}, _I64)
    return [_select(b, found, hit, miss, _I64)]


def _vocab_invert(b, call):
    a = call.args
    idx = a["idx"]
    if not isinstance(idx, Tensor):
        return None
    d = dtypes.as_dtype(a["dtype"])
    tokens = np.asarray(a["tokens"])
    i = b.input(idx)
    if idx.dtype is not _I64:
        i = _n(b, "Cast", [i], {"SrcT": idx.dtype, "DstT": _I64, "Truncate": False}, _I64)
    default = _fill_like(b, i, _I64, _const(b, a["default"], d), d)
    if not len(tokens):
        return [default]
    ok = _n(b, "LogicalAnd", [
        _n(b, "GreaterEqual", [i, b.constant(np.int64(0), _I64)], {"T": _I64}, _B),
        _n(b, "Less", [i, b.constant(np.int64(len(tokens)), _I64)], {"T": _I64}, _B)], {}, _B)
    safe = _select(b, ok, i, _fill_like(b, i, _I64, b.constant(np.int64(0), _I64), _I64), _I64)
    got = _n(b, "GatherV2", [_const(b, list(tokens), d), safe, b.constant(0, _I32)],
             {"Tparams": d, "Tindices": _I64, "Taxis": _I32, "batch_dims": 0}, d)
    return [_select(b, ok, got, default, d)]


def _category_encode(b, call):
    a = call.args
    x = a["x"]
    if not isinstance(x, Tensor):
        return None
    f32 = dtypes.float32
    xd = x.dtype if x.dtype in (_I32, _I64) else _I64
    X = b.input(x)
    if xd is not x.dtype:
        X = _n(b, "Cast", [X], {"SrcT": x.dtype, "DstT": _I64, "Truncate": False}, _I64)
    out = _n(b, "DenseBincount", [X, b.constant(np.asarray(a["depth"], xd.as_numpy_dtype), xd),
                                  b.constant(np.zeros((0,), np.float32), f32)],
             {"Tidx": xd, "T": f32, "binary_output": bool(a["binary"])}, f32)
    idf = a.get("idf")
    if idf is not None:
        w = np.asarray(idf, np.float32)[:int(a["depth"])]
        out = _n(b, "Mul", [out, b.constant(w, f32)], {"T": f32}, f32)
    return [out]


def _bucketize(b, call):
    a = call.args
    x = a["x"]
    if not isinstance(x, Tensor):
        return None
    out = _n(b, "Bucketize", [b.input(x)], {"T": x.dtype, "boundaries": [
        float(v) for v in a["boundaries"]]}, _I32)
    return [_n(b, "Cast", [out], {"SrcT": _I32, "DstT": _I64, "Truncate": False}, _I64)]


def _category_cross(b, call):
    if any(isinstance(x, Tensor) for x in call.args["inputs"]):
        return refuse(b, call)
    return None


def _on_host(b, call):
    if any(isinstance(x, Tensor) for x in call.args["tensors"]):
        return refuse(b, call)
    return None


op_graph.register(preprocessing_ops.on_host, _on_host)
op_graph.register(preprocessing_ops.bucketize, _bucketize)
op_graph.register(preprocessing_ops.category_cross, _category_cross)
op_graph.register(preprocessing_ops.vocab_lookup, _vocab_lookup)
op_graph.register(preprocessing_ops.vocab_invert, _vocab_invert)
op_graph.register(preprocessing_ops.category_encode, _category_encode)
