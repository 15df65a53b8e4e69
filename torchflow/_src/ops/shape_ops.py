"""Shape queries and broadcasting: shape, size, rank, broadcast_to, meshgrid, ..."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.ops._array_helpers import (
    int_list,
    int_value,
    is_str,
    op_error,
    tensor_of,
    tfname,
)
from torchflow._src.ops._dispatch import COMPOSITE
from torchflow._src.util.api import public

_i32 = dtypes.int32


def _out_type(out_type, op: str) -> dtypes.DType:
    d = dtypes.as_dtype(out_type)
    if d is not dtypes.int32 and d is not dtypes.int64:
        raise op_error(op, f"Value for attr 'out_type' of {tfname(d)} is not in the list of "
                           f"allowed values: int32, int64")
    return d


def _device(t):
    return torch.device("cpu") if isinstance(t, np.ndarray) else t.device


@public("torchflow")
def shape(input, out_type=_i32, name=None) -> Tensor:
    """Returns the shape of a tensor as a 1-D int tensor (int32 by default).

    Args:
      input: A tensor (or ``SparseTensor``) or anything convertible.
      out_type: ``tf.int32`` (default) or ``tf.int64``: the result's dtype.
      name: Unused (eager).

    Returns:
      A 1-D tensor of ``out_type`` with ``rank(input)`` entries (a SparseTensor's
      ``dense_shape``).

    Raises:
      ValueError: For a ``RaggedTensor``, as in TF 2.4 (whose ``tf.shape`` had no
        ragged form; use ``bounding_shape()`` or ``row_lengths()``).

    >>> import torchflow as tf
    >>> tf.shape(tf.zeros([2, 3])).numpy()
    array([2, 3], dtype=int32)
    """
    d = out_type if out_type is _i32 else _out_type(out_type, "Shape")
    if type(input) in COMPOSITE:  # tf.SparseTensor: its dense_shape; tf.RaggedTensor raises
        return COMPOSITE[type(input)].shape(input, d)
    x = tensor_of(input)
    t = x._t
    if graph_trace._ACTIVE is not None and isinstance(t, torch.Tensor):
        node = graph_trace.shape_value(t, d._torch)  # read again on every replay
        if node is not None:
            return wrap(node, d)
    return wrap(torch.tensor(tuple(t.shape), dtype=d._torch, device=_device(t)), d)


@public("torchflow")
def shape_n(input, out_type=_i32, name=None) -> list:
    """Returns the shapes of a list of tensors.

    Args:
      input: A list of tensors.
      out_type: ``tf.int32`` (default) or ``tf.int64``: the result's dtype.
      name: Unused (eager).

    Returns:
      A list of 1-D ``out_type`` tensors, one per input.
    """
    return [shape(x, out_type) for x in input]


@public("torchflow")
def size(input, out_type=_i32, name=None) -> Tensor:
    """Returns the number of elements of a tensor as a scalar (int32 by default).

    Args:
      input: A tensor (or ``SparseTensor``) or anything convertible.
      out_type: ``tf.int32`` (default) or ``tf.int64``: the result's dtype.
      name: Unused (eager).

    Returns:
      A 0-D tensor of ``out_type``: the element count.
    """
    d = _out_type(out_type, "Size")
    if type(input) in COMPOSITE:  # tf.SparseTensor, tf.RaggedTensor
        return COMPOSITE[type(input)].size(input, d)
    x = tensor_of(input)
    if graph_trace._ACTIVE is not None and isinstance(x._t, torch.Tensor):
        node = graph_trace.shape_value(x._t, d._torch, size=True)  # read on every replay
        if node is not None:
            return wrap(node, d)
    n = x._t.size if is_str(x._t) else x._t.numel()
    return wrap(torch.tensor(n, dtype=d._torch, device=_device(x._t)), d)


@public("torchflow")
def rank(input, name=None) -> Tensor:
    """Returns the rank of a tensor as an int32 scalar.

    Args:
      input: A tensor or anything ``tf.convert_to_tensor`` accepts.
      name: Unused (eager).

    Returns:
      A 0-D int32 tensor.
    """
    if type(input) in COMPOSITE:  # tf.SparseTensor, tf.RaggedTensor
        return COMPOSITE[type(input)].rank(input)
    x = tensor_of(input)
    return wrap(torch.tensor(x._t.ndim, dtype=torch.int32, device=_device(x._t)), _i32)


def _bcast_dims(a: list, b: list):
    """Broadcast of two fully known shapes, or None if they are incompatible."""
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif x is None or y is None:
            out.append(None if (x is None and y is None) or (x or y) == 1 else (x or y))
        else:
            return None
    return out[::-1]


@public("torchflow")
def broadcast_to(input, shape, name=None) -> Tensor:
    """Broadcasts ``input`` to ``shape`` (NumPy rules).

    Args:
      input: A tensor of any dtype.
      shape: A 1-D int32/int64 list or tensor: the target shape.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape ``shape``.

    Raises:
      InvalidArgumentError: If the shapes are incompatible.
    """
    x = tensor_of(input)
    dims = int_list(shape, "shape")
    src = list(x._t.shape)
    out = _bcast_dims(src, dims)
    if out is None or out != dims:
        raise op_error("BroadcastTo", f"Incompatible shapes: [{','.join(map(str, src))}] vs. "
                                      f"[{','.join(map(str, dims))}]")
    if is_str(x._t):
        return wrap(np.array(np.broadcast_to(x._t, dims)), dtypes.string)
    return wrap(x._t.expand(dims), x._dtype)


@public("torchflow")
def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The broadcast of two ``TensorShape``s.

    Args:
      shape_x: A ``TensorShape``.
      shape_y: A ``TensorShape``.

    Returns:
      A ``TensorShape``: the broadcast shape (unknown dimensions stay unknown).

    Raises:
      ValueError: If the shapes cannot be broadcast.
    """
    sx, sy = as_shape(shape_x), as_shape(shape_y)
    if sx.rank is None or sy.rank is None:
        return TensorShape(None)
    out = _bcast_dims(sx.as_list(), sy.as_list())
    if out is None:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if "
                         f"for each dimension pair they are either equal or one of them is 1. "
                         f"Received: {sx} and {sy}.")
    return TensorShape(out)


@public("torchflow")
def broadcast_dynamic_shape(shape_x, shape_y) -> Tensor:
    """The broadcast of two shapes given as 1-D int tensors.

    Args:
      shape_x: A 1-D int32/int64 tensor: a shape.
      shape_y: A 1-D int tensor of the same dtype: another shape.

    Returns:
      A 1-D tensor of the inputs' dtype: the broadcast shape.

    Raises:
      InvalidArgumentError: If the shapes cannot be broadcast.
    """
    tx = tensor_of(shape_x)
    ty = tensor_of(shape_y, tx._dtype)
    a, b = int_list(tx, "shape_x"), int_list(ty, "shape_y")
    out = _bcast_dims(a, b)
    if out is None:
        raise op_error("BroadcastArgs", f"Incompatible shapes: [{','.join(map(str, a))}] vs. "
                                        f"[{','.join(map(str, b))}]")
    return wrap(torch.tensor(out, dtype=tx._dtype._torch), tx._dtype)


@public("torchflow")
def meshgrid(*args, **kwargs) -> list:
    """Broadcasts 1-D coordinate arrays into N-D grids.

    Args:
      *args: 1-D Tensors.
      indexing: "xy" (Cartesian, default) or "ij" (matrix).
      name: Unused (eager).

    Returns:
      A list of N-D Tensors.

    Raises:
      TypeError: For unknown keyword arguments.
      ValueError: For an unknown ``indexing``.
    """
    indexing = kwargs.get("indexing", "xy")
    unknown = [k for k in kwargs if k not in ("indexing", "name")]
    if unknown:
        raise TypeError(f"'{unknown[0]}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    xs = [tensor_of(a) for a in args]
    if not xs:
        return []
    if any(is_str(x._t) for x in xs):
        grids = np.meshgrid(*[x._t.reshape(-1) for x in xs], indexing=indexing)
        return [wrap(np.array(g, dtype=object), dtypes.string) for g in grids]
    d = xs[0]._dtype
    for x in xs[1:]:
        if x._dtype is not d:
            raise InvalidArgumentError(None, None, f"meshgrid: all inputs must have the same "
                                                   f"dtype, got {d.name} and {x._dtype.name}")
    grids = torch.meshgrid(*[x._t.reshape(-1) for x in xs], indexing=indexing)
    return [wrap(g, d) for g in grids]


@public("torchflow")
def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None) -> Tensor:
    """Mask of the first ``lengths[i]`` positions of each row: ``range(maxlen) < lengths``.

    Args:
      lengths: An integer tensor.
      maxlen: Length of the new last dimension (default ``max(lengths)``).
      dtype: Output dtype (default bool).
      name: Unused (eager).

    Returns:
      A Tensor of shape ``lengths.shape + [maxlen]``.

    >>> import torchflow as tf
    >>> tf.sequence_mask([1, 3], 4).numpy()
    array([[ True, False, False, False],
           [ True,  True,  True, False]])
    """
    ln = tensor_of(lengths)
    if not ln._dtype.is_integer and not ln._dtype.is_floating:
        raise TypeError(f"tf.sequence_mask: lengths must be numeric, got {ln._dtype.name}")
    t = ln._t
    if maxlen is None:
        m = int(t.max().item()) if t.numel() else 0
    else:
        m = int_value(maxlen, "maxlen") if not isinstance(maxlen, float) else int(maxlen)
        if m < 0:  # TF builds the mask with tf.range(maxlen)
            raise InvalidArgumentError(
                None, None, f"Requires start <= limit when delta > 0: 0/{m} [Op:Range]")
    mask = torch.arange(m, device=t.device) < t.unsqueeze(-1)
    d = dtypes.as_dtype(dtype)
    return wrap(mask if d is dtypes.bool else mask.to(d._torch), d)


@public("torchflow")
def ensure_shape(x, shape, name=None) -> Tensor:
    """Checks that ``x`` has a shape compatible with ``shape`` and returns it.

    Args:
      x: A tensor.
      shape: A ``TensorShape`` or list; None entries match any size.
      name: Unused (eager).

    Returns:
      ``x`` itself (same dtype and shape) when the check passes.

    Raises:
      InvalidArgumentError: If the shapes are incompatible.
    """
    t = tensor_of(x)
    want = as_shape(shape)
    if not t.shape.is_compatible_with(want):
        got = ",".join(map(str, t._t.shape))
        exp = "<unknown>" if want.rank is None else \
            ",".join("?" if d is None else str(d) for d in want.as_list())
        raise op_error("EnsureShape", f"Shape of tensor input [{got}] is not compatible with "
                                      f"expected shape [{exp}].")
    return t


@public("torchflow")
def guarantee_const(input, name=None) -> Tensor:
    """Returns ``input`` unchanged (a graph-mode hint in TF).

    Args:
      input: A tensor.
      name: Unused (eager).

    Returns:
      A tensor with ``input``'s dtype, shape and values.
    """
    return tensor_of(input)


__all__ = ["shape", "shape_n", "size", "rank", "broadcast_to", "broadcast_static_shape",
           "broadcast_dynamic_shape", "meshgrid", "sequence_mask", "ensure_shape",
           "guarantee_const"]
