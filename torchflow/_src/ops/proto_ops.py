"""``tf.io.decode_proto`` / ``encode_proto``: fields of protobuf messages as tensors.

Message types are looked up in the protobuf runtime's default descriptor pool
(``descriptor_source="local://"``: every ``*_pb2`` module imported in the process)
or in a ``FileDescriptorSet`` file. TF's own ``tensorflow.*`` names resolve to the
copies torchflow and TensorBoard carry (``torchflow.train.*``, ``tensorboard.*``),
which have TF's field numbers, so the bytes are TF's.
"""

from __future__ import annotations

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.proto import example_pb2  # noqa: F401 - registers tf.train messages
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public

_ALIASES = ("torchflow.train.", "tensorboard.")


def _pool(source):
    src = source.decode() if isinstance(source, bytes) else str(source)
    if src == "local://":
        return descriptor_pool.Default()
    files = descriptor_pb2.FileDescriptorSet()
    try:
        with open(src, "rb") as f:
            files.ParseFromString(f.read())
    except (OSError, Exception) as e:  # noqa: BLE001 - TF reports any failure the same way
        raise InvalidArgumentError(None, None, f"Failed to load descriptor_source {src}: "
                                   f"{e}") from None
    pool = descriptor_pool.DescriptorPool()
    for fd in files.file:
        pool.Add(fd)
    return pool


def _message_class(message_type, source, op):
    name = message_type.decode() if isinstance(message_type, bytes) else str(message_type)
    pool = _pool(source)
    candidates = [name]
    if name.startswith("tensorflow."):
        candidates += [a + name[len("tensorflow."):] for a in _ALIASES]
    for n in candidates:
        try:
            return message_factory.GetMessageClass(pool.FindMessageTypeByName(n))
        except KeyError:
            continue
    raise InvalidArgumentError(None, None, f"No descriptor found for message type {name} "
                               f"[Op:{op}]")


def _strings(x) -> np.ndarray:
    t = x if isinstance(x, Tensor) else data_ops.as_tensor(x, dtypes.string)
    return np.asarray(t.numpy(), dtype=object)


def _field_values(msg, fd) -> list:
    v = getattr(msg, fd.name)
    if fd.is_repeated:
        vals = list(v)
    else:
        # A singular field counts when it is on the wire (proto3 scalars: not default).
        try:
            present = msg.HasField(fd.name)
        except ValueError:
            present = v != fd.default_value
        vals = [v] if present else []
    if fd.type == fd.TYPE_MESSAGE:
        vals = [m.SerializeToString() for m in vals]
    return vals


@public("torchflow.io")
def decode_proto(bytes, message_type, field_names, output_types,  # noqa: A002 - TF's name
                 descriptor_source="local://", message_format="binary", sanitize=False,
                 name=None):
    """The fields ``field_names`` of serialized ``message_type`` messages.

    Args:
      bytes: A string Tensor of serialized messages (any shape ``s``).
      message_type: The full message name, e.g. ``"tensorflow.FloatList"``.
      field_names: The fields to read.
      output_types: One dtype per field (``tf.string`` for sub-messages).
      descriptor_source: ``"local://"`` or a ``FileDescriptorSet`` file.
      message_format: ``"binary"`` or ``"text"``.

    Returns:
      ``(sizes, values)``: int32 ``s + [len(field_names)]`` value counts, and per
      field a ``s + [max count]`` Tensor, zero-padded.

    Raises:
      InvalidArgumentError: For an unknown message type or field, or bad bytes.
    """
    cls = _message_class(message_type, descriptor_source, "DecodeProtoV2")
    fields = [cls.DESCRIPTOR.fields_by_name.get(f) for f in field_names]
    for f, fd in zip(field_names, fields):
        if fd is None:
            raise InvalidArgumentError(None, None, f"Unknown field: {f} in message type "
                                       f"{cls.DESCRIPTOR.full_name} [Op:DecodeProtoV2]")
    arr = _strings(bytes)
    flat = arr.reshape(-1)
    per = []
    for b in flat:
        msg = cls()
        try:
            if message_format == "text":
                text_format.Parse(b.decode() if isinstance(b, bytes) else b, msg)
            else:
                msg.ParseFromString(b)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError / ParseError
            raise InvalidArgumentError(None, None, "Unable to parse proto "
                                       "[Op:DecodeProtoV2]") from None
        per.append([_field_values(msg, fd) for fd in fields])
    sizes = np.array([[len(v) for v in row] for row in per], np.int32).reshape(
        arr.shape + (len(fields),))
    values = []
    for i, dt in enumerate(output_types):
        d = dtypes.as_dtype(dt)
        width = max([len(row[i]) for row in per], default=0)
        if d == dtypes.string:
            out = np.full((len(per), width), b"", dtype=object)
        else:
            out = np.zeros((len(per), width), d.as_numpy_dtype)
        for r, row in enumerate(per):
            vals = row[i]
            if vals:
                out[r, :len(vals)] = [v.encode() if isinstance(v, str) else v for v in vals] \
                    if d == dtypes.string else np.asarray(vals).astype(d.as_numpy_dtype)
        values.append(data_ops.from_numpy(out.reshape(arr.shape + (width,)), d))
    return data_ops.from_numpy(sizes, dtypes.int32), values


@public("torchflow.io")
def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://",
                 name=None) -> Tensor:
    """Serialized ``message_type`` messages from field values (``decode_proto``'s inverse).

    Args:
      sizes: int32 ``s + [len(field_names)]``: how many values of each field to use.
      values: Per field a ``s + [n]`` Tensor.
      field_names: The fields.
      message_type: The full message name.
      descriptor_source: ``"local://"`` or a ``FileDescriptorSet`` file.

    Returns:
      A string Tensor of shape ``s``.
    """
    cls = _message_class(message_type, descriptor_source, "EncodeProto")
    size = np.asarray(sizes.numpy() if isinstance(sizes, Tensor) else sizes, np.int64)
    batch = size.shape[:-1]
    size = size.reshape(-1, size.shape[-1])
    cols = [np.asarray(v.numpy() if isinstance(v, Tensor) else v) for v in values]
    cols = [c.reshape(size.shape[0], -1) for c in cols]
    out = np.empty(size.shape[0], dtype=object)
    for r in range(size.shape[0]):
        msg = cls()
        for i, f in enumerate(field_names):
            fd = cls.DESCRIPTOR.fields_by_name.get(f)
            if fd is None:
                raise InvalidArgumentError(None, None, f"Unknown field: {f} in message type "
                                           f"{cls.DESCRIPTOR.full_name} [Op:EncodeProto]")
            vals = cols[i][r, :size[r, i]].tolist()
            if fd.type == fd.TYPE_MESSAGE:
                if fd.is_repeated:
                    for v in vals:
                        getattr(msg, f).add().ParseFromString(v)
                elif vals:
                    getattr(msg, f).ParseFromString(vals[0])
            elif fd.is_repeated:
                getattr(msg, f).extend(vals)
            elif vals:
                setattr(msg, f, vals[0])
        out[r] = msg.SerializeToString()
    return data_ops.from_numpy(out.reshape(batch), dtypes.string)
