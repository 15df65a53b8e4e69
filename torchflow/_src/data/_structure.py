"""Element structures: flatten / pack nested tuples, dicts and namedtuples of tensors.

tf.data's rules (not tf.nest's): inside a dataset element a Python ``list`` is a
value (it becomes one tensor), while in what a ``map`` function returns lists
are read as tuples, as TF 2.4 does.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core.composite_tensor import CompositeTensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.ops import data_ops


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x) -> bool:
    return isinstance(x, (tuple, dict))


def flatten(s) -> list:
    """The leaves of ``s`` in tf.nest order (dicts by sorted key)."""
    t = type(s)
    if t is Tensor:
        return [s]
    if t is tuple:
        if all(type(v) is Tensor for v in s):
            return list(s)
    out: list = []
    _flatten_into(s, out)
    return out


def _flatten_into(s, out: list) -> None:
    if isinstance(s, dict):
        for k in sorted(s):
            _flatten_into(s[k], out)
    elif isinstance(s, tuple):
        for v in s:
            _flatten_into(v, out)
    else:
        out.append(s)


def pack_as(structure, flat: list):
    """Rebuilds ``structure``'s nesting from ``flat`` leaves."""
    if not is_nested(structure):
        return flat[0]
    it = iter(flat)
    return _pack(structure, it)


def _pack(s, it):
    if isinstance(s, dict):
        vals = {k: _pack(s[k], it) for k in sorted(s)}
        return type(s)((k, vals[k]) for k in s) if type(s) is not dict else {k: vals[k] for k in s}
    if isinstance(s, tuple):
        vals = [_pack(v, it) for v in s]
        return type(s)(*vals) if _is_namedtuple(s) else type(s)(vals)
    return next(it)


def map_structure(fn, s):
    return pack_as(s, [fn(v) for v in flatten(s)])


def same_structure(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and sorted(a) == sorted(b) and all(
            same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(
            same_structure(x, y) for x, y in zip(a, b))
    return not is_nested(b)


def normalize(value, lists_are_tuples: bool = False):
    """``value`` with every leaf converted to a Tensor.

    Args:
      value: A nested structure of tensors, arrays and Python values.
      lists_are_tuples: Read Python lists as tuples (map outputs) rather than as
        values to convert (dataset sources).
    """
    t = type(value)
    if t is Tensor:
        return value
    if t is tuple and all(type(v) is Tensor for v in value):
        return value
    if isinstance(value, dict):
        return type(value)((k, normalize(v, lists_are_tuples)) for k, v in value.items())
    if isinstance(value, tuple):
        vals = [normalize(v, lists_are_tuples) for v in value]
        return t(*vals) if _is_namedtuple(value) else tuple(vals)
    if lists_are_tuples and t is list:
        return tuple(normalize(v, True) for v in value)
    if value is None:
        raise TypeError("tf.data elements cannot be None.")
    if isinstance(value, CompositeTensor):
        return value  # tf.RaggedTensor (and other composites): one leaf, spec from _type_spec
    if hasattr(value, "dense_shape") and hasattr(value, "indices"):
        return value  # a sparse value (VarLenFeature): kept as one leaf
    return data_ops.as_tensor(value)


def _leaf_spec(t):
    if isinstance(t, CompositeTensor):
        return t._type_spec
    return TensorSpec(t.shape, t.dtype)


def spec_of(element):
    """The nested ``TensorSpec`` (``TypeSpec`` for composite leaves) of a concrete element."""
    return map_structure(_leaf_spec, element)


def is_composite_spec(s) -> bool:
    """True for a leaf spec that is not a plain ``TensorSpec`` (``RaggedTensorSpec``...)."""
    return hasattr(s, "_to_components") and not isinstance(s, TensorSpec)


def unbatched_spec(spec):
    return map_structure(
        lambda s: s._unbatch() if is_composite_spec(s) else TensorSpec(
            s.shape[1:] if s.shape.rank else None, s.dtype), spec)


def batched_spec(spec, dim):
    return map_structure(
        lambda s: s._batch(dim) if is_composite_spec(s) else TensorSpec(
            TensorShape([dim]).concatenate(s.shape), s.dtype), spec)


def merge_specs(a, b):
    """The most specific spec both ``a`` and ``b`` (same structure) are compatible with."""
    fa, fb = flatten(a), flatten(b)
    return pack_as(a, [x.most_specific_compatible_type(y) for x, y in zip(fa, fb)])


def to_numpy(element):
    """``element`` with every leaf as a NumPy value (scalars as NumPy scalars)."""
    def conv(t):
        a = t.numpy()
        return a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a
    return map_structure(conv, element)
