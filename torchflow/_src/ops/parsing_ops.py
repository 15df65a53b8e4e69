"""``tf.io.parse_single_example`` / ``parse_example`` and the feature specs.

Serialized ``tf.train.Example`` protos are decoded with the protobuf runtime
(messages generated from ``core/proto/example.proto``), then turned into
tensors: ``FixedLenFeature`` -> a dense Tensor of its shape (``default_value``
when the feature is absent), ``VarLenFeature`` and ``SparseFeature`` -> a
``tf.SparseTensor``.
"""

from __future__ import annotations

import collections
import csv
import inspect

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.proto import example_pb2
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.ops import data_ops
from torchflow._src.ops.ragged.ragged_factory import batch_rows
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public

_KINDS = {dtypes.string: "bytes_list", dtypes.float32: "float_list", dtypes.int64: "int64_list"}


@public("torchflow.io")
class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """Configuration for parsing a fixed-shape feature of an ``Example``.

    Args:
      shape: The shape of the feature's value (a list of ints; ``[]`` for a scalar).
      dtype: ``tf.float32``, ``tf.int64`` or ``tf.string``.
      default_value: None (the feature is required) or a value of ``shape`` used when an
        example lacks the feature.
    """

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


@public("torchflow.io")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """Configuration for parsing a variable-length feature into a ``tf.SparseTensor``.

    One example gives indices ``[[0], ..., [n-1]]`` and dense shape ``[n]``; a batch
    gives ``[b, i]`` indices and dense shape ``[batch, max n]``.

    Args:
      dtype: ``tf.float32``, ``tf.int64`` or ``tf.string``.
    """


@public("torchflow.io")
class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A sparse feature stored as an index feature and a value feature.

    Parsed into a ``tf.SparseTensor`` of dense shape ``[size]`` (one example) or
    ``[batch, size]``: ``values[i]`` is at index ``example[index_key][i]``.

    Args:
      index_key: The int64 feature holding the indices (or a list of such keys,
        one per dimension, with ``size`` a list).
      value_key: The feature holding the values.
      dtype: The values' dtype.
      size: The dense size (an int, or a list per dimension).
      already_sorted: If True, the indices are taken to be in order already.
    """

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


def _partition(name: str, field: str, doc: str):
    cls = collections.namedtuple(name, [field])
    cls.__doc__ = doc
    cls.__module__ = "torchflow.io"
    cls.__qualname__ = f"RaggedFeature.{name}"
    return cls


@public("torchflow.io")
class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A feature parsed into a ``tf.RaggedTensor`` (a 1-D Tensor for one example
    without partitions).

    ``partitions`` (outermost first) split the values with other features of the
    example: ``RaggedFeature.RowSplits(key)``, ``RowLengths(key)``,
    ``RowStarts(key)``, ``RowLimits(key)``, ``ValueRowIds(key)`` or
    ``UniformRowLength(length)``. ``parse_example`` adds the batch as the
    outermost ragged dimension.

    Args:
      dtype: The values' dtype.
      value_key: The feature holding the values (default: the feature's key).
      partitions: A sequence of partitions.
      row_splits_dtype: The row splits' dtype (int32 or int64; default int32).
      validate: If True, partitions are checked.
    """

    RowSplits = _partition("RowSplits", "key", "Row splits in the feature ``key``.")
    RowLengths = _partition("RowLengths", "key", "Row lengths in the feature ``key``.")
    RowStarts = _partition("RowStarts", "key", "Row starts in the feature ``key``.")
    RowLimits = _partition("RowLimits", "key", "Row limits in the feature ``key``.")
    ValueRowIds = _partition("ValueRowIds", "key", "Value row ids in the feature ``key``.")
    UniformRowLength = _partition("UniformRowLength", "length",
                                  "Rows of a fixed ``length``.")

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32,
                validate=False):
        return super().__new__(cls, dtypes.as_dtype(dtype), value_key, tuple(partitions),
                               dtypes.as_dtype(row_splits_dtype), validate)


@public("torchflow.io")
class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Configuration for parsing a feature whose value count is a multiple of ``prod(shape)``.

    In ``parse_example`` (with ``allow_missing=True``) the values are parsed dense,
    with a leading dimension as long as the longest example's (others padded with
    ``default_value``).

    Args:
      shape: The shape of one element (a list of ints).
      dtype: ``tf.float32``, ``tf.int64`` or ``tf.string``.
      allow_missing: bool, default False: whether an example may lack the feature.
      default_value: None or a scalar: the padding value.
    """

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


# The value of a ``VarLenFeature`` (sequence_example_ops builds them under this name).
SparseValue = SparseTensor


def _bytes_of(serialized):
    if isinstance(serialized, Tensor):
        a = serialized.numpy()
        return a.item() if isinstance(a, np.ndarray) and a.ndim == 0 else a
    return serialized


def known_shape(spec, key) -> list[int]:
    """A ``FixedLenFeature``'s or ``FixedLenSequenceFeature``'s shape as ints.

    Raises:
      ValueError: A dimension is unknown (TF's parsing-config check).
    """
    dims = TensorShape(spec.shape).as_list()
    if isinstance(spec, FixedLenFeature) and dims and dims[0] is None:
        raise ValueError(f"First dimension of shape for feature {key} unknown. Consider using "
                         f"FixedLenSequenceFeature. Received feature={spec!r}.")
    known = [d for d in dims if d is not None]
    if len(known) != len(dims):
        raise ValueError(f"All dimensions of shape for feature {key} need to be known but "
                         f"received {spec.shape}.")
    return known


def _values(feature, dtype, key):
    kind = _KINDS.get(dtypes.as_dtype(dtype))
    if kind is None:
        raise ValueError(f"Unsupported dtype {dtype!r} for feature {key!r}: use float32, int64 "
                         "or string.")
    which = feature.WhichOneof("kind")
    if which is None:
        return []
    if which != kind:
        got = {"bytes_list": "string", "float_list": "float", "int64_list": "int64"}[which]
        want = {"bytes_list": "string", "float_list": "float", "int64_list": "int64"}[kind]
        raise InvalidArgumentError(
            None, None, f"Name: <unknown>, Key: {key}, Index: 0.  Data types don't match. "
            f"Data type: {got} but expected type: {want}")
    return list(getattr(feature, kind).value)


def _dense(vals, dtype, shape):
    d = dtypes.as_dtype(dtype)
    if d == dtypes.string:
        return data_ops.bytes_tensor(vals, shape)
    return wrap(torch.tensor(vals, dtype=d._torch).reshape(shape), d)


def _sparse_feature(fmap, key, spec) -> SparseTensor:
    keys = [spec.index_key] if isinstance(spec.index_key, str) else list(spec.index_key)
    sizes = [spec.size] if isinstance(spec.size, int) else list(spec.size)
    if len(keys) != len(sizes):
        raise ValueError(f"SparseFeature is invalid: len(index_key) != len(size): {spec}")
    vals = _values(fmap[spec.value_key], spec.dtype, spec.value_key) \
        if spec.value_key in fmap else []
    cols = []
    for k in keys:
        col = _values(fmap[k], dtypes.int64, k) if k in fmap else []
        if len(col) != len(vals):
            raise InvalidArgumentError(
                None, None, f"Name: <unknown>, Key: {key}, Index: 0.  Number of indices "
                            f"({len(col)}) for feature {k} does not match the number of values "
                            f"({len(vals)}) for feature {spec.value_key}")
        cols.append(col)
    idx = torch.tensor(cols, dtype=torch.int64).reshape(len(keys), -1).T.contiguous()
    values = _dense(vals, spec.dtype, [len(vals)])
    if not spec.already_sorted and idx.shape[0] > 1:
        perm = torch.arange(idx.shape[0])
        for c in range(idx.shape[1] - 1, -1, -1):
            perm = perm[torch.sort(idx[perm, c], stable=True).indices]
        idx = idx[perm]
        values = wrap(values._t[perm.numpy()] if values.dtype == dtypes.string
                      else values._t[perm], values.dtype)
    return SparseTensor(wrap(idx, dtypes.int64), values,
                        wrap(torch.tensor(sizes, dtype=torch.int64), dtypes.int64))


def _ragged_feature(fmap, key, spec):
    vkey = spec.value_key or key
    vals = _values(fmap[vkey], spec.dtype, vkey) if vkey in fmap else []
    value = _dense(vals, spec.dtype, [len(vals)])
    sd = spec.row_splits_dtype
    for part in reversed(spec.partitions):
        if isinstance(part, RaggedFeature.UniformRowLength):
            n = int(part.length)
            if isinstance(value, RaggedTensor):
                value = RaggedTensor.from_uniform_row_length(value, n)
            else:
                value = wrap(value._t.reshape([-1, n] + list(value._t.shape[1:])), value.dtype)
            continue
        col = _values(fmap[part.key], dtypes.int64, part.key) if part.key in fmap else []
        p = wrap(torch.tensor(col, dtype=torch.int64).to(sd._torch), sd)
        make = {RaggedFeature.RowSplits: RaggedTensor.from_row_splits,
                RaggedFeature.RowLengths: RaggedTensor.from_row_lengths,
                RaggedFeature.RowStarts: RaggedTensor.from_row_starts,
                RaggedFeature.RowLimits: RaggedTensor.from_row_limits,
                RaggedFeature.ValueRowIds: RaggedTensor.from_value_rowids}.get(type(part))
        if make is None:
            raise ValueError(f"Unsupported partition {part!r} for feature {key!r}.")
        value = make(value, p, validate=bool(spec.validate))
    return value


def _dry_stand_in(data) -> bool:
    """Whether ``data`` is the empty stand-in string of a dry trace (the one that writes
    a graph): its required features parse as zeros, which the graph does not keep."""
    r = graph_trace.active()
    return data == b"" and r is not None and r.dry


def _parse_one(data: bytes, features: dict) -> dict:
    stand_in = _dry_stand_in(data)
    ex = example_pb2.Example()
    try:
        ex.ParseFromString(data)
    except Exception:  # noqa: BLE001 - protobuf raises DecodeError
        raise InvalidArgumentError(None, None, "Could not parse example input, value: "
                                   f"'{data[:40]!r}'") from None
    fmap = ex.features.feature
    out = {}
    for key, spec in features.items():
        present = key in fmap
        if isinstance(spec, VarLenFeature):
            vals = _values(fmap[key], spec.dtype, key) if present else []
            n = len(vals)
            out[key] = SparseValue(
                wrap(torch.arange(n, dtype=torch.int64).reshape(n, 1), dtypes.int64),
                _dense(vals, spec.dtype, [n]),
                wrap(torch.tensor([n], dtype=torch.int64), dtypes.int64))
            continue
        if isinstance(spec, SparseFeature):
            out[key] = _sparse_feature(fmap, key, spec)
            continue
        if isinstance(spec, RaggedFeature):
            out[key] = _ragged_feature(fmap, key, spec)
            continue
        if isinstance(spec, FixedLenSequenceFeature):
            shape = known_shape(spec, key)
            vals = _values(fmap[key], spec.dtype, key) if present else []
            per = int(np.prod(shape)) if shape else 1
            if not present and not spec.allow_missing and not stand_in:
                raise InvalidArgumentError(None, None, f"Name: <unknown>, Feature: {key} is "
                                           "required but could not be found.")
            if per and len(vals) % per:
                raise InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: 0."
                                           f"  Number of values is not a multiple of stride "
                                           f"length. Saw {len(vals)} values but output shape "
                                           f"is: {shape}")
            out[key] = _dense(vals, spec.dtype, [len(vals) // per if per else 0] + shape)
            continue
        if not isinstance(spec, FixedLenFeature):
            raise ValueError(f"Unsupported feature spec {spec!r} for key {key!r}.")
        shape = known_shape(spec, key)
        n = int(np.prod(shape)) if shape else 1
        if present:
            vals = _values(fmap[key], spec.dtype, key)
        elif spec.default_value is not None:
            dv = spec.default_value
            dv = dv.numpy() if isinstance(dv, Tensor) else dv
            arr = np.asarray(dv, dtype=object if dtypes.as_dtype(spec.dtype) == dtypes.string
                             else None)
            vals = list(np.broadcast_to(arr, shape).reshape(-1)) if arr.size != n else \
                list(arr.reshape(-1))
            if dtypes.as_dtype(spec.dtype) == dtypes.string:
                vals = [v.encode() if isinstance(v, str) else v for v in vals]
        elif stand_in:
            vals = [b"" if dtypes.as_dtype(spec.dtype) == dtypes.string else 0] * n
        else:
            raise InvalidArgumentError(None, None, f"Feature: {key} (data type: "
                                       f"{dtypes.as_dtype(spec.dtype).name}) is required but "
                                       "could not be found.")
        if len(vals) != n:
            raise InvalidArgumentError(None, None, f"Key: {key}.  Can't parse serialized "
                                       f"Example.  Number of {_KINDS[dtypes.as_dtype(spec.dtype)]}"
                                       f" values != expected.  Values size: {len(vals)} but "
                                       f"output shape: {shape}")
        out[key] = _dense(vals, spec.dtype, shape)
    return out


@public("torchflow.io")
def parse_single_example(serialized, features, example_names=None, name=None) -> dict:
    """Parses one serialized ``tf.train.Example`` into a dict of tensors.

    Args:
      serialized: A scalar string Tensor (or bytes).
      features: dict key -> ``FixedLenFeature`` / ``VarLenFeature`` /
        ``SparseFeature`` / ``FixedLenSequenceFeature``.

    Returns:
      dict key -> Tensor (FixedLenFeature) or ``tf.SparseTensor`` (VarLenFeature,
      SparseFeature).

    Raises:
      InvalidArgumentError: A required feature is missing, has the wrong type or
        the wrong number of values, or the bytes are not an Example.
    """
    data = _bytes_of(serialized)
    if not isinstance(data, bytes):
        raise InvalidArgumentError(None, None, "Input to parse_single_example must be a "
                                   "scalar string.")
    return _in_tf_order(_parse_one(data, features), features)


def _in_tf_order(out: dict, features: dict) -> dict:
    """``out`` keyed as TF's parse ops return it: the VarLenFeatures, then the dense
    features, then the RaggedFeatures (each group by sorted key), then SparseFeatures."""
    def group(key):
        spec = features[key]
        if isinstance(spec, SparseFeature):
            return 3
        if isinstance(spec, RaggedFeature):
            return 2
        return 0 if isinstance(spec, VarLenFeature) else 1
    return {k: out[k] for k in sorted(out, key=lambda k: (group(k), k))}


def _batch_sparse(cols: list, spec) -> SparseTensor:
    idx, vals = [], []
    for b, sv in enumerate(cols):
        idx.extend([b] + r for r in sv.indices.numpy().tolist())
        vals.append(sv.values)
    rank = cols[0].indices.shape[1] if cols else (
        1 if isinstance(spec.size, int) else len(spec.size))
    values = data_ops.concat(vals) if vals else _dense([], spec.dtype, [0])
    sizes = [spec.size] if isinstance(spec.size, int) else list(spec.size)
    return SparseTensor(wrap(torch.tensor(idx, dtype=torch.int64).reshape(-1, rank + 1),
                             dtypes.int64), values,
                        wrap(torch.tensor([len(cols)] + sizes, dtype=torch.int64), dtypes.int64))


@public("torchflow.io")
def parse_example(serialized, features, example_names=None, name=None) -> dict:
    """Parses a vector of serialized ``Example`` protos into batched tensors.

    ``FixedLenFeature`` values are stacked to ``[batch] + shape``; ``VarLenFeature``
    values become one ``tf.SparseTensor`` with ``[batch, i]`` indices, ``SparseFeature``
    values one of dense shape ``[batch, size]``, ``RaggedFeature`` values a
    ``tf.RaggedTensor`` with the batch as its first dimension.

    Args:
      serialized: A 1-D string Tensor (or a list of bytes) of serialized Examples.
      features: A dict mapping feature keys to ``FixedLenFeature``,
        ``FixedLenSequenceFeature``, ``VarLenFeature``, ``SparseFeature`` or
        ``RaggedFeature`` configurations.
      example_names: Accepted for TF compatibility; ignored.
      name: A name for the operation (optional).

    Returns:
      A dict mapping the feature keys to Tensors, SparseTensors and RaggedTensors, in
      TF's order of the keys.

    Raises:
      InvalidArgumentError: a required feature is missing, has the wrong number of
        values or type, or the bytes are not an Example.
    """
    data = _bytes_of(serialized)
    items = [data] if isinstance(data, bytes) else list(np.asarray(data, dtype=object)
                                                        .reshape(-1))
    parsed = [_parse_one(d, features) for d in items]
    out = {}
    for key, spec in features.items():
        cols = [p[key] for p in parsed]
        if isinstance(spec, SparseFeature):
            out[key] = _batch_sparse(cols, spec)
        elif isinstance(spec, RaggedFeature):
            rr = max((c.ragged_rank for c in cols if isinstance(c, RaggedTensor)), default=0)
            out[key] = batch_rows(cols, rr, spec.row_splits_dtype)
        elif isinstance(spec, VarLenFeature):
            idx, vals = [], []
            width = 0
            for b, sv in enumerate(cols):
                n = sv.values.shape[0]
                width = max(width, n)
                idx.extend([b, i] for i in range(n))
                vals.append(sv.values)
            values = data_ops.concat(vals) if vals else _dense([], spec.dtype, [0])
            out[key] = SparseValue(
                wrap(torch.tensor(idx, dtype=torch.int64).reshape(-1, 2), dtypes.int64), values,
                wrap(torch.tensor([len(cols), width], dtype=torch.int64), dtypes.int64))
        elif isinstance(spec, FixedLenSequenceFeature):
            longest = max((c.shape[0] for c in cols), default=0)
            pv = spec.default_value if spec.default_value is not None else (
                b"" if dtypes.as_dtype(spec.dtype) == dtypes.string else 0)
            shape = [longest] + list(TensorShape(spec.shape).as_list())
            out[key] = data_ops.padded_stack(cols, shape, pv)
        else:
            out[key] = data_ops.stack(cols) if cols else _dense(
                [], spec.dtype, [0] + list(TensorShape(spec.shape).as_list()))
    return _in_tf_order(out, features)


Example = example_pb2.Example
Features = example_pb2.Features
Feature = example_pb2.Feature
BytesList = example_pb2.BytesList
FloatList = example_pb2.FloatList
Int64List = example_pb2.Int64List
FeatureList = example_pb2.FeatureList
FeatureLists = example_pb2.FeatureLists
SequenceExample = example_pb2.SequenceExample

_PROTO_DOCS = {
    Example: """An ``Example`` protocol message: one record of named features.

    The usual payload of a TFRecord file: build it with keyword arguments, write
    ``SerializeToString()`` with ``tf.io.TFRecordWriter`` and read it back with
    ``tf.io.parse_single_example``.

    Attributes:
      features: ``Features``, the map from feature names to ``Feature`` values.
    """,
    Features: """A ``Features`` protocol message: a map of named features.

    Attributes:
      feature: map from str names to ``Feature`` messages.
    """,
    Feature: """A ``Feature`` protocol message: one list of bytes, floats or int64s.

    Exactly one of the three fields is set.

    Attributes:
      bytes_list: ``BytesList``, a list of byte strings.
      float_list: ``FloatList``, a list of float32 values.
      int64_list: ``Int64List``, a list of int64 values.
    """,
    BytesList: """A ``BytesList`` protocol message: a list of byte strings.

    Attributes:
      value: repeated bytes.
    """,
    FloatList: """A ``FloatList`` protocol message: a list of float32 values (packed).

    Attributes:
      value: repeated float.
    """,
    Int64List: """An ``Int64List`` protocol message: a list of int64 values (packed).

    Attributes:
      value: repeated int64.
    """,
    FeatureList: """A ``FeatureList`` protocol message: a sequence of ``Feature`` values.

    Attributes:
      feature: repeated ``Feature``, one per step of the sequence.
    """,
    FeatureLists: """A ``FeatureLists`` protocol message: a map of named feature sequences.

    Attributes:
      feature_list: map from str names to ``FeatureList`` messages.
    """,
    SequenceExample: """A ``SequenceExample`` protocol message: context features plus sequences.

    Read with ``tf.io.parse_single_sequence_example``.

    Attributes:
      context: ``Features``, the features of the whole sequence.
      feature_lists: ``FeatureLists``, the per-step feature sequences.
    """,
}
for _cls, _doc in _PROTO_DOCS.items():
    _cls.__module__ = "torchflow.train"
    _cls.__doc__ = inspect.cleandoc(_doc)


@public("torchflow.io")
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None,
               name=None) -> Tensor:
    """Reinterprets the bytes of each string as a vector of ``out_type`` values.

    Args:
      input_bytes: A string Tensor; every string must have the same length.
      out_type: The dtype of the values (``tf.uint8``, ``tf.int32``, ``tf.float32``, ...).
      little_endian: bool, default True: the byte order of the data.
      fixed_length: None, or an int: each string is cut or zero-padded to this many
        bytes first.
      name: A name for the operation (optional).

    Returns:
      A Tensor of ``out_type`` with one more dimension than ``input_bytes``.

    Raises:
      InvalidArgumentError: If the strings have different lengths, or a length is
        not a multiple of the type's size.
    """
    d = dtypes.as_dtype(out_type)
    t = input_bytes if isinstance(input_bytes, Tensor) else data_ops.as_tensor(input_bytes)
    arr = np.asarray(t.numpy(), dtype=object)
    flat = arr.reshape(-1)
    np_t = np.dtype(d.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    rows = []
    for b in flat:
        if fixed_length is not None:
            b = b[:int(fixed_length)].ljust(int(fixed_length), b"\0")
        if len(b) % np_t.itemsize:
            raise InvalidArgumentError(None, None, f"Input to DecodeRaw has length {len(b)} "
                                       f"that is not a multiple of {np_t.itemsize}, the size of "
                                       f"{d.name} [Op:DecodeRaw]")
        rows.append(np.frombuffer(b, dtype=np_t).astype(d.as_numpy_dtype))
    if rows and any(len(r) != len(rows[0]) for r in rows):
        raise InvalidArgumentError(None, None, "DecodeRaw requires input strings to all be the "
                                   "same size [Op:DecodeRaw]")
    width = len(rows[0]) if rows else 0
    out = np.stack(rows) if rows else np.zeros((0, width), d.as_numpy_dtype)
    return data_ops.from_numpy(out.reshape(arr.shape + (width,)), d)


def _csv_number(field: str, dt, col: int, record: int):
    try:
        return int(field) if dt.is_integer else float(field)
    except ValueError:
        kind = {dtypes.float32: "float", dtypes.float64: "double"}.get(dt, dt.name)
        raise InvalidArgumentError(None, None, f"Field {col} in record {record} is not a valid "
                                   f"{kind}: {field} [Op:DecodeCSV]") from None


@public("torchflow.io")
def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None) -> list:
    """Parses CSV lines into one Tensor per column.

    Args:
      records: A string Tensor of lines (any shape); each line is one record.
      record_defaults: One entry per column: a one-element tensor or list holding the
        column's default value (its dtype is the column's: float32, float64, int32,
        int64 or string), or an empty list for a required column.
      field_delim: str, default ``","``: the one-character field separator.
      use_quote_delim: bool, default True: whether double quotes enclose fields (RFC 4180).
      name: A name for the operation (optional).
      na_value: str, default ``""``: the string read as a missing value.
      select_cols: None (all columns) or a sorted list of column indices to keep.

    Returns:
      A list of Tensors, one per column, each of ``records``' shape.

    Raises:
      InvalidArgumentError: a record has the wrong number of fields, a required
        field is missing, or a field is not a number of its column's type.
    """
    t = records if isinstance(records, Tensor) else data_ops.as_tensor(records)
    arr = np.asarray(t.numpy(), dtype=object)
    defaults = []
    for d in record_defaults:
        dt = data_ops.as_tensor(d)
        vals = np.asarray(dt.numpy(), dtype=object).reshape(-1)
        defaults.append((dt.dtype, vals[0] if vals.size else None))
    cols = [[] for _ in defaults]
    for i, line in enumerate(arr.reshape(-1)):
        text = line.decode("utf-8") if isinstance(line, bytes) else str(line)
        row = next(csv.reader([text], delimiter=field_delim,
                              quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE),
                   [""])
        if select_cols is not None:
            row = [row[c] for c in select_cols]
        if len(row) != len(defaults):
            raise InvalidArgumentError(None, None, f"Expect {len(defaults)} fields but have "
                                       f"{len(row)} in record {i} [Op:DecodeCSV]")
        for c, (field, (dt, dv)) in enumerate(zip(row, defaults)):
            if field == "" or field == na_value:
                if dv is None:
                    raise InvalidArgumentError(None, None, f"Field {c} is required but missing "
                                               f"in record {i}! [Op:DecodeCSV]")
                cols[c].append(dv)
            elif dt == dtypes.string:
                cols[c].append(field.encode("utf-8"))
            else:
                cols[c].append(_csv_number(field, dt, c, i))
    out = []
    for (dt, _), vals in zip(defaults, cols):
        a = np.empty(len(vals), dtype=object) if dt == dtypes.string else np.asarray(
            vals, dtype=dt.as_numpy_dtype)
        if dt == dtypes.string:
            a[:] = vals
        out.append(data_ops.from_numpy(a.reshape(arr.shape), dt))
    return out
