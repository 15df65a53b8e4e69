"""TF lowerings of ``tf.strings``: each op is computed in NumPy, so no recording marks
its result as computed from the function's inputs, and a graph that read the result
without a lowering would hold the trace's value as a constant. Every public string
op therefore has a lowering here: the TF op it is (``StringLength``, ``RegexReplace``,
``ReduceJoin``...), or, for those not written yet, a refusal (``Unlowered``: the
function cannot be saved) when an argument comes from the function's inputs.

``tf.strings.split`` (``graph_lowering_ragged_build``) and the hash-bucket ops
(``graph_lowering_ragged``) are lowered with the ragged ops.
"""

from __future__ import annotations

from typing import Any

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import string_hash_ops, string_ops, unicode_ops, unicode_script_ops
from torchflow._src.ops.graph_lowering_ragged_build import refuse
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.util import nest

_S = dtypes.string
_I32 = dtypes.int32


def _str(b, x) -> str:
    return b.input(x) if isinstance(x, Tensor) else b.constant(x, _S)


def _int(b, x, d=_I32) -> str:
    return b.input(x) if isinstance(x, Tensor) else b.constant(x, d)


def _out(b, op: str, x, rest: list, attrs: dict, call) -> list:
    """One ``op`` node on ``x`` (and ``rest``); a ragged ``x`` is elementwise on its
    flat values, its row splits kept (TF's ragged dispatch)."""
    out = call.outputs
    if isinstance(x, RaggedTensor):
        if not isinstance(out, RaggedTensor) or out.ragged_rank != x.ragged_rank:
            return refuse(b, call)
        n = b.node(op, [b.input(x.flat_values)] + rest, attrs, name=op,
                   out_dtypes=[out.dtype])
        return [f"{n}:0"] + [b.input(s) for s in x.nested_row_splits]
    if not isinstance(out, Tensor):
        return refuse(b, call)
    n = b.node(op, [b.input(x)] + rest, attrs, name=op, out_dtypes=[out.dtype])
    return [f"{n}:0"]


def _has_tensor(b, values) -> bool:
    """Whether a tensor among ``values`` is not a constant of the graph."""
    for v in nest.flatten(list(values), expand_composites=True):
        if isinstance(v, Tensor):
            ep = b.input(v)
            if b.graph.get_operation_by_name(ep.split(":")[0]).type != "Const":
                return True
    return False


def _arg(x) -> bool:
    return isinstance(x, (Tensor, RaggedTensor))


def _unary(op: str, attrs_of=lambda a: {}):
    def lower(b, call):
        a = call.args
        x = a.get("input", a.get("string_tensor"))
        if not _arg(x):
            return None  # a Python value: a constant result
        return _out(b, op, x, [], attrs_of(a), call)

    return lower


def _join(b, call):
    """``StringJoin(inputs)``: a list of string tensors and scalars."""
    a = call.args
    xs = a["inputs"]
    if not isinstance(xs, (list, tuple)) or not all(isinstance(x, (Tensor, str, bytes))
                                                    for x in xs):
        return refuse(b, call) if _has_tensor(b, [xs]) else None
    if not any(isinstance(x, Tensor) for x in xs):
        return None
    eps = [_str(b, x) for x in xs]
    out = call.outputs
    if not isinstance(out, Tensor):
        return refuse(b, call)
    n = b.node("StringJoin", eps, {"N": len(xs), "separator": string_ops._to_bytes(
        a.get("separator", ""))}, name="StringJoin", out_dtypes=[_S])
    return [f"{n}:0"]


def _reduce_join(b, call):
    """``ReduceJoin(inputs, reduction_indices)``; ``axis=None`` is every axis, last
    first (TF's Python wrapper)."""
    a = call.args
    x, axis = a["inputs"], a.get("axis")
    if isinstance(x, RaggedTensor):
        return refuse(b, call) if _has_tensor(b, [x, axis]) else None
    if not isinstance(x, Tensor):
        return refuse(b, call) if _has_tensor(b, [axis]) else None
    rank = x.shape.rank
    if axis is None:
        if rank is None:
            return refuse(b, call)
        axes: Any = list(range(rank - 1, -1, -1))
    else:
        axes = axis
    return _out(b, "ReduceJoin", x, [_int(b, axes)],
                {"keep_dims": bool(a.get("keepdims", False)),
                 "separator": string_ops._to_bytes(a.get("separator", ""))}, call)


def _substr(b, call):
    a = call.args
    x, pos, ln = a["input"], a["pos"], a["len"]
    if not _arg(x):
        return refuse(b, call) if _has_tensor(b, [pos, ln]) else None
    d = pos.dtype if isinstance(pos, Tensor) else (ln.dtype if isinstance(ln, Tensor) else _I32)
    if isinstance(x, RaggedTensor) and (isinstance(pos, Tensor) or isinstance(ln, Tensor)):
        return refuse(b, call)  # positions per value: not the flat values' op
    return _out(b, "Substr", x, [_int(b, pos, d), _int(b, ln, d)],
                {"T": d, "unit": a.get("unit", "BYTE")}, call)


def _regex(op: str, extra: tuple, attrs_of=lambda a: {}):
    def lower(b, call):
        a = call.args
        x = a["input"]
        if not _arg(x):
            return refuse(b, call) if _has_tensor(b, [a[k] for k in extra]) else None
        return _out(b, op, x, [_str(b, a[k]) for k in extra], attrs_of(a), call)

    return lower


def _refused(b, call):
    """No TF lowering yet: refused when an argument may come from the inputs."""
    if not _has_tensor(b, call.args.values()):
        return None
    return refuse(b, call)


for _fn, _lower in (
        (string_ops.length, _unary("StringLength", lambda a: {"unit": a.get("unit", "BYTE")})),
        (string_ops.lower, _unary("StringLower", lambda a: {"encoding": a.get("encoding", "")})),
        (string_ops.upper, _unary("StringUpper", lambda a: {"encoding": a.get("encoding", "")})),
        (string_ops.strip, _unary("StringStrip")),
        (string_ops.to_number, _unary("StringToNumber", lambda a: {
            "out_type": dtypes.as_dtype(a.get("out_type", dtypes.float32))})),
        (string_ops.join, _join),
        (string_ops.reduce_join, _reduce_join),
        (string_ops.substr, _substr),
        (string_ops.regex_full_match, _regex("RegexFullMatch", ("pattern",))),
        (string_ops.regex_replace, _regex("RegexReplace", ("pattern", "rewrite"), lambda a: {
            "replace_global": bool(a.get("replace_global", True))}))):
    op_graph.register(_fn, _lower, composite=True)


def _as_string(b, call):
    a = call.args
    x = a["input"]
    if not _arg(x):
        return None
    return _out(b, "AsString", x, [], {
        "T": x.dtype, "precision": int(a.get("precision", -1)),
        "scientific": bool(a.get("scientific", False)),
        "shortest": bool(a.get("shortest", False)), "width": int(a.get("width", -1)),
        "fill": str(a.get("fill", ""))}, call)


def _ngrams(b, call):
    """TF's ``StringNGrams(data, data_splits)`` of a ragged matrix of strings (outputs:
    the n-grams, their row splits)."""
    a = call.args
    data = a["data"]
    if not isinstance(data, RaggedTensor):
        return refuse(b, call) if _has_tensor(b, [data]) else None
    if data.ragged_rank != 1 or data.shape.rank != 2 or not isinstance(call.outputs,
                                                                       RaggedTensor):
        return refuse(b, call)
    w = a["ngram_width"]
    widths = [int(w)] if isinstance(w, int) else [int(v) for v in w]
    pads = a.get("pad_values")
    left, right = (pads if isinstance(pads, (list, tuple)) else (pads, pads)) \
        if pads is not None else ("", "")
    width = a.get("padding_width")
    sd = data.row_splits_dtype
    n = b.node("StringNGrams", [b.input(data.flat_values), b.input(data.row_splits)],
               {"separator": string_ops._to_bytes(a.get("separator", " ")),
                "ngram_widths": widths, "left_pad": string_ops._to_bytes(left),
                "right_pad": string_ops._to_bytes(right),
                "pad_width": 0 if pads is None else (-1 if width is None else int(width)),
                "preserve_short_sequences": bool(a.get("preserve_short_sequences", False)),
                "Tsplits": sd}, name="StringNGrams", out_dtypes=[_S, sd])
    return [f"{n}:0", f"{n}:1"]


_I64 = dtypes.int64


def _decode_attrs(a) -> dict:
    return {"input_encoding": a["input_encoding"], "errors": a.get("errors", "replace"),
            "replacement_char": int(a.get("replacement_char", 65533)),
            "replace_control_characters": bool(a.get("replace_control_characters", False)),
            "Tsplits": _I64}


def _ragged_of_vector(x, out, *parts) -> bool:
    """Whether ``x`` is a 1-D string tensor and ``out`` (and ``parts`` of it) ragged
    matrices with int64 splits: the case TF's graph ops cover directly."""
    outs = [out] if not parts else [out[i] for i in parts]
    return isinstance(x, Tensor) and x.shape.rank == 1 and all(
        isinstance(o, RaggedTensor) and o.ragged_rank == 1 and o.row_splits.dtype == _I64
        for o in outs)


def _unicode_decode(b, call):
    """``UnicodeDecode(input)``: the row splits and the code points."""
    a = call.args
    x = a["input"]
    if not _arg(x):
        return None
    if not _ragged_of_vector(x, call.outputs):
        return refuse(b, call)
    n = b.node("UnicodeDecode", [b.input(x)], _decode_attrs(a), name="UnicodeDecode",
               out_dtypes=[_I64, _I32])
    return [f"{n}:1", f"{n}:0"]


def _unicode_decode_with_offsets(b, call):
    a = call.args
    x = a["input"]
    if not _arg(x):
        return None
    if not _ragged_of_vector(x, call.outputs, 0, 1):
        return refuse(b, call)
    n = b.node("UnicodeDecodeWithOffsets", [b.input(x)], _decode_attrs(a),
               name="UnicodeDecodeWithOffsets", out_dtypes=[_I64, _I32, _I64])
    return [f"{n}:1", f"{n}:0", f"{n}:2", f"{n}:0"]


def _encode(b, values: str, splits: str, a, encoding) -> str:
    return b.node("UnicodeEncode", [values, splits],
                  {"errors": a.get("errors", "replace"), "output_encoding": encoding,
                   "replacement_char": int(a.get("replacement_char", 65533)),
                   "Tsplits": _I64}, name="UnicodeEncode", out_dtypes=[_S])


def _unicode_encode(b, call):
    """``UnicodeEncode(values, splits)`` of a ragged matrix of code points."""
    a = call.args
    x = a["input"]
    if not _arg(x):
        return None
    if not (isinstance(x, RaggedTensor) and x.ragged_rank == 1 and x.flat_values.shape.rank
            == 1 and x.row_splits.dtype == _I64 and isinstance(call.outputs, Tensor)):
        return refuse(b, call)
    n = _encode(b, b.input(x.flat_values), b.input(x.row_splits), a, a["output_encoding"])
    return [f"{n}:0"]


def _split_chars(b, call, with_offsets: bool):
    """TF's ``unicode_split``: the code points decoded, then each encoded on its own
    (``UnicodeEncode`` over splits ``0, 1, ..., n``)."""
    a = call.args
    x = a["input"]
    if not _arg(x):
        return None
    ok = _ragged_of_vector(x, call.outputs, 0, 1) if with_offsets else \
        _ragged_of_vector(x, call.outputs)
    if not ok:
        return refuse(b, call)
    attrs = _decode_attrs(a)
    attrs["replace_control_characters"] = False
    op = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"
    dec = b.node(op, [b.input(x)], attrs, name=op,
                 out_dtypes=[_I64, _I32] + ([_I64] if with_offsets else []))
    size = b.node("Size", [f"{dec}:1"], {"T": _I32, "out_type": _I64}, name="Size",
                  out_dtypes=[_I64])
    limit = b.node("AddV2", [f"{size}:0", b.constant(1, _I64)], {"T": _I64}, name="add",
                   out_dtypes=[_I64])
    rng = b.node("Range", [b.constant(0, _I64), f"{limit}:0", b.constant(1, _I64)],
                 {"Tidx": _I64}, name="Range", out_dtypes=[_I64])
    chars = _encode(b, f"{dec}:1", f"{rng}:0", a, a["input_encoding"])
    out = [f"{chars}:0", f"{dec}:0"]
    return out + [f"{dec}:2", f"{dec}:0"] if with_offsets else out


def _unicode_transcode(b, call):
    a = call.args
    x = a["input"]
    if not _arg(x):
        return None
    attrs = _decode_attrs(a)
    del attrs["Tsplits"]
    attrs["output_encoding"] = a["output_encoding"]
    return _out(b, "UnicodeTranscode", x, [], attrs, call)


def _segment_join(b, call):
    """``UnsortedSegmentJoin(inputs, segment_ids, num_segments)``."""
    a = call.args
    x, ids, n = a["inputs"], a["segment_ids"], a["num_segments"]
    if not isinstance(x, Tensor) or not isinstance(call.outputs, Tensor):
        return refuse(b, call) if _has_tensor(b, [x, ids, n]) else None
    di = ids.dtype if isinstance(ids, Tensor) else _I32
    dn = n.dtype if isinstance(n, Tensor) else _I32
    node = b.node("UnsortedSegmentJoin", [b.input(x), _int(b, ids, di), _int(b, n, dn)],
                  {"separator": string_ops._to_bytes(a.get("separator", "")), "Tindices": di,
                   "Tnumsegments": dn}, name="UnsortedSegmentJoin", out_dtypes=[_S])
    return [f"{node}:0"]


def _format(b, call):
    """``StringFormat(inputs)`` with the template, placeholder and summarize."""
    a = call.args
    vals = a.get("inputs")
    vals = list(vals) if isinstance(vals, (list, tuple)) else [vals]
    if not _has_tensor(b, vals):
        return None
    if not all(isinstance(v, Tensor) for v in vals) or not isinstance(call.outputs, Tensor):
        return refuse(b, call)
    n = b.node("StringFormat", [b.input(v) for v in vals],
               {"T": [v.dtype for v in vals], "template": a["template"],
                "placeholder": a.get("placeholder", "{}"),
                "summarize": int(a.get("summarize", 3))}, name="StringFormat",
               out_dtypes=[_S])
    return [f"{n}:0"]


def _fingerprint(b, call):
    a = call.args
    x = a["data"]
    if not isinstance(x, Tensor) or not isinstance(call.outputs, Tensor):
        return refuse(b, call) if _has_tensor(b, [x]) else None
    n = b.node("Fingerprint", [b.input(x), b.constant(a.get("method", "farmhash64"), _S)],
               {"T": x.dtype}, name="Fingerprint", out_dtypes=[dtypes.uint8])
    return [f"{n}:0"]


for _fn, _lower in (
        (string_ops.unicode_decode, _unicode_decode),
        (unicode_ops.unicode_decode_with_offsets, _unicode_decode_with_offsets),
        (unicode_ops.unicode_encode, _unicode_encode),
        (unicode_ops.unicode_split, lambda b, call: _split_chars(b, call, False)),
        (unicode_ops.unicode_split_with_offsets, lambda b, call: _split_chars(b, call, True)),
        (unicode_ops.unicode_transcode, _unicode_transcode),
        (unicode_ops.unsorted_segment_join, _segment_join),
        (string_ops.format, _format),
        (string_hash_ops.fingerprint, _fingerprint),
        (unicode_script_ops.unicode_script, _unary("UnicodeScript"))):
    op_graph.register(_fn, _lower, composite=True)
op_graph.register(string_ops.as_string, _as_string, composite=True)
op_graph.register(unicode_ops.ngrams, _ngrams, composite=True)
# Not written as TF ops yet: refused (composite arguments too, whose results these
# functions build themselves).
for _fn in (string_ops.bytes_split, string_ops.unicode_decode, string_ops.format,
            unicode_ops.unicode_decode_with_offsets,
            unicode_ops.unicode_encode, unicode_ops.unicode_split,
            unicode_ops.unicode_split_with_offsets, unicode_ops.unicode_transcode,
            unicode_ops.unsorted_segment_join, string_hash_ops.fingerprint,
            unicode_script_ops.unicode_script):
    if not op_graph.is_registered(_fn):
        op_graph.register(_fn, _refused, composite=True)
del _fn, _lower
