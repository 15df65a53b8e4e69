"""``tf.strings``: ops on string tensors (NumPy object arrays of ``bytes``).

String tensors live on the host; numeric results (``length``, ``to_number``,
...) are torch tensors on the default device. Python ``str`` inputs are UTF-8
encoded. Regular expressions use Python's ``re`` module, which accepts the RE2
syntax TF uses for ordinary patterns (RE2's ``\\0`` in a rewrite is the whole
match, as in TF).
"""

from __future__ import annotations

import re

import numpy as np
import torch

from torchflow._src.core import context, dtypes, graph_trace
from torchflow._src.core.errors import (
    InvalidArgumentError,
    OutOfRangeError,
    dims,
    invalid_argument,
)
from torchflow._src.ops import unicode_codec
from torchflow._src.ops._dispatch import Tensor, dtype_error, tensor_arg, wrap
from torchflow._src.ops.ragged import ragged_reduce
from torchflow._src.ops.ragged.ragged_tensor import (
    RaggedTensor,
    from_nested_rows,
)
from torchflow._src.util.api import public


# --- helpers -----------------------------------------------------------------
def str_arg(op: str, x) -> np.ndarray:
    """The bytes object array behind a string input."""
    if isinstance(x, Tensor):
        if x._dtype is not dtypes.string:
            raise dtype_error(op, 0, dtypes.string, x._dtype)
        return x._t
    t = tensor_arg(x, dtypes.string)
    if t._dtype is not dtypes.string:
        raise dtype_error(op, 0, dtypes.string, t._dtype)
    return t._t


def _dry_trace() -> bool:
    """Whether a dry trace (``get_concrete_function``, SavedModel) runs the op on the
    stand-ins of its signature (empty strings), whose values its graph does not keep."""
    r = graph_trace.active()
    return r is not None and r.dry


def _to_bytes(s) -> bytes:
    return s.encode("utf-8") if isinstance(s, str) else bytes(s)


def _map(a: np.ndarray, fn) -> np.ndarray:
    out = np.empty(a.shape, dtype=object)
    fo, fi = out.reshape(-1), a.reshape(-1)
    for i in range(fi.size):
        fo[i] = fn(fi[i])
    return out


def _sw(a: np.ndarray) -> Tensor:
    return wrap(a, dtypes.string)


def strs(v: list) -> Tensor:
    """A 1-D string Tensor of the bytes in ``v``."""
    arr = np.empty(len(v), dtype=object)
    arr[:] = v
    return _sw(arr)


def ragged_rows(a: np.ndarray, fn, make_flat):
    """``fn(s)`` (a list) for each string of ``a`` as a RaggedTensor of rank ``a.ndim + 1``
    (for a scalar ``a``, the 1-D Tensor ``make_flat(fn(s))``), as TF's ragged string ops."""
    if a.ndim == 0:
        return make_flat(fn(a.reshape(-1)[0]))
    return from_nested_rows(_rows(a, fn, list), a.ndim, make_flat, uniform=a.shape[1:])


def _num(a: np.ndarray, dtype: dtypes.DType) -> Tensor:
    a = np.asarray(a)
    # ascontiguousarray would turn a 0-d array into shape (1,)
    t = torch.from_numpy(np.ascontiguousarray(a, dtype=dtype.as_numpy_dtype).reshape(a.shape))
    dev = context.default_device()
    return wrap(t if dev.type == "cpu" else t.to(dev), dtype)


def _unit(op: str, unit: str) -> str:
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise invalid_argument(op, f"Value for attr 'unit' of \"{unit}\" is not in the list of "
                                   "allowed values: \"BYTE\", \"UTF8_CHAR\"")
    return unit


# --- elementwise ---------------------------------------------------------------
@public("torchflow.strings")
def length(input, unit="BYTE", name=None) -> Tensor | RaggedTensor:
    """String lengths of ``input`` in bytes or UTF-8 characters.

    Args:
      input: A string Tensor.
      unit: ``"BYTE"`` (default) or ``"UTF8_CHAR"``.
      name: Unused (eager).

    Returns:
      An int32 Tensor of ``input``'s shape.

    >>> import torchflow as tf
    >>> tf.strings.length(["héllo", ""], unit="UTF8_CHAR").numpy()
    array([5, 0], dtype=int32)
    """
    if isinstance(input, RaggedTensor):  # elementwise on the flat values, as TF dispatches
        return input.with_flat_values(length(input.flat_values, unit))
    a = str_arg("StringLength", input)
    if _unit("StringLength", unit) == "BYTE":
        out = np.fromiter((len(s) for s in a.reshape(-1)), np.int32, a.size)
    else:
        out = np.fromiter((len(s.decode("utf-8", "replace")) for s in a.reshape(-1)), np.int32,
                          a.size)
    return _num(out.reshape(a.shape), dtypes.int32)


@public("torchflow.strings")
def lower(input, encoding="", name=None) -> Tensor | RaggedTensor:
    """Converts each string of ``input`` to lower case.

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      encoding: ``""`` (default: ASCII letters only) or ``"utf-8"`` (all of Unicode).
      name: A name for the operation (optional).

    Returns:
      A string Tensor (or RaggedTensor) of ``input``'s shape.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(lower(input.flat_values, encoding))
    a = str_arg("StringLower", input)
    if encoding:
        return _sw(_map(a, lambda s: s.decode("utf-8", "replace").lower().encode("utf-8")))
    return _sw(_map(a, bytes.lower))


@public("torchflow.strings")
def upper(input, encoding="", name=None) -> Tensor | RaggedTensor:
    """Converts each string of ``input`` to upper case.

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      encoding: ``""`` (default: ASCII letters only) or ``"utf-8"`` (all of Unicode).
      name: A name for the operation (optional).

    Returns:
      A string Tensor (or RaggedTensor) of ``input``'s shape.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(upper(input.flat_values, encoding))
    a = str_arg("StringUpper", input)
    if encoding:
        return _sw(_map(a, lambda s: s.decode("utf-8", "replace").upper().encode("utf-8")))
    return _sw(_map(a, bytes.upper))


@public("torchflow.strings")
def strip(input, name=None) -> Tensor | RaggedTensor:
    """Strips leading and trailing whitespace from each string.

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      name: A name for the operation (optional).

    Returns:
      A string Tensor (or RaggedTensor) of ``input``'s shape.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(strip(input.flat_values))
    return _sw(_map(str_arg("StringStrip", input), bytes.strip))


@public("torchflow.strings")
def join(inputs, separator="", name=None) -> Tensor | RaggedTensor:
    """Joins the strings of a list of string tensors elementwise.

    Args:
      inputs: A list of string Tensors, all of one shape or scalars.
      separator: String placed between the joined strings.
      name: Unused (eager).

    Returns:
      A string Tensor.

    >>> import torchflow as tf
    >>> tf.strings.join(["a", ["b", "c"]], separator="+").numpy()
    array([b'a+b', b'a+c'], dtype=object)
    """
    if any(isinstance(x, RaggedTensor) for x in inputs):  # one row partition, as TF
        rts = [x for x in inputs if isinstance(x, RaggedTensor)]
        flat = [x.flat_values if isinstance(x, RaggedTensor) else x for x in inputs]
        return rts[0].with_flat_values(join(flat, separator))
    sep = _to_bytes(separator)
    arrs = [str_arg("StringJoin", x) for x in inputs]
    if not arrs:
        return _sw(np.array(b"", dtype=object))
    shapes = {x.shape for x in arrs if x.ndim}
    if len(shapes) > 1:
        s1, s2 = list(shapes)[:2]
        raise invalid_argument("StringJoin",
                               f"Input shapes do not match: {dims(s1)} vs. {dims(s2)}")
    b = np.broadcast_arrays(*arrs)
    out = np.empty(b[0].shape, dtype=object)
    flats = [x.reshape(-1) for x in b]
    fo = out.reshape(-1)
    for i in range(fo.size):
        fo[i] = sep.join(f[i] for f in flats)
    return _sw(out)


@public("torchflow.strings")
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None) -> Tensor | RaggedTensor:
    """Joins the strings along ``axis`` (all axes when None), like a sum.

    Args:
      inputs: A string Tensor.
      axis: An int or list of ints; None reduces all dimensions.
      keepdims: Keep reduced dimensions with length 1.
      separator: String placed between the joined strings.
      name: Unused (eager).

    Returns:
      A string Tensor (a RaggedTensor when a ragged ``inputs`` keeps ragged dimensions).
    """
    if isinstance(inputs, RaggedTensor):
        return _ragged_reduce_join(inputs, axis, keepdims, separator)
    a = str_arg("ReduceJoin", inputs)
    sep = _to_bytes(separator)
    nd = a.ndim
    if axis is None:
        axes = list(range(nd - 1, -1, -1))  # row-major order, as TF's Python wrapper
    else:
        ax = np.asarray(axis.numpy() if isinstance(axis, Tensor) else axis).reshape(-1).tolist()
        axes = []
        for x in ax:
            if not -nd <= x < nd:
                raise OutOfRangeError(None, None,
                                      f"Invalid reduction dimension {x} for input with {nd} "
                                      "dimensions. [Op:ReduceJoin]")
            if x % nd in axes:
                raise invalid_argument("ReduceJoin", f"Duplicate reduction dimension {x}")
            axes.append(x % nd)
    keep = [i for i in range(nd) if i not in axes]
    # The first listed axis varies fastest in the joined order (TF's kernel).
    moved = np.transpose(a, keep + axes[::-1]) if nd else a.reshape(1)
    outer = [a.shape[i] for i in keep]
    flat = moved.reshape(int(np.prod(outer, dtype=np.int64)), -1) if nd else moved.reshape(1, -1)
    res = np.empty(flat.shape[0], dtype=object)
    for i in range(flat.shape[0]):
        res[i] = sep.join(flat[i])
    res = res.reshape(outer)
    if keepdims:
        res = res.reshape([1 if i in axes else a.shape[i] for i in range(nd)])
    return _sw(res)


def _ragged_reduce_join(rt: RaggedTensor, axis, keepdims, separator):
    """``reduce_join`` of a RaggedTensor along any axes: the strings of a ragged axis
    join in order, position by position where rows are ragged (TF's segment join)."""
    sep = _to_bytes(separator)

    def segment_join(values: Tensor, ids, n: int) -> Tensor:
        a = values._t
        fa = a.reshape(a.shape[0], int(np.prod(a.shape[1:], dtype=np.int64)))
        out = np.empty((n, fa.shape[1]), dtype=object)
        groups: list = [[] for _ in range(n)]
        for r, i in enumerate(ids.tolist()):
            groups[i].append(r)
        for i, g in enumerate(groups):
            for j in range(fa.shape[1]):
                out[i, j] = sep.join(fa[r, j] for r in g)
        return _sw(out.reshape((n,) + a.shape[1:]))

    reducer = ragged_reduce.Reducer(
        lambda t, ax, keep: reduce_join(t, ax, keep, separator), segment_join)
    return ragged_reduce.reduce(reducer, rt, axis, keepdims)


@public("torchflow.strings")
def substr(input, pos, len, unit="BYTE", name=None) -> Tensor | RaggedTensor:  # noqa: A002
    """Substrings ``[pos, pos + len)`` of each string (negative ``pos`` counts from the end).

    Args:
      input: A string Tensor.
      pos: Start positions: a scalar or a Tensor of ``input``'s shape.
      len: Lengths (clipped at the end of the string); same rules as ``pos``.
      unit: ``"BYTE"`` or ``"UTF8_CHAR"``.
      name: Unused (eager).

    Returns:
      A string Tensor.

    Raises:
      InvalidArgumentError: If a position is out of range.
    """
    if isinstance(input, RaggedTensor):  # elementwise on the flat values, as TF dispatches
        p, n = (v.flat_values if isinstance(v, RaggedTensor) else v for v in (pos, len))
        return input.with_flat_values(substr(input.flat_values, p, n, unit))
    a = str_arg("Substr", input)
    _unit("Substr", unit)
    p = np.asarray(pos.numpy() if isinstance(pos, Tensor) else pos)
    n = np.asarray(len.numpy() if isinstance(len, Tensor) else len)
    if p.shape != n.shape:
        raise invalid_argument("Substr", f"pos and len should have the same shape, got: "
                               f"{dims(p.shape)} vs. {dims(n.shape)}")
    try:
        b, pb, nb = np.broadcast_arrays(a, p, n)
    except ValueError:
        raise invalid_argument("Substr", f"Incompatible shapes: {dims(a.shape)} vs. "
                               f"{dims(p.shape)}") from None
    out = np.empty(b.shape, dtype=object)
    fo, fb, fp, fn = out.reshape(-1), b.reshape(-1), pb.reshape(-1), nb.reshape(-1)
    utf8 = unit == "UTF8_CHAR"
    for i in range(fo.size):
        s = fb[i].decode("utf-8", "replace") if utf8 else fb[i]
        L = s.__len__()
        st, ln = int(fp[i]), int(fn[i])
        if st < 0:
            st += L
        if not 0 <= st <= L:
            if _dry_trace():  # the signature's stand-in strings: any value serves
                fo[i] = b""
                continue
            raise invalid_argument("Substr",
                                   f"pos {int(fp[i])} out of range for string {fb[i]!r} at "
                                   f"index {i}")
        # A negative length wraps to a huge unsigned one in TF's kernel: the rest.
        piece = s[st:] if ln < 0 else s[st:st + ln]
        fo[i] = piece.encode("utf-8") if utf8 else piece
    return _sw(out)


# --- split / decode (ragged in TF) -----------------------------------------------
def _rows(a: np.ndarray, fn, make):
    if a.ndim == 0:
        return make(fn(a.reshape(-1)[0]))
    if a.ndim == 1:
        return [make(fn(s)) for s in a]
    return [_rows(a[i], fn, make) for i in range(a.shape[0])]


@public("torchflow.strings")
def split(input, sep=None, maxsplit=-1, name=None):
    """Splits each string of ``input`` at ``sep`` (whitespace runs when None).

    Args:
      input: A string Tensor.
      sep: Delimiter string; None or empty splits on whitespace, dropping empties.
      maxsplit: At most this many splits per string (-1: no limit).
      name: Unused (eager).

    Returns:
      For a scalar ``input``, a 1-D string Tensor. For ``input`` of rank
      ``r >= 1`` (or a RaggedTensor), a ``tf.RaggedTensor`` of rank ``r + 1``.

    >>> import torchflow as tf
    >>> tf.strings.split("a b").numpy()
    array([b'a', b'b'], dtype=object)
    >>> tf.strings.split(["a b", "c"])
    <tf.RaggedTensor [[b'a', b'b'], [b'c']]>
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(split(input.flat_values, sep, maxsplit))
    a = str_arg("StringSplitV2", input)
    s = _to_bytes(sep) if sep else None
    m = int(maxsplit)

    def fn(x: bytes):
        if s is not None or m < 0:
            return x.split(s, m)
        return _split_whitespace(x, m)

    return ragged_rows(a, fn, strs)


def _split_whitespace(x: bytes, maxsplit: int) -> list:
    """TF's whitespace split with ``maxsplit >= 0``: the rest of the string (its
    leading whitespace dropped, possibly empty) follows the ``maxsplit``-th token;
    ``maxsplit=0`` keeps the string whole."""
    if maxsplit == 0:
        return [x]
    out = []
    rest = x.lstrip()
    while rest and len(out) < maxsplit:
        parts = rest.split(None, 1)
        out.append(parts[0])
        rest = parts[1].lstrip() if len(parts) > 1 else b""
        if len(out) == maxsplit:
            out.append(rest)
    return out


@public("torchflow.strings")
def bytes_split(input, name=None):
    """Splits each string into its bytes.

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      name: A name for the operation (optional).

    Returns:
      For a scalar, a 1-D string Tensor of one-byte strings; otherwise a
      ``tf.RaggedTensor`` one rank higher than ``input``.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(bytes_split(input.flat_values))
    a = str_arg("StringSplitV2", input)
    return ragged_rows(a, lambda x: [x[i:i + 1] for i in range(x.__len__())], strs)


@public("torchflow.strings")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,
                   replace_control_characters=False, name=None):
    """Decodes each string into its Unicode code points (int32).

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
      A 1-D int32 Tensor for a scalar ``input``, else an int32 ``tf.RaggedTensor`` of
      rank ``input.shape.rank + 1``.

    Raises:
      ValueError: an encoding other than the three above, or an unknown ``errors``.
      InvalidArgumentError: an invalid sequence with ``errors="strict"``.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(unicode_decode(
            input.flat_values, input_encoding, errors, replacement_char,
            replace_control_characters))
    a = str_arg("UnicodeDecode", input)
    enc = unicode_codec.encoding(input_encoding)
    unicode_codec.check_errors(errors)

    def fn(x: bytes):
        return [c for c, _, _ in unicode_codec.decode("UnicodeDecode", x, enc, errors,
                                                      replacement_char,
                                                      replace_control_characters)]

    return ragged_rows(a, fn, lambda cps: _num(np.array(cps, dtype=np.int32), dtypes.int32))


# --- numbers <-> strings ------------------------------------------------------------
_INT_RE = re.compile(rb"\s*[+-]?\d+\s*")
# What strtod reads besides Python's float(): hex floats (only with their 0x prefix:
# "abc" is not a number) and nan(chars).
_HEX_FLOAT_RE = re.compile(rb"\s*[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                           rb"([pP][+-]?\d+)?\s*")
_NAN_CHARS_RE = re.compile(rb"\s*[+-]?nan\([0-9A-Za-z_]*\)\s*", re.IGNORECASE)


@public("torchflow.strings")
def to_number(input, out_type=dtypes.float32, name=None) -> Tensor | RaggedTensor:
    """Converts each string to a number of ``out_type``.

    Args:
      input: A string Tensor.
      out_type: float32 (default), float64, int32 or int64.
      name: Unused (eager).

    Returns:
      A Tensor of ``out_type`` and ``input``'s shape.

    Raises:
      InvalidArgumentError: If a string is not a number of ``out_type``.

    >>> import torchflow as tf
    >>> tf.strings.to_number(["1.5", "2"]).numpy()
    array([1.5, 2. ], dtype=float32)
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(to_number(input.flat_values, out_type))
    a = str_arg("StringToNumber", input)
    d = dtypes.as_dtype(out_type)
    if d not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError(f"Value passed to parameter 'out_type' has DataType {d.name} not in "
                        "list of allowed values: float32, float64, int32, int64")
    flat = a.reshape(-1)
    out = np.empty(flat.size, dtype=d.as_numpy_dtype)
    info = np.iinfo(d.as_numpy_dtype) if d.is_integer else None
    for i in range(flat.size):
        s = flat[i]
        try:
            if info is not None:
                if not _INT_RE.fullmatch(s):
                    raise ValueError
                v = int(s)
                if not info.min <= v <= info.max:
                    raise ValueError
            else:
                if b"_" in s:
                    raise ValueError
                try:
                    v = float(s)
                except ValueError:
                    if _HEX_FLOAT_RE.fullmatch(s):
                        v = float.fromhex(s.decode("ascii"))
                    elif _NAN_CHARS_RE.fullmatch(s):
                        v = float("nan")
                    else:
                        raise
        except (ValueError, UnicodeDecodeError):
            raise invalid_argument(
                "StringToNumber",
                f"StringToNumberOp could not correctly convert string: "
                f"{s.decode('utf-8', 'replace')}") from None
        with np.errstate(over="ignore"):  # out-of-range floats become inf, as in TF
            out[i] = v
    return _num(out.reshape(a.shape), d)


@public("torchflow.strings")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,
              fill="", name=None) -> Tensor | RaggedTensor:
    """Converts each element of a numeric or bool tensor to a string.

    Args:
      input: A numeric or bool Tensor.
      precision: Digits after the decimal point for floats (-1: 6).
      scientific: Use scientific notation (floats).
      shortest: Use the shortest representation (``%g``; floats).
      width: Pad to at least this many characters (-1: no padding).
      fill: Padding character: ``""``/``" "`` pads with spaces left; ``"0"``
        pads with zeros after the sign.
      name: Unused (eager).

    Returns:
      A string Tensor.

    >>> import torchflow as tf
    >>> tf.strings.as_string(tf.constant([3.5])).numpy()
    array([b'3.500000'], dtype=object)
    """
    if isinstance(input, RaggedTensor):  # the same row partitions, as TF's ragged dispatch
        return input.with_flat_values(as_string(input.flat_values, precision, scientific,
                                                shortest, width, fill))
    t = tensor_arg(input)
    d = t._dtype
    if d is dtypes.string:
        return t
    if len(fill) > 1:
        raise invalid_argument("AsString", "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise invalid_argument("AsString", "Cannot select both scientific and shortest notation")
    is_float = d.is_floating or d.is_complex
    if not is_float and (precision > -1 or scientific or shortest):
        what = "precision" if precision > -1 else ("scientific" if scientific else "shortest")
        raise invalid_argument("AsString", f"{what} not supported for datatype "
                                           f"{d.name.replace('float32', 'float')}")
    flags = "0" if fill == "0" else ""
    w = str(width) if width > -1 else ""
    prec = f".{precision}" if precision > -1 else ""
    conv = "e" if scientific else ("g" if shortest else "f")
    vals = t.numpy()
    flat = vals.reshape(-1)
    out = np.empty(flat.size, dtype=object)
    if d.is_bool:
        for i in range(flat.size):
            out[i] = _pad("true" if flat[i] else "false", width, fill).encode()
    elif d.is_complex:
        spec = f"%{flags}{w}{prec}{conv}"
        for i in range(flat.size):
            v = complex(flat[i])
            out[i] = ("(" + spec % v.real + "," + spec % v.imag + ")").encode()
    elif is_float:
        spec = f"%{flags}{w}{prec}{conv}"
        for i in range(flat.size):
            out[i] = (spec % float(flat[i])).encode()
    else:
        spec = f"%{flags}{w}d"
        for i in range(flat.size):
            out[i] = (spec % int(flat[i])).encode()
    if fill not in ("", " ", "0") and width > -1:
        out = _map(out, lambda s: s.decode().strip().rjust(width, fill).encode())
    return _sw(out.reshape(vals.shape))


def _pad(s: str, width: int, fill: str) -> str:
    return s.rjust(width, fill or " ") if width > -1 else s


# --- format ------------------------------------------------------------------------
def _fmt_float(v: float, single: bool) -> str:
    # Shortest of %.6g / %.9g (float32) or %.15g / %.17g that round-trips, as TF prints.
    lo, hi = (6, 9) if single else (15, 17)
    s = "%.*g" % (lo, v)
    if np.isfinite(v) and (np.float32(s) if single else float(s)) != v:
        s = "%.*g" % (hi, v)
    return s


_C_ESCAPES = {ord("\n"): b"\\n", ord("\r"): b"\\r", ord("\t"): b"\\t", ord('"'): b'\\"',
              ord("'"): b"\\'", ord("\\"): b"\\\\"}


def _c_escape(v: bytes) -> bytes:
    """TF's UTF-8-safe C escape of a string element: C escapes for quotes, backslash
    and ``\\n \\r \\t``, octal for other control bytes, bytes >= 0x80 as they are."""
    out = bytearray()
    for c in v:
        e = _C_ESCAPES.get(c)
        if e is not None:
            out += e
        elif c < 0x20 or c == 0x7F:
            out += b"\\%03o" % c
        else:
            out.append(c)
    return bytes(out)


def _elem(v, d: dtypes.DType) -> str:
    if d is dtypes.string:
        raw = v if isinstance(v, bytes) else str(v).encode("utf-8")
        # Kept as bytes through str: format() encodes the result back losslessly.
        return '"' + _c_escape(raw).decode("utf-8", "surrogateescape") + '"'
    if d.is_bool:
        return "1" if v else "0"
    if d.is_floating:
        return _fmt_float(float(v), d is not dtypes.float64)
    if d.is_complex:
        c = complex(v)
        single = d is dtypes.complex64
        return f"({_fmt_float(c.real, single)},{_fmt_float(c.imag, single)})"
    return str(int(v))


def summarize_value(a: np.ndarray, d: dtypes.DType, n: int) -> str:
    """TF's ``SummarizeValue``: nested brackets, ``n`` elements kept at each end."""
    if a.ndim == 0:
        return _elem(a.reshape(-1)[0], d)
    nd = a.ndim
    ends = n if n >= 0 else max(a.shape)

    def spacing(dim: int) -> str:
        if dim == nd - 1:
            return " "
        return "\n" * (nd - dim - 1) + " " * (dim + 1)

    def rec(x, dim: int) -> str:
        if dim == nd:
            return _elem(x, d)
        count = x.shape[0]
        parts = ["["]
        for i in range(min(ends, count)):
            if i > 0:
                parts.append(spacing(dim))
            parts.append(rec(x[i], dim + 1))
        if count > 2 * ends:
            parts.append(spacing(dim) + "...")
        for i in range(max(ends, count - ends), count):
            parts.append(spacing(dim))
            parts.append(rec(x[i], dim + 1))
        parts.append("]")
        return "".join(parts)

    return rec(a, 0)


@public("torchflow.strings")
def format(template, inputs, placeholder="{}", summarize=3, name=None) -> Tensor:  # noqa: A001
    """Formats a string from a template, replacing each ``placeholder`` with a tensor.

    Args:
      template: A string with ``placeholder`` markers.
      inputs: A Tensor (or value) or a list of them, one per placeholder.
      placeholder: The marker text (default ``"{}"``).
      summarize: Elements printed at each end of each dimension (-1: all).
      name: Unused (eager).

    Returns:
      A scalar string Tensor.

    Raises:
      ValueError: If the number of placeholders and inputs differ.

    >>> import torchflow as tf
    >>> print(tf.strings.format("x={}", tf.constant([1, 2])))
    tf.Tensor(b'x=[1 2]', shape=(), dtype=string)
    """
    vals = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(vals):
        raise ValueError(
            f"The template expects {len(pieces) - 1} tensors, but the inputs only has "
            f"{len(vals)}. Please ensure the number of placeholders in template matches "
            "inputs length.")
    out = [pieces[0]]
    for v, rest in zip(vals, pieces[1:]):
        t = tensor_arg(v)
        out.append(summarize_value(np.asarray(t), t._dtype, summarize))
        out.append(rest)
    return _sw(np.array("".join(out).encode("utf-8", "surrogateescape"), dtype=object))


# --- regular expressions ---------------------------------------------------------------
# RE2's POSIX classes (valid inside brackets) in Python's ``re`` spelling.
_POSIX = {
    b"[:alpha:]": rb"a-zA-Z", b"[:digit:]": rb"0-9", b"[:alnum:]": rb"0-9a-zA-Z",
    b"[:upper:]": rb"A-Z", b"[:lower:]": rb"a-z", b"[:space:]": rb"\t\n\v\f\r ",
    b"[:blank:]": rb"\t ", b"[:xdigit:]": rb"0-9A-Fa-f", b"[:word:]": rb"0-9A-Za-z_",
    b"[:punct:]": rb"!-/:-@\[-`{-~", b"[:cntrl:]": rb"\x00-\x1f\x7f",
    b"[:print:]": rb" -~", b"[:graph:]": rb"!-~", b"[:ascii:]": rb"\x00-\x7f",
}
_CACHE: dict = {}


def _compile(op: str, pattern):
    p = pattern.numpy() if isinstance(pattern, Tensor) else pattern
    p = _to_bytes(p.item() if isinstance(p, np.ndarray) else p)
    rx = _CACHE.get(p)
    if rx is not None:
        return rx
    q = p
    if b"[:" in q:
        for k, v in _POSIX.items():
            q = q.replace(k, v)
    try:
        rx = re.compile(q)
        if len(_CACHE) < 256:
            _CACHE[p] = rx
        return rx
    except re.error as e:
        raise invalid_argument(op, f"Invalid pattern: {p.decode('utf-8', 'replace')}, error: "
                                   f"{e}") from None


@public("torchflow.strings")
def regex_full_match(input, pattern, name=None) -> Tensor | RaggedTensor:
    """Whether each whole string matches the regular expression ``pattern``.

    Args:
      input: A string Tensor or ``tf.RaggedTensor`` of strings.
      pattern: A scalar string: a regular expression in RE2 syntax (POSIX classes such
        as ``[[:digit:]]`` included).
      name: A name for the operation (optional).

    Returns:
      A bool Tensor (or RaggedTensor) of ``input``'s shape.

    Raises:
      InvalidArgumentError: an invalid ``pattern``.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(regex_full_match(input.flat_values, pattern))
    a = str_arg("RegexFullMatch", input)
    rx = _compile("RegexFullMatch", pattern)
    out = np.fromiter((rx.fullmatch(s) is not None for s in a.reshape(-1)), bool, a.size)
    return _num(out.reshape(a.shape), dtypes.bool)


_GROUP_RE = re.compile(rb"\\(\d)")


@public("torchflow.strings")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None) -> Tensor | RaggedTensor:
    """Replaces matches of ``pattern`` with ``rewrite`` (``\\0``..``\\9`` are groups).

    Args:
      input: A string Tensor.
      pattern: A regular expression (RE2 syntax).
      rewrite: The replacement; ``\\1`` is the first group, ``\\0`` the whole match.
      replace_global: Replace all matches (True) or only the first.
      name: Unused (eager).

    Returns:
      A string Tensor.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(regex_replace(input.flat_values, pattern, rewrite,
                                                    replace_global))
    a = str_arg("RegexReplace", input)
    rx = _compile("RegexReplace", pattern)
    rw = rewrite.numpy() if isinstance(rewrite, Tensor) else rewrite
    rw = _to_bytes(rw.item() if isinstance(rw, np.ndarray) else rw)

    def repl(m):
        return _GROUP_RE.sub(lambda g: m.group(int(g.group(1))) or b"", rw.replace(b"\\\\",
                                                                                  b"\x00")) \
            .replace(b"\x00", b"\\")

    if not replace_global:
        return _sw(_map(a, lambda s: rx.sub(repl, s, count=1)))

    def sub_all(s: bytes) -> bytes:
        # RE2's GlobalReplace skips an empty match right after the previous match
        # (Python's re.sub does not: "aaa" / "a*" gives "-" in TF, "--" in re).
        out, pos, last = [], 0, -1
        for m in rx.finditer(s):
            if m.start() == m.end() == last:
                continue
            out.append(s[pos:m.start()])
            out.append(repl(m))
            pos = last = m.end()
        out.append(s[pos:])
        return b"".join(out)

    return _sw(_map(a, sub_all))


# --- comparison (dispatched to by tf.math.equal / == for string tensors) ---------------
def equal(x, y) -> Tensor:
    """Elementwise equality of two string tensors (broadcasting), as a bool Tensor."""
    a, b = _pair("Equal", x, y)
    return _num(np.asarray(a == b, dtype=bool), dtypes.bool)


def not_equal(x, y) -> Tensor:
    """Elementwise inequality of two string tensors (broadcasting), as a bool Tensor."""
    a, b = _pair("NotEqual", x, y)
    return _num(np.asarray(a != b, dtype=bool), dtypes.bool)


def _pair(op, x, y):
    a, b = str_arg(op, x), str_arg(op, y)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"Incompatible shapes: {dims(a.shape)} vs. {dims(b.shape)} [Op:{op}]"
        ) from None
    return a, b

