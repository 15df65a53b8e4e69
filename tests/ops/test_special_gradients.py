"""Gradients of xlogy, xlog1py, xdivy, atan2, lgamma and digamma at their singular
points, compared with real TensorFlow (torch's own formulas differ there)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf

INF = float("inf")
# x == 0 against y in {0, 1, -1, inf}, x != 0 against y == 0, and ordinary points.
XS = [0.0, 0.0, 0.0, 0.0, 1.0, -1.0, 2.0, 0.5]
YS = [0.0, 1.0, -1.0, INF, 0.0, 0.0, -1.0, 3.0]
# atan2 at the origin (both signs of zero), on the axes and off them.
AY = [0.0, 0.0, -0.0, 1.0, 0.0, 2.0]
AX = [0.0, -0.0, 0.0, 0.0, -1.0, 3.0]
# The poles of Gamma (both zeros), -inf, inf and ordinary points.
GX = [0.0, -0.0, -1.0, -2.0, -INF, INF, 1.0, -0.5, 3.5]


def _binary_grads(mod, fn_name, xs, ys, dtype, order=1):
    fn = getattr(mod.math, fn_name)
    x = mod.constant(xs, dtype)
    y = mod.constant(ys, dtype)
    with mod.GradientTape(persistent=True) as outer:
        outer.watch([x, y])
        with mod.GradientTape(persistent=True) as inner:
            inner.watch([x, y])
            z = fn(x, y)
        gx, gy = inner.gradient(z, [x, y])
    out = [z, gx, gy]
    if order == 2:
        out += outer.gradient(gx, [x, y]) + outer.gradient(gy, [x, y])
    return [np.asarray(t) for t in out]


@pytest.mark.parametrize("name,xs,ys", [
    ("xlogy", XS, YS), ("xlog1py", XS, [v - 1 if v != INF else v for v in YS]),
    ("xdivy", XS, YS), ("atan2", AY, AX)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_gradients_match_tf(name, xs, ys, dtype):
    rtf = real_tf()
    ours = _binary_grads(tf, name, xs, ys, dtype, order=2)
    ref = _binary_grads(rtf, name, xs, ys, dtype, order=2)
    for a, e in zip(ours, ref):
        assert_close(a, e, rtol=1e-5)


def _unary_grads(mod, fn_name, xs, dtype):
    fn = getattr(mod.math, fn_name)
    x = mod.constant(xs, dtype)
    with mod.GradientTape() as outer:
        outer.watch(x)
        with mod.GradientTape() as inner:
            inner.watch(x)
            z = fn(x)
        g = inner.gradient(z, x)
    return [np.asarray(t) for t in (z, g, outer.gradient(g, x))]


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_family_gradients_match_tf(name, dtype):
    rtf = real_tf()
    ours = _unary_grads(tf, name, GX, dtype)
    ref = _unary_grads(rtf, name, GX, dtype)
    # The forward value, first and second derivative (digamma's second
    # derivative away from the poles only: TF's polygamma(2, .) at a pole is nan).
    for i, (a, e) in enumerate(zip(ours, ref)):
        if name == "digamma" and i == 2:
            keep = np.asarray([not (v <= 0 and v == np.floor(v)) and abs(v) != INF for v in GX])
            a, e = a[keep], e[keep]
        assert_close(a, e, rtol=1e-5)


def test_digamma_is_nan_at_the_poles_as_tf():
    rtf = real_tf()
    xs = [0.0, -0.0, -3.0, 2.0]
    assert_close(tf.math.digamma(tf.constant(xs)), rtf.math.digamma(rtf.constant(xs)))


def test_broadcast_and_python_scalar_gradients_match_tf():
    rtf = real_tf()
    x0 = np.array([[0.0, 1.0, 2.0], [0.0, 3.0, 0.5]], np.float32)
    y0 = np.array([0.0, 2.0, 4.0], np.float32)

    def grads(mod, fn_name):
        fn = getattr(mod.math, fn_name)
        x, y = mod.constant(x0), mod.constant(y0)
        with mod.GradientTape(persistent=True) as t:
            t.watch([x, y])
            z = mod.reduce_sum(fn(x, y)) + mod.reduce_sum(fn(x, 2.0))
        return [np.asarray(g) for g in t.gradient(z, [x, y])]

    for name in ["xlogy", "xdivy", "xlog1py", "atan2"]:
        for a, e in zip(grads(tf, name), grads(rtf, name)):
            assert_close(a, e)


def test_untaken_where_branch_gives_tf_zero_gradient():
    # tf.where(x > 0, tf.math.xlogy(x, x), 0.): the x == 0 entry gets 0, not nan.
    rtf = real_tf()

    def grad(mod):
        x = mod.constant([0.0, 2.0])
        with mod.GradientTape() as t:
            t.watch(x)
            z = mod.where(x > 0, mod.math.xlogy(x, x), mod.zeros_like(x))
        return np.asarray(t.gradient(z, x))

    assert_close(grad(tf), grad(rtf))


# igamma/igammac (torch has no gradient for a), zeta and polygamma (none at all).
@pytest.mark.parametrize("name", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_igamma_gradients_for_both_arguments_match_tf(name, dtype):
    rtf = real_tf()
    a = [0.5, 1.0, 2.0, 3.5, 10.0, 0.1, 4.0]
    x = [0.5, 0.0, 3.0, 1.0, 12.0, 0.01, 40.0]
    ours = _binary_grads(tf, name, a, x, dtype)
    ref = _binary_grads(rtf, name, a, x, dtype)
    for got, want in zip(ours, ref):
        assert_close(got, want, rtol=1e-4 if dtype == "float32" else 1e-7, atol=1e-7)


@pytest.mark.parametrize("name, first, second", [
    ("zeta", [2.0, 3.0, 2.5, 4.0, 2.0], [0.5, 2.0, 1.5, 3.0, 0.0]),
    ("polygamma", [0.0, 1.0, 2.0, 3.0, 1.0], [0.5, 2.0, -0.5, 3.0, 0.0]),
])
def test_zeta_and_polygamma_gradients_match_tf(name, first, second):
    # No gradient for the first argument (None, as TF), TF's formula for the second.
    rtf = real_tf()
    ours = _binary_grads(tf, name, first, second, "float64")
    ref = _binary_grads(rtf, name, first, second, "float64")
    assert ours[1].dtype == object and ref[1].dtype == object  # None
    for i in (0, 2):
        assert_close(ours[i], ref[i], rtol=1e-7)


def test_zeta_and_polygamma_values_at_poles_match_tf():
    # TF's (Eigen's) zeta: at q = 0, -1, ... inf for an even integer x, nan otherwise;
    # inf at x = 1; so polygamma(2, 0) is nan where polygamma(1, 0) is inf.
    rtf = real_tf()
    q = np.tile([0.0, -1.0, -0.5, 1.5, -2.0, 3.0], 5)
    x = np.repeat([2.0, 3.0, 2.5, 1.0, 4.0], 6)
    assert_close(tf.math.zeta(x, q), rtf.math.zeta(x, q), rtol=1e-6)
    n = np.repeat([0.0, 1.0, 2.0, 3.0, 1.5, -1.0], 6)
    t = np.tile([0.0, -1.0, -0.5, 1.5, -2.0, 3.0], 6)
    assert_close(tf.math.polygamma(n, t), rtf.math.polygamma(n, t), rtol=1e-6)


@pytest.mark.parametrize("name", ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
                                  "bessel_k0", "bessel_k1", "bessel_k0e", "bessel_k1e"])
def test_special_bessel_gradients_match_tf(name):
    # torch.special's Bessel functions have no gradient: the tape answered None.
    rtf = real_tf()
    xs = [0.1, 0.5, 1.0, 2.0, 7.5] + ([0.0] if name in ("bessel_j0", "bessel_j1") else [])

    def grads(mod):
        fn = getattr(mod.math.special, name)
        x = mod.constant(xs, "float64")
        with mod.GradientTape() as outer:
            outer.watch(x)
            with mod.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            g = inner.gradient(y, x)
        return [np.asarray(t) for t in (y, g, outer.gradient(g, x))]

    for got, want in zip(grads(tf), grads(rtf)):
        assert_close(got, want, rtol=1e-7, atol=1e-10)


def test_betainc_gradient_only_for_x_as_tf():
    rtf = real_tf()
    a, b, x = [1.0, 2.0, 0.5, 3.0], [2.0, 1.0, 0.5, 1.0], [0.5, 0.3, 0.2, 0.9]

    def grads(mod):
        ts = [mod.constant(v, "float64") for v in (a, b, x)]
        with mod.GradientTape() as tape:
            tape.watch(ts)
            z = mod.math.betainc(*ts)
        return tape.gradient(z, ts)

    ours, theirs = grads(tf), grads(rtf)
    assert ours[0] is None and ours[1] is None and theirs[0] is None and theirs[1] is None
    assert_close(ours[2], theirs[2], rtol=1e-7)
