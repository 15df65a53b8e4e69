"""Torch functions for TF's special ops whose gradients follow TF's gradient functions.

torch differentiates ``xlogy``, ``xlog1py``, ``xdivy``, ``atan2``, ``lgamma`` and
``digamma`` by its own formulas, which differ from TF's at the singular points:

- TF's ``Xlogy``/``Xlog1py``/``Xdivy`` gradients are themselves ``Xlogy``/``Xdivy``
  of ``x != 0``, so where ``x == 0`` both partials are 0 whatever ``y`` is (torch
  gives ``nan`` at ``y == 0`` and ``inf`` at ``y == inf``).
- TF's ``Atan2`` gradient is ``(x, -y) / (x**2 + y**2)``: ``nan`` at the origin
  (torch gives 0).
- TF's ``Lgamma`` gradient is ``Digamma``, and TF's ``Digamma`` is ``nan`` at the
  poles ``0, -1, -2, ...`` (torch gives ``-inf`` at 0 and ``inf`` at -0); TF's
  ``Digamma`` gradient is ``Polygamma(1, x)``, which is ``inf`` at the poles and
  at ``-inf`` (torch gives large finite values and ``nan``).

The backward passes are written with the same functions, so second derivatives
follow TF's chain too. Each function is the plain torch kernel unless autograd
records it (or the dtype is complex, where torch's rules stay).
"""

from __future__ import annotations

import torch


def _as_tensor(b, like: torch.Tensor) -> torch.Tensor:
    if isinstance(b, torch.Tensor):
        return b
    return torch.tensor(b, dtype=like.dtype, device=like.device)


def _reduce(g: torch.Tensor, like) -> torch.Tensor | None:
    """``g`` summed down to ``like``'s (broadcast) shape; None for a Python number."""
    if not isinstance(like, torch.Tensor) or not like.requires_grad:
        return None
    if g.shape != like.shape:
        g = g.sum_to_size(like.shape)
    return g


def _records(a: torch.Tensor, b) -> bool:
    if a.is_complex():
        return False
    return a.requires_grad or (isinstance(b, torch.Tensor) and b.requires_grad)


def _nonzero(a: torch.Tensor) -> torch.Tensor:
    return (a != 0).to(a.dtype)


def _where_x_zero(a: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    return torch.where(a == 0, torch.zeros((), dtype=value.dtype, device=value.device), value)


def _xlogy_kernel(a, b):
    return torch.xlogy(a, b)


def _xlog1py_kernel(a, b):
    return torch.special.xlog1py(a, b)


def _xdivy_kernel(a, b):
    return _where_x_zero(a, a / b)


class _Xlogy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, _as_tensor(b, a))
        ctx.b = b
        return _xlogy_kernel(a, b)

    @staticmethod
    def backward(ctx, dy):
        a, b = ctx.saved_tensors
        ga = xlogy(_nonzero(a), b) * dy if ctx.needs_input_grad[0] else None
        gb = xdivy(a, b) * dy if ctx.needs_input_grad[1] else None
        return (None if ga is None else _reduce(ga, a)), (None if gb is None else _reduce(gb, ctx.b))


class _Xlog1py(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, _as_tensor(b, a))
        ctx.b = b
        return _xlog1py_kernel(a, b)

    @staticmethod
    def backward(ctx, dy):
        a, b = ctx.saved_tensors
        ga = xlog1py(_nonzero(a), b) * dy if ctx.needs_input_grad[0] else None
        gb = xdivy(a, b + 1) * dy if ctx.needs_input_grad[1] else None
        return (None if ga is None else _reduce(ga, a)), (None if gb is None else _reduce(gb, ctx.b))


class _Xdivy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, _as_tensor(b, a))
        ctx.b = b
        return _xdivy_kernel(a, b)

    @staticmethod
    def backward(ctx, dy):
        a, b = ctx.saved_tensors
        ga = xdivy(_nonzero(a), b) * dy if ctx.needs_input_grad[0] else None
        gb = xdivy(-a, b * b) * dy if ctx.needs_input_grad[1] else None
        return (None if ga is None else _reduce(ga, a)), (None if gb is None else _reduce(gb, ctx.b))


class _Atan2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y, x):
        xt = _as_tensor(x, y)
        ctx.save_for_backward(y, xt)
        ctx.x = x
        return torch.atan2(y, xt)

    @staticmethod
    def backward(ctx, dy):
        y, x = ctx.saved_tensors
        inv = dy / (x * x + y * y)
        gy = _reduce(x * inv, y) if ctx.needs_input_grad[0] else None
        gx = _reduce(-y * inv, ctx.x) if ctx.needs_input_grad[1] else None
        return gy, gx


def _poles(t: torch.Tensor) -> torch.Tensor:
    """True at 0, -1, -2, ... (and -inf), where Gamma has its poles."""
    return (t <= 0) & (t == torch.floor(t))


def _digamma_kernel(t: torch.Tensor) -> torch.Tensor:
    out = torch.digamma(t)
    return torch.where(_poles(t), torch.full_like(out, float("nan")), out)


def _trigamma_kernel(t: torch.Tensor) -> torch.Tensor:
    out = torch.polygamma(1, t)
    return torch.where(_poles(t), torch.full_like(out, float("inf")), out)


class _Lgamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return torch.lgamma(t)

    @staticmethod
    def backward(ctx, dy):
        (t,) = ctx.saved_tensors
        return dy * digamma(t)


class _Digamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return _digamma_kernel(t)

    @staticmethod
    def backward(ctx, dy):
        (t,) = ctx.saved_tensors
        return dy * _trigamma_kernel(t)


def xlogy(a: torch.Tensor, b) -> torch.Tensor:
    """``torch.xlogy`` with TF's ``Xlogy`` gradient."""
    return _Xlogy.apply(a, b) if _records(a, b) else _xlogy_kernel(a, b)


def xlog1py(a: torch.Tensor, b) -> torch.Tensor:
    """``torch.special.xlog1py`` with TF's ``Xlog1py`` gradient."""
    return _Xlog1py.apply(a, b) if _records(a, b) else _xlog1py_kernel(a, b)


def xdivy(a: torch.Tensor, b) -> torch.Tensor:
    """0 where ``a == 0``, else ``a / b``, with TF's ``Xdivy`` gradient."""
    return _Xdivy.apply(a, b) if _records(a, b) else _xdivy_kernel(a, b)


def atan2(y: torch.Tensor, x) -> torch.Tensor:
    """``torch.atan2`` with TF's ``Atan2`` gradient (``nan`` at the origin)."""
    if _records(y, x):
        return _Atan2.apply(y, x)
    return torch.atan2(y, _as_tensor(x, y))


def lgamma(t: torch.Tensor) -> torch.Tensor:
    """``torch.lgamma`` whose gradient is TF's ``Digamma``."""
    return _Lgamma.apply(t) if t.requires_grad else torch.lgamma(t)


def digamma(t: torch.Tensor) -> torch.Tensor:
    """TF's ``Digamma`` (``nan`` at the poles) with TF's ``Polygamma(1, x)`` gradient."""
    return _Digamma.apply(t) if t.requires_grad else _digamma_kernel(t)
