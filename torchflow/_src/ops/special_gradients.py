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


# --- Igamma / Igammac / Zeta / Polygamma: torch has no gradient for some inputs ---
def _igamma_grad_a(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """d/da of the regularized lower incomplete gamma P(a, x) (TF's ``IgammaGradA``).

    From the series P(a, x) = prefix * sum_n t_n, prefix = exp(a log x - x -
    lgamma(a + 1)), t_0 = 1, t_n = t_{n-1} x / (a + n): differentiating each factor,
    dP/da = P (log x - digamma(a + 1)) - sum_n prefix t_n sum_{k<=n} 1/(a + k).
    Each ``prefix * t_n`` is formed in log space (it is at most 1), in float64, over
    about ``1.5 x + 10 sqrt(x)`` terms (at most 20000: beyond x ~ 10^4 the
    derivative is lost to rounding anyway unless a is as large).
    """
    dt = a.dtype
    a64, x64 = torch.broadcast_tensors(a.detach().double(), x.detach().double())
    x_max = float(x64.max().clamp(min=0)) if x64.numel() else 0.0
    n_terms = int(min(20000, 1.5 * x_max + 10 * x_max ** 0.5 + 60))
    log_x = torch.log(x64)
    log_c = a64 * log_x - x64 - torch.lgamma(a64 + 1)  # log(prefix * t_0)
    p = torch.exp(log_c)
    harmonic = torch.zeros_like(a64)
    d_sum = torch.zeros_like(a64)
    for n in range(1, n_terms + 1):
        log_c = log_c + log_x - torch.log(a64 + n)
        c = torch.exp(log_c)
        harmonic = harmonic + 1.0 / (a64 + n)
        p = p + c
        d_sum = d_sum - c * harmonic
    out = p * (log_x - torch.digamma(a64 + 1)) + d_sum
    out = torch.where(x64 == 0, torch.zeros_like(out), out)
    out = torch.where((x64 < 0) | (a64 <= 0), torch.full_like(out, float("nan")), out)
    return out.to(dt)


def _igamma_grad_x(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    # d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a))
    return torch.exp(-x + (a - 1) * torch.log(x) - torch.lgamma(a))


class _Igamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, x, upper):
        xt = _as_tensor(x, a)
        ctx.save_for_backward(a, xt)
        ctx.x, ctx.upper = x, upper
        return (torch.special.gammaincc if upper else torch.special.gammainc)(a, xt)

    @staticmethod
    def backward(ctx, dy):
        a, x = ctx.saved_tensors
        sign = -1.0 if ctx.upper else 1.0
        ga = _reduce(sign * _igamma_grad_a(a, x) * dy, a) if ctx.needs_input_grad[0] else None
        gx = _reduce(sign * _igamma_grad_x(a, x) * dy, ctx.x) \
            if ctx.needs_input_grad[1] else None
        return ga, gx, None


def _zeta_kernel(x: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Hurwitz zeta with TF's (Eigen's) values at q <= 0: at a non-positive integer
    q, inf for an even integer x and nan otherwise (torch gives inf for every x);
    nan for a negative non-integer q with a non-integer x; inf at x = 1."""
    out = torch.special.zeta(x, q)
    x_int = x == torch.floor(x)
    q_int = q == torch.floor(q)
    even = x_int & (torch.remainder(x, 2) == 0)
    inf = torch.full_like(out, float("inf"))
    nan = torch.full_like(out, float("nan"))
    out = torch.where((q <= 0) & q_int, torch.where(even, inf, nan), out)
    out = torch.where((q < 0) & ~q_int & ~x_int, nan, out)
    return torch.where(x == 1, inf, out)  # the pole at x = 1, whatever q


class _Zeta(torch.autograd.Function):
    """TF's ``Zeta`` gradient: none for ``x``, ``-x * zeta(x + 1, q)`` for ``q``."""

    @staticmethod
    def forward(ctx, x, q):
        qt = _as_tensor(q, x)
        ctx.save_for_backward(x, qt)
        ctx.q = q
        return _zeta_kernel(x, qt)

    @staticmethod
    def backward(ctx, dy):
        x, q = ctx.saved_tensors
        gq = _reduce(-x * zeta(x + 1, q) * dy, ctx.q) if ctx.needs_input_grad[1] else None
        return None, gq


def _polygamma_kernel(n: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    # psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x) for n >= 1; psi^(0) is digamma.
    sign = torch.where(torch.remainder(n, 2) == 0, -1.0, 1.0).to(t.dtype)
    higher = sign * torch.exp(torch.lgamma(n + 1)) * _zeta_kernel(n + 1, t)
    out = torch.where(n == 0, _digamma_kernel(t), higher)
    valid = (n >= 0) & (n == torch.floor(n))
    return torch.where(valid, out, torch.full_like(out, float("nan")))


class _Polygamma(torch.autograd.Function):
    """TF's ``Polygamma`` gradient: none for ``a``, ``polygamma(a + 1, x)`` for ``x``."""

    @staticmethod
    def forward(ctx, n, t):
        ctx.save_for_backward(n, t)
        return _polygamma_kernel(n, t)

    @staticmethod
    def backward(ctx, dy):
        n, t = ctx.saved_tensors
        gt = _reduce(polygamma(n + 1, t) * dy, t) if ctx.needs_input_grad[1] else None
        return None, gt


def igamma(a: torch.Tensor, x, upper: bool = False) -> torch.Tensor:
    """``torch.special.gammainc`` (``gammaincc`` if ``upper``) with TF's gradients for
    both arguments (torch has none for ``a``)."""
    if _records(a, x):
        return _Igamma.apply(a, x, upper)
    return (torch.special.gammaincc if upper else torch.special.gammainc)(a, _as_tensor(x, a))


def zeta(x: torch.Tensor, q) -> torch.Tensor:
    """The Hurwitz zeta function with TF's values at q <= 0 and TF's ``Zeta``
    gradient (torch has none)."""
    if _records(x, q):
        return _Zeta.apply(x, q)
    return _zeta_kernel(x, _as_tensor(q, x))


def polygamma(n: torch.Tensor, t) -> torch.Tensor:
    """TF's ``Polygamma`` (nan for non-integer or negative orders) with its gradient."""
    t = _as_tensor(t, n)
    if _records(n, t):
        return _Polygamma.apply(n, t)
    return _polygamma_kernel(n, t)


# --- Bessel functions: torch.special's have no gradient (the tape saw constants) ---
_BESSEL = {
    "j0": torch.special.bessel_j0, "j1": torch.special.bessel_j1,
    "y0": torch.special.bessel_y0, "y1": torch.special.bessel_y1,
    "k0": torch.special.modified_bessel_k0, "k1": torch.special.modified_bessel_k1,
    "k0e": torch.special.scaled_modified_bessel_k0,
    "k1e": torch.special.scaled_modified_bessel_k1,
}


def _bessel_derivative(kind: str, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """TF's Bessel gradient functions (J0' = -J1, J1' = J0 - J1/x with 0.5 at 0, ...)."""
    if kind == "j0":
        return -bessel(x, "j1")
    if kind == "j1":
        d = bessel(x, "j0") - y / x
        return torch.where(x == 0, torch.full_like(d, 0.5), d)
    if kind == "y0":
        return -bessel(x, "y1")
    if kind == "y1":
        return bessel(x, "y0") - y / x
    if kind == "k0":
        return -bessel(x, "k1")
    if kind == "k1":
        return -bessel(x, "k0") - y / x
    if kind == "k0e":
        return y - bessel(x, "k1e")
    return y * (1.0 - 1.0 / x) - bessel(x, "k0e")  # k1e


class _Bessel(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, kind):
        y = _BESSEL[kind](x)
        ctx.save_for_backward(x, y)
        ctx.kind = kind
        return y

    @staticmethod
    def backward(ctx, dy):
        x, y = ctx.saved_tensors
        return dy * _bessel_derivative(ctx.kind, x, y), None


def bessel(x: torch.Tensor, kind: str) -> torch.Tensor:
    """torch.special's Bessel function ``kind`` ("j0", "k1e", ...) with TF's gradient."""
    return _Bessel.apply(x, kind) if x.requires_grad else _BESSEL[kind](x)
