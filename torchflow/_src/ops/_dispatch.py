"""The hot path every op takes: unwrap inputs, check dtypes TF's way, wrap results.

Ops call ``torch`` on ``Tensor._t`` directly. Python scalars are passed to torch
as scalars after a range/kind check (no tensor is made for them), which keeps a
small eager op within about 0.5 us of raw torch.
"""

from __future__ import annotations

import math

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import check_python_scalar, to_tensor
from torchflow._src.core.errors import InvalidArgumentError, translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.variables import Variable

__all__ = ["COMPOSITE", "unwrap", "binary", "tensor_arg", "wrap", "translate", "tf_type_name", "Tensor",
           "NARROW_UNSIGNED", "dtype_error", "scalar_operand", "number_operand"]

_PY_SCALARS = (float, int, bool)

# Composite tensors (tf.RaggedTensor) register a handler per type here. Ops look a
# non-Tensor argument's type up on their slow path only, so dense ops pay nothing.
COMPOSITE: dict = {}
NARROW_UNSIGNED = frozenset((dtypes.uint16, dtypes.uint32, dtypes.uint64))

_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def tf_type_name(d: dtypes.DType) -> str:
    """The dtype name TF uses in kernel error messages (float32 -> 'float')."""
    return _TF_TYPE_NAMES.get(d.name, d.name)


def dtype_error(op: str, index: int, expected: dtypes.DType, got: dtypes.DType):
    return InvalidArgumentError(
        None,
        None,
        f"cannot compute {op} as input #{index}(zero-based) was expected to be a "
        f"{tf_type_name(expected)} tensor but is a {tf_type_name(got)} tensor [Op:{op}]",
    )


# torch dtype -> {number: cached 0-d CPU tensor of that dtype}. Within one dtype,
# equal numbers convert to the same value (1, 1.0 and True alike), so the number
# alone is the key: no tuple to build, no ``t.dtype`` to read (~0.1 us each).
_SCALAR_CACHE: dict = {}
_HALF_TORCH = (torch.float16, torch.bfloat16)
# Dynamo folds this call to True while it traces (torch.compile, jit_compile=True);
# it is one frame, is_compiling() two (~0.15 us more on every number operand).
_is_compiling = getattr(torch.compiler, "is_dynamo_compiling", torch.compiler.is_compiling)
_copysign = math.copysign
# TF's integer dtypes by name -> (min, max): a Python int outside is TF's TypeError
# (the slow path raises it).
_INT_RANGE = {d.name: (int(d.min), int(d.max)) for d in (
    dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
    dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64)}


def _cached_scalar(value, torch_dtype):
    by_value = _SCALAR_CACHE.get(torch_dtype)
    if by_value is None:
        by_value = _SCALAR_CACHE[torch_dtype] = {}
    c = by_value.get(value)
    if c is None:
        if len(by_value) >= 1024:
            by_value.clear()
        with torch.inference_mode(False):  # an inference tensor could not be saved for backward
            c = by_value[value] = torch.tensor(value, dtype=torch_dtype)
    return c


def scalar_operand(value, t: torch.Tensor):
    """``value`` (a Python number) as an operand of a torch op with ``t``.

    torch wraps a Python number into a fresh tensor on every call (~3 us on the
    CPU); a cached 0-d tensor of ``t``'s dtype costs nothing and rounds the
    number to that dtype first, as TF's conversion does. ``-0.0`` (equal to
    ``0``, so a cache keyed by value would lose its sign), non-CPU tensors and
    code being traced by torch.compile get the plain number (a fresh 0-d tensor
    for half precision, where the rounding shows in the result).
    """
    if not t.is_cpu or _is_compiling() or (value == 0 and _copysign(1.0, value) < 0):
        if t.dtype in _HALF_TORCH:  # round to the dtype as TF does (0-d CPU: any device)
            return torch.tensor(value, dtype=t.dtype)
        return value
    return _cached_scalar(value, t.dtype)


def number_operand(value, t: torch.Tensor, d: dtypes.DType):
    """A Python ``float``/``int`` ``value`` as the operand of a torch op with the
    tensor ``t`` of dtype ``d``, or None when TF's conversion of ``value`` to ``d``
    is not the plain one (a float for an integer dtype, an int out of range, bool
    and string dtypes): then the op's general path converts it, or raises TF's
    error. The operand is ``scalar_operand``'s (a cached 0-d tensor on the CPU)."""
    k = d._kind
    if k == "i" or k == "u":
        if type(value) is not int:
            return None
        lo, hi = _INT_RANGE[d._name]
        if not lo <= value <= hi:
            return None
        if not t.is_cpu or _is_compiling():  # (an integer zero has no sign to lose)
            return value
    elif k != "f" and k != "c":
        return None
    elif not t.is_cpu or _is_compiling() or (value == 0 and _copysign(1.0, value) < 0):
        if d._torch in _HALF_TORCH:  # round to the dtype as TF does (0-d CPU: any device)
            return torch.tensor(value, dtype=d._torch)
        return value
    by_value = _SCALAR_CACHE.get(d._torch)  # _cached_scalar, inline: the hot path
    if by_value is not None:
        c = by_value.get(value)
        if c is not None:
            return c
    return _cached_scalar(value, d._torch)


def tensor_arg(x, dtype=None) -> Tensor:
    """Converts one op input to a Tensor (fast when it already is one)."""
    if type(x) is Tensor:
        return x
    if isinstance(x, Variable):  # as to_tensor does, minus its other checks
        return x._tf_value(None if dtype is None else dtypes.as_dtype(dtype))
    return to_tensor(x, dtype)


def unwrap(x, dtype=None):
    """The torch tensor behind an op input (converting Python/NumPy values)."""
    if type(x) is Tensor:
        return x._t
    if isinstance(x, Variable):
        return x._tf_value(None if dtype is None else dtypes.as_dtype(dtype))._t
    return to_tensor(x, dtype)._t


def binary(op: str, x, y):
    """Unwraps the two inputs of a binary op under TF's no-promotion rule.

    Returns ``(a, b, dtype)``: ``a``/``b`` are torch tensors or Python scalars
    already checked to fit ``dtype``.

    Raises:
      InvalidArgumentError: tensors of different dtypes.
      TypeError: a Python value that does not fit the tensor's dtype.
    """
    tx = type(x)
    ty = type(y)
    if tx is Tensor:
        d = x._dtype
        if ty is Tensor:
            if y._dtype is not d:
                raise dtype_error(op, 1, d, y._dtype)
            return x._t, y._t, d
        if ty in _PY_SCALARS:
            if not (ty is float and d._kind in "fc"):
                check_python_scalar(y, d)
            if d._torch in _HALF_TORCH:  # TF rounds the number to half precision first
                return x._t, scalar_operand(y, x._t), d
            return x._t, y, d
        y = to_tensor(y, d)
        if y._dtype is not d:
            raise dtype_error(op, 1, d, y._dtype)
        return x._t, y._t, d
    if ty is Tensor:
        d = y._dtype
        if tx in _PY_SCALARS:
            check_python_scalar(x, d)
            return torch.tensor(x, dtype=d._torch, device=y._t.device) if d._torch else x, y._t, d
        x = to_tensor(x, d)
        if x._dtype is not d:
            raise dtype_error(op, 1, x._dtype, d)
        return x._t, y._t, d
    conv = getattr(x, "_tf_value", None)
    if conv is not None:  # Variables (and other tensor-likes): keep the scalar fast path
        return binary(op, conv(None), y)
    x = to_tensor(x)
    y = to_tensor(y, x._dtype)
    if y._dtype is not x._dtype:
        raise dtype_error(op, 1, x._dtype, y._dtype)
    return x._t, y._t, x._dtype
