"""``tf.make_tensor_proto`` / ``tf.make_ndarray`` (TF's ``TensorProto`` message, as
TF 2.4's ``tensor_util`` fills it), ``tf.timestamp`` and ``tf.get_logger``."""

from __future__ import annotations

import logging
import time

import numpy as np
from tensorboard.compat.proto import tensor_pb2

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops.tensor_proto_ops import _le, from_proto
from torchflow._src.util.api import public

# Dtypes TF writes as packed ``tensor_content`` (when the values fill the shape).
_CONTENT = {"float16", "float32", "float64", "int32", "uint8", "int16", "int8", "int64",
            "uint32", "uint64"}
_FIELD = {"float32": "float_val", "float64": "double_val", "int64": "int64_val",
          "bool": "bool_val", "uint32": "uint32_val", "uint64": "uint64_val"}


def _to_numpy(values, dtype):
    if isinstance(values, Tensor):
        a = np.asarray(values.numpy())
        return a.astype(dtype.as_numpy_dtype) if dtype is not None and \
            dtype != dtypes.string else a
    if values is None:
        raise ValueError("None values not supported.")
    if isinstance(values, (np.ndarray, np.generic)):
        if dtype is not None and dtype != dtypes.string:
            return np.asarray(values).astype(dtype.as_numpy_dtype)
        return np.asarray(values)
    np_dt = dtype.as_numpy_dtype if dtype is not None and dtype != dtypes.string else None
    a = np.array(values, dtype=np_dt)
    if dtype is None and a.dtype == np.float64:
        a = a.astype(np.float32)  # TF prefers float32 for Python floats
    elif dtype is None and a.dtype == np.int64:
        small = a.astype(np.int32)
        if np.array_equal(small, a):
            a = small
    return a


@public("torchflow")
def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False,
                      allow_broadcast=False):
    """A ``TensorProto`` holding ``values``.

    Args:
      values: A Python value, NumPy array or Tensor.
      dtype: Optional ``tf.DType``; default inferred (Python floats as float32,
        ints as int32 where they fit).
      shape: Optional shape; fewer values than it holds are padded with the last
        value by readers (TF's rule).
      verify_shape: Require ``values``' shape to equal ``shape``.
      allow_broadcast: Allow a scalar or single value to fill ``shape``.

    Returns:
      A ``tensorflow.TensorProto`` message.

    Raises:
      TypeError: If a shape check fails.
      ValueError: For None values or more values than ``shape`` holds.
    """
    d = dtypes.as_dtype(dtype) if dtype is not None else None
    a = _to_numpy(values, d)
    if a.dtype.kind in "USO":
        d = dtypes.string
    elif d is None:
        d = dtypes.as_dtype(a.dtype)
    if shape is None:
        shape = list(a.shape)
        size, same = a.size, True
    else:
        shape = [int(s) for s in shape]
        size = int(np.prod(shape, dtype=np.int64))
        same = size == a.size
        if allow_broadcast:
            if a.shape not in ((1,), ()) and a.size != size:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {a.shape}.")
        else:
            if verify_shape and a.shape != tuple(shape):
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {a.shape}.")
            if a.size > size:
                raise ValueError(f"Too many elements provided. Needed at most {size}, but "
                                 f"received {a.size}")
    proto = tensor_pb2.TensorProto(dtype=d.as_datatype_enum)  # pyright: ignore[reportAttributeAccessIssue] - generated protobuf class, no stub
    proto.tensor_shape.SetInParent()
    for s in shape:
        proto.tensor_shape.dim.add(size=s)
    flat = a.reshape(-1)
    if same and d.name in _CONTENT and size > 1:
        proto.tensor_content = np.ascontiguousarray(flat).astype(_le(d.as_numpy_dtype)).tobytes()
        return proto
    if d == dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in flat)
    elif d.name in ("float16", "bfloat16"):
        proto.half_val.extend(int(v) for v in flat.astype(d.as_numpy_dtype).view(np.uint16))
    elif d.name in ("complex64", "complex128"):
        field = proto.scomplex_val if d.name == "complex64" else proto.dcomplex_val
        for v in flat:
            field.extend([float(v.real), float(v.imag)])
    else:
        getattr(proto, _FIELD.get(d.name, "int_val")).extend(flat.tolist())
    return proto


@public("torchflow")
def make_ndarray(tensor) -> np.ndarray:
    """The NumPy array a ``TensorProto`` holds.

    Args:
      tensor: A ``TensorProto``.

    Returns:
      A NumPy array of the proto's dtype and shape.

    Raises:
      TypeError: If ``tensor`` is not a TensorProto with a supported dtype.
    """
    if not hasattr(tensor, "tensor_shape") or not hasattr(tensor, "dtype"):
        raise TypeError(f"Unsupported tensor type: {type(tensor)}. See "
                        f"https://www.tensorflow.org/api_docs/python/tf/make_ndarray "
                        f"for supported TF types.")
    a = np.asarray(from_proto(tensor).numpy())
    return a.astype(object) if tensor.dtype == dtypes.string.as_datatype_enum else a


@public("torchflow")
def timestamp(name=None) -> Tensor:
    """Seconds since the Unix epoch, as a float64 scalar tensor.

    Args:
      name: Unused (eager).

    Returns:
      A float64 scalar.
    """
    return constant(time.time(), dtype=dtypes.float64)


@public("torchflow")
def get_logger() -> logging.Logger:
    """TF's ``"tensorflow"`` Python logger (the one torchflow's warnings go to).

    Returns:
      The ``logging.Logger`` named ``"tensorflow"``.
    """
    return logging.getLogger("tensorflow")
