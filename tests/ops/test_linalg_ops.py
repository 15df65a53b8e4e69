"""tf.linalg against NumPy references (values, dtypes) and real TF (error types)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf

TOL = {"float32": dict(rtol=1e-4, atol=1e-4), "float64": dict(rtol=1e-10, atol=1e-10),
       "complex64": dict(rtol=1e-4, atol=1e-4), "complex128": dict(rtol=1e-10, atol=1e-10)}


def _spd(n, dtype, seed, batch=()):
    a = rand(batch + (n, n), dtype, seed, -1, 1)
    return (a @ np.swapaxes(a, -1, -2).conj() + n * np.eye(n)).astype(dtype)


MATMUL_CASES = [
    ((3, 4), (4, 5), {}),
    ((4, 3), (4, 5), {"transpose_a": True}),
    ((3, 4), (5, 4), {"transpose_b": True}),
    ((4, 3), (5, 4), {"adjoint_a": True, "adjoint_b": True}),
    ((2, 3, 4), (2, 4, 5), {}),
    ((4, 1, 3, 4), (5, 4, 2), {}),  # batch broadcasting
    ((2, 3, 4), (4, 5), {}),
]


@pytest.mark.parametrize("sa,sb,kw", MATMUL_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "complex64"])
def test_matmul_matches_numpy(sa, sb, kw, dtype):
    a, b = rand(sa, dtype, 1), rand(sb, dtype, 2)
    ra = np.swapaxes(a, -1, -2) if kw.get("transpose_a") or kw.get("adjoint_a") else a
    rb = np.swapaxes(b, -1, -2) if kw.get("transpose_b") or kw.get("adjoint_b") else b
    if kw.get("adjoint_a"):
        ra = ra.conj()
    if kw.get("adjoint_b"):
        rb = rb.conj()
    got = tf.matmul(a, b, **kw)
    assert_close(got, np.matmul(ra, rb).astype(dtype), **TOL.get(dtype, {}))
    assert_close(tf.linalg.matmul(a, b, **kw), got)


def test_matmul_half_and_python_values_match_tf():
    rtf = real_tf()
    a, b = rand((3, 4), "float16", 3, -1, 1), rand((4, 2), "float16", 4, -1, 1)
    assert_close(tf.matmul(a, b), rtf.matmul(rtf.constant(a), rtf.constant(b)),
                 rtol=1e-2, atol=1e-2)
    assert_close(tf.matmul([[1, 2]], [[3], [4]]), rtf.matmul([[1, 2]], [[3], [4]]))
    assert_close(tf.linalg.matvec(a.astype(np.float32), np.ones(4, np.float32)),
                 a.astype(np.float32) @ np.ones(4, np.float32), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inverse_determinants_and_cholesky_match_numpy(dtype):
    a = _spd(4, dtype, 5, (2,))
    tol = TOL[dtype]
    assert_close(tf.linalg.inv(a), np.linalg.inv(a), **tol)
    assert_close(tf.linalg.inv(a, adjoint=True), np.linalg.inv(np.swapaxes(a, -1, -2)), **tol)
    assert_close(tf.linalg.det(a), np.linalg.det(a), **tol)
    sign, logabs = np.linalg.slogdet(a)
    got = tf.linalg.slogdet(a)
    assert_close(got.sign, sign.astype(dtype))
    assert_close(got.log_abs_determinant, logabs, **tol)
    assert_close(tf.linalg.logdet(a), logabs, **tol)
    assert_close(tf.linalg.cholesky(a), np.linalg.cholesky(a), **tol)
    rhs = rand((2, 4, 3), dtype, 6)
    assert_close(tf.linalg.cholesky_solve(tf.linalg.cholesky(a), rhs), np.linalg.solve(a, rhs),
                 **tol)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_qr_and_svd_reconstruct_and_match_numpy(shape, full):
    a = rand(shape, "float64", 7)
    q, r = tf.linalg.qr(a, full_matrices=full)
    nq, nr = np.linalg.qr(a, mode="complete" if full else "reduced")
    assert_close(np.abs(q.numpy()), np.abs(nq))
    assert_close(np.abs(r.numpy()), np.abs(nr), atol=1e-10)
    assert_close(q.numpy() @ r.numpy(), a)
    s, u, v = tf.linalg.svd(a, full_matrices=full)
    assert_close(s, np.linalg.svd(a, compute_uv=False))
    k = min(shape[-2:])
    us = u.numpy()[..., :k] * s.numpy()[..., None, :]
    assert_close(us @ np.swapaxes(v.numpy()[..., :k], -1, -2).conj(), a)  # v not transposed
    assert_close(tf.linalg.svd(a, compute_uv=False), s)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_eigh_matches_numpy(dtype):
    a = _spd(4, dtype, 8)
    e, v = tf.linalg.eigh(a)
    ne, nv = np.linalg.eigh(a)
    real = np.float32 if dtype == "float32" else np.float64
    assert_close(e, ne.astype(real), **TOL[dtype])
    assert_close(np.abs(v.numpy()), np.abs(nv).astype(real), **TOL[dtype])
    assert_close(tf.linalg.eigvalsh(a), e)


def test_eig_matches_numpy_and_tf_dtype():
    rtf = real_tf()
    a = rand((3, 3), "float32", 9)
    e = tf.linalg.eigvals(a).numpy()
    assert e.dtype == rtf.linalg.eigvals(rtf.constant(a)).dtype.as_numpy_dtype
    np.testing.assert_allclose(np.sort_complex(e), np.sort_complex(np.linalg.eigvals(a)),
                               rtol=1e-4, atol=1e-4)
    w, v = tf.linalg.eig(a)
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy()[None, :], atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_solvers_match_numpy(dtype):
    tol = TOL[dtype]
    a = _spd(4, dtype, 10, (2,))
    b = rand((2, 4, 3), dtype, 11)
    assert_close(tf.linalg.solve(a, b), np.linalg.solve(a, b), **tol)
    assert_close(tf.linalg.solve(a, b, adjoint=True), np.linalg.solve(np.swapaxes(a, -1, -2), b),
                 **tol)
    low = np.tril(a)
    assert_close(tf.linalg.triangular_solve(a, b), np.linalg.solve(low, b), **tol)
    assert_close(tf.linalg.triangular_solve(a, b, lower=False), np.linalg.solve(np.triu(a), b),
                 **tol)
    assert_close(tf.linalg.triangular_solve(a, b, adjoint=True),
                 np.linalg.solve(np.swapaxes(low, -1, -2), b), **tol)


@pytest.mark.parametrize("shape", [(6, 3), (3, 6)])
@pytest.mark.parametrize("l2", [0.0, 0.5])
def test_lstsq_matches_numpy(shape, l2):
    a, b = rand(shape, "float64", 12), rand((shape[0], 2), "float64", 13)
    m, n = shape
    if m >= n:
        want = np.linalg.solve(a.T @ a + l2 * np.eye(n), a.T @ b)
    else:
        want = a.T @ np.linalg.solve(a @ a.T + l2 * np.eye(m), b)
    assert_close(tf.linalg.lstsq(a, b, l2_regularizer=l2), want, rtol=1e-8, atol=1e-8)
    if l2 == 0:
        assert_close(tf.linalg.lstsq(a, b, fast=False), np.linalg.lstsq(a, b, rcond=None)[0],
                     rtol=1e-8, atol=1e-8)


def test_pinv_expm_normalize_match_references():
    rtf = real_tf()
    a = rand((4, 3), "float64", 14)
    assert_close(tf.linalg.pinv(a), np.linalg.pinv(a), rtol=1e-8, atol=1e-10)
    m = rand((3, 3), "float32", 15, -1, 1)
    assert_close(tf.linalg.expm(m), rtf.linalg.expm(rtf.constant(m)), rtol=1e-5, atol=1e-5)
    n, nn = tf.linalg.normalize(m, axis=1)
    wn, wnn = rtf.linalg.normalize(rtf.constant(m), axis=1)
    assert_close(n, wn, rtol=1e-6)
    assert_close(nn, wnn, rtol=1e-6)


NORM_CASES = [
    ("euclidean", None), (2, None), (1, None), (np.inf, None), (3, None), (0.5, 1),
    ("euclidean", 0), (1, -1), (np.inf, 1), ("fro", (0, 1)), ("euclidean", (1, 2)),
    (1, (0, 1)), (1, (1, 0)), (np.inf, (-2, -1)), (2, (1, 2)), (2, [0, 2]),
]


@pytest.mark.parametrize("ord,axis", NORM_CASES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm_matches_tf(ord, axis, keepdims):  # noqa: A002 (TF's argument name)
    rtf = real_tf()
    x = rand((3, 4, 5), "float32", 16)
    if isinstance(axis, tuple) and max(axis) < 2 and ord != "euclidean":
        x = x[0]
    want = rtf.norm(rtf.constant(x), ord=ord, axis=axis, keepdims=keepdims)
    assert_close(tf.norm(x, ord=ord, axis=axis, keepdims=keepdims), want, rtol=1e-5, atol=1e-5)
    assert_close(tf.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims), want, rtol=1e-5,
                 atol=1e-5)


def test_norm_complex_keeps_complex_dtype_like_tf():
    rtf = real_tf()
    x = rand((4,), "complex128", 17)
    assert_close(tf.norm(x), rtf.norm(rtf.constant(x)))


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_structure_ops_match_tf(dtype):
    rtf = real_tf()
    x = rand((2, 3, 4), dtype, 18)
    X = rtf.constant(x)
    d = rand((2, 3), dtype, 19)
    for k in (0, 1, -1):
        assert_close(tf.linalg.diag_part(x, k=k), rtf.linalg.diag_part(X, k=k))
        assert_close(tf.linalg.diag(d, k=k), rtf.linalg.diag(rtf.constant(d), k=k))
    for k in ((-1, 1), (0, 2), (-2, 0)):
        for align in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
            assert_close(tf.linalg.diag_part(x, k=k, padding_value=9, align=align),
                         rtf.linalg.diag_part(X, k=k, padding_value=9, align=align))
    assert_close(tf.linalg.diag(d, num_rows=3, num_cols=5, padding_value=7),
                 rtf.linalg.diag(rtf.constant(d), num_rows=3, num_cols=5, padding_value=7))
    assert_close(tf.linalg.diag(d[:, :2], k=1, num_rows=2),
                 rtf.linalg.diag(rtf.constant(d[:, :2]), k=1, num_rows=2))
    for k, nr, nc in ((1, -1, 5), (-1, 4, -1), (2, 3, 5), (0, 3, 3), (1, 5, 4), (-1, 4, 5)):
        assert_close(tf.linalg.diag(d, k=k, num_rows=nr, num_cols=nc, padding_value=5),
                     rtf.linalg.diag(rtf.constant(d), k=k, num_rows=nr, num_cols=nc,
                                     padding_value=5))
    for k in ((-1, 1), (0, 2), (-2, 0)):
        for align in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
            band = rtf.linalg.diag_part(X, k=k, padding_value=0, align=align).numpy()
            assert_close(tf.linalg.set_diag(np.zeros_like(x), band, k=k, align=align),
                         rtf.linalg.set_diag(rtf.zeros_like(X), band, k=k, align=align))
            assert_close(tf.linalg.diag(band, k=k, align=align, padding_value=3),
                         rtf.linalg.diag(band, k=k, align=align, padding_value=3))
            assert_close(tf.linalg.diag(band, k=k, num_rows=3, num_cols=5, align=align),
                         rtf.linalg.diag(band, k=k, num_rows=3, num_cols=5, align=align))
    assert_close(tf.linalg.set_diag(x, d), rtf.linalg.set_diag(X, d))
    assert_close(tf.linalg.set_diag(x, d, k=1), rtf.linalg.set_diag(X, d, k=1))
    assert_close(tf.linalg.trace(x), rtf.linalg.trace(X))
    for lo, up in ((0, 0), (1, -1), (-1, 0), (2, 1), (-1, -1)):
        assert_close(tf.linalg.band_part(x, lo, up), rtf.linalg.band_part(X, lo, up))
    assert_close(tf.linalg.matrix_transpose(x), rtf.linalg.matrix_transpose(X))
    v, w = rand((5, 3), dtype, 20), rand((5, 3), dtype, 21)
    assert_close(tf.linalg.cross(v, w), rtf.linalg.cross(rtf.constant(v), rtf.constant(w)))


def test_adjoint_conjugates():
    x = rand((2, 3), "complex64", 22)
    assert_close(tf.linalg.adjoint(x), x.T.conj())
    assert_close(tf.linalg.matrix_transpose(x), x.T)


def _c(m, a, dt=None):
    return m.constant(np.asarray(a, dt) if dt else np.asarray(a))


BAD = [
    ("matmul rank 1", lambda m: m.matmul(_c(m, np.ones(3, np.float32)),
                                         _c(m, np.ones(3, np.float32)))),
    ("matmul rank 2 x 1", lambda m: m.matmul(_c(m, np.ones((2, 3), np.float32)),
                                             _c(m, np.ones(3, np.float32)))),
    ("matmul dtype", lambda m: m.matmul(_c(m, np.ones((2, 3), np.float32)),
                                        _c(m, np.ones((3, 2), np.float64)))),
    ("matmul inner dim", lambda m: m.matmul(_c(m, np.ones((2, 3), np.float32)),
                                            _c(m, np.ones((2, 2), np.float32)))),
    ("matmul batch dims", lambda m: m.matmul(_c(m, np.ones((4, 2, 3), np.float32)),
                                             _c(m, np.ones((5, 3, 2), np.float32)))),
    ("matmul bool", lambda m: m.matmul(_c(m, np.ones((2, 2), bool)), _c(m, np.ones((2, 2), bool)))),
    ("matmul int8", lambda m: m.matmul(_c(m, np.ones((2, 2), np.int8)),
                                       _c(m, np.ones((2, 2), np.int8)))),
    ("matmul uint8", lambda m: m.matmul(_c(m, np.ones((2, 2), np.uint8)),
                                        _c(m, np.ones((2, 2), np.uint8)))),
    ("matmul transpose+adjoint", lambda m: m.matmul(_c(m, np.ones((2, 2), np.float32)),
                                                    _c(m, np.ones((2, 2), np.float32)),
                                                    transpose_a=True, adjoint_a=True)),
    ("inv singular", lambda m: m.linalg.inv(_c(m, np.ones((2, 2), np.float32)))),
    ("inv int", lambda m: m.linalg.inv(_c(m, np.ones((2, 2), np.int32)))),
    ("inv not square", lambda m: m.linalg.inv(_c(m, np.ones((2, 3), np.float32)))),
    ("det not square", lambda m: m.linalg.det(_c(m, np.ones((2, 3), np.float32)))),
    ("solve singular", lambda m: m.linalg.solve(_c(m, np.ones((2, 2), np.float32)),
                                                _c(m, np.ones((2, 1), np.float32)))),
    ("solve rhs rows", lambda m: m.linalg.solve(_c(m, np.eye(2, dtype=np.float32)),
                                                _c(m, np.ones((3, 1), np.float32)))),
    ("solve rhs rank", lambda m: m.linalg.solve(_c(m, np.eye(2, dtype=np.float32)),
                                                _c(m, np.ones(2, np.float32)))),
    ("norm fro on vector", lambda m: m.norm(_c(m, np.ones(3, np.float32)), "fro")),
    ("norm ord 0", lambda m: m.norm(_c(m, np.ones(3, np.float32)), 0)),
    ("matrix norm ord 3", lambda m: m.norm(_c(m, np.ones((3, 3), np.float32)), 3, axis=[0, 1])),
    ("norm int", lambda m: m.norm(_c(m, [1, 2, 3]))),
    ("diag_part rank 1", lambda m: m.linalg.diag_part(_c(m, [1, 2, 3]))),
    ("diag bad size", lambda m: m.linalg.diag(_c(m, [1, 2]), num_rows=3, num_cols=4)),
    ("diag too few columns", lambda m: m.linalg.diag(_c(m, [1, 2, 3]), k=1, num_rows=3,
                                                     num_cols=3)),
    ("diag band too big", lambda m: m.linalg.diag(_c(m, np.ones((3, 3))), k=(-1, 1),
                                                  num_rows=4, num_cols=4)),
    ("set_diag bad length", lambda m: m.linalg.set_diag(_c(m, np.zeros((2, 3), np.float32)),
                                                        _c(m, np.ones(3, np.float32)))),
    ("cross shapes", lambda m: m.linalg.cross(_c(m, np.ones(3, np.float32)),
                                              _c(m, np.ones(2, np.float32)))),
    ("matrix_transpose rank 1", lambda m: m.linalg.matrix_transpose(_c(m, [1.0, 2.0]))),
]


@pytest.mark.parametrize("case,fn", BAD, ids=[c for c, _ in BAD])
def test_bad_inputs_raise_tf_error_types(case, fn):
    rtf = real_tf()
    with pytest.raises(Exception) as want:
        fn(rtf)
    with pytest.raises(Exception) as got:
        fn(tf)
    assert type(got.value).__name__ == type(want.value).__name__, (got.value, want.value)
    assert isinstance(got.value, (ValueError, TypeError, tf.errors.OpError))


def test_cholesky_of_non_positive_definite_raises_like_tf_2_4():
    # TF 2.4 raised InvalidArgumentError on the CPU; TF 2.21 returns NaNs instead.
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky"):
        tf.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]], np.float32))
