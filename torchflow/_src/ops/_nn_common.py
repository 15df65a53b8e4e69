"""Helpers shared by the ``tf.nn`` and ``tf.linalg`` op families.

Dtype checks with TF's attr-error messages, and the parsing of TF's
``strides``/``dilations``/``ksize``/``padding``/``data_format`` arguments into the
per-spatial-dimension values that torch's NC* kernels take.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError, UnimplementedError
from torchflow._src.ops._dispatch import Tensor, dtype_error, tensor_arg, tf_type_name


class TypeSet(tuple):
    """An ordered tuple of DTypes (for TF's error messages) with a fast membership
    test on ``DType._enum`` (``DType.__eq__`` is a Python call per element)."""

    enums: frozenset

    def __new__(cls, types):
        self = super().__new__(cls, types)
        self.enums = frozenset(d._enum for d in types)
        return self

    def __contains__(self, d) -> bool:
        return getattr(d, "_enum", None) in self.enums


FLOATS = TypeSet((dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64))
FLOATS_COMPLEX = TypeSet(FLOATS + (dtypes.complex64, dtypes.complex128))
REALS = TypeSet(FLOATS + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                          dtypes.uint16))


def attr_error(op: str, dtype: dtypes.DType, allowed, attr: str = "T") -> InvalidArgumentError:
    names = ", ".join(tf_type_name(d) for d in allowed)
    return InvalidArgumentError(
        None, None,
        f"Value for attr '{attr}' of {tf_type_name(dtype)} is not in the list of allowed "
        f"values: {names} [Op:{op}]",
    )


def typed_arg(op: str, x, allowed: tuple = FLOATS, attr: str = "T") -> Tensor:
    """``x`` as a Tensor whose dtype is one of ``allowed`` (TF's attr check)."""
    t = tensor_arg(x)
    if not isinstance(allowed, TypeSet):
        allowed = TypeSet(allowed)
    if t._dtype._enum not in allowed.enums:
        raise attr_error(op, t._dtype, allowed, attr)
    return t


def same_dtype(op: str, x: Tensor, y, index: int = 1) -> Tensor:
    """``y`` as a Tensor of ``x``'s dtype (Python values are converted to it)."""
    if type(y) is not Tensor:
        y = tensor_arg(y, x._dtype)
    if y._dtype is not x._dtype:
        raise dtype_error(op, index, x._dtype, y._dtype)
    return y


def int_list(value, what: str) -> list[int]:
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    elif hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, int):
        return [value]
    return [int(v) for v in value]


def channels_last(data_format: str | None, n: int, op: str) -> bool:
    """True for NWC/NHWC/NDHWC (the default), False for NC* formats."""
    if data_format is None:
        return True
    df = data_format.upper() if isinstance(data_format, str) else data_format
    if not isinstance(df, str) or len(df) != n + 2 or df[0] != "N" or "C" not in df:
        raise ValueError(f"{op}: data_format {data_format!r} is not supported for a "
                         f"{n}-D spatial input (expected e.g. 'NHWC' or 'NCHW').")
    return df[-1] == "C"


def spatial(value, n: int, name: str, chan_last: bool, op: str, default=1) -> list[int]:
    """Per-spatial-dimension values of a ``strides``/``dilations``/``ksize`` argument.

    Accepts an int, or a list of length 1, ``n`` or ``n + 2`` (the full data
    format, whose batch and channel entries must be 1).
    """
    if value is None:
        return [default] * n
    vals = int_list(value, name)
    if len(vals) == 1:
        return vals * n
    if len(vals) == n and n != 1:
        return vals
    if len(vals) == n + 2:
        outer = (vals[0], vals[-1]) if chan_last else (vals[0], vals[1])
        if outer != (1, 1):
            raise UnimplementedError(
                None, None,
                f"Current implementation does not yet support {name} in the batch and depth "
                f"dimensions. [Op:{op}]")
        return vals[1:-1] if chan_last else vals[2:]
    ls = [str(v) for v in sorted({1, n, n + 2})]
    allowed = ", ".join(ls[:-1]) + " or " + ls[-1]
    raise ValueError(f"{name} should be of length {allowed}. "
                     f"Received: {name}={vals} of length {len(vals)}")


def pads(padding, n: int, chan_last: bool, in_sizes, ksize, strides, dilations,
         op: str) -> list[tuple[int, int]]:
    """(before, after) padding per spatial dimension for TF's ``padding`` argument.

    ``SAME`` puts the odd extra row/column at the end (bottom/right), as TF does.
    """
    if isinstance(padding, str):
        if padding == "VALID":
            return [(0, 0)] * n
        if padding == "SAME":
            out = []
            for size, k, s, d in zip(in_sizes, ksize, strides, dilations):
                eff = (k - 1) * d + 1
                total = max((-(-size // s) - 1) * s + eff - size, 0)
                out.append((total // 2, total - total // 2))
            return out
        raise InvalidArgumentError(
            None, None,
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            f"\"SAME\", \"VALID\", \"EXPLICIT\" [Op:{op}]")
    pairs = [int_list(p, "padding") for p in padding]
    if len(pairs) != n + 2 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"{op}: explicit padding must be a list of {n + 2} [before, after] "
                         f"pairs. Received: padding={padding}")
    outer = (pairs[0], pairs[-1]) if chan_last else (pairs[0], pairs[1])
    if any(v != 0 for p in outer for v in p):
        raise InvalidArgumentError(
            None, None,
            f"Nonzero explicit padding in the batch or depth dimensions is not supported "
            f"[Op:{op}]")
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"{op}: explicit padding values must be non-negative. "
                         f"Received: padding={padding}")
    inner = pairs[1:-1] if chan_last else pairs[2:]
    return [(p[0], p[1]) for p in inner]


def check_output_sizes(op: str, in_sizes, p, ksize, strides, dilations) -> list[int]:
    """TF's windowed output-size rule: ``(in + pads - effective_k + stride) / stride``
    (C division), where 0 is allowed (an empty output) and a negative size raises.

    Returns:
      The output size of each spatial dimension.

    Raises:
      InvalidArgumentError: A stride below 1, or a negative output size.
    """
    outs = []
    for size, (a, b), k, st, d in zip(in_sizes, p, ksize, strides, dilations):
        if st < 1:
            raise InvalidArgumentError(
                None, None, f"Row and column strides should be larger than 0. [Op:{op}]")
        eff = (k - 1) * d + 1
        num = size + a + b - eff + st
        out = num // st if num >= 0 else -((-num) // st)
        if out < 0:
            raise InvalidArgumentError(
                None, None, f"Computed output size would be negative: {out} [input_size: "
                            f"{size}, effective_filter_size: {eff}, stride: {st}] [Op:{op}]")
        outs.append(out)
    return outs


def apply_pads(x: torch.Tensor, p: list[tuple[int, int]], value: float = 0.0):
    """Returns ``(x, torch_padding)``: symmetric pads go to the kernel, others to F.pad."""
    if all(a == b for a, b in p):
        return x, [a for a, _ in p]
    flat = []
    for a, b in reversed(p):
        flat += [a, b]
    return F.pad(x, flat, value=value), [0] * len(p)


def to_nc(x: torch.Tensor, chan_last: bool) -> torch.Tensor:
    """NHWC -> NCHW as a view (its strides are torch's channels_last layout)."""
    return x.movedim(-1, 1) if chan_last else x


def from_nc(x: torch.Tensor, chan_last: bool) -> torch.Tensor:
    return x.movedim(1, -1) if chan_last else x
