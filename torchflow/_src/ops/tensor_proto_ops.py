"""``tf.io.serialize_tensor`` / ``tf.io.parse_tensor``: tensors as TF's ``TensorProto``.

The message is TF's own (``tensorflow/core/framework/tensor.proto``; the Python
module is the copy ``tensorboard.compat.proto`` generates from it), written as TF
writes it: numeric and bool values as little-endian ``tensor_content``, strings as
``string_val``, the shape always present. So bytes move both ways with TF's
``serialize_tensor``/``parse_tensor`` (and are byte-identical to TF's).
"""

from __future__ import annotations

import numpy as np
from tensorboard.compat.proto import tensor_pb2

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public

# TF's DataTypeString names where they differ from the Python dtype names.
_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def tf_type_name(dtype) -> str:
    return _TF_NAMES.get(dtype.name, dtype.name)  # pyright: ignore[reportReturnType] - a DType's name is never None


def _le(np_dtype) -> np.dtype:
    d = np.dtype(np_dtype)
    return d.newbyteorder("<") if d.byteorder not in ("|", "<") else d


def to_proto(t: Tensor):
    """The ``TensorProto`` of ``t``."""
    proto = tensor_pb2.TensorProto(dtype=t.dtype.as_datatype_enum)  # pyright: ignore[reportAttributeAccessIssue] - generated protobuf class, no stub
    proto.tensor_shape.SetInParent()
    for d in t.shape.as_list():
        proto.tensor_shape.dim.add(size=d)
    a = np.asarray(t.numpy())
    if t.dtype == dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode()
                                for v in a.reshape(-1))
    else:
        proto.tensor_content = np.ascontiguousarray(a).astype(
            _le(t.dtype.as_numpy_dtype), copy=False).tobytes()
    return proto


def _vals(proto, dtype):
    """The values of a proto's typed ``*_val`` field, as a NumPy array."""
    name = dtype.name
    if dtype == dtypes.string:
        return np.array(list(proto.string_val), dtype=object)
    if name in ("float16", "bfloat16"):
        return np.array(proto.half_val, np.uint16).view(dtype.as_numpy_dtype)
    if name == "complex64":
        v = np.array(proto.scomplex_val, np.float32)
        return v[0::2] + 1j * v[1::2]
    if name == "complex128":
        v = np.array(proto.dcomplex_val, np.float64)
        return v[0::2] + 1j * v[1::2]
    field = {"float32": "float_val", "float64": "double_val", "int64": "int64_val",
             "bool": "bool_val", "uint32": "uint32_val", "uint64": "uint64_val"}.get(
        name, "int_val")
    return np.array(getattr(proto, field), dtype.as_numpy_dtype)


def _string_content(content: bytes, n: int) -> np.ndarray:
    """A string tensor's ``tensor_content`` (TF's ``EncodeStringList``: the ``n``
    lengths as varints, then the bytes of each string)."""
    lengths, pos = [], 0
    for _ in range(n):
        v = shift = 0
        while True:
            if pos >= len(content):
                raise InvalidArgumentError(None, None, "Could not parse `serialized` as "
                                           "TensorProto: truncated string content "
                                           "[Op:ParseTensor]")
            b = content[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        lengths.append(v)
    out = np.empty(n, dtype=object)
    for i, k in enumerate(lengths):
        out[i] = bytes(content[pos:pos + k])
        pos += k
    if pos != len(content):
        raise InvalidArgumentError(None, None, "Could not parse `serialized` as TensorProto: "
                                   "content size does not match shape [Op:ParseTensor]")
    return out


def from_proto(proto) -> Tensor:
    """The Tensor a ``TensorProto`` holds (TF's rules: a short ``*_val`` list repeats its
    last value; an empty one means zeros)."""
    try:
        dtype = dtypes.as_dtype(proto.dtype)
    except (TypeError, ValueError, KeyError):
        raise InvalidArgumentError(None, None, f"Unsupported TensorProto dtype {proto.dtype} "
                                   "[Op:ParseTensor]") from None
    shape = [int(d.size) for d in proto.tensor_shape.dim]
    n = int(np.prod(shape)) if shape else 1
    if proto.tensor_content and dtype != dtypes.string:
        a = np.frombuffer(proto.tensor_content, _le(dtype.as_numpy_dtype))
        if a.size != n:
            raise InvalidArgumentError(None, None, "Could not parse `serialized` as "
                                       "TensorProto: content size does not match shape "
                                       "[Op:ParseTensor]")
        a = a.astype(dtype.as_numpy_dtype).reshape(shape)
    elif proto.tensor_content:  # strings as C++ TensorFlow writes them in graphs
        a = _string_content(proto.tensor_content, n).reshape(shape)
    else:
        v = _vals(proto, dtype)
        if v.size == 0:
            a = np.zeros(shape, dtype=object if dtype == dtypes.string else
                         dtype.as_numpy_dtype)
            if dtype == dtypes.string:
                a.fill(b"")
        elif v.size >= n:
            a = v[:n].reshape(shape)
        else:
            a = np.concatenate([v, np.repeat(v[-1:], n - v.size)]).reshape(shape)
    return data_ops.from_numpy(np.array(a, copy=True, order="C"), dtype)


@public("torchflow.io")
def serialize_tensor(tensor, name=None) -> Tensor:
    """A scalar string: ``tensor`` as a serialized TF ``TensorProto``.

    Args:
      tensor: A tensor of any dtype.
      name: Unused (eager).

    Returns:
      A 0-D string tensor (parse it with ``tf.io.parse_tensor``).

    >>> import torchflow as tf
    >>> s = tf.io.serialize_tensor(tf.constant([1.5, 2.0]))
    >>> tf.io.parse_tensor(s, tf.float32).numpy().tolist()
    [1.5, 2.0]
    """
    t = tensor if isinstance(tensor, Tensor) else data_ops.as_tensor(tensor)
    return data_ops.scalar(to_proto(t).SerializeToString(), dtypes.string)


@public("torchflow.io")
def parse_tensor(serialized, out_type, name=None) -> Tensor:
    """The Tensor in a serialized ``TensorProto`` (what ``serialize_tensor`` returns).

    Args:
      serialized: A scalar string Tensor.
      out_type: The dtype the tensor must have.

    Raises:
      InvalidArgumentError: If the bytes are not a TensorProto, or its dtype is not
        ``out_type``.
    """
    t = serialized if isinstance(serialized, Tensor) else data_ops.as_tensor(serialized,
                                                                              dtypes.string)
    if t.shape.rank != 0:
        raise InvalidArgumentError(None, None, "Expected `serialized` to be a scalar, got "
                                   f"shape: {t.shape} [Op:ParseTensor]")
    data = data_ops.to_python(t)
    data = data.encode() if isinstance(data, str) else bytes(data)
    proto = tensor_pb2.TensorProto()  # pyright: ignore[reportAttributeAccessIssue] - generated protobuf class, no stub
    try:
        proto.ParseFromString(data)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise InvalidArgumentError(None, None, "Could not parse `serialized` as TensorProto: "
                                   f"'{data.decode('utf-8', 'replace')}' [Op:ParseTensor]") from None
    out = from_proto(proto)
    want = dtypes.as_dtype(out_type)
    if out.dtype != want:
        raise InvalidArgumentError(None, None, "Type mismatch between parsed tensor "
                                   f"({tf_type_name(out.dtype)}) and dtype "
                                   f"({tf_type_name(want)}) [Op:ParseTensor]")
    return out
