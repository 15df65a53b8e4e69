"""Fast paths of the generated graph code (``graph_exec_codegen``) for the hottest
raw ops: ``MatMul``, ``AddV2``, ``Mul``, ``BiasAdd``, ``Sigmoid``, ``Tanh`` and
``Split``, ``TensorListGetItem`` / ``TensorListSetItem``.

Where a node's ``T`` attribute is ``float32`` or ``float64`` (or, for ``AddV2`` and
``Mul``, ``int32`` / ``int64``), its code calls a
function that runs the torch kernel on the inputs' torch tensors directly when they
are plain Tensors of that dtype (and, for ``MatMul`` and ``BiasAdd``, of the ranks
the op takes), as the raw op itself would; a TensorList op with a scalar index in
range reads or replaces the item directly; ``Split`` of a dimension it divides
splits the torch tensor. Anything else (another dtype, a
Variable, a shape torch rejects, a result hook of ``tf.debugging`` on) runs the
node's raw op, which gives its result or TF's error.
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core import tensor as _tensor_module
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops.graph_exec_lists import TensorList

_new = object.__new__
_SEQ = (list, tuple)
_FLOATS = (dtypes.float32, dtypes.float64)
_INTS = (dtypes.int32, dtypes.int64)  # AddV2 and Mul wrap around in TF as in torch


def _slow(node, many: bool = False):
    call = node.call

    def run(*vals):
        out = call(None, list(vals))
        return out if many else out[0] if isinstance(out, _SEQ) else out

    return run


def _binary(fn, dt, slow):
    def run(x, y):
        if type(x) is Tensor and type(y) is Tensor and _tensor_module._result_hook is None:
            if x._dtype is dt and y._dtype is dt:
                a = x._t
                b = y._t
                try:
                    t = fn(a, b)
                except RuntimeError:  # shapes that do not broadcast: the raw op's error
                    return slow(x, y)
                r = _new(Tensor)
                r._t = t
                r._dtype = dt
                return r
        return slow(x, y)

    return run


def _unary(fn, dt, slow):
    def run(x):
        if type(x) is Tensor and x._dtype is dt and _tensor_module._result_hook is None:
            r = _new(Tensor)
            r._t = fn(x._t)
            r._dtype = dt
            return r
        return slow(x)

    return run


def _matmul(attrs, dt, slow):
    ta, tb = bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b"))

    def mm(a, b):
        if a.dim() != 2 or b.dim() != 2:
            raise RuntimeError("not matrices")
        return torch.matmul(a.mT if ta else a, b.mT if tb else b)

    return _binary(mm, dt, slow)


def _bias_add(attrs, dt, slow):
    if attrs.get("data_format", "NHWC") not in ("NHWC", "N...C"):
        return None

    def add(a, b):
        if b.dim() != 1 or a.dim() < 2 or a.shape[-1] != b.shape[0]:
            raise RuntimeError("not a bias of the last dimension")
        return a + b

    return _binary(add, dt, slow)


def _list_get(slow):
    def run(lst, index, *rest):
        if type(lst) is TensorList and type(index) is Tensor:
            t = index._t
            if isinstance(t, torch.Tensor) and t.dim() == 0:
                i = int(t)
                items = lst.items
                if 0 <= i < len(items):
                    item = items[i]
                    if item is not None:
                        return item
        return slow(lst, index, *rest)

    return run


def _list_set(attrs, slow):
    if attrs.get("resize_if_index_out_of_bounds"):
        return None

    def run(lst, index, item):
        if type(lst) is TensorList and type(index) is Tensor:
            t = index._t
            if isinstance(t, torch.Tensor) and t.dim() == 0:
                i = int(t)
                items = lst.items
                if 0 <= i < len(items):
                    items = list(items)  # value semantics: the input list is unchanged
                    items[i] = item
                    return TensorList(items, lst.dtype, lst.element_shape)
        return slow(lst, index, item)

    return run


def _split(attrs, slow):
    k = attrs.get("num_split")
    if type(k) is not int or k <= 0:
        return None

    def run(axis, value):
        if type(axis) is Tensor and type(value) is Tensor and _tensor_module._result_hook is None:
            a = axis._t
            t = value._t
            if isinstance(t, torch.Tensor) and isinstance(a, torch.Tensor) and a.dim() == 0 \
                    and not a.is_floating_point():
                rank = t.dim()
                d = int(a)
                if -rank <= d < rank and t.shape[d] % k == 0:
                    dt = value._dtype
                    out = []
                    for p in torch.split(t, t.shape[d] // k, d):
                        r = _new(Tensor)
                        r._t = p
                        r._dtype = dt
                        out.append(r)
                    return out
        out = slow(axis, value)
        return list(out) if isinstance(out, _SEQ) else [out]

    return run


LIST_OUTPUTS = frozenset({"Split"})
"""Ops whose fast function returns the list of the node's outputs (others: one value)."""


def fast_call(node, n_inputs: int):
    """A function ``f(*inputs) -> value`` running ``node`` (a planned ``graph_exec``
    node whose ``call`` is bound) with a fast path, or ``None`` for no fast path."""
    if node.call is None:
        return None
    op = node.op
    slow = _slow(node)
    if op == "TensorListGetItem" and n_inputs in (2, 3):
        return _list_get(slow)
    if op == "TensorListSetItem" and n_inputs == 3:
        return _list_set(node.attrs, slow)
    if op == "Split" and n_inputs == 2:
        return _split(node.attrs, _slow(node, many=True))
    dt = node.attrs.get("T")
    if dt not in _FLOATS and (dt not in _INTS or op not in ("AddV2", "Mul")):
        return None
    if op == "AddV2" and n_inputs == 2:
        return _binary(torch.add, dt, slow)
    if op == "Mul" and n_inputs == 2:
        return _binary(torch.mul, dt, slow)
    if op == "MatMul" and n_inputs == 2:
        return _matmul(node.attrs, dt, slow)
    if op == "BiasAdd" and n_inputs == 2:
        return _bias_add(node.attrs, dt, slow)
    if op == "Sigmoid" and n_inputs == 1:
        return _unary(torch.sigmoid, dt, slow)
    if op == "Tanh" and n_inputs == 1:
        return _unary(torch.tanh, dt, slow)
    return None
