"""Partial writes into a ``tf.Variable``: sliced assignment and the scatter family.

``v[0, 1].assign(x)`` writes through TF's strided-slice semantics: the slice is
resolved by ``Tensor.__getitem__`` on a tensor of flat positions, so every index
form (ints, tensors, steps, ``...``, ``tf.newaxis``) and every indexing error is
the read path's own. ``scatter_*`` write rows (or, for the ``scatter_nd_*``
forms, N-d positions) and combine duplicate indices as TF does: ``add``/``sub``
accumulate, ``mul``/``div``/``min``/``max`` fold every update in.

All writes run with autograd paused, so an assignment inside a ``GradientTape``
cuts the gradient path from the assigned value, as in TF.
"""

from __future__ import annotations

import torch

from torchflow._src.core import graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import InvalidArgumentError, translate
from torchflow._src.core.tensor import Tensor, wrap

_set_version = torch._C._autograd._unsafe_set_version_counter  # pyright: ignore[reportAttributeAccessIssue] - private torch API, no stub
_grad_enabled = torch.is_grad_enabled
_set_grad = torch._C._set_grad_enabled


def inplace_write(leaf, fn):
    """Runs ``fn()``, an in-place write of ``leaf``'s buffer, that no recorded graph
    reads (the copy-on-write check made sure of it). Tape reads are views of the
    leaf and share its version counter even after a copy-on-write swapped the
    buffer away from them, so the bump is undone: the old values they saved stay
    valid, as a TF read keeps its value. Grad mode is switched off around ``fn``
    only where it is on, and directly: ``torch.no_grad()`` costs more than the
    write of a small variable (a metric's total, a step count)."""
    grad = _grad_enabled()
    if grad:
        _set_grad(False)
    try:
        if not leaf.requires_grad:
            return fn()
        version = leaf._version
        r = fn()
        _set_version((leaf,), (version,))
        return r
    finally:
        if grad:
            _set_grad(True)


def _err(op: str, msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{msg} [Op:{op}]")


def _dims(shape) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


class SliceOfVariable(Tensor):
    """The value ``variable[key]`` returns: a Tensor that also has ``assign``.

    As in TF, only ``assign`` is available on the slice (``assign_add`` and
    ``assign_sub`` are not); it writes the slice of the variable.
    """

    __slots__ = ("_var", "_key")

    def assign(self, value, name=None):
        """Writes ``value`` into this slice of the variable and returns the variable.

        Args:
          value: A Tensor or convertible value of the variable's dtype, whose shape
            broadcasts to the slice's shape.
          name: Unused.

        Returns:
          The variable.

        Raises:
          ValueError: If ``value`` has another dtype.
          InvalidArgumentError: If ``value`` does not broadcast to the slice.
        """
        return assign_slice(self._var, self._key, value)


def slice_of(var, key) -> SliceOfVariable:
    """``var[key]``: the read value, carrying what ``assign`` needs."""
    value = var._read()[key]
    r = object.__new__(SliceOfVariable)
    r._t = value._t
    r._dtype = value._dtype
    r._var = var
    r._key = key
    return r


def _positions(var, key) -> torch.Tensor:
    """Flat positions (into the variable's buffer) that ``var[key]`` selects."""
    leaf = var._leaf
    flat = torch.arange(leaf.numel(), device=leaf.device).reshape(leaf.shape)
    return wrap(flat)[key]._t  # pyright: ignore[reportIndexIssue] - ops/indexing installs Tensor.__getitem__; Tensor.__getitem__: TF's slicing rules and errors


@graph_trace.host_op(dry=lambda var, key, value: var)  # runs on every call, as all writes
def assign_slice(var, key, value):
    """``var[key] = value`` with TF's ResourceStridedSliceAssign rules."""
    op = "ResourceStridedSliceAssign"
    leaf = var._leaf
    if not isinstance(leaf, torch.Tensor):
        raise _err(op, "Sliced assignment is not supported for string variables")
    pos = _positions(var, key)
    new = var._convert_value(value, op)
    if tuple(new.shape) != tuple(pos.shape):
        try:
            if torch.broadcast_shapes(new.shape, pos.shape) != pos.shape:
                raise RuntimeError
        except RuntimeError:
            raise _err(op, f"Cannot broadcast input shape {_dims(new.shape)} into final "
                           f"shape {_dims(pos.shape)}") from None
        new = new.expand(pos.shape)
    pos = pos.reshape(-1)
    src = new.reshape(-1).to(leaf.device)
    _write(var, lambda target: target.view(-1).index_copy_(0, pos, src))
    return var


def _write(var, fn) -> None:
    """Runs ``fn(target)`` on the variable's buffer, copy-on-write when shared."""
    leaf = var._leaf
    if var._shared():
        with torch.no_grad():
            fresh = leaf.detach().clone()
            fn(fresh)
            leaf.data = fresh
    else:
        inplace_write(leaf, lambda: fn(leaf))


def _reduce_rows(var, op: str, rows: torch.Tensor, upd: torch.Tensor, mode: str) -> None:
    """Folds ``upd`` (N, inner) into rows ``rows`` of the variable seen as 2-d."""
    leaf = var._leaf
    inner = upd.shape[1]

    def write(target):
        t2 = target.view(-1, inner) if target.numel() else target.reshape(-1, inner)
        if mode == "update":
            t2.index_copy_(0, rows, upd)
        elif mode == "add":
            t2.index_add_(0, rows, upd)
        elif mode == "sub":
            t2.index_add_(0, rows, -upd if upd.dtype != torch.bool else upd)
        elif mode == "div":
            denom = torch.ones_like(t2).scatter_reduce_(0, rows[:, None].expand_as(upd),
                                                        upd, "prod")
            if t2.is_floating_point() or t2.is_complex():
                t2.div_(denom)
            else:
                t2.copy_(torch.div(t2, denom, rounding_mode="trunc"))
        else:
            red = {"mul": "prod", "max": "amax", "min": "amin"}[mode]
            t2.scatter_reduce_(0, rows[:, None].expand_as(upd), upd, red, include_self=True)

    try:
        _write(var, write)
    except (ValueError, TypeError, InvalidArgumentError):
        raise
    except Exception as e:  # noqa: BLE001 - translated to TF's error
        raise translate(op, e) from None
    del leaf


def scatter(var, op: str, indices, updates, mode: str):
    """The row scatters (``scatter_update``, ``scatter_add``, ...)."""
    leaf = var._leaf
    idx = _index_tensor(indices).to(leaf.device)
    upd = var._convert_value(updates, op).to(leaf.device)
    rest = tuple(leaf.shape[1:])
    if leaf.ndim == 0:
        raise _err(op, "params must be at least 1-D, got shape []")
    want = tuple(idx.shape) + rest
    if upd.ndim != 0 and tuple(upd.shape) != want:
        raise _err(op, f"Must have updates.shape = indices.shape + params.shape[1:] or "
                       f"updates.shape = [], got updates.shape {_dims(upd.shape)}, "
                       f"indices.shape {_dims(idx.shape)}, params.shape "
                       f"{_dims(leaf.shape)}")
    rows = idx.reshape(-1)
    n = leaf.shape[0]
    if rows.numel():
        bad = ((rows < 0) | (rows >= n)).nonzero()
        if bad.numel():
            i = int(bad[0, 0])
            raise _err(op, f"indices[{i}] = {int(rows[i])} is not in [0, {n})")
    inner = 1
    for d in rest:
        inner *= d
    upd = upd.expand(want).reshape(rows.numel(), inner)
    _reduce_rows(var, op, rows, upd, mode)
    return var


def scatter_nd(var, op: str, indices, updates, mode: str):
    """The N-d scatters (``scatter_nd_update``, ``scatter_nd_add``, ...)."""
    leaf = var._leaf
    idx = _index_tensor(indices).to(leaf.device)
    upd = var._convert_value(updates, op).to(leaf.device)
    if idx.ndim == 0:
        raise _err(op, f"Indices shape must have rank at least one. Found:{_dims(idx.shape)}")
    depth = idx.shape[-1]
    batch = idx.ndim - 1
    pshape = tuple(leaf.shape)
    suffix = (f"Dimensions [{depth},{len(pshape)}) of input[shape={_dims(pshape)}] must "
              f"match dimensions [{batch},{upd.ndim}) of updates[shape={_dims(upd.shape)}]")
    if tuple(upd.shape[:batch]) != tuple(idx.shape[:batch]):
        raise _err(op, f"Dimensions [0,{batch}) of indices[shape={_dims(idx.shape)}] must "
                       f"match dimensions [0,{batch}) of updates[shape={_dims(upd.shape)}]")
    if depth > len(pshape) or tuple(upd.shape[batch:]) != pshape[depth:]:
        raise _err(op, suffix)
    flat_idx = idx.reshape(-1, depth)
    strides = []
    s = 1
    for d in reversed(pshape[:depth]):
        strides.append(s)
        s *= d
    strides = torch.tensor(strides[::-1], dtype=torch.long, device=leaf.device)
    bounds = torch.tensor(pshape[:depth], dtype=torch.long, device=leaf.device)
    if flat_idx.numel():
        bad = ((flat_idx < 0) | (flat_idx >= bounds)).any(-1).nonzero()
        if bad.numel():
            i = int(bad[0, 0])
            where = ", ".join(str(int(v)) for v in flat_idx[i])
            raise _err(op, f"indices[{i}] = [{where}] does not index into shape "
                           f"{_dims(pshape)}")
    rows = (flat_idx * strides).sum(-1) if depth else flat_idx.new_zeros(flat_idx.shape[0])
    inner = 1
    for d in pshape[depth:]:
        inner *= d
    _reduce_rows(var, op, rows, upd.reshape(rows.numel(), inner), mode)
    return var


def batch_scatter_update(var, indices, updates):
    """``Variable.batch_scatter_update``: rows chosen per batch position."""
    idx = _index_tensor(indices)
    if idx.ndim <= 1:
        return scatter(var, "ResourceScatterUpdate", idx, updates, "update")
    lead = idx.shape[:-1]
    grids = torch.meshgrid(*[torch.arange(d) for d in lead], indexing="ij")
    coords = [g.unsqueeze(-1).expand(idx.shape) for g in grids] + [idx.cpu()]
    nd = torch.stack(coords, -1)
    return scatter_nd(var, "ResourceScatterNdUpdate", wrap(nd), updates, "update")


def _index_tensor(indices) -> torch.Tensor:
    t = to_tensor(indices)
    if not t._dtype.is_integer:
        raise TypeError(f"Value passed to parameter 'indices' has DataType {t._dtype.name} "
                        f"not in list of allowed values: int32, int64")
    return t._t.long()
