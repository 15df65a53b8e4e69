"""``tf.linalg`` decompositions and solvers on ``torch.linalg``: ``inv``, ``det``,
``slogdet``, ``cholesky``, ``qr``, ``svd``, ``eigh``, ``solve``, ``lstsq`` ...

torch has no half-precision LAPACK kernels, so float16/bfloat16 inputs are
computed in float32 and cast back.
"""

from __future__ import annotations

import collections

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.ops.linalg_ops import norm
from torchflow._src.util.api import public

_LA = nc.TypeSet((dtypes.float64, dtypes.float32, dtypes.float16, dtypes.complex64,
                 dtypes.complex128))
_COMPLEX_OF = {torch.float32: dtypes.complex64, torch.float64: dtypes.complex128}

LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])
Qr = collections.namedtuple("Qr", ["q", "r"])


def _arg(op: str, x, square: bool = True, allowed: tuple = _LA):
    t = nc.typed_arg(op, x, allowed)
    m = t._t
    if m.ndim < 2:
        raise InvalidArgumentError(
            None, None, f"Input tensor 0 must have rank >= 2, got {m.ndim} [Op:{op}]")
    if square and m.shape[-1] != m.shape[-2]:
        raise InvalidArgumentError(None, None, f"Input matrix must be square. [Op:{op}]")
    work = m.float() if m.dtype in (torch.float16, torch.bfloat16) else m
    return t, work


def _out(r: torch.Tensor, t: Tensor) -> Tensor:
    return wrap(r.to(t._t.dtype) if r.dtype != t._t.dtype else r, t._dtype)


@graph_trace.host_op(dry=graph_trace.RUN, pure=True)
def check_info(info: torch.Tensor, message: str) -> None:
    """Raises ``InvalidArgumentError(message)`` where a LAPACK ``info`` is not 0. One
    pure host node in a traced function: each replay checks its own matrices
    (reading ``info`` into the trace's Python would make the function eager)."""
    if info.numel() and bool((info != 0).any()):
        raise InvalidArgumentError(None, None, message)


@public("torchflow.linalg")
def inv(input, adjoint=False, name=None) -> Tensor:
    """Computes the inverse of each square matrix in ``input``.

    Args:
      input: A float/complex Tensor ``[..., M, M]``.
      adjoint: Invert the adjoint (conjugate transpose) instead.
      name: Unused (eager).

    Returns:
      A Tensor like ``input``.

    Raises:
      InvalidArgumentError: if a matrix is not square or not invertible.
    """
    t, m = _arg("MatrixInverse", input)
    try:
        r, info = torch.linalg.inv_ex(m.mH if adjoint else m)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("MatrixInverse", e) from None
    check_info(info, "Input is not invertible. [Op:MatrixInverse]")
    return _out(r, t)


@public("torchflow.linalg")
def det(input, name=None) -> Tensor:
    """Computes the determinant of each square matrix in ``input``.

    Args:
      input: A float or complex tensor of shape ``[..., M, M]``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape ``[...]``.

    Raises:
      InvalidArgumentError: If ``input`` has rank < 2, is not square, or has an unsupported
        dtype.
    """
    t, m = _arg("MatrixDeterminant", input)
    return _out(torch.linalg.det(m), t)


@public("torchflow.linalg")
def slogdet(input, name=None):
    """Computes the sign and the log of the absolute determinant of each matrix.

    Args:
      input: A float or complex tensor of shape ``[..., M, M]``.
      name: Unused (eager).

    Returns:
      ``(sign, log_abs_determinant)``, a namedtuple of ``input``'s dtype.
    """
    t, m = _arg("LogMatrixDeterminant", input)
    sign, logabs = torch.linalg.slogdet(m)
    return LogMatrixDeterminant(_out(sign, t), _out(logabs.to(sign.dtype), t))


@public("torchflow.linalg")
def logdet(matrix, name=None) -> Tensor:
    """The log-determinant of Hermitian positive definite matrices (via Cholesky).

    Args:
      matrix: A float or complex tensor ``[..., M, M]``, Hermitian positive definite.
      name: Unused (eager).

    Returns:
      A real tensor of shape ``[...]``.
    """
    t, m = _arg("Cholesky", matrix)
    chol = _cholesky(m)
    r = 2.0 * torch.log(torch.diagonal(chol, 0, -2, -1).real).sum(-1)
    return _out(r.to(m.dtype), t)


def _cholesky(m: torch.Tensor) -> torch.Tensor:
    try:
        r, info = torch.linalg.cholesky_ex(m)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("Cholesky", e) from None
    check_info(info, "Cholesky decomposition was not successful. The input might not be "
                     "valid. [Op:Cholesky]")
    return r


@public("torchflow.linalg")
def cholesky(input, name=None) -> Tensor:
    """The Cholesky factor ``L`` (lower triangular, ``L @ L^H = input``) of each
    Hermitian positive definite matrix; only the lower triangle of ``input`` is read.

    Args:
      input: A float or complex tensor of shape ``[..., M, M]``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape.

    Raises:
      InvalidArgumentError: if a matrix is not positive definite (TF 2.4's CPU
        behaviour; newer TF returns NaNs).
    """
    t, m = _arg("Cholesky", input)
    return _out(_cholesky(m), t)


@public("torchflow.linalg")
def cholesky_solve(chol, rhs, name=None) -> Tensor:
    """Solves ``A X = rhs`` given ``chol``, the Cholesky factor of ``A``.

    Args:
      chol: A float tensor ``[..., M, M]``: lower-triangular Cholesky factors
        (``tf.linalg.cholesky``).
      rhs: A tensor of ``chol``'s dtype, shape ``[..., M, K]``.
      name: Unused (eager).

    Returns:
      A tensor of ``rhs``' dtype and shape.
    """
    t, c = _arg("CholeskySolve", chol)
    b = nc.same_dtype("MatrixTriangularSolve", t, rhs)._t
    b = b.to(c.dtype)
    # Only the lower triangle is read, so the upper one gets a zero gradient, as in TF.
    return _out(torch.cholesky_solve(b, c.tril()), t)


@public("torchflow.linalg")
def qr(input, full_matrices=False, name=None):
    """The QR decomposition of each matrix: ``input = q @ r``.

    Args:
      input: A Tensor ``[..., M, N]``.
      full_matrices: Return the full ``[M, M]`` ``q`` (else ``[M, min(M, N)]``).
      name: Unused (eager).

    Returns:
      ``(q, r)``, a namedtuple.
    """
    t, m = _arg("Qr", input, square=False)
    q, r = torch.linalg.qr(m, mode="complete" if full_matrices else "reduced")
    return Qr(_out(q, t), _out(r, t))


@public("torchflow.linalg")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """The singular value decomposition ``tensor = u @ diag(s) @ adjoint(v)``.

    Note TF's order and convention: ``s, u, v`` with ``v`` not transposed.

    Args:
      tensor: A Tensor ``[..., M, N]``.
      full_matrices: Return full square ``u`` and ``v``.
      compute_uv: If False, return only ``s``.
      name: Unused (eager).

    Returns:
      ``s`` (``[..., min(M, N)]``, real) or ``(s, u, v)``.
    """
    t, m = _arg("Svd", tensor, square=False)
    real = dtypes.as_dtype(t._dtype.real_dtype)
    if not compute_uv:
        s = torch.linalg.svdvals(m)
        return wrap(s.to(real._torch), real)
    u, s, vh = torch.linalg.svd(m, full_matrices=full_matrices)
    return wrap(s.to(real._torch), real), _out(u, t), _out(vh.mH.resolve_conj(), t)


@public("torchflow.linalg")
def eigh(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors of self-adjoint matrices; only the
    lower triangle is read.

    Args:
      tensor: A float or complex tensor of shape ``[..., N, N]``.
      name: Unused (eager).

    Returns:
      ``(e, v)``: real eigenvalues ``[..., N]`` and eigenvectors ``[..., N, N]``
      (columns).
    """
    t, m = _arg("SelfAdjointEigV2", tensor)
    e, v = torch.linalg.eigh(m)
    real = dtypes.as_dtype(t._dtype.real_dtype)
    return wrap(e.to(real._torch), real), _out(v, t)


@public("torchflow.linalg")
def eigvalsh(tensor, name=None) -> Tensor:
    """The eigenvalues (ascending) of self-adjoint matrices.

    Args:
      tensor: A float or complex tensor of shape ``[..., N, N]``.
      name: Unused (eager).

    Returns:
      A real tensor of shape ``[..., N]``.

    Raises:
      InvalidArgumentError: If ``tensor`` is not a batch of square matrices.
    """
    t, m = _arg("SelfAdjointEigV2", tensor)
    real = dtypes.as_dtype(t._dtype.real_dtype)
    return wrap(torch.linalg.eigvalsh(m).to(real._torch), real)


@public("torchflow.linalg")
def eig(tensor, name=None):
    """Eigenvalues and eigenvectors of general matrices (complex results).

    Args:
      tensor: A float or complex tensor of shape ``[..., N, N]``.
      name: Unused (eager).

    Returns:
      ``(e, v)``: eigenvalues ``[..., N]`` and eigenvectors ``[..., N, N]`` (columns),
        complex64 for float32 input, complex128 for float64.

    Raises:
      InvalidArgumentError: If ``tensor`` is not a batch of square matrices.
    """
    t, m = _arg("Eig", tensor)
    e, v = torch.linalg.eig(m)
    d = _COMPLEX_OF.get(m.dtype, t._dtype)
    return wrap(e.to(d._torch), d), wrap(v.to(d._torch), d)


@public("torchflow.linalg")
def eigvals(tensor, name=None) -> Tensor:
    """Eigenvalues of general matrices (complex results).

    Args:
      tensor: A float or complex tensor of shape ``[..., N, N]``.
      name: Unused (eager).

    Returns:
      A complex tensor of shape ``[..., N]`` (complex64 for float32 input, complex128 for
        float64).

    Raises:
      InvalidArgumentError: If ``tensor`` is not a batch of square matrices.
    """
    t, m = _arg("Eig", tensor)
    e = torch.linalg.eigvals(m)
    d = _COMPLEX_OF.get(m.dtype, t._dtype)
    return wrap(e.to(d._torch), d)


def _rhs(op: str, t: Tensor, m: torch.Tensor, rhs) -> torch.Tensor:
    b = nc.same_dtype(op, t, rhs)._t
    if b.ndim != m.ndim:
        raise InvalidArgumentError(
            None, None, f"All input tensors must have the same rank. [Op:{op}]")
    if b.shape[-2] != m.shape[-1]:
        raise InvalidArgumentError(
            None, None, f"Input matrix and rhs are incompatible. [Op:{op}]")
    return b.to(m.dtype)


@public("torchflow.linalg")
def solve(matrix, rhs, adjoint=False, name=None) -> Tensor:
    """Solves ``matrix @ X = rhs`` (or ``adjoint(matrix) @ X = rhs``).

    Args:
      matrix: A Tensor ``[..., M, M]``.
      rhs: A Tensor ``[..., M, K]`` of the same rank and dtype.
      adjoint: Solve with the adjoint of ``matrix``.
      name: Unused (eager).

    Returns:
      ``X``, ``[..., M, K]``.

    Raises:
      InvalidArgumentError: on mismatched shapes or a singular matrix.
    """
    op = "MatrixSolve"
    t, m = _arg(op, matrix)
    b = _rhs(op, t, m, rhs)
    try:
        x, info = torch.linalg.solve_ex(m.mH if adjoint else m, b)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    check_info(info, f"Input matrix is not invertible. [Op:{op}]")
    return _out(x, t)


@public("torchflow.linalg")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None) -> Tensor:
    """Solves ``matrix @ X = rhs`` for triangular ``matrix`` (batch dims broadcast).

    Args:
      matrix: A Tensor ``[..., M, M]``; only its ``lower`` (or upper) triangle is read.
      rhs: A Tensor ``[..., M, K]``.
      lower: Whether ``matrix`` is lower triangular.
      adjoint: Solve with the adjoint of ``matrix``.
      name: Unused (eager).

    Returns:
      ``X``, ``[..., M, K]``.
    """
    op = "MatrixTriangularSolve"
    t, m = _arg(op, matrix)
    b = nc.same_dtype(op, t, rhs)._t.to(m.dtype)
    if b.ndim < 2 or b.shape[-2] != m.shape[-1]:
        raise InvalidArgumentError(None, None, f"Input matrix and rhs are incompatible. "
                                               f"[Op:{op}]")
    a = m.tril() if lower else m.triu()
    try:
        if adjoint:
            x = torch.linalg.solve_triangular(a.mH, b, upper=lower)
        else:
            x = torch.linalg.solve_triangular(a, b, upper=not lower)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return _out(x, t)


def _gram_solve(gram: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """Solves with a Gram matrix. Like TF it fails when the Gram matrix is not
    positive definite (Cholesky); the solve itself is differentiated as
    ``gram^-1 @ rhs``, the closed form TF's gradient uses."""
    _cholesky(gram.detach())
    return torch.linalg.solve(gram, rhs)


@public("torchflow.linalg")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None) -> Tensor:
    """Solves the (regularized) linear least-squares problems
    ``min ||matrix @ X - rhs||^2 + l2_regularizer * ||X||^2``.

    With ``fast`` (the default) the normal equations are solved by Cholesky, as in
    TF (underdetermined systems give the minimum-norm solution); otherwise the
    pseudo-inverse is used.

    Args:
      matrix: A Tensor ``[..., M, N]``.
      rhs: A Tensor ``[..., M, K]``.
      l2_regularizer: A scalar >= 0.
      fast: Use the normal equations.
      name: Unused (eager).

    Returns:
      ``X``, ``[..., N, K]``.
    """
    op = "MatrixSolveLs"
    t, a = _arg(op, matrix, square=False, allowed=(dtypes.float64, dtypes.float32,
                                                   dtypes.float16, dtypes.complex64,
                                                   dtypes.complex128))
    b = nc.same_dtype(op, t, rhs)._t.to(a.dtype)
    if b.ndim != a.ndim or b.shape[-2] != a.shape[-2]:
        raise InvalidArgumentError(None, None, f"Input matrix and rhs are incompatible. "
                                               f"[Op:{op}]")
    lam = float(l2_regularizer.numpy() if isinstance(l2_regularizer, Tensor) else l2_regularizer)
    m_, n_ = a.shape[-2], a.shape[-1]
    try:
        if not fast:
            x = torch.linalg.pinv(a) @ b
        elif m_ >= n_:
            gram = a.mH @ a
            if lam:
                gram = gram + lam * torch.eye(n_, dtype=a.dtype, device=a.device)
            x = _gram_solve(gram, a.mH @ b)
        else:
            gram = a @ a.mH
            if lam:
                gram = gram + lam * torch.eye(m_, dtype=a.dtype, device=a.device)
            x = a.mH @ _gram_solve(gram, b)
    except InvalidArgumentError:
        raise
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return _out(x, t)


@public("torchflow.linalg")
def pinv(a, rcond=None, validate_args=False, name=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix (singular values below
    ``rcond * max(s)`` are treated as zero; default ``10 * max(M, N) * eps``).

    Args:
      a: A float tensor of shape ``[..., M, N]``.
      rcond: None (default) or a float tensor: the relative singular-value cutoff.
      validate_args: bool, default False; unused.
      name: Unused (eager).

    Returns:
      A tensor of ``a``'s dtype and shape ``[..., N, M]``.
    """
    t, m = _arg("Pinv", a, square=False, allowed=(dtypes.float32, dtypes.float64))
    if rcond is None:
        rcond = 10.0 * max(m.shape[-2], m.shape[-1]) * float(np.finfo(
            t._dtype.as_numpy_dtype).eps)
    return _out(torch.linalg.pinv(m, rtol=float(rcond)), t)


@public("torchflow.linalg")
def expm(input, name=None) -> Tensor:
    """The matrix exponential of each square matrix.

    Args:
      input: A float or complex tensor of shape ``[..., M, M]``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape.

    Raises:
      InvalidArgumentError: If ``input`` has rank < 2, is not square, or has an unsupported
        dtype.
    """
    t, m = _arg("MatrixExponential", input)
    return _out(torch.linalg.matrix_exp(m), t)


@public("torchflow.linalg")
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 (TF's argument name)
    """Normalizes ``tensor`` along ``axis`` by its norm.

    Args:
      tensor: A float tensor.
      ord: ``'euclidean'`` (default), ``'fro'``, ``1``, ``2``, ``np.inf`` or another
        positive real, as in ``tf.norm``.
      axis: None (default: the whole tensor), an int (vector norm) or a pair of ints (matrix
        norm).
      name: Unused (eager).

    Returns:
      ``(normalized, norm)``, ``norm`` with the reduced dimensions kept.
    """
    x = tensor_arg(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return wrap(x._t / n._t, x._dtype), n
