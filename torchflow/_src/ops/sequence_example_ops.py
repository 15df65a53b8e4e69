"""``tf.io.parse_single_sequence_example`` / ``parse_sequence_example`` and
``decode_json_example``.

A ``SequenceExample`` has ``context`` features (parsed as an Example's) and
``feature_lists``: per frame, one ``Feature``. ``FixedLenSequenceFeature`` gives a
dense ``[frames] + shape`` Tensor, ``VarLenFeature`` a ``SparseValue`` with
``[frame, j]`` indices, as TF.
"""

from __future__ import annotations

import numpy as np
from google.protobuf import json_format

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.proto import example_pb2
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import data_ops
from torchflow._src.ops.parsing_ops import (
    FixedLenSequenceFeature,
    SparseValue,
    VarLenFeature,
    _bytes_of,
    _dense,
    _parse_one,
    _values,
    known_shape,
    parse_example,
)
from torchflow._src.util.api import public

_KIND_NAMES = {dtypes.string: "bytes", dtypes.float32: "float", dtypes.int64: "int64"}


def _parse_seq(data: bytes):
    seq = example_pb2.SequenceExample()
    try:
        seq.ParseFromString(data)
    except Exception:  # noqa: BLE001 - protobuf raises DecodeError
        raise InvalidArgumentError(None, None, "Could not parse example input, value: "
                                   f"'{data[:40]!r}'") from None
    return seq


def _int64(values, shape) -> Tensor:
    return data_ops.from_numpy(np.asarray(values, np.int64).reshape(shape), dtypes.int64)


def _frames(seq, key) -> tuple[bool, list]:
    """Whether ``seq`` has the feature list ``key``, and its frames."""
    lists = seq.feature_lists.feature_list
    present = key in lists
    return present, list(lists[key].feature) if present else []


def _feature_list(seq, key, spec):
    if isinstance(spec, VarLenFeature):
        return _varlen_feature_list(seq, key, spec)
    return _fixed_feature_list(seq, key, spec)


def _varlen_feature_list(seq, key, spec) -> SparseValue:
    """A ``VarLenFeature`` list: ``[frame, j]`` indices over ``[frames, longest]``."""
    _, frames = _frames(seq, key)
    idx, vals = [], []
    width = 0
    for f, feat in enumerate(frames):
        v = _values(feat, spec.dtype, key)
        width = max(width, len(v))
        idx.extend([f, j] for j in range(len(v)))
        vals.extend(v)
    return SparseValue(_int64(idx, [-1, 2]), _dense(vals, spec.dtype, [len(vals)]),
                       _int64([len(frames), width], [2]))


def _fixed_feature_list(seq, key, spec) -> Tensor:
    """A ``FixedLenSequenceFeature`` list: a dense ``[frames] + shape`` Tensor."""
    if not isinstance(spec, FixedLenSequenceFeature):
        raise ValueError(f"Unsupported sequence feature spec {spec!r} for key {key!r}.")
    present, frames = _frames(seq, key)
    if not present and not spec.allow_missing:
        raise InvalidArgumentError(
            None, None, f"Name: <unknown>, Feature list '{key}' is required but could not be "
            "found.  Did you mean to include it in feature_list_dense_missing_assumed_empty "
            "or feature_list_dense_defaults?")
    shape = known_shape(spec, key)
    per = int(np.prod(shape)) if shape else 1
    vals = []
    kind = _KIND_NAMES[dtypes.as_dtype(spec.dtype)]
    for f, feat in enumerate(frames):
        v = _values(feat, spec.dtype, key)
        if len(v) != per:
            raise InvalidArgumentError(
                None, None, f"Name: <unknown>, Key: {key}, Index: {f}.  Number of {kind} "
                f"values != expected.  values size: {len(v)} but output shape: {shape}")
        vals.extend(v)
    return _dense(vals, spec.dtype, [len(frames)] + shape)


@public("torchflow.io")
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parses one serialized ``tf.train.SequenceExample``.

    Args:
      serialized: A scalar string Tensor (or bytes).
      context_features: dict key -> ``FixedLenFeature``/``VarLenFeature``.
      sequence_features: dict key -> ``FixedLenSequenceFeature``/``VarLenFeature``.

    Returns:
      ``(context, sequence)``: two dicts of Tensors / ``SparseValue``.

    Raises:
      InvalidArgumentError: For a missing required feature, a wrong type or count.
    """
    data = _bytes_of(serialized)
    if not isinstance(data, bytes):
        raise InvalidArgumentError(None, None, "Input to parse_single_sequence_example must be "
                                   "a scalar string.")
    seq = _parse_seq(data)
    context = {}
    if context_features:
        ex = example_pb2.Example()
        ex.features.CopyFrom(seq.context)
        context = _parse_one(ex.SerializeToString(), dict(context_features))
    sequence = {k: _feature_list(seq, k, s) for k, s in (sequence_features or {}).items()}
    return context, sequence


@public("torchflow.io")
def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parses a vector of serialized ``SequenceExample``s.

    Args:
      serialized: A 1-D string tensor of serialized ``SequenceExample`` protos.
      context_features: None or a dict of ``FixedLenFeature`` / ``VarLenFeature`` for the
        context.
      sequence_features: None or a dict of ``FixedLenSequenceFeature`` / ``VarLenFeature``
        for the feature lists.
      example_names: None (default) or names for error messages.
      name: Unused (eager).

    Returns:
      ``(context, feature_list, lengths)``: context features batched as
      ``parse_example``'s; each ``FixedLenSequenceFeature`` padded to
      ``[batch, longest] + shape`` with its frame count in ``lengths``;
      ``VarLenFeature``s as ``SparseValue`` with ``[b, frame, j]`` indices.
    """
    data = _bytes_of(serialized)
    items = [data] if isinstance(data, bytes) else list(np.asarray(data, dtype=object)
                                                        .reshape(-1))
    seqs = [_parse_seq(d) for d in items]
    context = {}
    if context_features:
        blobs = []
        for s in seqs:
            ex = example_pb2.Example()
            ex.features.CopyFrom(s.context)
            blobs.append(ex.SerializeToString())
        context = parse_example(np.array(blobs, dtype=object), dict(context_features))
    feature_list, lengths = {}, {}
    for key, spec in (sequence_features or {}).items():
        if isinstance(spec, VarLenFeature):
            sparse = [_varlen_feature_list(s, key, spec) for s in seqs]
            idx, vals, frames, width = [], [], 0, 0
            for b, sv in enumerate(sparse):
                shape = sv.dense_shape.numpy().tolist()
                frames, width = max(frames, shape[0]), max(width, shape[1])
                idx.extend([b] + r for r in sv.indices.numpy().tolist())
                vals.append(sv.values)
            values = data_ops.concat(vals) if vals else _dense([], spec.dtype, [0])
            feature_list[key] = SparseValue(_int64(idx, [-1, 3]), values,
                                            _int64([len(sparse), frames, width], [3]))
            continue
        cols = [_fixed_feature_list(s, key, spec) for s in seqs]
        counts = [int(c._t.shape[0]) for c in cols]  # each list's frames
        longest = max(counts, default=0)
        pv = spec.default_value if spec.default_value is not None else (
            b"" if dtypes.as_dtype(spec.dtype) == dtypes.string else 0)
        shape = [longest] + known_shape(spec, key)
        feature_list[key] = data_ops.padded_stack(cols, shape, pv)
        lengths[key] = _int64(counts, [len(cols)])
    return context, feature_list, lengths


@public("torchflow.io")
def decode_json_example(json_examples, name=None) -> Tensor:
    """Converts JSON-encoded ``tf.train.Example`` records (protobuf's JSON mapping) to
    binary protos.

    Args:
      json_examples: A string tensor of JSON-encoded ``Example`` protos.
      name: Unused (eager).

    Returns:
      A string tensor of serialized ``Example`` protos, same shape.

    Raises:
      InvalidArgumentError: If a string is not an Example in JSON.
    """
    t = json_examples if isinstance(json_examples, Tensor) else data_ops.as_tensor(
        json_examples, dtypes.string)
    arr = np.asarray(t.numpy(), dtype=object)
    out = np.empty(arr.shape, dtype=object)
    src, dst = arr.reshape(-1), out.reshape(-1)
    for i, s in enumerate(src):
        text = s.decode("utf-8") if isinstance(s, bytes) else str(s)
        try:
            dst[i] = json_format.Parse(text, example_pb2.Example()).SerializeToString()
        except json_format.ParseError as e:
            raise InvalidArgumentError(None, None, f"Error while parsing JSON: {e} "
                                       "[Op:DecodeJSONExample]") from None
    return data_ops.from_numpy(out, dtypes.string)
