"""tf.linalg.LinearOperator family against real TensorFlow: dense matrices, shapes,
flags and the generic methods (matmul, solve, determinants, adjoint, inverse ...)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf


def _spd(n, seed, batch=()):
    a = rand(batch + (n, n), "float64", seed, -1, 1)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _ops(m):
    """The same operators built with torchflow (m=tf) or real TF."""
    c = m.constant
    full = _spd(3, 1, (2,))
    diag = rand((2, 3), "float64", 2, 1, 3)
    tril = np.tril(rand((3, 3), "float64", 3)) + 4 * np.eye(3)
    return {
        "full": m.linalg.LinearOperatorFullMatrix(c(full), is_self_adjoint=True,
                                                  is_positive_definite=True),
        "diag": m.linalg.LinearOperatorDiag(c(diag)),
        "identity": m.linalg.LinearOperatorIdentity(3, batch_shape=[2], dtype=m.float64),
        "scaled": m.linalg.LinearOperatorScaledIdentity(3, c(np.array([2.0, -3.0]))),
        "tril": m.linalg.LinearOperatorLowerTriangular(c(tril)),
        "composition": m.linalg.LinearOperatorComposition(
            [m.linalg.LinearOperatorFullMatrix(c(full)), m.linalg.LinearOperatorDiag(c(diag))]),
        "kronecker": m.linalg.LinearOperatorKronecker(
            [m.linalg.LinearOperatorFullMatrix(c(tril[:2, :2])),
             m.linalg.LinearOperatorFullMatrix(c(np.tril(full[0]) + np.eye(3)))]),
        "block_diag": m.linalg.LinearOperatorBlockDiag(
            [m.linalg.LinearOperatorFullMatrix(c(tril)),
             m.linalg.LinearOperatorDiag(c(diag[0, :2]))]),
        "block_lower": m.linalg.LinearOperatorBlockLowerTriangular(
            [[m.linalg.LinearOperatorFullMatrix(c(tril))],
             [m.linalg.LinearOperatorFullMatrix(c(rand((2, 3), "float64", 4))),
              m.linalg.LinearOperatorDiag(c(diag[0, :2]))]]),
        "toeplitz": m.linalg.LinearOperatorToeplitz(c(np.array([4.0, 1.0, 0.5])),
                                                    c(np.array([9.0, 2.0, -1.0]))),
        "circulant": m.linalg.LinearOperatorCirculant(
            c(np.array([6.0, -1.0, -2.0, 1.0]).astype(np.complex128)),
            input_output_dtype=m.complex128),
        "circulant2d": m.linalg.LinearOperatorCirculant2D(
            c((rand((2, 3), "float64", 5, 1, 3)).astype(np.complex128)),
            input_output_dtype=m.complex128),
        "householder": m.linalg.LinearOperatorHouseholder(c(np.array([1.0, 2.0, -1.0]))),
        "low_rank": m.linalg.LinearOperatorLowRankUpdate(
            m.linalg.LinearOperatorDiag(c(diag[0])), c(rand((3, 2), "float64", 6)),
            diag_update=c(np.array([1.5, 0.5]))),
        "permutation": m.linalg.LinearOperatorPermutation(c(np.array([2, 0, 1], np.int32)),
                                                          dtype=m.float64),
        "tridiag": m.linalg.LinearOperatorTridiag(c(np.array([[1.0, 2, 0], [5, 6, 7],
                                                              [0, 8, 9]]))),
        "adjoint": m.linalg.LinearOperatorAdjoint(m.linalg.LinearOperatorFullMatrix(c(tril))),
        "inversion": m.linalg.LinearOperatorInversion(
            m.linalg.LinearOperatorFullMatrix(c(tril))),
    }


NAMES = sorted([
    "full", "diag", "identity", "scaled", "tril", "composition", "kronecker", "block_diag",
    "block_lower", "toeplitz", "circulant", "circulant2d", "householder", "low_rank",
    "permutation", "tridiag", "adjoint", "inversion"])


@pytest.mark.parametrize("name", NAMES)
def test_operator_matches_tf(name):
    rtf = real_tf()
    ours, theirs = _ops(tf)[name], _ops(rtf)[name]
    assert ours.shape.as_list() == theirs.shape.as_list()
    assert ours.batch_shape.as_list() == theirs.batch_shape.as_list()
    assert ours.dtype.name == theirs.dtype.name
    assert ours.is_square == theirs.is_square
    tol = dict(rtol=1e-9, atol=1e-9)
    dense = theirs.to_dense()
    assert_close(ours.to_dense(), dense, **tol)
    n = ours.shape[-1]
    x = rand(tuple(ours.batch_shape.as_list()) + (n, 2), "float64", 7)
    if ours.dtype.is_complex:
        x = x.astype(np.complex128)
    X = rtf.constant(x)
    assert_close(ours.matmul(x), theirs.matmul(X), **tol)
    assert_close(ours.matmul(x, adjoint=True), theirs.matmul(X, adjoint=True), **tol)
    assert_close(ours.matvec(x[..., 0]), theirs.matvec(X[..., 0]), **tol)
    assert_close(ours.solve(x), theirs.solve(X), rtol=1e-7, atol=1e-8)
    assert_close(ours.solve(x, adjoint=True), theirs.solve(X, adjoint=True), rtol=1e-7,
                 atol=1e-8)
    assert_close(ours.determinant(), theirs.determinant(), rtol=1e-8)
    assert_close(ours.log_abs_determinant(), theirs.log_abs_determinant(), rtol=1e-8,
                 atol=1e-10)
    assert_close(ours.diag_part(), theirs.diag_part(), **tol)
    assert_close(ours.trace(), theirs.trace(), **tol)
    # TF's circulant adjoint() forgets input_output_dtype (complex64): compare values.
    if "circulant" in name:
        assert_close(ours.adjoint().to_dense(), theirs.adjoint().to_dense(), rtol=1e-6,
                     atol=1e-6, check_dtype=False)
    else:
        assert_close(ours.adjoint().to_dense(), theirs.adjoint().to_dense(), **tol)
    assert_close(ours.inverse().to_dense(), theirs.inverse().to_dense(), rtol=1e-7, atol=1e-9)
    assert_close(ours.add_to_tensor(dense.numpy()), theirs.add_to_tensor(dense), **tol)


def test_operator_algebra_and_hints():
    rtf = real_tf()
    a = tf.linalg.LinearOperatorFullMatrix(_spd(3, 8), is_self_adjoint=True,
                                           is_positive_definite=True)
    ra = rtf.linalg.LinearOperatorFullMatrix(_spd(3, 8), is_self_adjoint=True,
                                             is_positive_definite=True)
    assert a.is_non_singular and ra.is_non_singular
    assert_close(a.cholesky().to_dense(), ra.cholesky().to_dense(), rtol=1e-10)
    assert_close(a.eigvals(), ra.eigvals(), rtol=1e-10)
    assert_close(a.cond(), ra.cond(), rtol=1e-8)
    comp = a @ a
    assert isinstance(comp, tf.linalg.LinearOperatorComposition)
    assert_close(comp.to_dense(), (ra @ ra).to_dense(), rtol=1e-10)
    d = tf.linalg.LinearOperatorDiag([1.0, 4.0])
    assert isinstance(d.inverse(), tf.linalg.LinearOperatorDiag)
    assert_close(d.cholesky().to_dense(), np.diag([1.0, 2.0]).astype(np.float32))
    assert_close(d.shape_tensor(), np.array([2, 2], np.int32))
    with pytest.raises(ValueError):
        tf.linalg.LinearOperatorFullMatrix(np.eye(2), is_positive_definite=True,
                                           is_non_singular=False)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.LinearOperatorFullMatrix(np.ones((2, 2))).assert_non_singular()
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.LinearOperatorFullMatrix(-np.eye(2)).assert_positive_definite()
    tf.linalg.LinearOperatorFullMatrix(np.eye(2)).assert_self_adjoint()
