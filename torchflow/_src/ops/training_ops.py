"""Fused optimizer updates (TF's ``ResourceApply*`` kernels) on lists of variables.

Each function updates the variables and slot variables in place, all
variables of one call at once with ``torch._foreach_*`` kernels, with torch's
grad mode off. Hyperparameters are Python floats computed by the optimizer for
this step. A variable whose buffer is shared with a tensor read earlier gets a
fresh buffer first, so earlier reads keep their values (TF tensors are immutable).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import torch

from torchflow._src.core.errors import InvalidArgumentError

_use_count = torch._C._storage_Use_Count


def _grad_off(update):
    """Runs ``update`` with torch grad mode off, switching it only where it is on
    (a replayed step's update runs after its backward, with it off already); a
    ``torch.no_grad()`` context costs several microseconds per call."""
    @functools.wraps(update)
    def run(*args, **kwargs):
        if not torch.is_grad_enabled():
            return update(*args, **kwargs)
        torch._C._set_grad_enabled(False)
        try:
            return update(*args, **kwargs)
        finally:
            torch._C._set_grad_enabled(True)
    return run


def _base(v):
    while not hasattr(v, "_leaf"):
        v = v._variable
    return v


def _leaves(variables):
    out = []
    for v in variables:
        leaf = _base(v)._leaf
        if _use_count(leaf.untyped_storage()._cdata) > 2:
            leaf.data = leaf.detach().clone()
        out.append(leaf)
    return out


def _grads(grads, leaves):
    out = []
    for g, leaf in zip(grads, leaves):
        t = g._t if hasattr(g, "_t") else torch.as_tensor(g)
        if t.requires_grad:
            t = t.detach()
        if t.dtype != leaf.dtype:
            t = t.to(leaf.dtype)
        if t.shape != leaf.shape:
            raise InvalidArgumentError(None, None, f"var and grad do not have the same shape"
                                       f"{list(leaf.shape)} {list(t.shape)}")
        out.append(t)
    return out


def _prep(variables, grads, *slot_lists) -> tuple[Any, ...]:
    p = _leaves(variables)
    return (p, _grads(grads, p)) + tuple(_leaves(s) if s else None for s in slot_lists)


@_grad_off
def apply_gradient_descent(variables, grads, lr):
    """``var -= lr * grad``."""
    p, g = _prep(variables, grads)
    torch._foreach_add_(p, g, alpha=-lr)


@_grad_off
def apply_keras_momentum(variables, grads, moments, lr, momentum, nesterov):
    """``accum = momentum * accum - lr * grad``; ``var += accum`` (or Nesterov's step)."""
    p, g, a = _prep(variables, grads, moments)
    torch._foreach_mul_(a, momentum)
    torch._foreach_add_(a, g, alpha=-lr)
    if nesterov:
        torch._foreach_add_(p, a, alpha=momentum)
        torch._foreach_add_(p, g, alpha=-lr)
    else:
        torch._foreach_add_(p, a)


@_grad_off
def apply_adam(variables, grads, ms, vs, vhats, lr_t, beta1, beta2, epsilon):
    """TF's Adam: ``var -= lr_t * m / (sqrt(v) + epsilon)`` (AMSGrad with ``vhats``)."""
    p, g, m, v, vh = _prep(variables, grads, ms, vs, vhats)
    torch._foreach_lerp_(m, g, 1.0 - beta1)
    torch._foreach_mul_(v, beta2)
    torch._foreach_addcmul_(v, g, g, value=1.0 - beta2)
    if vh is not None:
        torch._foreach_maximum_(vh, v)
        denom = torch._foreach_sqrt(vh)
    else:
        denom = torch._foreach_sqrt(v)
    torch._foreach_add_(denom, epsilon)
    torch._foreach_addcdiv_(p, m, denom, value=-lr_t)


@_grad_off
def apply_adamax(variables, grads, ms, vs, lr_t, beta1, beta2, epsilon):
    """``m = b1 m + (1-b1) g``; ``v = max(b2 v, |g|)``; ``var -= lr_t * m / (v + eps)``."""
    p, g, m, v = _prep(variables, grads, ms, vs)
    torch._foreach_lerp_(m, g, 1.0 - beta1)
    torch._foreach_mul_(v, beta2)
    torch._foreach_maximum_(v, torch._foreach_abs(g))
    denom = torch._foreach_add(v, epsilon)
    torch._foreach_addcdiv_(p, m, denom, value=-lr_t)


@_grad_off
def apply_nadam(variables, grads, ms, vs, lr, beta1, beta2, epsilon, mu_t, mu_t1,
                m_sched_new, m_sched_next, v_correction):
    """Keras's Nadam step with the momentum-decay schedule."""
    p, g, m, v = _prep(variables, grads, ms, vs)
    torch._foreach_lerp_(m, g, 1.0 - beta1)
    torch._foreach_mul_(v, beta2)
    torch._foreach_addcmul_(v, g, g, value=1.0 - beta2)
    # m_bar = (1-mu_t) g / (1 - m_sched_new) + mu_t1 * m / (1 - m_sched_next)
    m_bar = torch._foreach_mul(g, (1.0 - mu_t) / (1.0 - m_sched_new))
    torch._foreach_add_(m_bar, m, alpha=mu_t1 / (1.0 - m_sched_next))
    denom = torch._foreach_div(v, v_correction)
    torch._foreach_sqrt_(denom)
    torch._foreach_add_(denom, epsilon)
    torch._foreach_addcdiv_(p, m_bar, denom, value=-lr)


@_grad_off
def apply_rmsprop(variables, grads, rms, moms, mgs, lr, rho, momentum, epsilon):
    """TF's RMSprop (centered when ``mgs`` is given, with momentum when ``moms`` is)."""
    p, g, ms, mom, mg = _prep(variables, grads, rms, moms, mgs)
    torch._foreach_mul_(ms, rho)
    torch._foreach_addcmul_(ms, g, g, value=1.0 - rho)
    if mg is not None:
        torch._foreach_lerp_(mg, g, 1.0 - rho)
        denom = torch._foreach_addcmul(ms, mg, mg, value=-1.0)
    else:
        denom = [t.clone() for t in ms] if mom is not None else list(ms)
    if mom is not None:
        # ResourceApplyRMSProp: epsilon inside the square root.
        torch._foreach_add_(denom, epsilon)
        torch._foreach_sqrt_(denom)
        torch._foreach_mul_(mom, momentum)
        torch._foreach_addcdiv_(mom, g, denom, value=lr)
        torch._foreach_sub_(p, mom)
    else:
        # Keras's momentum-free path: epsilon outside the square root.
        denom = torch._foreach_sqrt(denom)
        torch._foreach_add_(denom, epsilon)
        torch._foreach_addcdiv_(p, g, denom, value=-lr)


@_grad_off
def apply_adagrad(variables, grads, accumulators, lr, epsilon):
    """``accum += g^2``; ``var -= lr * g / (sqrt(accum) + epsilon)``."""
    p, g, a = _prep(variables, grads, accumulators)
    torch._foreach_addcmul_(a, g, g)
    denom = torch._foreach_sqrt(a)
    torch._foreach_add_(denom, epsilon)
    torch._foreach_addcdiv_(p, g, denom, value=-lr)


@_grad_off
def apply_adadelta(variables, grads, accum_grads, accum_vars, lr, rho, epsilon):
    """TF's Adadelta: RMS of updates over RMS of gradients."""
    p, g, ag, av = _prep(variables, grads, accum_grads, accum_vars)
    torch._foreach_mul_(ag, rho)
    torch._foreach_addcmul_(ag, g, g, value=1.0 - rho)
    num = torch._foreach_add(av, epsilon)
    torch._foreach_sqrt_(num)
    den = torch._foreach_add(ag, epsilon)
    torch._foreach_sqrt_(den)
    update = torch._foreach_div(num, den)
    torch._foreach_mul_(update, g)
    torch._foreach_mul_(av, rho)
    torch._foreach_addcmul_(av, update, update, value=1.0 - rho)
    torch._foreach_add_(p, update, alpha=-lr)


@_grad_off
def apply_ftrl(variables, grads, accumulators, linears, lr, l1, l2, l2_shrinkage, lr_power):
    """TF's FTRL-proximal (``ResourceApplyFtrl``/``FtrlV2``)."""
    p, g, acc, lin = _prep(variables, grads, accumulators, linears)
    for var, grad, a, z in zip(p, g, acc, lin):
        g_s = grad + 2.0 * l2_shrinkage * var if l2_shrinkage else grad
        new_a = a + grad * grad
        if lr_power == -0.5:
            sigma = (new_a.sqrt() - a.sqrt()) / lr
            quad = new_a.sqrt() / lr + 2.0 * l2
        else:
            sigma = (new_a.pow(-lr_power) - a.pow(-lr_power)) / lr
            quad = new_a.pow(-lr_power) / lr + 2.0 * l2
        z.add_(g_s - sigma * var)
        pre = (z.sign() * l1 - z) / quad
        var.copy_(torch.where(z.abs() > l1, pre, torch.zeros_like(var)))
        a.copy_(new_a)


def adam_lr_t(lr, beta1, beta2, step):
    return lr * math.sqrt(1.0 - beta2 ** step) / (1.0 - beta1 ** step)
