"""``StructuredValue`` (TF's ``struct.proto``) to Python structures and back.

A SavedModel keeps the input signature and the output structure of each concrete
function, and a function's ``FullArgSpec``, as ``StructuredValue`` protos: nests
of lists, tuples, dicts and named tuples whose leaves are ``TensorSpec``s,
Python scalars, strings, ``None``, shapes and dtypes; a ``RaggedTensorSpec`` or
``SparseTensorSpec`` leaf is a ``TypeSpecProto`` of TF's ``type_spec_class`` whose
``type_state`` is the spec's serialization (TF's ``_serialize()`` tuple).
"""

from __future__ import annotations

import collections

import numpy as np

from torchflow._src.core import dtypes, errors
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.proto import tf_struct_pb2
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensorSpec
from torchflow._src.ops.sparse.sparse_tensor import SparseTensorSpec
from torchflow._src.ops.tensor_proto_ops import from_proto, to_proto

_TSP = tf_struct_pb2.TypeSpecProto
# The composite specs a SavedModel signature may hold, by TF's TypeSpecClass.
_COMPOSITE_SPECS = {_TSP.RAGGED_TENSOR_SPEC: RaggedTensorSpec,
                    _TSP.SPARSE_TENSOR_SPEC: SparseTensorSpec}
_SPEC_CLASS = {v: k for k, v in _COMPOSITE_SPECS.items()}


def is_composite_spec(s) -> bool:
    """Whether ``s`` is a ragged or sparse spec (whose value is several graph inputs)."""
    return type(s) in _SPEC_CLASS


def component_specs(s) -> list:
    """The ``TensorSpec`` of each flat component of a composite spec (TF's order:
    ``flat_values`` then the ``row_splits``; ``indices``, ``values``, ``dense_shape``);
    ``[]`` for anything else."""
    if not is_composite_spec(s):
        return []
    return [c for c in _flatten_specs(s._component_specs)]


def _flatten_specs(x) -> list:
    if isinstance(x, (list, tuple)):
        return [c for e in x for c in _flatten_specs(e)]
    return [x]


def output_spec(x, unknown_inputs: bool):
    """The spec written for an output ``x`` of a trace whose unknown input dimensions
    stood at 1 (those 1s are written unknown); ``x`` itself if not a tensor."""
    if isinstance(x, Tensor) or not is_composite_spec(getattr(x, "_type_spec", None)):
        return x
    spec = x._type_spec
    dims = spec.shape.as_list() if spec.shape.rank is not None else None
    if dims is not None and unknown_inputs:
        dims = [None if d == 1 else d for d in dims]
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec(TensorShape(dims), spec.dtype, spec.ragged_rank,
                                spec.row_splits_dtype)
    return SparseTensorSpec(TensorShape(dims), spec.dtype)


class OpaqueTypeSpec:
    """A ``TypeSpecProto`` this loader does not rebuild (ragged, sparse, dataset, ...);
    kept so that a signature using it is reported, not misread."""

    def __init__(self, proto):
        self.type_spec_class = tf_struct_pb2.TypeSpecProto.TypeSpecClass.Name(
            proto.type_spec_class) if proto.type_spec_class in \
            tf_struct_pb2.TypeSpecProto.TypeSpecClass.values() else str(proto.type_spec_class)
        self.type_spec_class_name = proto.type_spec_class_name
        self.type_state = decode(proto.type_state) if proto.HasField("type_state") else None

    def __repr__(self) -> str:
        return f"{self.type_spec_class_name or self.type_spec_class}({self.type_state!r})"


def _shape(proto) -> TensorShape:
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else int(d.size) for d in proto.dim])


def _dtype(enum: int):
    try:
        return dtypes.as_dtype(int(enum))
    except (TypeError, ValueError, KeyError):
        raise errors.InvalidArgumentError(
            None, None, f"The SavedModel uses dtype enum {enum}, which torchflow has no "
            "dtype for") from None


_namedtuple_types: dict = {}


def _namedtuple(name: str, fields: tuple):
    key = (name, fields)
    tp = _namedtuple_types.get(key)
    if tp is None:
        tp = _namedtuple_types[key] = collections.namedtuple(name, fields)
    return tp


def decode(sv):
    """The Python value of a ``StructuredValue``."""
    kind = sv.WhichOneof("kind")
    if kind is None or kind == "none_value":
        return None
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return getattr(sv, kind)
    if kind == "tensor_shape_value":
        return _shape(sv.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return _dtype(sv.tensor_dtype_value)
    if kind in ("tensor_spec_value", "bounded_tensor_spec_value"):
        spec = getattr(sv, kind)
        return TensorSpec(_shape(spec.shape), _dtype(spec.dtype), spec.name or None)
    if kind == "type_spec_value":
        proto = sv.type_spec_value
        cls = _COMPOSITE_SPECS.get(proto.type_spec_class)
        if cls is not None and proto.HasField("type_state"):
            state = decode(proto.type_state)
            if isinstance(state, tuple):
                return cls._deserialize(state)
        return OpaqueTypeSpec(proto)
    if kind == "list_value":
        return [decode(v) for v in sv.list_value.values]
    if kind == "tuple_value":
        return tuple(decode(v) for v in sv.tuple_value.values)
    if kind == "dict_value":
        return {k: decode(v) for k, v in sv.dict_value.fields.items()}
    if kind == "named_tuple_value":
        nt = sv.named_tuple_value
        fields = tuple(p.key for p in nt.values)
        return _namedtuple(nt.name, fields)(*(decode(p.value) for p in nt.values))
    if kind == "tensor_value":
        return from_proto(sv.tensor_value)
    if kind == "numpy_value":
        return np.asarray(from_proto(sv.numpy_value).numpy())
    raise errors.InvalidArgumentError(None, None, f"Unknown StructuredValue kind {kind}")


def _shape_proto(shape, out) -> None:
    shape = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
    if shape.rank is None:
        out.unknown_rank = True
        return
    for d in shape.as_list():
        out.dim.add(size=-1 if d is None else int(d))


def encode(value):
    """The ``StructuredValue`` of a Python structure (the inverse of ``decode``)."""
    sv = tf_struct_pb2.StructuredValue()
    if value is None:
        sv.none_value.SetInParent()
    elif isinstance(value, bool):
        sv.bool_value = value
    elif isinstance(value, int):
        sv.int64_value = value
    elif isinstance(value, float):
        sv.float64_value = value
    elif isinstance(value, str):
        sv.string_value = value
    elif isinstance(value, TensorShape):
        _shape_proto(value, sv.tensor_shape_value)
    elif isinstance(value, dtypes.DType):
        sv.tensor_dtype_value = value.as_datatype_enum
    elif isinstance(value, TensorSpec):
        spec = sv.tensor_spec_value
        spec.name = value.name or ""
        _shape_proto(value.shape, spec.shape)
        spec.dtype = value.dtype.as_datatype_enum
    elif isinstance(value, TypeSpec) and is_composite_spec(value):
        ts = sv.type_spec_value
        ts.type_spec_class = _SPEC_CLASS[type(value)]
        ts.type_state.CopyFrom(encode(tuple(value._serialize())))
        ts.type_spec_class_name = type(value).__name__
        ts.num_flat_components = len(component_specs(value))
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        nt = sv.named_tuple_value
        nt.name = type(value).__name__
        for k, v in zip(value._fields, value):
            nt.values.add(key=k).value.CopyFrom(encode(v))
    elif isinstance(value, tuple):
        sv.tuple_value.SetInParent()
        sv.tuple_value.values.extend(encode(v) for v in value)
    elif isinstance(value, list):
        sv.list_value.SetInParent()
        sv.list_value.values.extend(encode(v) for v in value)
    elif isinstance(value, dict):
        sv.dict_value.SetInParent()
        for k, v in value.items():
            sv.dict_value.fields[str(k)].CopyFrom(encode(v))
    elif hasattr(value, "dtype") and hasattr(value, "numpy"):
        sv.tensor_value.ParseFromString(to_proto(value).SerializeToString())
    else:
        raise ValueError(f"Cannot convert {value!r} (a {type(value).__name__}) to a "
                         "StructuredValue")
    return sv
