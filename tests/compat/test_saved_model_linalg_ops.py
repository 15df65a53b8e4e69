"""Linear-algebra ops in SavedModels, both ways with real TF.

Each function takes a batch of symmetric positive definite matrices ``x`` and a batch
of general matrices ``y`` (both arguments, so no value the trace saw can pass for the
graph's). Saved by torchflow, the SavedModel serves TF's values in real TF and in
torchflow for inputs the trace never saw; saved by real TF, it serves them in torchflow
(its graph of MatrixInverse, MatrixSolve, Svd, SelfAdjointEigV2, ... run by the graph
executor). Decompositions whose factors are defined up to sign are compared through
values that are not (products, absolute values).
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _batch(seed: int):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(2, 3, 3)).astype(np.float32)
    spd = a @ np.swapaxes(a, 1, 2) + 2 * np.eye(3, dtype=np.float32)
    return spd, rng.normal(size=(2, 3, 3)).astype(np.float32)


def _cases(m):
    la = m.linalg
    return {
        "inv": lambda x, y: la.inv(y),
        "inv_adjoint": lambda x, y: la.inv(x + y, adjoint=True),
        "det": lambda x, y: la.det(y),
        "slogdet": lambda x, y: la.slogdet(y),
        "logdet": lambda x, y: la.logdet(x),
        "cholesky": lambda x, y: la.cholesky(x),
        "solve": lambda x, y: la.solve(x, y),
        "solve_adjoint": lambda x, y: la.solve(x + y, y, adjoint=True),
        "triangular_solve": lambda x, y: la.triangular_solve(la.cholesky(x), y),
        "triangular_solve_upper": lambda x, y: la.triangular_solve(
            la.adjoint(la.cholesky(x)), y, lower=False, adjoint=True),
        "cholesky_solve": lambda x, y: la.cholesky_solve(la.cholesky(x), y),
        "qr": lambda x, y: (lambda q, r: (m.matmul(q, r), m.abs(q), m.abs(r)))(*la.qr(y)),
        "svd": lambda x, y: (lambda s, u, v: (s, m.abs(u), m.abs(v)))(*la.svd(x)),
        "svd_values": lambda x, y: la.svd(y, compute_uv=False),
        "eigh": lambda x, y: (lambda e, v: (e, m.abs(v)))(*la.eigh(x)),
        "eigvalsh": lambda x, y: la.eigvalsh(x),
        "matrix_transpose": lambda x, y: la.matrix_transpose(y),
        "adjoint": lambda x, y: la.adjoint(y[0]),
        "set_diag": lambda x, y: la.set_diag(x, y[:, 0]),
        "set_diag_k": lambda x, y: la.set_diag(x, y[:, 0, :2], k=1),
        "cross": lambda x, y: la.cross(x, y),
        "matvec": lambda x, y: la.matvec(x, y[:, 0]),
        "matvec_2d": lambda x, y: la.matvec(x[0], y[0, 0], transpose_a=True),
        "global_norm": lambda x, y: m.linalg.global_norm([x, y[0]]),
        "euclidean_norm": lambda x, y: m.math.reduce_euclidean_norm(y, axis=[1, 2]),
        "euclidean_norm_all_keep": lambda x, y: m.math.reduce_euclidean_norm(y, keepdims=True),
        "cumulative_logsumexp": lambda x, y: m.math.cumulative_logsumexp(y, axis=1),
        "cumulative_logsumexp_rev": lambda x, y: m.math.cumulative_logsumexp(
            y, axis=2, exclusive=True, reverse=True),
    }


def _module(m, name):
    mod = m.Module()
    spec = m.TensorSpec([2, 3, 3], m.float32)
    mod.f = m.function(_cases(m)[name], input_signature=[spec, spec])
    return mod


def _expected(rtf, name):
    fn = _cases(rtf)[name]
    return [[o.numpy() for o in rtf.nest.flatten(fn(*_batch(s)))] for s in (1, 2)]


def _assert_serves(lib, f, want):
    for seed, w in zip((1, 2), want):
        got = [np.asarray(o) for o in lib.nest.flatten(f(*_batch(seed)))]
        assert len(got) == len(w)
        for g, e in zip(got, w):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", sorted(_cases(tf)))
def test_torchflow_saved_linalg_op_serves_tf_values(name, tmp_path):
    rtf = real_tf()
    tf.saved_model.save(_module(tf, name), str(tmp_path))
    want = _expected(rtf, name)
    for lib in (rtf, tf):
        _assert_serves(lib, lib.saved_model.load(str(tmp_path)).f, want)


@pytest.mark.parametrize("name", sorted(_cases(tf)))
def test_tf_saved_linalg_op_serves_tf_values_in_torchflow(name, tmp_path):
    rtf = real_tf()
    rtf.saved_model.save(_module(rtf, name), str(tmp_path))
    _assert_serves(tf, tf.saved_model.load(str(tmp_path)).f, _expected(rtf, name))
