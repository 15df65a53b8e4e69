"""GradientTape behaviour TF programs rely on, compared with real TF: persistent
tapes through grad_pass_through / custom_gradient / recompute_grad, re-entry,
guarded singular branches (tf.where), integer variables in watched_variables()."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _n(g):
    return None if g is None else np.asarray(g.numpy()).tolist()


def _persistent_grad_pass_through(m):
    x = m.constant(2.0)
    with m.GradientTape(persistent=True) as t:
        t.watch(x)
        y = m.grad_pass_through(lambda v: m.round(v * 3.0))(x)
        z = x * x
    return [_n(t.gradient(y, x)), _n(t.gradient(z, x)), _n(t.gradient(y, x))]


def _persistent_custom_gradient(m):
    @m.custom_gradient
    def f(x):
        def grad(dy):
            return dy * 10.0

        return x * x, grad

    x = m.constant(2.0)
    with m.GradientTape(persistent=True) as t:
        t.watch(x)
        y = f(x)
        z = y * 2.0
    return [_n(t.gradient(y, x)), _n(t.gradient(z, x)), _n(t.gradient(y, x))]


def _persistent_recompute_grad(m):
    v = m.Variable(3.0)
    f = m.recompute_grad(lambda x: m.sin(x) * v)
    x = m.constant(2.0)
    with m.GradientTape(persistent=True) as t:
        t.watch(x)
        y = f(x)
    return [_n(t.gradient(y, x)), _n(t.gradient(y, x)), _n(t.gradient(y, v))]


@pytest.mark.parametrize("program", [_persistent_grad_pass_through,
                                     _persistent_custom_gradient, _persistent_recompute_grad])
def test_persistent_tape_answers_several_calls_like_tf(program):
    np.testing.assert_allclose(program(tf), program(real_tf()), rtol=1e-6)


def test_reentering_an_active_tape_raises_tf_value_error():
    rtf = real_tf()
    for m in (rtf, tf):
        t = m.GradientTape()
        with pytest.raises(ValueError, match="Tape is still recording, This can happen if "
                                             "you try to re-enter an already-active tape."):
            with t:
                with t:
                    pass
    # A tape that has exited may be entered again (persistent), as in TF.
    t = tf.GradientTape(persistent=True)
    with t:
        pass
    with t:
        x = tf.constant(1.0)
        t.watch(x)
        y = x * 2.0
    assert float(t.gradient(y, x)) == 2.0


GUARDED = {
    "sqrt": lambda m, x: m.sqrt(x),
    "rsqrt": lambda m, x: m.math.rsqrt(x),
    "reciprocal": lambda m, x: m.math.reciprocal(x),
    "log": lambda m, x: m.math.log(x),
    "pow_half": lambda m, x: m.pow(x, 0.5),
    "pow_neg": lambda m, x: m.pow(x, -1.0),
    "div": lambda m, x: 1.0 / x,
    "divide": lambda m, x: m.math.divide(1.0, x),
    "log1p": lambda m, x: m.math.log1p(x - 1.0),
    "sqrt_sq": lambda m, x: m.sqrt(x) ** 2,
    "sqrt_of_square": lambda m, x: m.sqrt(x * x),
    "div_no_nan": lambda m, x: m.math.divide_no_nan(1.0, x),
    "tan": lambda m, x: m.tan(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(GUARDED))
@pytest.mark.parametrize("guard", [True, False])
def test_gradient_at_domain_edges_matches_tf(name, guard, dtype):
    rtf = real_tf()
    out = []
    for m in (rtf, tf):
        x = m.constant([-1.0, 0.0, 4.0, 1e-30], dtype)
        with m.GradientTape() as t:
            t.watch(x)
            y = GUARDED[name](m, x)
            if guard:
                y = m.where(x > 0, y, m.zeros_like(y))
        out.append(t.gradient(y, x).numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-6, equal_nan=True)


def test_second_order_through_sqrt_matches_analytic():
    x = tf.constant([0.25, 4.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.sqrt(x)
        g = inner.gradient(y, x)
    gg = outer.gradient(g, x)
    xs = np.array([0.25, 4.0])
    np.testing.assert_allclose(g.numpy(), 0.5 / np.sqrt(xs), rtol=1e-6)
    np.testing.assert_allclose(gg.numpy(), -0.25 * xs ** -1.5, rtol=1e-6)


def test_integer_variables_listed_in_watched_variables_like_tf():
    rtf = real_tf()
    for m in (rtf, tf):
        vi, vf = m.Variable(3, name="vi"), m.Variable(2.0, name="vf")
        with m.GradientTape() as t:
            t.watch(vi)
            y = m.cast(vi, m.float32) * vf
        assert [v.name for v in t.watched_variables()] == ["vi:0", "vf:0"]
        gi, gf = t.gradient(y, [vi, vf])
        assert gi is None and float(gf) == 3.0
        with m.GradientTape() as t:
            _ = vi * 2  # trainable int variable read: watched, as in TF
        assert [v.name for v in t.watched_variables()] == ["vi:0"]
        with m.GradientTape(watch_accessed_variables=False) as t:
            _ = vi * 2
        assert t.watched_variables() == ()


def test_op_without_gradient_raises_lookup_error_like_tf():
    rtf = real_tf()
    for m in (rtf, tf):
        image = m.Variable([[[0.5, 0.0, 0.0]]])
        delta = m.Variable(0.1)
        with m.GradientTape() as tape:
            new_image = m.image.adjust_contrast(image, delta)
        with pytest.raises(LookupError, match="gradient registry has no entry for: "
                                              "AdjustContrastv2"):
            tape.gradient(new_image, [image, delta])
        x = m.constant([[[0.5, 0.0, 0.0]]])
        with m.GradientTape() as tape:
            y = m.image.adjust_contrast(x, 0.1)
        assert tape.gradient(y, x) is None  # never watched: no error, as in TF
