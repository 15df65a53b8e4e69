"""Torch functions whose gradients follow TF's gradient kernels where torch's differ.

TF's ``SqrtGrad``, ``RsqrtGrad`` and ``ReciprocalGrad`` return 0 wherever the
upstream gradient is 0, whatever the value there (torch computes
``0 * inf = nan``). That is what makes the common guard
``tf.where(x > 0, tf.sqrt(x), 0.)`` differentiable at ``x <= 0`` in TF: the untaken
branch receives a zero upstream gradient and passes zero on. ``sqrt(x * x)``
and ``sqrt(x) ** 2`` at 0 are the same case.

Each function is the plain torch kernel unless autograd records it.
"""

from __future__ import annotations

import torch


def _zero_where_no_upstream(dy: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return torch.where(dy == 0, torch.zeros_like(g), g)


class _Sqrt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.sqrt(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        return _zero_where_no_upstream(dy, dy * 0.5 / y.conj())


class _Rsqrt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.rsqrt(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        yc = y.conj()
        return _zero_where_no_upstream(dy, dy * (-0.5) * yc * yc * yc)


class _Reciprocal(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.reciprocal(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        yc = y.conj()
        return _zero_where_no_upstream(dy, -dy * yc * yc)


def sqrt(t: torch.Tensor) -> torch.Tensor:
    """``torch.sqrt`` with TF's ``SqrtGrad`` (0 where the upstream gradient is 0)."""
    return _Sqrt.apply(t) if t.requires_grad else torch.sqrt(t)


def rsqrt(t: torch.Tensor) -> torch.Tensor:
    """``torch.rsqrt`` with TF's ``RsqrtGrad``."""
    return _Rsqrt.apply(t) if t.requires_grad else torch.rsqrt(t)


def reciprocal(t: torch.Tensor) -> torch.Tensor:
    """``torch.reciprocal`` with TF's ``ReciprocalGrad``."""
    return _Reciprocal.apply(t) if t.requires_grad else torch.reciprocal(t)


class _NoGradient(torch.autograd.Function):
    """Marks a result as coming from a TF op without a registered gradient."""

    @staticmethod
    def forward(ctx, op, y, *inputs):
        ctx.op = op
        return y.clone()

    @staticmethod
    def backward(ctx, dy):
        raise LookupError(f"gradient registry has no entry for: {ctx.op}")


def no_gradient(op: str, fn, *inputs: torch.Tensor) -> torch.Tensor:
    """``fn(*inputs)`` as TF's op ``op``, which has no gradient: differentiating
    through it raises TF's ``LookupError`` (a value never recorded gives None)."""
    if not any(getattr(t, "requires_grad", False) for t in inputs):
        return fn(*inputs)
    with torch.no_grad():
        y = fn(*inputs)
    return _NoGradient.apply(op, y, *[t for t in inputs if isinstance(t, torch.Tensor)])
