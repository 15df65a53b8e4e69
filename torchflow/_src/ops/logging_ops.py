"""``tf.print``: prints tensors and Python values the way TensorFlow formats them.

TF's layout: numbers in shortest round-tripping ``%g`` form (6 then 9 digits for
float32, 15 then 17 for float64), bools as 1/0, strings quoted inside tensors,
and ``summarize`` leading and trailing entries per dimension around ``...``.
"""

from __future__ import annotations

import sys

import numpy as np

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.tensor import Tensor, is_tensor, to_numpy
from torchflow._src.util import nest
from torchflow._src.util.api import public


def _fmt_float(v, digits: tuple[int, int], ftype) -> str:
    v = ftype(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    s = "%.*g" % (digits[0], v)
    if ftype(float(s)) != v:
        s = "%.*g" % (digits[1], v)
    return s


def _scalar_formatter(d: dtypes.DType, quote: bool):
    if d is dtypes.string:
        if quote:
            return lambda v: '"' + v.decode("utf-8", "backslashreplace") + '"'
        return lambda v: v.decode("utf-8", "backslashreplace")
    if d is dtypes.float64:
        return lambda v: _fmt_float(v, (15, 17), np.float64)
    if d.is_floating:
        return lambda v: _fmt_float(v, (6, 9), np.float32)
    if d.is_complex:
        return lambda v: "?"
    if d is dtypes.bool:
        return lambda v: "1" if v else "0"
    return lambda v: str(int(v))


def _format_dim(a: np.ndarray, fmt, summarize: int, depth: int, rank: int) -> str:
    n = a.shape[0]
    if summarize >= 0 and n > 2 * summarize:
        idx = list(range(summarize)) + [None] + list(range(n - summarize, n))
    else:
        idx = list(range(n))
    if depth == rank - 1:
        parts = ["..." if i is None else fmt(a[i]) for i in idx]
        sep = " "
    else:
        parts = ["..." if i is None else _format_dim(a[i], fmt, summarize, depth + 1, rank)
                 for i in idx]
        sep = "\n" * (rank - depth - 1) + " " * (depth + 1)
    return "[" + sep.join(parts) + "]"


def format_tensor(t: Tensor, summarize: int = 3, quote: bool = True) -> str:
    """TF's printed form of a tensor (what ``tf.print`` writes for it)."""
    a = np.asarray(to_numpy(t._t, t._dtype))
    if t._dtype is dtypes.bfloat16 or t._dtype is dtypes.float16:
        a = a.astype(np.float32)
    fmt = _scalar_formatter(t._dtype, quote=quote)
    if a.ndim == 0:
        return fmt(a[()])
    if a.size == 0:
        return "[]" if a.ndim == 1 else "[\n ...]"
    return _format_dim(a, fmt, summarize, 0, a.ndim)


class _Formatted:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _ragged_scalar(d: dtypes.DType):
    """A ragged value's entries as TF writes them (``tf.strings.as_string``'s forms)."""
    if d is dtypes.string:
        return lambda v: repr(v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else v)
    if d is dtypes.bool:
        return lambda v: "true" if v else "false"
    if d.is_floating:
        return lambda v: f"{float(v):f}"
    return lambda v: str(int(v)) if d.is_integer else str(v)


def _join_summarized(parts: list, summarize: int) -> str:
    if 0 <= summarize and len(parts) > 2 * summarize:
        parts = parts[:summarize] + ["..."] + parts[len(parts) - summarize:]
    return "[" + ", ".join(parts) + "]"


def _format_dense_nested(a, fmt, summarize: int) -> str:
    if not isinstance(a, np.ndarray):
        return fmt(a)  # an entry of an object (string) array
    if a.ndim == 0:
        return fmt(a[()])
    return _join_summarized([_format_dense_nested(r, fmt, summarize) for r in a], summarize)


def format_ragged(rt, summarize: int = 3) -> str:
    """TF's printed form of a RaggedTensor (``[[1, 2], [3]]``, entries as
    ``tf.strings.as_string`` writes them)."""
    flat = rt.flat_values
    a = np.asarray(to_numpy(flat._t, flat._dtype))
    fmt = _ragged_scalar(flat._dtype)
    splits = [np.asarray(to_numpy(s._t, s._dtype)) for s in rt.nested_row_splits]

    def rows(level: int, lo: int, hi: int) -> str:
        if level == len(splits):
            return _join_summarized([_format_dense_nested(a[i], fmt, summarize)
                                     for i in range(lo, hi)], summarize)
        sp = splits[level]
        return _join_summarized([rows(level + 1, int(sp[i]), int(sp[i + 1]))
                                 for i in range(lo, hi)], summarize)

    return rows(0, 0, len(splits[0]) - 1)


def format_sparse(st, summarize: int = 3) -> str:
    """TF's printed form of a SparseTensor (a quoted ``SparseTensor(...)``)."""
    return (f"'SparseTensor(indices={format_tensor(st.indices, summarize)}, "
            f"values={format_tensor(st.values, summarize)}, "
            f"shape={format_tensor(st.dense_shape, summarize)})'")


def _format_value(x, summarize: int):
    name = type(x).__name__
    if name == "RaggedTensor" and hasattr(x, "nested_row_splits"):
        return format_ragged(x, summarize)
    if name == "SparseTensor" and hasattr(x, "dense_shape"):
        return format_sparse(x, summarize)
    if isinstance(x, Tensor) or is_tensor(x):
        return format_tensor(to_tensor(x), summarize)
    return None


def _format_input(x, summarize: int) -> str:
    if isinstance(x, str):
        return x
    text = _format_value(x, summarize)
    if text is not None:
        return text
    if nest.is_nested(x):
        def leaf(v):
            t = _format_value(v, summarize)
            return v if t is None else _Formatted(t)

        return str(nest.map_structure(leaf, x))
    return repr(x)


def _write(stream, text: str) -> None:
    if isinstance(stream, str):
        if not stream.startswith("file://"):
            raise ValueError(
                f"Unsupported output stream, logging level, or file.{stream}. Supported streams "
                f"are sys.stdout, sys.stderr, tf.logging.* levels and 'file://' paths."
            )
        with open(stream[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text)
        return
    if callable(stream) and not hasattr(stream, "write"):  # a logging function
        stream(text.rstrip("\n"))
        return
    stream.write(text)
    flush = getattr(stream, "flush", None)
    if flush is not None:
        flush()


@public("torchflow")
@graph_trace.host_op
def print(*inputs, **kwargs) -> None:  # noqa: A001 - TF's name
    """Prints tensors and Python values (``tf.print``).

    Args:
      *inputs: Tensors, Python values and nested structures of them; strings
        are printed as they are.
      **kwargs: ``output_stream`` (``sys.stderr`` by default; ``sys.stdout``,
        a ``'file://path'`` string to append to, or a logging function such as
        ``logging.info``), ``summarize`` (entries printed at each end of each
        dimension, default 3; -1 prints all), ``sep`` (default ' '), ``end``
        (default newline), ``name`` (unused).

    Raises:
      ValueError: If the output stream is not supported, or an unknown keyword
        argument is given.

    >>> import sys, torchflow as tf
    >>> tf.print(tf.range(10), output_stream=sys.stdout)
    [0 1 2 ... 7 8 9]
    """
    output_stream = kwargs.pop("output_stream", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    if summarize is None:
        summarize = 3
    if len(inputs) == 1 and isinstance(inputs[0], Tensor) and inputs[0].dtype is dtypes.string \
            and inputs[0].ndim == 0:
        # TF prints a lone string scalar as it is, and quotes it among other inputs.
        text = format_tensor(inputs[0], summarize, quote=False) + end
    else:
        text = sep.join(_format_input(x, summarize) for x in inputs) + end
    _write(sys.stderr if output_stream is None else output_stream, text)
