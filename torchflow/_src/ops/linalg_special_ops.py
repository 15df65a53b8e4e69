"""Less common ``tf.linalg`` ops: LU factorization and its solvers, rank, matrix
square root and logarithm, tridiagonal systems, tensor diagonals."""

from __future__ import annotations

import collections

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.ops.linalg_decomp_ops import _arg, _out, check_info
from torchflow._src.util.api import public

Lu = collections.namedtuple("Lu", ["lu", "p"])
_INDEX = nc.TypeSet((dtypes.int32, dtypes.int64))


@public("torchflow.linalg")
def lu(input, output_idx_type=dtypes.int32, name=None):
    """LU decomposition with partial pivoting: ``input[..., p, :] = L @ U``.

    Args:
      input: A float or complex tensor of shape ``[..., M, M]``.
      output_idx_type: ``tf.int32`` (default) or ``tf.int64``.
      name: Unused (eager).

    Returns:
      ``(lu, p)``: ``L`` (unit diagonal, not stored) and ``U`` packed into one
      matrix, and the row permutation ``p`` of ``output_idx_type``.
    """
    t, m = _arg("Lu", input)
    idx = dtypes.as_dtype(output_idx_type)
    try:
        packed, pivots = torch.linalg.lu_factor(m)
        perm_matrix, _, _ = torch.lu_unpack(packed, pivots, unpack_data=False)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("Lu", e) from None
    p = perm_matrix.abs().argmax(-2)  # A = P L U  ->  (P^T A) = L U
    return Lu(_out(packed, t), wrap(p.to(idx._torch), idx))


def _lu_parts(op, lower_upper, perm):
    t, m = _arg(op, lower_upper)
    p = nc.typed_arg(op, perm, _INDEX, attr="Tperm")._t.long()
    return t, m, p


def _lu_solve(m, p, b):
    rows = torch.gather(b, -2, p.unsqueeze(-1).expand(*p.shape, b.shape[-1]))
    y = torch.linalg.solve_triangular(m, rows, upper=False, unitriangular=True)
    return torch.linalg.solve_triangular(m, y, upper=True)


@public("torchflow.linalg")
def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None) -> Tensor:
    """Solves ``A X = rhs`` from ``A``'s ``tf.linalg.lu`` factors.

    Args:
      lower_upper: The packed ``lu`` output of ``tf.linalg.lu``, shape ``[..., M, M]``.
      perm: The permutation output of ``tf.linalg.lu``, shape ``[..., M]``.
      rhs: A tensor of ``lower_upper``'s dtype, shape ``[..., M, K]``.
      validate_args: bool, default False; unused.
      name: Unused (eager).

    Returns:
      A tensor of ``rhs``' dtype and shape.
    """
    t, m, p = _lu_parts("LuSolve", lower_upper, perm)
    b = nc.same_dtype("LuSolve", t, rhs)._t.to(m.dtype)
    try:
        return _out(_lu_solve(m, p, b), t)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("LuSolve", e) from None


@public("torchflow.linalg")
def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The inverse of ``A`` from its ``tf.linalg.lu`` factors.

    Args:
      lower_upper: The packed ``lu`` output of ``tf.linalg.lu``, shape ``[..., M, M]``.
      perm: The permutation output of ``tf.linalg.lu``, shape ``[..., M]``.
      validate_args: bool, default False; unused.
      name: Unused (eager).

    Returns:
      A tensor of ``lower_upper``'s dtype and shape.
    """
    t, m, p = _lu_parts("LuMatrixInverse", lower_upper, perm)
    eye = torch.eye(m.shape[-1], dtype=m.dtype, device=m.device).expand(m.shape)
    return _out(_lu_solve(m, p, eye), t)


@public("torchflow.linalg")
def lu_reconstruct(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """Rebuilds ``A`` from its ``tf.linalg.lu`` factors.

    Args:
      lower_upper: The packed ``lu`` output of ``tf.linalg.lu``, shape ``[..., M, M]``.
      perm: The permutation output of ``tf.linalg.lu``, shape ``[..., M]``.
      validate_args: bool, default False; unused.
      name: Unused (eager).

    Returns:
      A tensor of ``lower_upper``'s dtype and shape.
    """
    t, m, p = _lu_parts("LuReconstruct", lower_upper, perm)
    lower = m.tril(-1) + torch.eye(m.shape[-1], dtype=m.dtype, device=m.device)
    prod = lower @ m.triu()
    inv = torch.argsort(p, -1)
    return _out(torch.gather(prod, -2, inv.unsqueeze(-1).expand(prod.shape)), t)


@public("torchflow.linalg")
def matrix_rank(a, tol=None, validate_args=False, name=None) -> Tensor:
    """The number of singular values above ``tol`` (default
    ``max(s) * max(M, N) * eps``), as int32.

    Args:
      a: A float tensor of shape ``[..., M, N]``.
      tol: None (default) or a float: the singular-value threshold.
      validate_args: bool, default False; unused.
      name: Unused (eager).

    Returns:
      An int32 tensor of shape ``[...]``.
    """
    t, m = _arg("MatrixRank", a, square=False)
    s = torch.linalg.svdvals(m)
    if tol is None:
        eps = float(np.finfo(dtypes.as_dtype(t._dtype.real_dtype).as_numpy_dtype).eps)
        cut = s.amax(-1, keepdim=True) * (max(m.shape[-2], m.shape[-1]) * eps)
    else:
        cut = torch.as_tensor(float(tol), dtype=s.dtype, device=s.device)
    return wrap((s > cut).sum(-1).to(torch.int32), dtypes.int32)


def _eig_fn(m: torch.Tensor, fn) -> torch.Tensor:
    w, v = torch.linalg.eig(m)
    r = v @ torch.diag_embed(fn(w)) @ torch.linalg.inv(v)
    return r if m.is_complex() else r.real


@public("torchflow.linalg")
def sqrtm(input, name=None) -> Tensor:
    """The principal square root of each square matrix.

    Args:
      input: A float or complex tensor of shape ``[..., M, M]``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape.

    Differences from TensorFlow 2.4: computed by eigendecomposition, so it needs
    diagonalizable matrices (TF uses a Schur decomposition).
    """
    t, m = _arg("MatrixSquareRoot", input, allowed=(dtypes.float32, dtypes.float64,
                                                    dtypes.complex64, dtypes.complex128))
    return _out(_eig_fn(m, torch.sqrt), t)


@public("torchflow.linalg")
def logm(input, name=None) -> Tensor:
    """The principal matrix logarithm of each complex square matrix (via
    eigendecomposition; diagonalizable matrices only).

    Args:
      input: A complex64/complex128 tensor of shape ``[..., M, M]``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape.
    """
    t, m = _arg("MatrixLogarithm", input, allowed=(dtypes.complex64, dtypes.complex128))
    return _out(_eig_fn(m, torch.log), t)


def _tridiagonal(op, diagonals, fmt):
    if fmt == "matrix":
        t = tensor_arg(diagonals)
        return t, t._t
    if fmt == "sequence":
        sup, main, sub = (tensor_arg(d) for d in diagonals)
        t = main
        s_, m_, b_ = sup._t, main._t, sub._t
    elif fmt == "compact":
        t = tensor_arg(diagonals)
        d = t._t
        if d.ndim < 2 or d.shape[-2] != 3:
            raise ValueError(f"{op}: compact diagonals must have shape [..., 3, M], got "
                             f"{list(d.shape)}")
        s_, m_, b_ = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    else:
        raise ValueError(f"Unrecognized diagonals_format: {fmt}")
    dense = torch.diag_embed(m_)
    if m_.shape[-1] > 1:
        dense = dense + torch.diag_embed(s_[..., : m_.shape[-1] - 1], 1)
        dense = dense + torch.diag_embed(b_[..., -(m_.shape[-1] - 1):], -1)
    return t, dense


@public("torchflow.linalg")
def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False) -> Tensor:
    """Solves tridiagonal systems ``A X = rhs``.

    Args:
      diagonals: ``"compact"``: ``[..., 3, M]`` (super-, main and subdiagonal; the
        superdiagonal's last and the subdiagonal's first entries are ignored);
        ``"sequence"``: a tuple of those three ``[..., M]`` Tensors; ``"matrix"``:
        ``[..., M, M]``.
      rhs: ``[..., M, K]`` (or ``[..., K, M]`` with ``transpose_rhs``).
      diagonals_format: See above.
      transpose_rhs, conjugate_rhs: Transform ``rhs`` first.
      name, partial_pivoting, perturb_singular: Unused.

    Returns:
      ``X`` of ``rhs``'s shape.

    Raises:
      InvalidArgumentError: if a system is singular.
    """
    t, a = _tridiagonal("TridiagonalSolve", diagonals, diagonals_format)
    b = nc.same_dtype("TridiagonalSolve", t, rhs)._t
    if transpose_rhs:
        b = b.mT
    if conjugate_rhs and b.is_complex():
        b = b.conj()
    try:
        x, info = torch.linalg.solve_ex(a, b)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("TridiagonalSolve", e) from None
    check_info(info, "The matrix is not invertible. [Op:TridiagonalSolve]")
    return wrap(x.resolve_conj(), t._dtype)


@public("torchflow.linalg")
def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None) -> Tensor:
    """Multiplies tridiagonal matrices (formats as in ``tridiagonal_solve``) by ``rhs``.

    Args:
      diagonals: The tridiagonal matrices: ``[..., 3, M]`` (``'compact'``), a tuple of three
        ``[..., M]`` tensors (``'sequence'``) or ``[..., M, M]`` (``'matrix'``).
      rhs: A tensor of shape ``[..., M, N]`` and ``diagonals``' dtype.
      diagonals_format: ``'compact'`` (default), ``'sequence'`` or ``'matrix'``.
      name: Unused (eager).

    Returns:
      A tensor of ``rhs``' dtype and shape.
    """
    t, a = _tridiagonal("TridiagonalMatMul", diagonals, diagonals_format)
    b = nc.same_dtype("TridiagonalMatMul", t, rhs)._t
    return wrap(a @ b, t._dtype)


@public("torchflow.linalg")
def tensor_diag(diagonal, name=None) -> Tensor:
    """A rank-2k tensor with ``diagonal`` (rank k) on its diagonal:
    ``out[i1..ik, i1..ik] = diagonal[i1..ik]``.

    Args:
      diagonal: A tensor of rank k (1 to 3).
      name: Unused (eager).

    Returns:
      A tensor of ``diagonal``'s dtype and shape ``diagonal.shape + diagonal.shape``.
    """
    t = tensor_arg(diagonal)
    d = t._t
    shape = tuple(d.shape)
    return wrap(torch.diag(d.reshape(-1)).reshape(shape + shape), t._dtype)


@public("torchflow.linalg")
def tensor_diag_part(input, name=None) -> Tensor:
    """The inverse of ``tensor_diag``: ``out[i1..ik] = input[i1..ik, i1..ik]``.

    Args:
      input: A tensor of rank 2k (k in 1..3) with shape ``s + s``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape ``s``.

    Raises:
      InvalidArgumentError: if ``input``'s rank is odd or its halves differ.
    """
    t = tensor_arg(input)
    x = t._t
    k = x.ndim // 2
    if x.ndim % 2 or tuple(x.shape[:k]) != tuple(x.shape[k:]):
        raise InvalidArgumentError(
            None, None, f"Input must have even rank and matching halves, got "
                        f"{list(x.shape)} [Op:DiagPart]")
    n = int(np.prod(x.shape[:k], dtype=np.int64))
    return wrap(torch.diagonal(x.reshape(n, n)).reshape(x.shape[:k]), t._dtype)


@public("torchflow.linalg")
def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None) -> Tensor:
    """Solves ``A X = rhs`` for a banded triangular ``A`` given by its bands.

    Args:
      bands: ``[..., K, M]``. Lower: row ``k`` is the ``k``-th subdiagonal (row 0
        the diagonal), right-aligned. Upper: row ``K - 1 - k`` is the ``k``-th
        superdiagonal (the last row the diagonal), left-aligned.
      rhs: ``[..., M, N]``.
      lower: Whether ``A`` is lower triangular.
      adjoint: Solve with the adjoint of ``A``.
      name: Unused (eager).

    Returns:
      ``X``, ``[..., M, N]``.
    """
    op = "BandedTriangularSolve"
    t = nc.typed_arg(op, bands, (dtypes.float32, dtypes.float64, dtypes.complex64,
                                 dtypes.complex128))
    b = nc.same_dtype(op, t, rhs)._t
    x = t._t
    k_, m = x.shape[-2], x.shape[-1]
    dense = x.new_zeros(x.shape[:-2] + (m, m))
    for k in range(min(k_, m)):
        if lower:
            dense = dense + torch.diag_embed(x[..., k, k:], -k)
        else:
            dense = dense + torch.diag_embed(x[..., k_ - 1 - k, : m - k], k)
    try:
        if adjoint:
            out = torch.linalg.solve_triangular(dense.mH, b, upper=lower)
        else:
            out = torch.linalg.solve_triangular(dense, b, upper=not lower)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    return wrap(out, t._dtype)
