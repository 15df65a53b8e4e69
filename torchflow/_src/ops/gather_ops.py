"""Gather, scatter and selection: gather(_nd), scatter_nd, tensor_scatter_nd_*, where,
boolean_mask.

Out-of-range indices raise ``InvalidArgumentError`` as TF does on the CPU
(TF's GPU kernels return zeros instead; torchflow raises on every device).
All numeric paths are torch ops, so gradients flow to ``params``/``updates``.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import InvalidArgumentError, translate
from torchflow._src.core.indexed_slices import gather_rows
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import (
    _NATIVE,
    gather_pool,
    int_list,
    int_value,
    is_str,
    op_error,
    positions_of,
    tensor_of,
    tfname,
    via_index,
)
from torchflow._src.ops._dispatch import COMPOSITE
from torchflow._src.util.api import public

_INDEX_DTYPES = frozenset((dtypes.int16, dtypes.int32, dtypes.int64))
_FAST_INDEX = frozenset((dtypes.int32, dtypes.int64))


def _index_tensor(indices, op: str, attr: str = "Tindices"):
    i = tensor_of(indices)
    if i._dtype not in _INDEX_DTYPES:
        raise op_error(op, f"Value for attr '{attr}' of {tfname(i._dtype)} is not in the list of "
                           f"allowed values: int16, int32, int64")
    return i._t.to(torch.int64) if i._t.dtype is not torch.int64 else i._t


def _pos_str(flat_pos: int, shape) -> str:
    return ",".join(str(v) for v in np.unravel_index(flat_pos, tuple(shape))) if shape else ""


def _run(x: Tensor, fn, op: str) -> Tensor:
    t = x._t
    try:
        if isinstance(t, np.ndarray):
            return wrap(via_index(fn, t), dtypes.string)
        nt = _NATIVE.get(x._dtype)
        if nt is None:
            return wrap(fn(t), x._dtype)
        return wrap(fn(t.view(nt)).view(x._dtype._torch), x._dtype)
    except (TypeError, ValueError, InvalidArgumentError):
        raise
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None


# --- gather ---------------------------------------------------------------------------


def _gather_t(p, idx, axis: int, bd: int):
    ps = list(p.shape)
    if bd == 0:
        if idx.ndim == 1:
            return p.index_select(axis, idx.to(p.device))
        out = p.index_select(axis, idx.reshape(-1).to(p.device))
        return out.reshape(ps[:axis] + list(idx.shape) + ps[axis + 1:])
    bshape, mshape, kshape = ps[:bd], ps[bd:axis], ps[axis + 1:]
    ishape = list(idx.shape[bd:])
    nb = int(np.prod(bshape))
    nm = int(np.prod(mshape))
    p4 = p.reshape(nb, nm, ps[axis], -1)
    i2 = idx.reshape(nb, -1).to(p.device)
    b = torch.arange(nb, device=p.device).view(nb, 1, 1)
    m = torch.arange(nm, device=p.device).view(1, nm, 1)
    out = p4[b, m, i2.unsqueeze(1)]
    return out.reshape(bshape + mshape + ishape + kshape)


@public("torchflow")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0,
           name=None) -> Tensor:
    """Gathers slices of ``params`` along ``axis`` at ``indices``.

    Args:
      params: The Tensor to gather from.
      indices: An int tensor of indices into dimension ``axis``.
      validate_indices: Deprecated, ignored.
      axis: The dimension to gather on (default ``batch_dims``).
      batch_dims: Number of leading batch dimensions shared by params and indices.
      name: Unused (eager).

    Returns:
      A Tensor of shape ``params.shape[:axis] + indices.shape[batch_dims:] +
      params.shape[axis + 1:]``.

    Raises:
      InvalidArgumentError: For an index outside ``[0, params.shape[axis])``.

    >>> import torchflow as tf
    >>> tf.gather([10, 20, 30], [2, 0]).numpy()
    array([30, 10], dtype=int32)
    """
    if type(params) in COMPOSITE or type(indices) in COMPOSITE:  # tf.RaggedTensor
        h = COMPOSITE.get(type(params)) or COMPOSITE[type(indices)]
        return h.gather(params, indices, axis, batch_dims)
    p = tensor_of(params)
    if type(indices) is Tensor and indices._dtype in _FAST_INDEX and batch_dims == 0 and \
            type(p._t) is torch.Tensor and p._dtype not in _NATIVE and p._t.ndim:
        # Fast path: plain gather along one axis (index_select takes int32/int64).
        it = indices._t
        ax = 0 if axis is None else int_value(axis, "axis")
        nd = p._t.ndim
        if -nd <= ax < nd:
            ax = ax + nd if ax < 0 else ax
            n = p._t.shape[ax]
            if it.numel() and not (it.is_cpu and graph_trace.active() is not None):
                lo, hi = torch.aminmax(it)
                ok = lo.item() >= 0 and hi.item() < n
            else:
                # Empty, or recorded by a tf.function: on the CPU index_select rejects an
                # index out of range itself, and the replay then reruns the body, whose
                # check raises TF's error (a host read here would keep it from replaying).
                ok = True
            if ok and it.device == p._t.device:
                if ax == 0 and p._t.requires_grad and torch.is_grad_enabled():
                    return wrap(gather_rows(p._t, it, indices._dtype), p._dtype)  # sparse grad
                if it.ndim == 1:
                    return wrap(p._t.index_select(ax, it), p._dtype)
                # Indexing by the index tensor, not index_select and a reshape to its
                # shape: a tf.function's recording then holds no size of the indices.
                return wrap(p._t[(slice(None),) * ax + (it,)], p._dtype)
    idx = _index_tensor(indices, "GatherV2")
    prank = p._t.ndim
    bd = int_value(batch_dims, "batch_dims")
    if bd < 0:
        bd += idx.ndim
    ax = bd if axis is None else int_value(axis, "axis")
    if ax < 0:
        ax += prank
    if not 0 <= ax < prank:
        raise op_error("GatherV2", f"Shape must be at least rank {ax + 1} but is rank {prank}")
    if bd > idx.ndim or bd > ax:
        raise op_error("GatherV2", f"batch_dims ({bd}) must be less than or equal to rank("
                                   f"indices) ({idx.ndim}) and axis ({ax})")
    ps = p._t.shape
    if tuple(ps[:bd]) != tuple(idx.shape[:bd]):
        raise op_error("GatherV2", f"params.shape[:{bd}] {list(ps[:bd])} should equal "
                                   f"indices.shape[:{bd}] {list(idx.shape[:bd])}")
    n = ps[ax]
    if idx.numel():
        lo, hi = torch.aminmax(idx)
        if lo < 0 or hi >= n:
            bad = int(torch.nonzero(((idx < 0) | (idx >= n)).reshape(-1))[0])
            v = int(idx.reshape(-1)[bad])
            raise op_error("GatherV2", f"indices[{_pos_str(bad, idx.shape)}] = {v} is not in "
                                       f"[0, {n})")
    if ax == 0 and bd == 0 and isinstance(p._t, torch.Tensor) and p._t.requires_grad \
            and torch.is_grad_enabled() and idx.device == p._t.device:
        return wrap(gather_rows(p._t, idx, tensor_of(indices)._dtype), p._dtype)  # sparse grad
    return _run(p, lambda t: _gather_t(t, idx, ax, bd), "GatherV2")


@graph_trace.host_op
def _check_nd_bounds(idx, shape, op: str, what: str) -> None:
    """TF's error for an index tuple outside ``shape``; a host node of traced functions
    (each replay checks its own indices, as TF's kernel does)."""
    if not idx.numel():
        return
    d = idx.shape[-1]
    dims = torch.tensor(shape[:d], dtype=torch.int64, device=idx.device)
    bad = ((idx < 0) | (idx >= dims)).any(-1).reshape(-1)
    if bool(bad.any()):
        k = int(torch.nonzero(bad)[0])
        rows = idx.reshape(-1, d)
        vals = ", ".join(str(int(v)) for v in rows[k])
        pos = _pos_str(k, idx.shape[:-1])
        raise op_error(op, f"indices[{pos}] = [{vals}] does not index into {what} "
                           f"[{','.join(str(s) for s in shape)}]")


def _linear(idx, shape, op: str, what: str):
    """Row-major linear offsets of index tuples ``idx[..., D]`` into ``shape[:D]``."""
    d = idx.shape[-1]
    _check_nd_bounds(idx, list(shape), op, what)
    strides = [1] * d
    for j in range(d - 2, -1, -1):
        strides[j] = strides[j + 1] * shape[j + 1]
    st = torch.tensor(strides, dtype=torch.int64, device=idx.device)
    return (idx * st).sum(-1)


@public("torchflow")
def gather_nd(params, indices, batch_dims=0, name=None) -> Tensor:
    """Gathers slices of ``params`` at the index tuples in the last dimension of ``indices``.

    Args:
      params: The tensor to gather from.
      indices: An int32/int64 tensor; its last dimension indexes into ``params``.
      batch_dims: int, default 0: leading dimensions shared by ``params`` and ``indices``.
      name: Unused (eager).

    Returns:
      A tensor of ``params``' dtype and shape ``indices.shape[:-1] + params.shape[batch_dims
        + indices.shape[-1]:]``.

    Raises:
      InvalidArgumentError: For out-of-range index tuples.

    >>> import torchflow as tf
    >>> tf.gather_nd([[1, 2], [3, 4]], [[1, 0]]).numpy()
    array([3], dtype=int32)
    """
    if type(params) in COMPOSITE or type(indices) in COMPOSITE:  # tf.RaggedTensor
        h = COMPOSITE.get(type(params)) or COMPOSITE[type(indices)]
        return h.gather_nd(params, indices, batch_dims)
    p = tensor_of(params)
    idx = _index_tensor(indices, "GatherNd")
    bd = int_value(batch_dims, "batch_dims")
    ps = list(p._t.shape)
    if idx.ndim < 1:
        raise op_error("GatherNd", "indices must be at least a vector")
    d = idx.shape[-1]
    if d > len(ps) - bd:
        raise op_error("GatherNd", f"index innermost dimension length must be <= params rank; "
                                   f"saw: {d} vs. {len(ps) - bd}")
    if bd:
        if tuple(ps[:bd]) != tuple(idx.shape[:bd]):
            raise op_error("GatherNd", f"params.shape[:{bd}] {ps[:bd]} must equal "
                                       f"indices.shape[:{bd}] {list(idx.shape[:bd])}")
    nb = int(np.prod(ps[:bd]))
    inner = ps[bd:bd + d]
    rest = ps[bd + d:]
    lin = _linear(idx, ps[bd:], "GatherNd", "param shape") if d else \
        torch.zeros(idx.shape[:-1], dtype=torch.int64, device=idx.device)
    if bd:
        per = int(np.prod(inner))
        boff = torch.arange(nb, device=idx.device).reshape(
            list(idx.shape[:bd]) + [1] * (idx.ndim - 1 - bd)) * per
        lin = lin + boff
    out_shape = list(idx.shape[:-1]) + rest

    def fn(t):
        flat = t.reshape([-1] + rest)
        return flat.index_select(0, lin.reshape(-1).to(t.device)).reshape(out_shape)

    return _run(p, fn, "GatherNd")


# --- scatter --------------------------------------------------------------------------


def _scatter_prep(indices, updates, shape, op: str, upd_dtype=None):
    idx = _index_tensor(indices, op)
    u = tensor_of(updates, upd_dtype) if upd_dtype is not None and not isinstance(
        updates, Tensor) else tensor_of(updates)
    if idx.ndim < 1:
        raise op_error(op, "Indices must be at least a vector")
    d = idx.shape[-1]
    if d > len(shape):
        raise op_error(op, f"Index innermost dimension length must be <= output rank; saw: "
                           f"{d} vs. {len(shape)}")
    want = list(idx.shape[:-1]) + list(shape[d:])
    if list(u._t.shape) != want:
        raise op_error(op, f"Outer dimensions of indices and update must match. Indices shape: "
                           f"[{','.join(map(str, idx.shape))}], updates shape:"
                           f"[{','.join(map(str, u._t.shape))}]")
    lin = _linear(idx, list(shape), op, "shape") if d else \
        torch.zeros(idx.shape[:-1], dtype=torch.int64, device=idx.device)
    return lin.reshape(-1), u, list(shape[d:])


def _acc_dtype(t):
    if t.dtype is torch.bool:
        return torch.int32
    return None


@public("torchflow")
def scatter_nd(indices, updates, shape, name=None) -> Tensor:
    """Scatters ``updates`` into a zero tensor of ``shape``; duplicate indices add up.

    Args:
      indices: An int32/int64 tensor of index tuples into ``shape``.
      updates: A tensor of shape ``indices.shape[:-1] + shape[indices.shape[-1]:]``.
      shape: A 1-D int list or tensor: the output shape.
      name: Unused (eager).

    Returns:
      A tensor of ``updates``' dtype and shape ``shape``.

    Raises:
      InvalidArgumentError: For out-of-range indices or mismatched shapes.

    >>> import torchflow as tf
    >>> tf.scatter_nd([[1], [3]], [5, 7], [4]).numpy()
    array([0, 5, 0, 7], dtype=int32)
    """
    dims = int_list(shape, "shape")
    lin, u, rest = _scatter_prep(indices, updates, dims, "ScatterNd")
    if is_str(u._t):
        raise op_error("ScatterNd", "scatter_nd does not support string updates")
    t = u._t
    acc = _acc_dtype(t) or (torch.int64 if u._dtype in _NATIVE else None)
    src = t.to(acc) if acc else t
    out = torch.zeros([int(np.prod(dims[:len(dims) - len(rest)]))] + rest, dtype=src.dtype,
                      device=t.device)
    try:
        out = out.index_add(0, lin.to(t.device), src.reshape([-1] + rest))
    except Exception as e:  # noqa: BLE001
        raise translate("ScatterNd", e) from None
    out = out.reshape(dims)
    if acc is not None:
        out = out != 0 if t.dtype is torch.bool else out.to(t.dtype)
    return wrap(out, u._dtype)


def _tensor_scatter(tensor, indices, updates, op: str, kind: str) -> Tensor:
    x = tensor_of(tensor)
    shape = list(x._t.shape)
    lin, u, rest = _scatter_prep(indices, updates, shape, op, x._dtype)
    if u._dtype is not x._dtype:
        raise InvalidArgumentError(None, None, f"cannot compute {op} as input #2(zero-based) was "
                                               f"expected to be a {x._dtype.name} tensor but is "
                                               f"a {u._dtype.name} tensor [Op:{op}]")
    if is_str(x._t):
        if kind != "update":
            raise op_error(op, f"{op} does not support string tensors")
        out = x._t.copy().reshape([-1] + rest) if shape else x._t.copy().reshape(1)
        li = lin.cpu().numpy()
        out[li] = u._t.reshape([len(li)] + rest)
        return wrap(out.reshape(shape), dtypes.string)
    t = x._t
    wide = x._dtype in _NATIVE or t.dtype is torch.bool
    base = t.to(torch.int64) if wide else t
    upd = u._t.to(base.dtype)
    nrows = int(np.prod(shape[:len(shape) - len(rest)]))
    flat = base.reshape([nrows] + rest)
    src = upd.reshape([-1] + rest)
    li = lin.to(t.device)
    try:
        if kind == "update":
            out = flat.index_copy(0, li, src)
        elif kind == "add":
            out = flat.index_add(0, li, src)
        elif kind == "sub":
            out = flat.index_add(0, li, -src if not wide or t.dtype is not torch.bool else src)
        else:
            full = li.reshape([-1] + [1] * len(rest)).expand(src.shape)
            out = flat.scatter_reduce(0, full, src, kind, include_self=True)
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None
    out = out.reshape(shape)
    if wide:
        out = out != 0 if t.dtype is torch.bool else out.to(t.dtype)
    return wrap(out, x._dtype)


@public("torchflow")
def tensor_scatter_nd_update(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` with the slices at ``indices`` replaced by ``updates``.

    Args:
      tensor: The tensor to copy and update.
      indices: An int32/int64 tensor whose last dimension (of size ``<= rank(tensor)``)
        holds index tuples into ``tensor``.
      updates: A tensor of ``tensor``'s dtype and shape ``indices.shape[:-1] +
        tensor.shape[indices.shape[-1]:]``.
      name: Unused (eager).

    Returns:
      A tensor of ``tensor``'s dtype and shape.

    Raises:
      InvalidArgumentError: For out-of-range indices or mismatched shapes.
    """
    return _tensor_scatter(tensor, indices, updates, "TensorScatterUpdate", "update")


@public("torchflow")
def tensor_scatter_nd_add(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` added at ``indices`` (duplicates add up).

    Args:
      tensor: The tensor to copy and update.
      indices: An int32/int64 tensor whose last dimension (of size ``<= rank(tensor)``)
        holds index tuples into ``tensor``.
      updates: A tensor of ``tensor``'s dtype and shape ``indices.shape[:-1] +
        tensor.shape[indices.shape[-1]:]``.
      name: Unused (eager).

    Returns:
      A tensor of ``tensor``'s dtype and shape.

    Raises:
      InvalidArgumentError: For out-of-range indices or mismatched shapes.
    """
    return _tensor_scatter(tensor, indices, updates, "TensorScatterAdd", "add")


@public("torchflow")
def tensor_scatter_nd_sub(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices``.

    Args:
      tensor: The tensor to copy and update.
      indices: An int32/int64 tensor whose last dimension (of size ``<= rank(tensor)``)
        holds index tuples into ``tensor``.
      updates: A tensor of ``tensor``'s dtype and shape ``indices.shape[:-1] +
        tensor.shape[indices.shape[-1]:]``.
      name: Unused (eager).

    Returns:
      A tensor of ``tensor``'s dtype and shape.

    Raises:
      InvalidArgumentError: For out-of-range indices or mismatched shapes.
    """
    return _tensor_scatter(tensor, indices, updates, "TensorScatterSub", "sub")


@public("torchflow")
def tensor_scatter_nd_max(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` holding ``max(tensor, updates)`` at ``indices``.

    Args:
      tensor: The tensor to copy and update.
      indices: An int32/int64 tensor whose last dimension (of size ``<= rank(tensor)``)
        holds index tuples into ``tensor``.
      updates: A tensor of ``tensor``'s dtype and shape ``indices.shape[:-1] +
        tensor.shape[indices.shape[-1]:]``.
      name: Unused (eager).

    Returns:
      A tensor of ``tensor``'s dtype and shape.

    Raises:
      InvalidArgumentError: For out-of-range indices or mismatched shapes.
    """
    return _tensor_scatter(tensor, indices, updates, "TensorScatterMax", "amax")


@public("torchflow")
def tensor_scatter_nd_min(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` holding ``min(tensor, updates)`` at ``indices``.

    Args:
      tensor: The tensor to copy and update.
      indices: An int32/int64 tensor whose last dimension (of size ``<= rank(tensor)``)
        holds index tuples into ``tensor``.
      updates: A tensor of ``tensor``'s dtype and shape ``indices.shape[:-1] +
        tensor.shape[indices.shape[-1]:]``.
      name: Unused (eager).

    Returns:
      A tensor of ``tensor``'s dtype and shape.

    Raises:
      InvalidArgumentError: For out-of-range indices or mismatched shapes.
    """
    return _tensor_scatter(tensor, indices, updates, "TensorScatterMin", "amin")


# --- where / boolean_mask ----------------------------------------------------------------


def _pair(x, y):
    xt = isinstance(x, Tensor) or hasattr(x, "_tf_value")
    yt = isinstance(y, Tensor) or hasattr(y, "_tf_value")
    if xt:
        a = tensor_of(x)
        b = tensor_of(y) if yt else to_tensor(y, a._dtype)
    elif yt:
        b = tensor_of(y)
        a = to_tensor(x, b._dtype)
    else:
        a = to_tensor(x)
        b = to_tensor(y, a._dtype) if not isinstance(y, np.ndarray) else to_tensor(y)
    if a._dtype is not b._dtype:
        raise InvalidArgumentError(None, None, f"cannot compute SelectV2 as input #2(zero-based) "
                                               f"was expected to be a {a._dtype.name} tensor but "
                                               f"is a {b._dtype.name} tensor [Op:SelectV2]")
    return a, b


@public("torchflow")
def where(condition, x=None, y=None, name=None) -> Tensor:
    """Selects from ``x`` or ``y`` by ``condition``, or finds the true elements.

    With only ``condition``: returns the coordinates of its true (non-zero)
    elements, an int64 tensor of shape ``[num_true, rank]``. With ``x`` and
    ``y``: returns ``x`` where ``condition`` is True and ``y`` elsewhere, all
    three broadcast together.

    Args:
      condition: A bool tensor (or any dtype, non-zero meaning True without ``x``/``y``).
      x: None (default) or a tensor broadcastable with ``condition`` and ``y``.
      y: None (default) or a tensor of ``x``'s dtype.
      name: Unused (eager).

    Returns:
      With ``x`` and ``y``: a tensor of their dtype and the broadcast shape; otherwise the
        int64 coordinates.

    Raises:
      ValueError: If only one of ``x`` and ``y`` is given.
      InvalidArgumentError: If ``x`` and ``y`` differ in dtype or shapes do not
        broadcast.

    >>> import torchflow as tf
    >>> tf.where([True, False, True]).numpy()
    array([[0],
           [2]])
    """
    if type(condition) in COMPOSITE or type(x) in COMPOSITE or type(y) in COMPOSITE:
        h = next(COMPOSITE[type(v)] for v in (condition, x, y) if type(v) in COMPOSITE)
        return h.where(condition, x, y)  # tf.RaggedTensor arguments
    if x is None and y is None:
        c = tensor_of(condition)
        if is_str(c._t):
            raise op_error("Where", "Value for attr 'T' of string is not in the list of allowed "
                                    "values")
        t = c._t
        if t.ndim == 0:
            raise op_error("Where", "WhereOp : Unhandled input dimensions: 0")
        if c._dtype in _NATIVE:
            t = t.to(torch.int64)
        return wrap(torch.nonzero(t), dtypes.int64)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    c = tensor_of(condition, dtypes.bool)
    if c._dtype is not dtypes.bool:
        raise InvalidArgumentError(None, None, f"cannot compute SelectV2 as input #0(zero-based) "
                                               f"was expected to be a bool tensor but is a "
                                               f"{c._dtype.name} tensor [Op:SelectV2]")
    a, b = _pair(x, y)
    try:
        if is_str(a._t):
            pool, (ia, ib) = positions_of([a._t, b._t])
            return wrap(gather_pool(pool, torch.where(c._t.cpu(), ia, ib)), dtypes.string)
        ct = c._t
        if ct.device != a._t.device:
            ct = ct.to(a._t.device)
        nt = _NATIVE.get(a._dtype)
        if nt is not None:
            return wrap(torch.where(ct, a._t.view(nt), b._t.view(nt)).view(a._dtype._torch),
                        a._dtype)
        return wrap(torch.where(ct, a._t, b._t), a._dtype)
    except Exception as e:  # noqa: BLE001
        shapes = [list(t._t.shape) for t in (c, a, b)]
        try:
            torch.broadcast_shapes(*[tuple(s) for s in shapes])
        except RuntimeError:
            dims = ["[" + ",".join(str(d) for d in s) + "]" for s in shapes]
            raise InvalidArgumentError(
                None, None, f"condition {dims[0]}, then {dims[1]}, and else {dims[2]} must be "
                            f"broadcastable [Op:SelectV2]") from None
        raise translate("SelectV2", e) from None


@public("torchflow")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask") -> Tensor:
    """Keeps the entries of ``tensor`` where ``mask`` is True.

    ``mask``'s shape must match ``tensor.shape[axis:axis + mask.ndim]``; those
    dimensions are replaced by one of length ``count_nonzero(mask)``.

    Args:
      tensor: A tensor of rank N.
      mask: A bool tensor of rank K <= N (not a scalar).
      axis: int or None (default 0): the first dimension ``mask`` applies to.
      name: Unused (eager).

    Returns:
      A tensor of ``tensor``'s dtype and rank ``N - K + 1``.

    Raises:
      ValueError: If ``mask`` is a scalar or its shape does not match.

    >>> import torchflow as tf
    >>> tf.boolean_mask([1, 2, 3], [True, False, True]).numpy()
    array([1, 3], dtype=int32)
    """
    x = tensor_of(tensor)
    m = tensor_of(mask)
    k = m._t.ndim
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    shape = list(x._t.shape)
    a = 0 if axis is None else int_value(axis, "axis")
    if a < 0:
        a += len(shape)
    ms = list(m._t.shape)
    if shape[a:a + k] != ms:
        raise ValueError(f"Shapes {tuple(shape[a:a + k])} and {tuple(ms)} are incompatible")
    mt = m._t if not is_str(m._t) else None
    if mt is None:
        raise TypeError("tf.boolean_mask: mask must be boolean")
    sel = torch.nonzero(mt.reshape(-1)).reshape(-1)
    new_shape = shape[:a] + [int(np.prod(ms))] + shape[a + k:]
    return _run(x, lambda t: t.reshape(new_shape).index_select(a, sel.to(t.device)),
                "BooleanMask")


__all__ = ["gather", "gather_nd", "scatter_nd", "tensor_scatter_nd_update",
           "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_max",
           "tensor_scatter_nd_min", "where", "boolean_mask"]
