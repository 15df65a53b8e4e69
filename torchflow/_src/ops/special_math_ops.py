"""``tf.math.special`` Bessel functions on torch.special kernels, ``tf.math.betainc`` and
``tf.math.sobol_sample``.

16-bit floats run in float32 and are cast back. ``dawsn``, ``expint``,
``fresnel_cos``, ``fresnel_sin`` and ``spence`` have no torch kernel and are not
provided.
"""

from __future__ import annotations

import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import Tensor, dtype_error, tensor_arg, wrap
from torchflow._src.ops.unary_math_ops import _in_f32, _make_unary
from torchflow._src.util.api import public

_F = mc.FLOATS
_NS = "torchflow.math.special"

bessel_j0 = _make_unary("bessel_j0", "BesselJ0", _F, _in_f32(torch.special.bessel_j0),
                        "Computes the Bessel function of the first kind of order 0", module=_NS)
bessel_j1 = _make_unary("bessel_j1", "BesselJ1", _F, _in_f32(torch.special.bessel_j1),
                        "Computes the Bessel function of the first kind of order 1", module=_NS)
bessel_y0 = _make_unary("bessel_y0", "BesselY0", _F, _in_f32(torch.special.bessel_y0),
                        "Computes the Bessel function of the second kind of order 0", module=_NS)
bessel_y1 = _make_unary("bessel_y1", "BesselY1", _F, _in_f32(torch.special.bessel_y1),
                        "Computes the Bessel function of the second kind of order 1", module=_NS)
bessel_k0 = _make_unary("bessel_k0", "BesselK0", _F,
                        _in_f32(torch.special.modified_bessel_k0),
                        "Computes the modified Bessel function of the second kind of order 0",
                        module=_NS)
bessel_k1 = _make_unary("bessel_k1", "BesselK1", _F,
                        _in_f32(torch.special.modified_bessel_k1),
                        "Computes the modified Bessel function of the second kind of order 1",
                        module=_NS)
bessel_k0e = _make_unary("bessel_k0e", "BesselK0e", _F,
                         _in_f32(torch.special.scaled_modified_bessel_k0),
                         "Computes the exponentially scaled modified Bessel function K0",
                         module=_NS)
bessel_k1e = _make_unary("bessel_k1e", "BesselK1e", _F,
                         _in_f32(torch.special.scaled_modified_bessel_k1),
                         "Computes the exponentially scaled modified Bessel function K1",
                         module=_NS)


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
        av, bv, xv = torch.broadcast_tensors(ta._t, tb._t, tx._t)
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
            None, None, f"dim must be at least one and at most 21201 [Op:SobolSample]")
    if n < 1:
        raise InvalidArgumentError(None, None, "num_results must be at least one [Op:SobolSample]")
    if s < 0:
        raise InvalidArgumentError(None, None, "skip must be non-negative [Op:SobolSample]")
    engine = torch.quasirandom.SobolEngine(n_dim, scramble=False)
    engine.fast_forward(s + 1)
    return wrap(engine.draw(n, dtype=d._torch).to(context.default_device()), d)
