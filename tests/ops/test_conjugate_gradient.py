"""tf.linalg.experimental.conjugate_gradient against real TensorFlow: the whole
CGState (iterations, solution, residual, direction, gamma) for single and batched
systems, with and without preconditioner and initial guess, and against NumPy's
solve."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _spd(n, batch=(), seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _run(tf, a, b, precond=False, x0=None, **kw):
    op = tf.linalg.LinearOperatorFullMatrix(a, is_self_adjoint=True, is_positive_definite=True)
    pre = None
    if precond:
        pre = tf.linalg.LinearOperatorDiag(1.0 / np.diagonal(a, axis1=-2, axis2=-1),
                                           is_self_adjoint=True, is_positive_definite=True)
    b = tf.constant(b)
    x0 = None if x0 is None else tf.constant(x0)
    return tf.linalg.experimental.conjugate_gradient(op, b, preconditioner=pre, x=x0, **kw)


CASES = {
    "single": (_spd(5), np.arange(5.0), {}),
    "batched": (_spd(4, (3,), seed=1), np.ones((3, 4)), {}),
    "float32": (_spd(6, seed=2, dtype=np.float32), np.linspace(-1, 1, 6).astype(np.float32), {}),
    "preconditioned": (_spd(6, seed=3), np.arange(6.0), {"precond": True}),
    "initial_guess": (_spd(5, seed=4), np.arange(5.0), {"x0": np.ones(5)}),
    "few_iterations": (_spd(8, seed=5), np.arange(8.0), {"max_iter": 3}),
    "loose_tol": (_spd(8, seed=6), np.arange(8.0), {"tol": 1e-2}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cg_state_matches_tf(case):
    a, b, kw = CASES[case]
    want = _run(real_tf(), a, b, **kw)
    got = _run(torchflow, a, b, **kw)
    assert type(got).__name__ == "CGState" and got._fields == want._fields
    assert int(got.i) == int(want.i)
    for g, w in zip(got[1:], want[1:]):
        assert g.dtype.name == w.dtype.name and g.shape.as_list() == w.shape.as_list()
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-4 if a.dtype == np.float32
                                   else 1e-9, atol=1e-5 if a.dtype == np.float32 else 1e-10)


def test_cg_solves_the_system():
    a, b = _spd(10, (2,), seed=7), np.arange(20.0).reshape(2, 10)
    r = _run(torchflow, a, b, tol=1e-12, max_iter=50)
    np.testing.assert_allclose(r.x.numpy(), np.linalg.solve(a, b[..., None])[..., 0],
                               rtol=1e-8)
