"""TF's TensorList ops for ``graph_exec`` (the loop state of ``tf.while_loop`` graphs:
Keras' LSTM/GRU/SimpleRNN bodies read their inputs and write their outputs with them).

A TensorList is a ``DT_VARIANT`` value with value semantics: each op returns a
new list, so a handle an earlier iteration holds never changes. Here it is a
``TensorList`` object holding a Python list of tensors (``None`` for an unset
element), its element dtype and its element shape.
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes, errors
from torchflow._src.core.convert import constant
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.ops import array_ops, creation_ops, numpy_ops


class TensorList:
    __slots__ = ("items", "dtype", "element_shape")

    def __init__(self, items: list, dtype, element_shape):
        self.items = items
        self.dtype = dtype
        self.element_shape = element_shape


def _shape_of(value):
    """An element_shape input (a tensor; -1 or a -1 entry for unknown) as a TensorShape."""
    a = value.numpy() if hasattr(value, "numpy") else value
    try:
        dims = [int(d) for d in a.reshape(-1)] if getattr(a, "ndim", 0) else int(a)
    except (TypeError, ValueError):
        return TensorShape(None)
    if isinstance(dims, int):
        return TensorShape(None) if dims == -1 else TensorShape([dims])
    return TensorShape([None if d < 0 else d for d in dims])


def _int(value) -> int:
    """A scalar index input's value (one host read, as TF's kernel makes)."""
    t = getattr(value, "_t", None)
    if isinstance(t, torch.Tensor):
        if t.numel() != 1:
            raise errors.InvalidArgumentError(
                None, None, f"The index of a TensorList op must be a scalar, got shape "
                f"{list(t.shape)}")
        return int(t)
    return int(value.numpy()) if hasattr(value, "numpy") else int(value)


def _index(value, n: int, op: str) -> int:
    i = value if type(value) is int else _int(value)
    if not 0 <= i < n:
        raise errors.InvalidArgumentError(
            None, None, f"Trying to access element {i} in a list with {n} elements. [Op:{op}]")
    return i


def _list(x, op: str) -> TensorList:
    if not isinstance(x, TensorList):
        raise errors.InvalidArgumentError(
            None, None, f"Input 0 of {op} must be a TensorList, got {type(x).__name__} [Op:{op}]")
    return x


def _zeros(shape: TensorShape, dtype, op: str):
    if not shape.is_fully_defined():
        raise errors.InvalidArgumentError(
            None, None, f"Trying to read an uninitialized tensor with element shape {shape}; "
            f"the shape must be fully defined [Op:{op}]")
    return creation_ops.zeros(shape.as_list(), dtype=dtype)


def _reserve(library, attrs, inputs):
    element_shape, num = inputs
    return [TensorList([None] * int(num.numpy()), attrs.get("element_dtype"),
                       _shape_of(element_shape))]


def _empty(library, attrs, inputs):
    return [TensorList([], attrs.get("element_dtype"), _shape_of(inputs[0]))]


def _from_tensor(library, attrs, inputs):
    tensor, element_shape = inputs
    n = numpy_ops.shape_tuple(tensor)[0]
    items = list(array_ops.unstack(tensor, num=n, axis=0)) if n else []
    shape = TensorShape(list(numpy_ops.shape_tuple(tensor)[1:]))
    return [TensorList(items, tensor.dtype, shape)]


def _get_item(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListGetItem")
    i = _index(inputs[1], len(lst.items), "TensorListGetItem")
    item = lst.items[i]
    if item is None:
        shape = lst.element_shape.merge_with(_shape_of(inputs[2])) if len(inputs) > 2 else \
            lst.element_shape
        item = _zeros(shape, attrs.get("element_dtype", lst.dtype), "TensorListGetItem")
    return [item]


def _set_item(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListSetItem")
    items = list(lst.items)
    i = _int(inputs[1])
    if attrs.get("resize_if_index_out_of_bounds") and i >= len(items):
        items.extend([None] * (i + 1 - len(items)))
    i = _index(i, len(items), "TensorListSetItem")
    items[i] = inputs[2]
    return [TensorList(items, lst.dtype, lst.element_shape)]


def _stack(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListStack")
    dtype = attrs.get("element_dtype", lst.dtype)
    shape = lst.element_shape
    if len(inputs) > 1:
        shape = shape.merge_with(_shape_of(inputs[1])) if shape.rank is not None else \
            _shape_of(inputs[1])
    known = [t for t in lst.items if t is not None]
    if known:
        shape = TensorShape(list(numpy_ops.shape_tuple(known[0])))
    items = [t if t is not None else _zeros(shape, dtype, "TensorListStack")
             for t in lst.items]
    if not items:
        return [_zeros(TensorShape([0]).concatenate(shape), dtype, "TensorListStack")]
    return [array_ops.stack(items, axis=0)]


def _length(library, attrs, inputs):
    return [constant(len(_list(inputs[0], "TensorListLength").items), dtype=dtypes.int32)]


def _push_back(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListPushBack")
    return [TensorList(lst.items + [inputs[1]], lst.dtype, lst.element_shape)]


def _pop_back(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListPopBack")
    if not lst.items:
        raise errors.InvalidArgumentError(
            None, None, "Trying to pop from an empty list. [Op:TensorListPopBack]")
    item = lst.items[-1]
    if item is None:
        item = _zeros(lst.element_shape, attrs.get("element_dtype", lst.dtype),
                      "TensorListPopBack")
    return [TensorList(lst.items[:-1], lst.dtype, lst.element_shape), item]


def _resize(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListResize")
    n = _int(inputs[1])
    if n < 0:
        raise errors.InvalidArgumentError(
            None, None, f"TensorListSlice expects size to be non-negative. Got: {n} "
            "[Op:TensorListResize]")
    items = lst.items[:n] + [None] * (n - len(lst.items))
    return [TensorList(items, lst.dtype, lst.element_shape)]


def _ints(value) -> list:
    a = value.numpy() if hasattr(value, "numpy") else value
    return [int(v) for v in a.reshape(-1)] if hasattr(a, "reshape") else [int(v) for v in a]


def _stacked(items: list, shape: TensorShape, dtype, op: str):
    items = [t if t is not None else _zeros(shape, dtype, op) for t in items]
    if not items:
        return _zeros(TensorShape([0]).concatenate(shape), dtype, op)
    return array_ops.stack(items, axis=0)


def _gather(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListGather")
    dtype = attrs.get("element_dtype", lst.dtype)
    idx = [_index(i, len(lst.items), "TensorListGather") for i in _ints(inputs[1])]
    shape, given = lst.element_shape, _shape_of(inputs[2])
    if given.rank is not None:
        shape = given if shape.rank is None else shape.merge_with(given)
    known = [t for t in lst.items if t is not None]
    if known:
        shape = TensorShape(list(numpy_ops.shape_tuple(known[0])))
    return [_stacked([lst.items[i] for i in idx], shape, dtype, "TensorListGather")]


def _scatter_into(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListScatterIntoExistingList")
    tensor, idx = inputs[1], _ints(inputs[2])
    rows = numpy_ops.shape_tuple(tensor)
    if not rows or rows[0] != len(idx):
        raise errors.InvalidArgumentError(
            None, None, f"Invalid number of rows in input tensor. Expected: {len(idx)} "
            f"Actual: {rows[0] if rows else 0} [Op:TensorListScatterIntoExistingList]")
    items = list(lst.items)
    for k, i in enumerate(idx):
        if i < 0:
            raise errors.InvalidArgumentError(
                None, None, "Indices in TensorListScatter must all be non-negative. "
                "[Op:TensorListScatterIntoExistingList]")
        if i >= len(items):
            items.extend([None] * (i + 1 - len(items)))
        items[i] = tensor[k]
    return [TensorList(items, lst.dtype, lst.element_shape)]


def _split(library, attrs, inputs):
    tensor, element_shape, lengths = inputs
    dims = numpy_ops.shape_tuple(tensor)
    lens = _ints(lengths)
    if not dims or sum(lens) != dims[0] or any(n < 0 for n in lens):
        raise errors.InvalidArgumentError(
            None, None, f"Unable to split tensor of shape {list(dims)} into lengths {lens} "
            "[Op:TensorListSplit]")
    items, start = [], 0
    for n in lens:
        items.append(tensor[start:start + n])
        start += n
    return [TensorList(items, tensor.dtype, TensorShape([None] + list(dims[1:])))]


def _concat(library, attrs, inputs):
    lst = _list(inputs[0], "TensorListConcatV2")
    dtype = attrs.get("element_dtype", lst.dtype)
    if any(t is None for t in lst.items) or not lst.items:
        shape = _shape_of(inputs[1])
        rest = TensorShape(None) if shape.rank is None else TensorShape(shape.as_list()[1:])
        if not lst.items:
            return [_zeros(TensorShape([0]).concatenate(rest), dtype, "TensorListConcatV2"),
                    constant([], dtype=dtypes.int64)]
        raise errors.InvalidArgumentError(
            None, None, "Concat saw an uninitialized element of the list "
            "[Op:TensorListConcatV2]")
    lengths = [numpy_ops.shape_tuple(t)[0] if numpy_ops.shape_tuple(t) else -1
               for t in lst.items]
    if -1 in lengths:
        raise errors.InvalidArgumentError(
            None, None, "Concat requires elements to be at least vectors "
            "[Op:TensorListConcatV2]")
    return [array_ops.concat(lst.items, axis=0), constant(lengths, dtype=dtypes.int64)]


HANDLERS = {
    "TensorListResize": _resize,
    "TensorListGather": _gather,
    "TensorListScatterIntoExistingList": _scatter_into,
    "TensorListSplit": _split,
    "TensorListConcatV2": _concat,
    "TensorListReserve": _reserve,
    "EmptyTensorList": _empty,
    "TensorListFromTensor": _from_tensor,
    "TensorListGetItem": _get_item,
    "TensorListSetItem": _set_item,
    "TensorListStack": _stack,
    "TensorListLength": _length,
    "TensorListPushBack": _push_back,
    "TensorListPopBack": _pop_back,
}
