"""``tf.DType`` and the one table that maps TF dtypes to torch and NumPy dtypes.

Every TF numeric dtype has a torch dtype here: torch 2.3+ has ``uint16``,
``uint32`` and ``uint64`` as storage types, so tensors of those dtypes hold their
values exactly, but few torch kernels accept them; torchflow computes on them by
widening to int64 and narrowing the result back (see ``ops/_dispatch.py``).
``tf.string`` has no torch dtype: a string tensor holds a NumPy object array of
``bytes``. ``resource`` and ``variant`` exist as names only.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchflow._src.util.api import public


@public("torchflow.dtypes")
class DType:
    """Represents the type of the elements in a ``Tensor``.

    Use the module's instances (``tf.float32``, ``tf.int64``, ...) or
    ``tf.as_dtype(value)``; the constructor is torchflow's own (TF's takes a
    ``DataType`` enum).

    >>> import torchflow as tf
    >>> tf.float32.is_floating
    True

    Args:
      name: str, TF's name of the type (``"float32"``).
      enum: int, TF's ``DataType`` enum value.
      torch_dtype: The torch dtype holding the values (None for strings).
      np_dtype: The NumPy dtype of ``.numpy()`` results.
      size: int, the size of one element in bytes.
      kind: One letter: float, signed, unsigned, complex, bool, string or other.
    """

    __slots__ = ("_name", "_enum", "_torch", "_np", "_size", "_kind")

    def __init__(self, name, enum, torch_dtype, np_dtype, size, kind):
        self._name = name
        self._enum = enum
        self._torch = torch_dtype
        self._np = np_dtype
        self._size = size
        self._kind = kind  # 'f' float, 'i' signed, 'u' unsigned, 'c' complex, 'b' bool, 's' string, 'o' other

    # --- identity -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def as_datatype_enum(self) -> int:
        return self._enum

    def __repr__(self) -> str:
        return f"tf.{self._name}"

    def __str__(self) -> str:
        return f"<dtype: '{self._name}'>"

    def __eq__(self, other) -> builtins.bool:
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __ne__(self, other) -> builtins.bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._enum

    def __reduce__(self):
        return as_dtype, (self._name,)

    # --- properties ---------------------------------------------------------
    @property
    def is_floating(self) -> builtins.bool:
        return self._kind == "f"

    @property
    def is_integer(self) -> builtins.bool:
        return self._kind in "iu"

    @property
    def is_unsigned(self) -> builtins.bool:
        return self._kind == "u"

    @property
    def is_complex(self) -> builtins.bool:
        return self._kind == "c"

    @property
    def is_bool(self) -> builtins.bool:
        return self._kind == "b"

    @property
    def is_numpy_compatible(self) -> builtins.bool:
        return self._np is not None

    @property
    def is_quantized(self) -> builtins.bool:
        return self._kind == "q"

    @property
    def size(self) -> int:
        return self._size

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        if self is complex64:
            return float32
        if self is complex128:
            return float64
        return self

    @property
    def as_numpy_dtype(self):
        return self._np

    @property
    def torch_dtype(self):
        """The torch dtype that holds this dtype's values (None for string)."""
        return self._torch

    @property
    def min(self):
        if self._kind == "f":
            if self is bfloat16:
                return float(torch.finfo(torch.bfloat16).min)
            return float(np.finfo(self._np).min)
        if self._kind in "iu":
            return int(np.iinfo(self._np).min)
        raise TypeError(f"Cannot find minimum value of {self}.")

    @property
    def max(self):
        if self._kind == "f":
            if self is bfloat16:
                return float(torch.finfo(torch.bfloat16).max)
            return float(np.finfo(self._np).max)
        if self._kind in "iu":
            return int(np.iinfo(self._np).max)
        raise TypeError(f"Cannot find maximum value of {self}.")

    @property
    def limits(self):
        """TF's image-intensity range ``(0, max)``: floats (0, 1), ints (0, max)."""
        if self._name in ("float32", "float64"):
            return (0, 1)
        if self._kind in "iu":
            return (0, self.max)
        if self._kind == "b":
            return (0, True)
        raise ValueError(f"{self} does not have defined limits.")

    def is_compatible_with(self, other) -> builtins.bool:
        return self == as_dtype(other)


def _bf16_np():
    try:  # ml_dtypes ships with tensorflow; torchflow does not require it.
        import ml_dtypes

        return ml_dtypes.bfloat16
    except ImportError:  # pragma: no cover
        return None


float16 = DType("float16", 19, torch.float16, np.float16, 2, "f")
half = float16
float32 = DType("float32", 1, torch.float32, np.float32, 4, "f")
float64 = DType("float64", 2, torch.float64, np.float64, 8, "f")
double = float64
bfloat16 = DType("bfloat16", 14, torch.bfloat16, _bf16_np(), 2, "f")
complex64 = DType("complex64", 8, torch.complex64, np.complex64, 8, "c")
complex128 = DType("complex128", 18, torch.complex128, np.complex128, 16, "c")
int8 = DType("int8", 6, torch.int8, np.int8, 1, "i")
int16 = DType("int16", 5, torch.int16, np.int16, 2, "i")
int32 = DType("int32", 3, torch.int32, np.int32, 4, "i")
int64 = DType("int64", 9, torch.int64, np.int64, 8, "i")
uint8 = DType("uint8", 4, torch.uint8, np.uint8, 1, "u")
uint16 = DType("uint16", 17, torch.uint16, np.uint16, 2, "u")
uint32 = DType("uint32", 22, torch.uint32, np.uint32, 4, "u")
uint64 = DType("uint64", 23, torch.uint64, np.uint64, 8, "u")
bool = DType("bool", 10, torch.bool, np.bool_, 1, "b")  # noqa: A001 - TF's name
string = DType("string", 7, None, np.object_, 0, "s")
resource = DType("resource", 20, None, None, 0, "o")
variant = DType("variant", 21, None, None, 0, "o")
# TF's quantized dtypes (kind "q"): NumPy structured dtypes as in TF; no torch dtype,
# not integer, no min/max (TF raises TypeError for those).
qint8 = DType("qint8", 11, None, np.dtype([("qint8", np.int8)]), 1, "q")
quint8 = DType("quint8", 12, None, np.dtype([("quint8", np.uint8)]), 1, "q")
qint16 = DType("qint16", 15, None, np.dtype([("qint16", np.int16)]), 2, "q")
quint16 = DType("quint16", 16, None, np.dtype([("quint16", np.uint16)]), 2, "q")
qint32 = DType("qint32", 13, None, np.dtype([("qint32", np.int32)]), 4, "q")
QUANTIZED_DTYPES = frozenset({qint8, quint8, qint16, quint16, qint32})

ALL: tuple[DType, ...] = (
    float16, float32, float64, bfloat16, complex64, complex128,
    int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, string,
    resource, variant,
)  # fmt: skip

_BY_NAME: dict[str, DType] = {d.name: d for d in ALL}
_BY_NAME.update({"half": float16, "double": float64, "float": float32})
_BY_TORCH: dict[Any, DType] = {d.torch_dtype: d for d in ALL if d.torch_dtype is not None}
_BY_NP: dict[Any, DType] = {}
for _d in ALL:
    if _d.as_numpy_dtype is not None:
        _BY_NP[np.dtype(_d.as_numpy_dtype)] = _d
_BY_NP[np.dtype("U")] = string
_BY_NP[np.dtype("S")] = string
_BY_ENUM = {d.as_datatype_enum: d for d in ALL}
for _d in QUANTIZED_DTYPES:  # kept out of ALL: no torch storage, no kernels
    _BY_NAME[_d.name] = _d
    _BY_NP[np.dtype(_d.as_numpy_dtype)] = _d
    _BY_ENUM[_d.as_datatype_enum] = _d

TORCH_NATIVE_OPS = frozenset(
    d for d in ALL if d.torch_dtype is not None and d.name not in ("uint16", "uint32", "uint64")
)


def from_torch(td) -> DType:
    """The DType of a torch dtype (fast path used when wrapping results)."""
    return _BY_TORCH[td]


@public("torchflow.dtypes")
def as_dtype(type_value) -> DType:  # noqa: C901 (one flat dispatch on the hot path)
    """Converts ``type_value`` to a ``DType``.

    Args:
      type_value: A ``DType``, a dtype name (``"float32"``), a NumPy dtype or
        type, a torch dtype, a Python type (``float``, ``int``, ``bool``,
        ``complex``, ``str``, ``bytes``) or a TF ``DataType`` enum value.

    Returns:
      The ``DType``.

    Raises:
      TypeError: If ``type_value`` names no dtype.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if isinstance(type_value, torch.dtype):
        try:
            return _BY_TORCH[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if type_value is float:  # TF maps Python float to float32
        return float32
    if type_value is object:
        return string
    if type_value is int:
        return int64
    if type_value is builtins.bool:
        return bool
    if type_value is complex:
        return complex128
    if type_value in (str, bytes):
        return string
    if isinstance(type_value, int) and type_value in _BY_ENUM:
        return _BY_ENUM[type_value]
    dt = getattr(type_value, "dtype", None)
    if isinstance(dt, DType):
        return dt
    try:
        npd = np.dtype(type_value)  # pyright: ignore[reportCallIssue, reportArgumentType] - raises for what it cannot read
    except (TypeError, ValueError):
        npd = None
    if npd is not None:
        if npd.kind in "US":
            return string
        if npd in _BY_NP:
            return _BY_NP[npd]
        if bfloat16.as_numpy_dtype is not None and npd == np.dtype(bfloat16.as_numpy_dtype):
            return bfloat16
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")

