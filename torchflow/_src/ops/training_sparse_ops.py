"""Sparse optimizer updates: a gradient given as ``IndexedSlices`` (rows ``indices``
of the variable), applied as TF 2.4's Keras optimizers' ``_resource_apply_sparse``.

As in TF's ``OptimizerV2``, duplicate indices are summed first (SGD without
momentum scatter-adds them, as TF's SGD does). SGD with momentum, Adagrad and
RMSprop with momentum touch only the listed rows of the variable and of their
slots; Adam and momentum-free RMSprop decay their slots densely (every row), so
Adam moves untouched rows too, exactly as tf.keras 2.4 does.
"""

from __future__ import annotations

import torch

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops.training_ops import _leaves


def _rows(grad, leaf: torch.Tensor, dedupe: bool = True):
    """(unique row ids, summed row gradients) of an IndexedSlices for ``leaf``."""
    vals = grad.values._t
    idx = grad.indices._t.to(torch.int64)
    if vals.requires_grad:
        vals = vals.detach()
    vals = vals.to(device=leaf.device, dtype=leaf.dtype)
    idx = idx.to(leaf.device)
    if tuple(vals.shape[1:]) != tuple(leaf.shape[1:]) or vals.shape[0] != idx.shape[0]:
        raise InvalidArgumentError(None, None, f"var and grad do not have the same shape"
                                   f"{list(leaf.shape)} {list(vals.shape)}")
    n = leaf.shape[0]
    if idx.numel() and bool(((idx < 0) | (idx >= n)).any()):
        bad = int(idx[(idx < 0) | (idx >= n)][0])
        raise InvalidArgumentError(None, None, f"indices[0] = {bad} is not in [0, {n})")
    if not dedupe:
        return idx, vals
    uniq, inv = torch.unique(idx, return_inverse=True)
    summed = torch.zeros((uniq.shape[0],) + tuple(vals.shape[1:]), dtype=vals.dtype,
                         device=vals.device).index_add_(0, inv, vals)
    return uniq, summed


def sparse_apply_gradient_descent(variables, grads, lr):
    """``var[indices] -= lr * values`` (scatter-add; duplicates add up)."""
    with torch.no_grad():
        for leaf, g in zip(_leaves(variables), grads):
            idx, vals = _rows(g, leaf, dedupe=False)
            leaf.index_add_(0, idx, vals, alpha=-lr)


def sparse_apply_keras_momentum(variables, grads, moments, lr, momentum, nesterov):
    """ResourceSparseApplyKerasMomentum on the listed rows only."""
    with torch.no_grad():
        for leaf, acc, g in zip(_leaves(variables), _leaves(moments), grads):
            idx, vals = _rows(g, leaf)
            a = acc[idx] * momentum - lr * vals
            acc[idx] = a
            leaf[idx] += (a * momentum - lr * vals) if nesterov else a


def sparse_apply_adam(variables, grads, ms, vs, vhats, lr_t, beta1, beta2, epsilon):
    """tf.keras 2.4 Adam's ``_resource_apply_sparse``: ``m = beta1 * m`` and
    ``v = beta2 * v`` densely, the scaled rows scatter-added, then the whole
    variable updated with ``lr_t * m / (sqrt(v or vhat) + epsilon)``."""
    with torch.no_grad():
        vh_list = _leaves(vhats) if vhats else [None] * len(variables)
        for leaf, m, v, vh, g in zip(_leaves(variables), _leaves(ms), _leaves(vs), vh_list,
                                     grads):
            idx, vals = _rows(g, leaf)
            m.mul_(beta1).index_add_(0, idx, vals * (1.0 - beta1))
            v.mul_(beta2).index_add_(0, idx, vals * vals * (1.0 - beta2))
            if vh is not None:
                torch.maximum(vh, v, out=vh)
            # (lr_t * m) / (sqrt(v) + eps) as TF orders it, in two temporaries
            # (this dense update is the bulk of a sparse Adam step's work).
            denom = (v if vh is None else vh).sqrt().add_(epsilon)
            leaf.sub_(torch.mul(m, lr_t).div_(denom))


def sparse_apply_adagrad(variables, grads, accumulators, lr, epsilon):
    """ResourceSparseApplyAdagradV2: ``acc[i] += g^2``; ``var[i] -= lr g / (sqrt(acc[i]) + eps)``."""
    with torch.no_grad():
        for leaf, acc, g in zip(_leaves(variables), _leaves(accumulators), grads):
            idx, vals = _rows(g, leaf)
            a = acc[idx] + vals * vals
            acc[idx] = a
            leaf[idx] -= lr * vals / (a.sqrt() + epsilon)


def sparse_apply_rmsprop(variables, grads, rms, moms, mgs, lr, rho, momentum, epsilon):
    """tf.keras 2.4 RMSprop's ``_resource_apply_sparse``.

    With momentum: ResourceSparseApply(Centered)RMSProp on the listed rows only
    (epsilon inside the square root). Without: ``rms`` (and ``mg``) decay densely,
    the rows are scatter-added, and ``var[i] -= lr g / (sqrt(denom[i]) + eps)``.
    """
    with torch.no_grad():
        n = len(variables)
        mom_l = _leaves(moms) if moms else [None] * n
        mg_l = _leaves(mgs) if mgs else [None] * n
        for leaf, ms, mom, mg, g in zip(_leaves(variables), _leaves(rms), mom_l, mg_l, grads):
            idx, vals = _rows(g, leaf)
            if mom is not None:
                ms_r = ms[idx] * rho + (1.0 - rho) * vals * vals
                ms[idx] = ms_r
                denom = ms_r
                if mg is not None:
                    mg_r = mg[idx] * rho + (1.0 - rho) * vals
                    mg[idx] = mg_r
                    denom = ms_r - mg_r * mg_r
                mom_r = mom[idx] * momentum + lr * vals / (denom + epsilon).sqrt()
                mom[idx] = mom_r
                leaf[idx] -= mom_r
                continue
            ms.mul_(rho).index_add_(0, idx, vals * vals * (1.0 - rho))
            denom = ms[idx]
            if mg is not None:
                mg.mul_(rho).index_add_(0, idx, vals * (1.0 - rho))
                denom = denom - mg[idx] * mg[idx]
            leaf.index_add_(0, idx, -lr * vals / (denom.sqrt() + epsilon))
