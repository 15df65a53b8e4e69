"""``tf.strings`` Unicode ops, ``ngrams`` and ``unsorted_segment_join``.

Ragged results (per-string code points, characters, offsets) are
``tf.RaggedTensor``s of rank ``input.shape.rank + 1``, as in TF; a scalar input
gives 1-D Tensors.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import invalid_argument
from torchflow._src.ops._dispatch import Tensor, tensor_arg
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    from_nested_rows,
    replace_innermost,
)
from torchflow._src.ops.string_ops import _num, _rows, _sw, _to_bytes, str_arg
from torchflow._src.ops.unicode_codec import check_errors as _check_errors
from torchflow._src.ops.unicode_codec import decode as _decode
from torchflow._src.ops.unicode_codec import encoding as _enc
from torchflow._src.util.api import public


def _i32(v):
    return _num(np.array(v, dtype=np.int32), dtypes.int32)


def _i64(v):
    return _num(np.array(v, dtype=np.int64), dtypes.int64)


def _strs(v):
    arr = np.empty(len(v), dtype=object)
    arr[:] = v
    return _sw(arr)


@public("torchflow.strings")
def unicode_decode_with_offsets(input, input_encoding, errors="replace",
                                replacement_char=65533, replace_control_characters=False,
                                name=None):
    """Decodes each string into its code points, with the byte offset where each starts.

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      input_encoding: str, the encoding of ``input``: ``"UTF-8"``, ``"UTF-16-BE"`` or
        ``"UTF-32-BE"`` (TF also takes ICU's other encodings; torchflow does not).
      errors: ``"replace"`` (default: invalid sequences become ``replacement_char``),
        ``"ignore"`` (they are skipped) or ``"strict"`` (they raise
        ``InvalidArgumentError``).
      replacement_char: int, default 65533 (U+FFFD): the code point put for invalid
        sequences.
      replace_control_characters: bool, default False: whether C0 control characters
        are replaced by ``replacement_char`` too.
      name: A name for the operation (optional).

    Returns:
      ``(codepoints, offsets)``: int32 and int64 RaggedTensors (1-D Tensors for a
      scalar ``input``).

    Raises:
      ValueError: an encoding other than the three above, or an unknown ``errors``.
      InvalidArgumentError: an invalid sequence with ``errors="strict"``.
    """
    if isinstance(input, RaggedTensor):
        cps, offs = unicode_decode_with_offsets(input.flat_values, input_encoding, errors,
                                                replacement_char, replace_control_characters)
        return input.with_flat_values(cps), input.with_flat_values(offs)
    a = str_arg("UnicodeDecodeWithOffsets", input)
    enc = _enc(input_encoding)
    _check_errors(errors)
    rows = _rows(a, lambda x: _decode("UnicodeDecodeWithOffsets", x, enc, errors,
                                      replacement_char, replace_control_characters), _Row)
    return (_ragged(rows, a.shape, lambda r: [c for c, _, _ in r], _i32),
            _ragged(rows, a.shape, lambda r: [o for _, o, _ in r], _i64))


class _Row(list):
    """One string's items (marks the leaves of the nested row lists)."""


def _map_rows(rows, fn):
    if isinstance(rows, _Row):
        return fn(rows)
    return [_map_rows(r, fn) for r in rows]


def _ragged(rows, shape: tuple, pick, make_flat):
    """The items ``pick`` takes from each row, as a RaggedTensor (1-D for a scalar input)."""
    picked = _map_rows(rows, pick)
    if not shape:
        return make_flat(picked)
    return from_nested_rows(picked, len(shape), make_flat, uniform=shape[1:])


@public("torchflow.strings")
def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,
                  name=None):
    """Splits each string into its characters (each a string in ``input_encoding``).

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      input_encoding: str, the encoding of ``input``: ``"UTF-8"``, ``"UTF-16-BE"`` or
        ``"UTF-32-BE"`` (TF also takes ICU's other encodings; torchflow does not).
      errors: ``"replace"`` (default: invalid sequences become ``replacement_char``),
        ``"ignore"`` (they are skipped) or ``"strict"`` (they raise
        ``InvalidArgumentError``).
      replacement_char: int, default 65533 (U+FFFD): the code point put for invalid
        sequences.
      name: A name for the operation (optional).

    Returns:
      A 1-D string Tensor for a scalar ``input``, else a ``tf.RaggedTensor`` one rank
      higher.

    Raises:
      ValueError: an encoding other than the three above, or an unknown ``errors``.
      InvalidArgumentError: an invalid sequence with ``errors="strict"``.
    """
    return unicode_split_with_offsets(input, input_encoding, errors, replacement_char)[0]


@public("torchflow.strings")
def unicode_split_with_offsets(input, input_encoding, errors="replace",
                               replacement_char=65533, name=None):
    """Splits each string into its characters, with the byte offset where each starts.

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      input_encoding: str, the encoding of ``input``: ``"UTF-8"``, ``"UTF-16-BE"`` or
        ``"UTF-32-BE"`` (TF also takes ICU's other encodings; torchflow does not).
      errors: ``"replace"`` (default: invalid sequences become ``replacement_char``),
        ``"ignore"`` (they are skipped) or ``"strict"`` (they raise
        ``InvalidArgumentError``).
      replacement_char: int, default 65533 (U+FFFD): the code point put for invalid
        sequences.
      name: A name for the operation (optional).

    Returns:
      ``(chars, offsets)``: a string and an int64 RaggedTensor (1-D Tensors for a
      scalar ``input``).

    Raises:
      ValueError: an encoding other than the three above, or an unknown ``errors``.
      InvalidArgumentError: an invalid sequence with ``errors="strict"``.
    """
    if isinstance(input, RaggedTensor):
        chars, offs = unicode_split_with_offsets(input.flat_values, input_encoding, errors,
                                                 replacement_char)
        return input.with_flat_values(chars), input.with_flat_values(offs)
    a = str_arg("UnicodeSplitWithOffsets", input)
    enc = _enc(input_encoding)
    _check_errors(errors)

    def fn(x: bytes):
        return [(chr(c).encode(enc, "replace"), o) for c, o, _ in
                _decode("UnicodeSplitWithOffsets", x, enc, errors, replacement_char, False)]

    rows = _rows(a, fn, _Row)
    return (_ragged(rows, a.shape, lambda r: [s for s, _ in r], _strs),
            _ragged(rows, a.shape, lambda r: [o for _, o in r], _i64))


def _per_inner_row(rt: RaggedTensor, fn, drop_dim: bool):
    """``fn(row)`` (a list) for each innermost row of ``rt``: one value per row when
    ``drop_dim`` (the innermost ragged dimension goes), else the rows' new items."""
    inner = rt
    while isinstance(inner._values, RaggedTensor):
        inner = inner._values
    vals = inner._values.numpy().tolist()
    s = inner._row_splits._t.tolist()
    rows = [fn(vals[s[i]:s[i + 1]]) for i in range(len(s) - 1)]
    flat_dtype = _strs if inner._values.dtype == dtypes.string or drop_dim else _i32
    flat = flat_dtype([v for r in rows for v in r])
    if not drop_dim:
        lengths = np.array([0] + [len(r) for r in rows], dtype=np.int64).cumsum()
        flat = RaggedTensor.from_row_splits(flat, _i64(lengths), validate=False)
    return replace_innermost(rt, flat)


def _encode_cps(cps, enc, errors, repl) -> bytes:
    out = []
    for c in cps:
        c = int(c)
        if not (0 <= c <= 0x10FFFF) or 0xD800 <= c <= 0xDFFF:
            if errors == "strict":
                raise invalid_argument("UnicodeEncode", "Code point is out of range for Unicode, "
                                       "or is a surrogate.")
            if errors == "ignore":
                continue
            c = repl
        out.append(chr(c))
    return "".join(out).encode(enc)


@public("torchflow.strings")
def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,
                   name=None) -> Tensor | RaggedTensor:
    """Encodes code points into strings.

    Args:
      input: An int32 Tensor of code points of rank >= 1 (the last dimension is
        the characters of one string), or a list of 1-D rows (the ragged form
        ``unicode_decode`` returns).
      output_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
      errors: ``"replace"`` (default), ``"ignore"`` or ``"strict"`` for invalid code points.
      replacement_char: Code point used by ``"replace"``.
      name: Unused (eager).

    Returns:
      A string Tensor with one dimension fewer than ``input``.
    """
    enc = _enc(output_encoding)
    _check_errors(errors)
    if isinstance(input, RaggedTensor):  # one string per innermost row
        return _per_inner_row(input, lambda cps: [_encode_cps(np.asarray(cps), enc, errors,
                                                              replacement_char)], True)
    if isinstance(input, (list, tuple)) and input and isinstance(input[0], (Tensor, list)):
        if all(isinstance(r, Tensor) and r.ndim == 1 for r in input):
            return _sw(np.array([_encode_cps(r.numpy(), enc, errors, replacement_char)
                                 for r in input] + [None], dtype=object)[:-1])
        if isinstance(input[0], list) and input[0] and isinstance(input[0][0], Tensor):
            parts = [unicode_encode(r, output_encoding, errors, replacement_char).numpy()
                     for r in input]
            return _sw(np.stack(parts))
    arr = np.asarray(tensor_arg(input).numpy())
    if arr.ndim == 0:
        raise ValueError("unicode_encode: input must have rank >= 1")
    lead = arr.shape[:-1]
    flat = arr.reshape(int(np.prod(lead, dtype=np.int64)), arr.shape[-1])
    out = np.empty(flat.shape[0], dtype=object)
    for i in range(flat.shape[0]):
        out[i] = _encode_cps(flat[i], enc, errors, replacement_char)
    return _sw(out.reshape(lead))


@public("torchflow.strings")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace",
                      replacement_char=65533, replace_control_characters=False,
                      name=None) -> Tensor | RaggedTensor:
    """Re-encodes each string from ``input_encoding`` to ``output_encoding``.

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      input_encoding: str, the encoding of ``input``: ``"UTF-8"``, ``"UTF-16-BE"`` or
        ``"UTF-32-BE"`` (TF also takes ICU's other encodings; torchflow does not).
      output_encoding: str, the encoding of the result: ``"UTF-8"``, ``"UTF-16-BE"`` or
        ``"UTF-32-BE"``.
      errors: ``"replace"`` (default: invalid sequences become ``replacement_char``),
        ``"ignore"`` (they are skipped) or ``"strict"`` (they raise
        ``InvalidArgumentError``).
      replacement_char: int, default 65533 (U+FFFD): the code point put for invalid
        sequences.
      replace_control_characters: bool, default False: whether C0 control characters
        are replaced by ``replacement_char`` too.
      name: A name for the operation (optional).

    Returns:
      A string Tensor of ``input``'s shape (a RaggedTensor of the same row partitions
      for a RaggedTensor ``input``).

    Raises:
      ValueError: an encoding other than the three above, or an unknown ``errors``.
      InvalidArgumentError: an invalid sequence with ``errors="strict"``.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(unicode_transcode(
            input.flat_values, input_encoding, output_encoding, errors, replacement_char,
            replace_control_characters))
    a = str_arg("UnicodeTranscode", input)
    ie, oe = _enc(input_encoding), _enc(output_encoding)
    _check_errors(errors)
    out = np.empty(a.shape, dtype=object)
    fo, fi = out.reshape(-1), a.reshape(-1)
    for i in range(fi.size):
        cps = [c for c, _, _ in _decode("UnicodeTranscode", fi[i], ie, errors, replacement_char,
                                        replace_control_characters)]
        fo[i] = _encode_cps(cps, oe, errors, replacement_char)
    return _sw(out)


@public("torchflow.strings")
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="",
                          name=None) -> Tensor:
    """Joins the strings of each segment (in input order); empty segments give ``""``.

    Args:
      inputs: A string Tensor.
      segment_ids: Integer Tensor whose shape is a prefix of ``inputs``'s
        shape; negative ids drop their entries.
      num_segments: The number of segments.
      separator: String placed between joined strings.
      name: Unused (eager).

    Returns:
      A string Tensor of shape ``[num_segments] + inputs.shape[segment_ids.ndim:]``.
    """
    a = str_arg("UnsortedSegmentJoin", inputs)
    ids = np.asarray(tensor_arg(segment_ids).numpy())
    n = int(num_segments)
    if a.shape[:ids.ndim] != ids.shape:
        raise invalid_argument("UnsortedSegmentJoin",
                               f"segment_ids.shape = {list(ids.shape)} is not a prefix of "
                               f"input.shape = {list(a.shape)}")
    sep = _to_bytes(separator)
    inner = a.shape[ids.ndim:]
    flat = a.reshape((-1,) + inner)
    groups: list = [[] for _ in range(n)]
    for i, s in enumerate(ids.reshape(-1).tolist()):
        if s >= n:
            raise invalid_argument("UnsortedSegmentJoin",
                                   f"segment_ids[{i}] = {s} is out of range [0, {n})")
        if s >= 0:
            groups[s].append(flat[i])
    out = np.empty((n,) + inner, dtype=object)
    for k in range(n):
        if groups[k]:
            stacked = np.stack(groups[k])
            res = out[k].reshape(-1) if inner else None
            cols = stacked.reshape(len(groups[k]), -1)
            joined = [sep.join(cols[:, j]) for j in range(cols.shape[1])]
            if inner:
                res[:] = joined  # pyright: ignore[reportOptionalSubscript] - res is set when inner
            else:
                out[k] = joined[0]
        else:
            out[k] = b"" if not inner else np.full(inner, b"", dtype=object)
    return _sw(out)


@public("torchflow.strings")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """N-grams of the innermost dimension of ``data``.

    Args:
      data: A string Tensor of rank >= 1 (or a list of 1-D row Tensors).
      ngram_width: An int, or a sequence of ints (their n-grams are concatenated).
      separator: String joining the items of an n-gram.
      pad_values: None (no padding), a string used on both sides, or a
        ``(left, right)`` pair.
      padding_width: Pad items per side (default and maximum ``width - 1``).
      preserve_short_sequences: Emit one n-gram for a sequence too short to give any.
      name: Unused (eager).

    Returns:
      For a Tensor, a string Tensor ``data.shape[:-1] + [num_ngrams]``; for a
      list of rows, a list of 1-D string Tensors.
    """
    widths = [int(ngram_width)] if np.ndim(ngram_width) == 0 else [int(w) for w in ngram_width]
    for w in widths:
        if w <= 0:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    if isinstance(data, RaggedTensor) and data.dtype != dtypes.string:
        raise ValueError(f"Tensor conversion requested dtype string for RaggedTensor with "
                         f"dtype {data.dtype.name}: {data!r}.")
    if isinstance(data, Tensor) and data.dtype != dtypes.string:
        raise ValueError(f"Tensor conversion requested dtype string for Tensor with dtype "
                         f"{data.dtype.name}: {data!r}")
    if isinstance(pad_values, (list, tuple)):
        left, right = (_to_bytes(pad_values[0]), _to_bytes(pad_values[1]))
    elif pad_values is not None:
        left = right = _to_bytes(pad_values)
    sep = _to_bytes(separator)

    def one(seq):
        out = []
        for w in widths:
            pw = 0 if pad_values is None else min(w - 1 if padding_width is None
                                                  else int(padding_width), w - 1)
            items = [left] * pw + list(seq) + [right] * pw if pw else list(seq)
            out += [sep.join(items[i:i + w]) for i in range(len(items) - w + 1)]
        if not out and preserve_short_sequences:
            w = widths[0]
            pw = 0 if pad_values is None else min(w - 1 if padding_width is None
                                                  else int(padding_width), w - 1)
            out = [sep.join([left] * pw + list(seq) + [right] * pw if pw else list(seq))]
        return out

    if isinstance(data, RaggedTensor):  # n-grams of each innermost row, still ragged
        return _per_inner_row(data, one, False)
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], Tensor):
        return [_strs(one(str_arg("NGrams", r).tolist())) for r in data]
    a = str_arg("NGrams", data)
    if a.ndim == 0:
        raise ValueError("ngrams: data must have rank >= 1, got a scalar")
    rows = [one(r) for r in a.reshape(-1, a.shape[-1]).tolist()]
    k = len(rows[0]) if rows else 0
    out = np.empty((len(rows), k), dtype=object)
    for i, r in enumerate(rows):
        out[i, :] = r
    return _sw(out.reshape(a.shape[:-1] + (k,)))
