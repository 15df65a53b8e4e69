"""LU, rank, matrix functions, tridiagonal systems and tensor diagonals against
NumPy references and real TensorFlow."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_matches_tf_and_its_solvers_invert(dtype):
    rtf = real_tf()
    a = rand((2, 4, 4), dtype, 1)
    lu, p = tf.linalg.lu(a)
    wlu, wp = rtf.linalg.lu(rtf.constant(a))
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    assert_close(lu, wlu, **tol)
    assert_close(p, wp)
    b = rand((2, 4, 3), dtype, 2)
    assert_close(tf.linalg.lu_solve(lu, p, b), np.linalg.solve(a, b), **tol)
    assert_close(tf.linalg.lu_matrix_inverse(lu, p), np.linalg.inv(a), **tol)
    assert_close(tf.linalg.lu_reconstruct(lu, p), a, **tol)


def test_matrix_rank_and_matrix_functions():
    rtf = real_tf()
    m = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    assert_close(tf.linalg.matrix_rank(m), rtf.linalg.matrix_rank(rtf.constant(m)))
    assert_close(tf.linalg.matrix_rank(m, tol=10.0), np.int32(0))
    spd = np.array([[4.0, 1.0], [1.0, 3.0]])
    r = tf.linalg.sqrtm(spd)
    assert_close(r.numpy() @ r.numpy(), spd, rtol=1e-10)
    assert_close(r, rtf.linalg.sqrtm(rtf.constant(spd)), rtol=1e-8)
    assert_close(tf.matrix_square_root(spd), r)
    c = spd.astype(np.complex128)
    assert_close(tf.linalg.logm(c), rtf.linalg.logm(rtf.constant(c)), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("fmt", ["compact", "sequence", "matrix"])
def test_tridiagonal_solve_and_matmul_match_tf(fmt):
    rtf = real_tf()
    sup, main, sub = rand((2, 5), "float64", 3), rand((2, 5), "float64", 4, 5, 8), rand(
        (2, 5), "float64", 5)
    sup[:, -1] = 0
    sub[:, 0] = 0
    if fmt == "compact":
        diags = np.stack([sup, main, sub], 1)
        ours, theirs = diags, rtf.constant(diags)
    elif fmt == "sequence":
        ours, theirs = (sup, main, sub), tuple(rtf.constant(v) for v in (sup, main, sub))
    else:
        dense = np.zeros((2, 5, 5))
        for b in range(2):
            dense[b] = np.diag(main[b]) + np.diag(sup[b, :4], 1) + np.diag(sub[b, 1:], -1)
        ours, theirs = dense, rtf.constant(dense)
    rhs = rand((2, 5, 3), "float64", 6)
    assert_close(tf.linalg.tridiagonal_solve(ours, rhs, diagonals_format=fmt),
                 rtf.linalg.tridiagonal_solve(theirs, rtf.constant(rhs), diagonals_format=fmt),
                 rtol=1e-10, atol=1e-10)
    if fmt != "matrix":
        assert_close(tf.linalg.tridiagonal_matmul(ours, rhs, diagonals_format=fmt),
                     rtf.linalg.tridiagonal_matmul(theirs, rtf.constant(rhs),
                                                   diagonals_format=fmt),
                     rtol=1e-10, atol=1e-10)


def test_tensor_diag_and_part_match_tf():
    rtf = real_tf()
    d = rand((2, 3), "int32", 7)
    want = rtf.linalg.tensor_diag(rtf.constant(d))
    assert_close(tf.linalg.tensor_diag(d), want)
    assert_close(tf.linalg.tensor_diag_part(want.numpy()), d)


def test_aliases_are_the_shared_implementations():
    assert tf.linalg.eye is tf.eye
    assert tf.linalg.tensordot is tf.tensordot
    assert tf.linalg.einsum is tf.einsum
    assert tf.nn.top_k is tf.math.top_k
    assert tf.nn.l2_normalize is tf.math.l2_normalize
    assert tf.linalg.l2_normalize is tf.math.l2_normalize


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_banded_triangular_solve_matches_tf(lower, adjoint):
    rtf = real_tf()
    bands = rand((2, 3, 5), "float64", 8)
    bands[:, 0 if lower else -1] += 6.0  # a well-conditioned diagonal
    rhs = rand((2, 5, 2), "float64", 9)
    assert_close(tf.linalg.banded_triangular_solve(bands, rhs, lower=lower, adjoint=adjoint),
                 rtf.linalg.banded_triangular_solve(rtf.constant(bands), rtf.constant(rhs),
                                                    lower=lower, adjoint=adjoint),
                 rtol=1e-10, atol=1e-10)
