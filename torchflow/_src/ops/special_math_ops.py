"""``tf.math.special`` Bessel functions on torch.special kernels, ``tf.math.betainc`` and
``tf.math.sobol_sample``.

16-bit floats run in float32 and are cast back. ``expint``, ``spence``, ``dawsn``
and the Fresnel integrals have no torch kernel: they are series, asymptotic
expansions or Gauss-Legendre quadrature evaluated in float64 (within 1e-12 of SciPy).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops import special_gradients as sg
from torchflow._src.ops._dispatch import Tensor, dtype_error, tensor_arg, wrap
from torchflow._src.ops._math_common import unary_op as _unary_op
from torchflow._src.ops.unary_math_ops import _in_f32
from torchflow._src.util.api import public

_F = mc.FLOATS
_NS = "torchflow.math.special"

@public(_NS)
def bessel_j0(x, name=None) -> Tensor:
    """Computes the Bessel function of the first kind of order 0, J0(x), elementwise (TF's ``BesselJ0``).

    16-bit floats are computed in float32 and rounded back.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("BesselJ0", _bessel_j0_kernel, _F, x)


_bessel_j0_kernel = _in_f32(functools.partial(sg.bessel, kind="j0"))


@public(_NS)
def bessel_j1(x, name=None) -> Tensor:
    """Computes the Bessel function of the first kind of order 1, J1(x), elementwise (TF's ``BesselJ1``).

    16-bit floats are computed in float32 and rounded back.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("BesselJ1", _bessel_j1_kernel, _F, x)


_bessel_j1_kernel = _in_f32(functools.partial(sg.bessel, kind="j1"))


@public(_NS)
def bessel_y0(x, name=None) -> Tensor:
    """Computes the Bessel function of the second kind of order 0, Y0(x), for x > 0, elementwise (TF's ``BesselY0``).

    16-bit floats are computed in float32 and rounded back.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("BesselY0", _bessel_y0_kernel, _F, x)


_bessel_y0_kernel = _in_f32(functools.partial(sg.bessel, kind="y0"))


@public(_NS)
def bessel_y1(x, name=None) -> Tensor:
    """Computes the Bessel function of the second kind of order 1, Y1(x), for x > 0, elementwise (TF's ``BesselY1``).

    16-bit floats are computed in float32 and rounded back.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("BesselY1", _bessel_y1_kernel, _F, x)


_bessel_y1_kernel = _in_f32(functools.partial(sg.bessel, kind="y1"))


@public(_NS)
def bessel_k0(x, name=None) -> Tensor:
    """Computes the modified Bessel function of the second kind of order 0, K0(x), for x > 0, elementwise (TF's ``BesselK0``).

    16-bit floats are computed in float32 and rounded back.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("BesselK0", _bessel_k0_kernel, _F, x)


_bessel_k0_kernel = _in_f32(functools.partial(sg.bessel, kind="k0"))


@public(_NS)
def bessel_k1(x, name=None) -> Tensor:
    """Computes the modified Bessel function of the second kind of order 1, K1(x), for x > 0, elementwise (TF's ``BesselK1``).

    16-bit floats are computed in float32 and rounded back.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("BesselK1", _bessel_k1_kernel, _F, x)


_bessel_k1_kernel = _in_f32(functools.partial(sg.bessel, kind="k1"))


@public(_NS)
def bessel_k0e(x, name=None) -> Tensor:
    """Computes the exponentially scaled modified Bessel function K0, exp(x) * K0(x), for x > 0, elementwise (TF's ``BesselK0e``).

    16-bit floats are computed in float32 and rounded back.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("BesselK0e", _bessel_k0e_kernel, _F, x)


_bessel_k0e_kernel = _in_f32(functools.partial(sg.bessel, kind="k0e"))


@public(_NS)
def bessel_k1e(x, name=None) -> Tensor:
    """Computes the exponentially scaled modified Bessel function K1, exp(x) * K1(x), for x > 0, elementwise (TF's ``BesselK1e``).

    16-bit floats are computed in float32 and rounded back.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("BesselK1e", _bessel_k1e_kernel, _F, x)


_bessel_k1e_kernel = _in_f32(functools.partial(sg.bessel, kind="k1e"))


def _betacf(a, b, x, eps, tiny, max_iter=300):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1, a - 1
    one = torch.ones_like(x)

    def guard(v):
        return torch.where(v.abs() < tiny, torch.full_like(v, tiny), v)

    c = one
    d = 1 / guard(1 - qab * x / qap)
    h = d
    for m in range(1, max_iter + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 / guard(1 + aa * d)
        c = guard(1 + aa / c)
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 / guard(1 + aa * d)
        c = guard(1 + aa / c)
        delta = d * c
        h = h * delta
        if m % 10 == 0 and bool(((delta - 1).abs() < eps).all()):
            break
    return h


@public("torchflow.math")
def betainc(a, b, x, name=None) -> Tensor:
    """Computes the regularized incomplete beta function ``I_x(a, b)``.

    Args:
      a: A float32 or float64 tensor (positive).
      b: A tensor of ``a``'s dtype (positive).
      x: A tensor of ``a``'s dtype with values in [0, 1].
      name: Unused (eager).

    Returns:
      A tensor of ``a``'s dtype, broadcasting the three inputs; NaN where
      ``a <= 0``, ``b <= 0`` or ``x`` is outside [0, 1].

    Raises:
      InvalidArgumentError: If the dtypes differ or are not float32/float64.
    """
    ta, tb = tensor_arg(a), tensor_arg(b, tensor_arg(a)._dtype)
    tx = tensor_arg(x, ta._dtype)
    d = ta._dtype
    allowed = mc.TypeSet("float32", "float64")
    if d._name not in allowed:
        raise mc.bad_type("Betainc", d, allowed)
    for i, t in enumerate((tb, tx), 1):
        if t._dtype is not d:
            raise dtype_error("Betainc", i, d, t._dtype)
    try:
        # TF registers no gradient for a and b (None), only for x.
        av, bv, xv = torch.broadcast_tensors(ta._t.detach(), tb._t.detach(), tx._t)
    except RuntimeError as e:
        raise mc.op_failure("Betainc", e, ta._t, tx._t) from None
    eps = 1e-15 if d is dtypes.float64 else 1e-7
    tiny = 1e-300 if d is dtypes.float64 else 1e-30
    # I_x(a, b) = 1 - I_{1-x}(b, a): the continued fraction converges fast below the mean.
    flip = xv > (av + 1) / (av + bv + 2)
    p = torch.where(flip, bv, av)
    q = torch.where(flip, av, bv)
    z = torch.where(flip, 1 - xv, xv)
    inside = (z > 0) & (z < 1)
    zs = torch.where(inside, z, torch.full_like(z, 0.5))
    log_front = (torch.lgamma(p + q) - torch.lgamma(p) - torch.lgamma(q)
                 + p * torch.log(zs) + q * torch.log1p(-zs))
    val = torch.exp(log_front) * _betacf(p, q, zs, eps, tiny) / p
    val = torch.where(inside, val, torch.where(z <= 0, torch.zeros_like(z), torch.ones_like(z)))
    val = torch.where(flip, 1 - val, val)
    bad = (av <= 0) | (bv <= 0) | (xv < 0) | (xv > 1) | torch.isnan(xv)
    return wrap(torch.where(bad, torch.full_like(val, float("nan")), val), d)


@public("torchflow.math")
def sobol_sample(dim, num_results, skip=0, dtype=dtypes.float32, name=None) -> Tensor:
    """Generates points of the (unscrambled) Sobol' low-discrepancy sequence.

    Uses the Joe-Kuo direction numbers (torch's ``SobolEngine``), like TF; the
    all-zero first point is skipped, as TF does.

    Args:
      dim: The dimension of each point (1 to 21201).
      num_results: The number of points.
      skip: The number of initial points to skip.
      dtype: float32 (default) or float64.
      name: Unused (eager).

    Returns:
      A ``[num_results, dim]`` tensor of ``dtype`` with values in [0, 1).

    Raises:
      InvalidArgumentError: If ``dim`` is out of range, ``num_results``
        is not positive, ``skip`` is negative, or ``dtype`` is not float32/float64.

    >>> import torchflow as tf
    >>> tf.math.sobol_sample(2, 2).numpy()
    array([[0.5 , 0.5 ],
           [0.75, 0.25]], dtype=float32)
    """
    d = dtypes.as_dtype(dtype)
    allowed = mc.TypeSet("float32", "float64")
    if d._name not in allowed:
        raise mc.bad_type("SobolSample", d, allowed, "dtype")
    n_dim, n, s = (int(tensor_arg(v)._t.item()) if isinstance(v, Tensor) else int(v)
                   for v in (dim, num_results, skip))
    if not 1 <= n_dim <= torch.quasirandom.SobolEngine.MAXDIM:
        raise InvalidArgumentError(
            None, None, "dim must be at least one and at most 21201 [Op:SobolSample]")
    if n < 1:
        raise InvalidArgumentError(None, None, "num_results must be at least one [Op:SobolSample]")
    if s < 0:
        raise InvalidArgumentError(None, None, "skip must be non-negative [Op:SobolSample]")
    engine = torch.quasirandom.SobolEngine(n_dim, scramble=False)
    engine.fast_forward(s + 1)
    return wrap(engine.draw(n, dtype=d._torch).to(context.default_device()), d)


_EULER = 0.57721566490153286061
_PI2_6 = math.pi ** 2 / 6


def _series(step, first, n_terms):
    """Sum of a power series whose k-th term is ``step(prev_term, k)``."""
    term = first
    total = first
    for k in range(1, n_terms):
        term = step(term, k)
        total = total + term
    return total


def _expint64(x):
    ax = x.abs()
    # Small x: Ei(x) = gamma + ln|x| + sum_k x^k / (k k!).
    xs = torch.where(ax <= 40, x, torch.zeros_like(x))
    p = xs  # x^k / k!
    total = xs.clone()
    for k in range(2, 160):
        p = p * xs / k
        total = total + p / k
    small = _EULER + torch.log(torch.where(ax > 0, ax, torch.ones_like(ax))) + total
    # Large positive x: asymptotic e^x / x * sum_k k! / x^k.
    xl = torch.where(x > 40, x, torch.full_like(x, 41.0))
    large = torch.exp(xl) / xl * _series(lambda t, k: t * k / xl, torch.ones_like(xl), 30)
    out = torch.where(x > 40, large, small)
    # TF defines Ei on the positive reals only (NaN below 0, as its kernel).
    out = torch.where(x < 0, torch.full_like(x, float("nan")), out)
    return torch.where(x == 0, torch.full_like(x, float("-inf")), out)


def _li2_small(y):
    """Dilogarithm sum_k y^k / k^2 for |y| <= 1/2."""
    p = y
    total = y.clone()
    for k in range(2, 60):
        p = p * y
        total = total + p / (k * k)
    return total


def _li2_le_half_neg(y):
    """Li2(y) for -1 <= y <= 1/2 (Landen's identity below -1/2)."""
    lo = y < -0.5
    ys = torch.where(lo, y / (y - 1), y)
    base = _li2_small(torch.clamp(ys, -0.5, 0.5))
    return torch.where(lo, -base - 0.5 * torch.log1p(-y) ** 2, base)


def _spence64(x):
    """scipy's spence: Li2(1 - x) for x >= 0."""
    y = 1 - x
    # y in (1/2, 1]: reflection Li2(y) = pi^2/6 - ln(y) ln(1-y) - Li2(1-y).
    hi = y > 0.5
    xs = torch.where(hi, x, torch.full_like(x, 0.25))
    refl = _PI2_6 - torch.log(1 - xs) * torch.log(torch.where(xs > 0, xs, torch.ones_like(xs))) \
        - _li2_small(xs)
    # y < -1: inversion Li2(y) = -pi^2/6 - ln^2(-y)/2 - Li2(1/y).
    inv = y < -1
    yi = torch.where(inv, y, torch.full_like(y, -2.0))
    inverted = -_PI2_6 - 0.5 * torch.log(-yi) ** 2 - _li2_le_half_neg(1 / yi)
    mid = _li2_le_half_neg(torch.clamp(y, -1.0, 0.5))
    out = torch.where(hi, refl, torch.where(inv, inverted, mid))
    return torch.where(x < 0, torch.full_like(x, float("nan")), out)


def _dawsn64(x):
    ax = x.abs()
    # |x| <= 6: D(x) = exp(-x^2) sum_k x^(2k+1) / (k! (2k+1)) (all terms positive).
    xs = torch.where(ax <= 6, ax, torch.zeros_like(ax))
    x2 = xs * xs
    p = xs  # x^(2k+1) / k!
    total = xs.clone()
    for k in range(1, 130):
        p = p * x2 / k
        total = total + p / (2 * k + 1)
    small = torch.exp(-x2) * total
    # |x| > 6: asymptotic 1/(2x) sum_k (2k-1)!! / (2x^2)^k; the error is below exp(-36).
    xl = torch.where(ax > 6, ax, torch.full_like(ax, 7.0))
    inv = 1 / (2 * xl * xl)
    large = _series(lambda t, k: t * (2 * k - 1) * inv, torch.ones_like(xl), 30) / (2 * xl)
    return torch.sign(x) * torch.where(ax > 6, large, small)


def _gauss_legendre_panels(panels=8, order=16):
    """Nodes and weights on [0, 1] of a composite Gauss-Legendre rule."""
    u, w = np.polynomial.legendre.leggauss(order)
    nodes = np.concatenate([(u + 1) / (2 * panels) + i / panels for i in range(panels)])
    return nodes, np.tile(w / (2 * panels), panels)


_GL_NODES, _GL_WEIGHTS = _gauss_legendre_panels()


def _fresnel64(x, want_sin):
    ax = x.abs()
    # |x| <= 6: integrate cos/sin(pi t^2 / 2) over [0, |x|] (at most ~9 oscillations).
    xs = torch.where(ax <= 6, ax, torch.zeros_like(ax))
    u = torch.as_tensor(_GL_NODES, dtype=x.dtype, device=x.device)
    w = torch.as_tensor(_GL_WEIGHTS, dtype=x.dtype, device=x.device)
    phase = (math.pi / 2) * (xs.unsqueeze(-1) * u) ** 2
    small = xs * ((torch.sin(phase) if want_sin else torch.cos(phase)) * w).sum(-1)
    # |x| > 6: 1/2 + auxiliary functions f, g (asymptotic; error below exp(-56)).
    xl = torch.where(ax > 6, ax, torch.full_like(ax, 7.0))
    q = 1 / (math.pi * xl * xl) ** 2
    f = _series(lambda t, k: -t * (4 * k - 3) * (4 * k - 1) * q, torch.ones_like(xl), 12)
    g = _series(lambda t, k: -t * (4 * k - 1) * (4 * k + 1) * q, torch.ones_like(xl), 12)
    f = f / (math.pi * xl)
    g = g / (math.pi * xl) / (math.pi * xl * xl)
    ph = (math.pi / 2) * xl * xl
    if want_sin:
        large = 0.5 - f * torch.cos(ph) - g * torch.sin(ph)
    else:
        large = 0.5 + f * torch.sin(ph) - g * torch.cos(ph)
    return torch.sign(x) * torch.where(ax > 6, large, small)


def _in_f64(fn):
    def g(t):
        return fn(t.to(torch.float64)).to(t.dtype)

    return g


_expint_kernel = _in_f64(_expint64)


@public(_NS)
def expint(x, name=None) -> Tensor:
    """Computes the exponential integral Ei(x) (NaN for x < 0), elementwise (TF's ``Expint``).

    Evaluated in float64 and rounded to ``x``'s dtype.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("Expint", _expint_kernel, _F, x)


_fresnel_cos_kernel = _in_f64(lambda t: _fresnel64(t, False))


@public(_NS)
def fresnel_cos(x, name=None) -> Tensor:
    """Computes the Fresnel cosine integral, the integral of cos(pi t^2 / 2) from 0 to x, elementwise (TF's ``FresnelCos``).

    Evaluated in float64 and rounded to ``x``'s dtype.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("FresnelCos", _fresnel_cos_kernel, _F, x)


_fresnel_sin_kernel = _in_f64(lambda t: _fresnel64(t, True))


@public(_NS)
def fresnel_sin(x, name=None) -> Tensor:
    """Computes the Fresnel sine integral, the integral of sin(pi t^2 / 2) from 0 to x, elementwise (TF's ``FresnelSin``).

    Evaluated in float64 and rounded to ``x``'s dtype.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("FresnelSin", _fresnel_sin_kernel, _F, x)


_dawsn_kernel = _in_f64(_dawsn64)


@public(_NS)
def dawsn(x, name=None) -> Tensor:
    """Computes the Dawson's integral, exp(-x^2) times the integral of exp(t^2) from 0 to x, elementwise (TF's ``Dawsn``).

    Evaluated in float64 and rounded to ``x``'s dtype.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("Dawsn", _dawsn_kernel, _F, x)


_spence_kernel = _in_f64(_spence64)


@public(_NS)
def spence(x, name=None) -> Tensor:
    """Computes the Spence's integral, the integral of log(t) / (1 - t) from 1 to x, elementwise (TF's ``Spence``).

    Evaluated in float64 and rounded to ``x``'s dtype.

    Args:
      x: A float Tensor (or value convertible to one).
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``x`` is not a float tensor.
    """
    return _unary_op("Spence", _spence_kernel, _F, x)
