"""Ragged elements in dataset graphs: TF's ``RaggedTensorVariant`` constants.

A dataset of ``RaggedTensor`` elements holds each element as one ``DT_VARIANT``
scalar (shape unknown in ``output_shapes``). ``from_tensor_slices`` of a RaggedTensor
is a ``TensorSliceDataset`` over a ``DT_VARIANT`` constant with one
``RaggedTensorVariant`` per row (its nested row splits, rebased to 0, then its
values), as TF's ``RaggedTensorToVariant(batched_input=True)`` makes them and TF folds
into a ``Const``. This module writes and reads those constants.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, errors
from torchflow._src.core.proto import tf_tensor_pb2
from torchflow._src.ops import data_ops
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.tensor_proto_ops import from_proto, to_proto

DT_VARIANT = 21
_TYPE_NAME = "RaggedTensorVariant"


def _tensor(a: np.ndarray, dtype):
    if dtype == dtypes.string:
        return data_ops.bytes_tensor(a.reshape(-1).tolist(), a.shape)
    return data_ops.from_numpy(np.ascontiguousarray(a), dtype)


def rows_proto(rt: RaggedTensor):
    """The ``DT_VARIANT`` ``TensorProto`` of ``rt``'s rows."""
    splits = [np.asarray(s.numpy()) for s in rt.nested_row_splits]
    sdtype = rt.row_splits.dtype
    values = rt.flat_values
    vals = np.asarray(values.numpy())
    n = len(splits[0]) - 1
    p = tf_tensor_pb2.TensorProto(dtype=DT_VARIANT)
    p.tensor_shape.dim.add(size=n)
    for i in range(n):
        lo, hi = int(splits[0][i]), int(splits[0][i + 1])
        row_splits = []
        for s in splits[1:]:
            row_splits.append(s[lo:hi + 1] - s[lo])
            lo, hi = int(s[lo]), int(s[hi])
        v = p.variant_val.add(type_name=_TYPE_NAME)
        for t in [_tensor(s, sdtype) for s in row_splits] + [_tensor(vals[lo:hi], values.dtype)]:
            # to_proto's class is another pool's TensorProto: copied as bytes
            v.tensors.add().MergeFromString(to_proto(t).SerializeToString())
    return p


def value_proto(rt: RaggedTensor):
    """The scalar ``DT_VARIANT`` ``TensorProto`` of all of ``rt`` (``from_tensors``)."""
    p = tf_tensor_pb2.TensorProto(dtype=DT_VARIANT)
    p.tensor_shape.SetInParent()
    v = p.variant_val.add(type_name=_TYPE_NAME)
    for t in list(rt.nested_row_splits) + [rt.flat_values]:
        v.tensors.add().MergeFromString(to_proto(t).SerializeToString())
    return p


def _variants(p) -> list:
    if p.variant_val or not p.tensor_content:
        return list(p.variant_val)
    # TF's tensor_content of a variant tensor: the n lengths as varints, then each
    # serialized VariantTensorDataProto.
    n = int(np.prod([d.size for d in p.tensor_shape.dim]))
    content, pos, lengths = p.tensor_content, 0, []
    for _ in range(n):
        v = shift = 0
        while True:
            b = content[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        lengths.append(v)
    out = []
    for k in lengths:
        out.append(tf_tensor_pb2.VariantTensorDataProto.FromString(content[pos:pos + k]))
        pos += k
    return out


def ragged_from_rows(p) -> RaggedTensor:
    """The RaggedTensor whose rows a ``DT_VARIANT`` ``TensorProto`` holds (a scalar: the
    one RaggedTensor it holds)."""
    if not p.tensor_shape.dim:
        (v,) = _variants(p)
        ts = [from_proto(t) for t in v.tensors]
        if v.type_name != _TYPE_NAME or len(ts) < 2:
            raise errors.UnimplementedError(
                None, None, f"Cannot rebuild a dataset constant of variant {v.type_name!r}")
        return RaggedTensor.from_nested_row_splits(ts[-1], ts[:-1], validate=False)
    rows = []
    for v in _variants(p):
        if v.type_name != _TYPE_NAME or not v.tensors:
            raise errors.UnimplementedError(
                None, None, f"Cannot rebuild a dataset constant of variant {v.type_name!r}")
        ts = [from_proto(t) for t in v.tensors]
        rows.append(([np.asarray(t.numpy()) for t in ts[:-1]], ts[-1]))
    if not rows:
        raise errors.UnimplementedError(
            None, None, "Cannot rebuild an empty RaggedTensor constant (no rows give its type)")
    depth = len(rows[0][0])
    sdtype = dtypes.as_dtype(rows[0][0][0].dtype) if depth else dtypes.int64
    vdtype = rows[0][1].dtype
    outer = [0]
    levels: list = [[np.zeros(1, sdtype.as_numpy_dtype)] for _ in range(depth)]
    offsets = [0] * depth
    values = []
    for splits, vals in rows:
        outer.append(outer[-1] + (len(splits[0]) - 1 if depth else int(vals.shape[0])))
        for j, s in enumerate(splits):
            levels[j].append(s[1:] + offsets[j])
            offsets[j] += int(s[-1])
        values.append(np.asarray(vals.numpy()))
    nested = [_tensor(np.asarray(outer, sdtype.as_numpy_dtype), sdtype)] + [
        _tensor(np.concatenate(lv).astype(sdtype.as_numpy_dtype), sdtype) for lv in levels]
    return RaggedTensor.from_nested_row_splits(
        _tensor(np.concatenate(values), vdtype), nested, validate=False)
