"""NumPy dtype names and TF 2.4 tnp's type promotion (``tnp.result_type``).

tnp dtype names are NumPy's scalar types (``tnp.float32 is np.float32``), as in
TF. Promotion is NumPy's ``np.result_type`` on the operands (tensors contribute
their dtype, Python scalars their value). ``prefer_float32`` (set by
``experimental_enable_numpy_behavior``) makes Python floats/complex count as
float32/complex64 and makes the default float type (``zeros``, ``sin(int)``,
``mean(int)`` ...) float32, as TF 2.4's ``np_dtypes`` does; explicit float64
arrays stay float64. ``allow_float64=False`` (TF's private switch, kept private
here) additionally canonicalizes every 64-bit float result to 32 bits.
"""

from __future__ import annotations

import numbers

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.util.api import public

# NumPy scalar types, re-exported as tnp.<name>.
bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
float_ = np.float64
complex_ = np.complex128
int_ = np.int64
object_ = np.object_
string_ = np.bytes_
unicode_ = np.str_
inexact = np.inexact
bfloat16 = dtypes.bfloat16.as_numpy_dtype

newaxis = None
pi = np.pi
e = np.e
inf = np.inf
nan = np.nan


class _Config:
    """Module state of tnp: the switch set by experimental_enable_numpy_behavior."""

    allow_float64 = True
    prefer_float32 = False
    numpy_behavior = False


CONFIG = _Config()

_TO_FLOAT32 = {np.dtype(np.float64): np.dtype(np.float32),
               np.dtype(np.complex128): np.dtype(np.complex64)}


def canonicalize(d: np.dtype) -> np.dtype:
    if CONFIG.allow_float64:
        return d
    return _TO_FLOAT32.get(d, d)


def canonicalize_python(d: np.dtype) -> np.dtype:
    """Dtype of values inferred from Python floats/complex under ``prefer_float32``."""
    return {np.dtype(np.float64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.complex64)}.get(d, d)


def default_float_type() -> np.dtype:
    if CONFIG.allow_float64 and not CONFIG.prefer_float32:
        return np.dtype(np.float64)
    return np.dtype(np.float32)


_TF_BY_NP: dict = {}


def to_tf(d) -> dtypes.DType:
    """The torchflow DType for a NumPy dtype (or anything ``np.dtype`` accepts)."""
    r = _TF_BY_NP.get(d)
    if r is None:
        if isinstance(d, dtypes.DType):
            return d
        nd = np.dtype(d)
        r = dtypes.as_dtype(nd) if nd.kind not in "SUO" else dtypes.string
        try:
            _TF_BY_NP[d] = r
        except TypeError:
            pass
    return r


def to_np(d) -> np.dtype:
    if isinstance(d, dtypes.DType):
        return np.dtype(d.as_numpy_dtype)
    if d is float:  # TF: result_type(float), float64 even under prefer_float32
        return canonicalize(np.dtype(np.float64))
    return np.dtype(d)


def _maybe_get_dtype(x):
    if isinstance(x, numbers.Real) or isinstance(x, complex):
        return x
    if isinstance(x, Tensor) or hasattr(x, "_tf_value"):
        return np.dtype(x.dtype.as_numpy_dtype)
    if isinstance(x, dtypes.DType):
        return np.dtype(x.as_numpy_dtype)
    if isinstance(x, TensorShape):
        return np.int32
    if isinstance(x, (list, tuple)):
        raise ValueError(f"Got a list or tuple {x!r} in result_type; pass arrays or dtypes.")
    return x


@public("torchflow.experimental.numpy")
def result_type(*arrays_and_dtypes) -> np.dtype:
    """The dtype NumPy promotion gives ``arrays_and_dtypes`` (tnp rules).

    Tensors contribute their dtype and Python numbers their value (NumPy's weak
    scalars); with ``prefer_float32`` 64-bit floats become 32-bit.

    Args:
      *arrays_and_dtypes: Arrays and dtypes.

    >>> import torchflow.experimental.numpy as tnp
    >>> tnp.result_type(tnp.int32, tnp.float32)
    dtype('float64')
    """
    args = [_maybe_get_dtype(x) for x in arrays_and_dtypes]
    if CONFIG.prefer_float32:
        args = [np.float32 if isinstance(x, float) else (
            np.complex64 if isinstance(x, complex) else x) for x in args]
    if not args:
        args = [np.asarray([])]
    return canonicalize(np.result_type(*args))


@public("torchflow.experimental.numpy")
def promote_types(type1, type2) -> np.dtype:
    """``np.promote_types`` on tnp dtypes (canonicalized as ``result_type``).

    Args:
      type1: A dtype.
      type2: A dtype.
    """
    return canonicalize(np.promote_types(to_np(type1), to_np(type2)))


_PAIR_CACHE: dict = {}


def promote_pair(d1: dtypes.DType, d2: dtypes.DType) -> dtypes.DType:
    """Result DType of two tensor dtypes (cached; the operator hot path)."""
    key = (d1, d2, CONFIG.allow_float64)  # prefer_float32 does not affect dtype pairs
    r = _PAIR_CACHE.get(key)
    if r is None:
        r = to_tf(canonicalize(np.promote_types(d1.as_numpy_dtype, d2.as_numpy_dtype)))
        _PAIR_CACHE[key] = r
    return r


@public("torchflow.experimental.numpy")
def issubdtype(arg1, arg2) -> bool:
    """``np.issubdtype`` that also takes torchflow DTypes.

    Args:
      arg1: An array-like (converted with ``tnp.asarray``).
      arg2: An array-like (converted with ``tnp.asarray``).
    """
    return np.issubdtype(to_np(arg1) if isinstance(arg1, dtypes.DType) else arg1,
                         to_np(arg2) if isinstance(arg2, dtypes.DType) else arg2)


@public("torchflow.experimental.numpy")
class finfo:
    """TensorFlow variant of NumPy's ``finfo``: machine limits of a floating dtype.

    Args:
      dtype: A floating dtype: a ``tf.DType`` (``tf.bfloat16`` too), a NumPy dtype or
        type, or a Tensor (its dtype is used).

    Returns:
      NumPy's ``finfo`` object (``eps``, ``max``, ``min``, ``tiny``, ``resolution``, ...);
      for bfloat16, ``ml_dtypes``' one.

    Raises:
      ValueError: ``dtype`` is not a floating type (NumPy's error).
    """

    def __new__(cls, dtype):
        if isinstance(dtype, (Tensor,)):
            dtype = dtype.dtype
        if isinstance(dtype, dtypes.DType):
            if dtype is dtypes.bfloat16:
                return _bf16_finfo()
            dtype = dtype.as_numpy_dtype
        if bfloat16 is not None and dtype is bfloat16:
            return _bf16_finfo()
        return np.finfo(dtype)


def _bf16_finfo():
    try:
        import ml_dtypes

        return ml_dtypes.finfo(ml_dtypes.bfloat16)
    except ImportError:  # pragma: no cover
        raise TypeError("finfo(bfloat16) needs the ml_dtypes package") from None


@public("torchflow.experimental.numpy")
class iinfo:
    """TensorFlow variant of NumPy's ``iinfo``: machine limits of an integer dtype.

    Args:
      int_type: An integer dtype: a ``tf.DType``, a NumPy dtype or type, or a Tensor
        (its dtype is used).

    Returns:
      NumPy's ``iinfo`` object (``min``, ``max``, ``bits``).

    Raises:
      ValueError: ``int_type`` is not an integer type (NumPy's error).
    """

    def __new__(cls, int_type):
        if isinstance(int_type, Tensor):
            int_type = int_type.dtype
        if isinstance(int_type, dtypes.DType):
            int_type = int_type.as_numpy_dtype
        return np.iinfo(int_type)
