"""The hot path every op takes: unwrap inputs, check dtypes TF's way, wrap results.

Ops call ``torch`` on ``Tensor._t`` directly. Python scalars are passed to torch
as scalars after a range/kind check (no tensor is made for them), which keeps a
small eager op within about 0.5 us of raw torch.
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import check_python_scalar, to_tensor
from torchflow._src.core.errors import InvalidArgumentError, translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.variables import Variable

__all__ = ["COMPOSITE", "unwrap", "binary", "tensor_arg", "wrap", "translate", "tf_type_name", "Tensor",
           "NARROW_UNSIGNED", "dtype_error", "scalar_operand"]

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


_SCALAR_CACHE: dict = {}
_HALF_TORCH = (torch.float16, torch.bfloat16)
_is_compiling = torch.compiler.is_compiling


def scalar_operand(value, t: torch.Tensor):
    """``value`` (a Python number) as an operand of a torch op with ``t``.

    torch wraps a Python number into a fresh tensor on every call (~3 us on the
    CPU); a cached 0-d tensor of ``t``'s dtype costs nothing and rounds the
    number to that dtype first, as TF's conversion does. Zero (whose sign a
    cache would lose), non-CPU tensors and code being traced by torch.compile
    get the plain number (a fresh 0-d tensor for half precision, where the
    rounding shows in the result).
    """
    if value == 0 or not t.is_cpu or _is_compiling():
        if t.dtype in _HALF_TORCH:  # round to the dtype as TF does (0-d CPU: any device)
            return torch.tensor(value, dtype=t.dtype)
        return value
    key = (value, type(value), t.dtype)
    c = _SCALAR_CACHE.get(key)
    if c is None:
        if len(_SCALAR_CACHE) >= 1024:
            _SCALAR_CACHE.clear()
        with torch.inference_mode(False):  # an inference tensor could not be saved for backward
            c = _SCALAR_CACHE[key] = torch.tensor(value, dtype=t.dtype)
    return c


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
