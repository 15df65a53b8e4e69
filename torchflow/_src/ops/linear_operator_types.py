"""Structured ``tf.linalg.LinearOperator`` subclasses: diagonal, identity, scaled
identity, zeros, triangular, Kronecker, block, Toeplitz, circulant, Householder,
low-rank update, permutation and tridiagonal operators."""

from __future__ import annotations

import torch

from torchflow._src.core import context, dtypes
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.linalg_special_ops import _tridiagonal
from torchflow._src.ops.linear_operator import LinearOperator, _low
from torchflow._src.util.api import public


@public("torchflow.linalg")
class LinearOperatorDiag(LinearOperator):
    """A (batch of) diagonal matrix ``diag(diag)``.

    Args:
      diag: A tensor ``[B1, ..., Bb, N]``: the diagonal.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; default True.
      name: str, default ``'LinearOperatorDiag'``.
    """

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorDiag"):
        d = tensor_arg(diag)
        if d._t.ndim < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension. Found: {d}")
        if is_self_adjoint is None and not d._dtype.is_complex:
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        self._diag = d
        super().__init__(d._dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, {"diag": diag})

    @property
    def diag(self):
        return self._diag

    def _shape_tuple(self):
        s = tuple(self._diag._t.shape)
        return s + (s[-1],)

    def _dense(self):
        return torch.diag_embed(self._diag._t)

    def _d(self, adjoint):
        d = self._diag._t
        return d.conj() if adjoint and d.is_complex() else d

    def _matmul(self, x, adjoint):
        return self._d(adjoint).unsqueeze(-1) * x

    def _solve(self, rhs, adjoint):
        return rhs / self._d(adjoint).unsqueeze(-1)

    def _det(self):
        return self._diag._t.prod(-1)

    def diag_part(self, name="diag_part"):
        return self._wrap(self._diag._t)

    def inverse(self, name="inverse"):
        return LinearOperatorDiag(self._wrap(1.0 / self._diag._t), is_non_singular=True,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite)

    def adjoint(self, name="adjoint"):
        if self.is_self_adjoint:
            return self
        return LinearOperatorDiag(self._wrap(self._diag._t.conj().resolve_conj()))

    def cholesky(self, name="cholesky"):
        return LinearOperatorDiag(self._wrap(torch.sqrt(self._diag._t)), is_non_singular=True,
                                  is_positive_definite=True)

    def eigvals(self, name="eigvals"):
        return self._wrap(self._diag._t)


def _batch(batch_shape) -> tuple:
    if batch_shape is None:
        return ()
    return tuple(int(v) for v in (batch_shape.numpy().tolist() if hasattr(batch_shape, "numpy")
                                  else batch_shape))


@public("torchflow.linalg")
class LinearOperatorIdentity(LinearOperator):
    """A (batch of) ``num_rows x num_rows`` identity matrix.

    Args:
      num_rows: A non-negative int: the number of rows.
      batch_shape: None (default) or a list of ints: leading batch dimensions.
      dtype: The operator's dtype, default None (float32).
      is_non_singular: None or bool: a hint that the operator is invertible; default True.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        default True.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        default True.
      is_square: None or bool: a hint that the operator is square; default True.
      assert_proper_shapes: bool, default False; accepted for compatibility.
      name: str, default ``'LinearOperatorIdentity'``.
    """

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        self._n = int(num_rows)
        if self._n < 0:
            raise ValueError(f"Argument num_rows must be non-negative. Found: {num_rows}")
        self._bs = _batch(batch_shape)
        super().__init__(dtype or dtypes.float32, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"num_rows": num_rows, "batch_shape": batch_shape, "dtype": dtype})

    def _shape_tuple(self):
        return self._bs + (self._n, self._n)

    def _dense(self):
        eye = torch.eye(self._n, dtype=self._value_dtype()._torch, device=context.default_device())
        return eye.expand(self._bs + (self._n, self._n)).clone()

    def _matmul(self, x, adjoint):
        return x.expand(torch.broadcast_shapes(self._bs, x.shape[:-2]) + tuple(x.shape[-2:]))

    def _solve(self, rhs, adjoint):
        return self._matmul(rhs, adjoint)

    def _det(self):
        return torch.ones(self._bs, dtype=self._value_dtype()._torch, device=context.default_device())

    def inverse(self, name="inverse"):
        return self


@public("torchflow.linalg")
class LinearOperatorScaledIdentity(LinearOperator):
    """``multiplier * I`` for a (batch of) scalar ``multiplier``.

    Args:
      num_rows: A non-negative int: the number of rows.
      multiplier: A scalar (or ``[B1, ..., Bb]``) tensor: the scale of the identity.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; default True.
      assert_proper_shapes: bool, default False; accepted for compatibility.
      name: str, default ``'LinearOperatorScaledIdentity'``.
    """

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        self._n = int(num_rows)
        self._mult = tensor_arg(multiplier)
        if is_self_adjoint is None and not self._mult._dtype.is_complex:
            is_self_adjoint = True
        super().__init__(self._mult._dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"num_rows": num_rows, "multiplier": multiplier})

    @property
    def multiplier(self):
        return self._mult

    def _shape_tuple(self):
        return tuple(self._mult._t.shape) + (self._n, self._n)

    def _m(self, adjoint):
        m = self._mult._t
        return (m.conj() if adjoint and m.is_complex() else m)[..., None, None]

    def _dense(self):
        m = self._mult._t
        return self._m(False) * torch.eye(self._n, dtype=m.dtype, device=m.device)

    def _matmul(self, x, adjoint):
        return self._m(adjoint) * x

    def _solve(self, rhs, adjoint):
        return rhs / self._m(adjoint)

    def _det(self):
        return self._mult._t ** self._n


@public("torchflow.linalg")
class LinearOperatorZeros(LinearOperator):
    """A (batch of) all-zero ``num_rows x num_columns`` matrix.

    Args:
      num_rows: A non-negative int: the number of rows.
      num_columns: None (default: ``num_rows``) or a non-negative int.
      batch_shape: None (default) or a list of ints: leading batch dimensions.
      dtype: The operator's dtype, default None (float32).
      is_non_singular: None or bool: a hint that the operator is invertible; default False.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        default True.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        default False.
      is_square: None or bool: a hint that the operator is square; default True.
      assert_proper_shapes: bool, default False; accepted for compatibility.
      name: str, default ``'LinearOperatorZeros'``.
    """

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        self._rows = int(num_rows)
        self._cols = int(num_rows if num_columns is None else num_columns)
        if is_square and self._rows != self._cols:
            raise ValueError(f"LinearOperatorZeros initialized as is_square=True, but got "
                             f"num_rows({self._rows}) != num_columns({self._cols})")
        self._bs = _batch(batch_shape)
        super().__init__(dtype or dtypes.float32, None, is_non_singular,
                         is_self_adjoint if self._rows == self._cols else None,
                         is_positive_definite, is_square, name,
                         {"num_rows": num_rows, "num_columns": num_columns})

    def _shape_tuple(self):
        return self._bs + (self._rows, self._cols)

    def _dense(self):
        return torch.zeros(self._shape_tuple(), dtype=self._value_dtype()._torch,
                           device=context.default_device())


@public("torchflow.linalg")
class LinearOperatorLowerTriangular(LinearOperator):
    """A (batch of) lower-triangular matrix; the upper triangle of ``tril`` is ignored.

    Args:
      tril: A tensor ``[..., N, N]``; only its lower triangle is used.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str, default ``'LinearOperatorLowerTriangular'``.
    """

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        t = tensor_arg(tril)
        self._tril = t
        super().__init__(t._dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, {"tril": tril})

    def _shape_tuple(self):
        return tuple(self._tril._t.shape)

    def _dense(self):
        return self._tril._t.tril()

    def _solve(self, rhs, adjoint):
        a = _low(self._dense())
        if adjoint:
            return torch.linalg.solve_triangular(a.mH, rhs.to(a.dtype), upper=True)
        return torch.linalg.solve_triangular(a, rhs.to(a.dtype), upper=False)

    def _det(self):
        return torch.diagonal(self._tril._t, 0, -2, -1).prod(-1)


def _kron(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, n = a.shape[-2:]
    p, q = b.shape[-2:]
    out = a[..., :, None, :, None] * b[..., None, :, None, :]
    return out.reshape(out.shape[:-4] + (m * p, n * q))


@public("torchflow.linalg")
class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product ``A1 ⊗ A2 ⊗ ... ⊗ An`` of operators.

    Args:
      operators: A non-empty list of ``LinearOperator``s of one dtype.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str: the operator's name.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self.operators = list(operators)
        if not self.operators:
            raise ValueError("Expected a non-empty list of operators.")
        super().__init__(self.operators[0].dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square,
                         name or "_x_".join(o.name for o in self.operators),
                         {"operators": operators})

    def _dense(self):
        out = self.operators[0]._dense()
        for o in self.operators[1:]:
            out = _kron(out, o._dense())
        return out


def _blocks_dense(grid: dict, n: int, dtype) -> torch.Tensor:
    """Dense matrix of an ``n x n`` grid of operator blocks ``{(row, col): op}``
    (diagonal blocks always present; missing blocks are zero)."""
    heights = [grid[i, i]._shape_tuple()[-2] for i in range(n)]
    widths = [grid[i, i]._shape_tuple()[-1] for i in range(n)]
    batch = torch.broadcast_shapes(*[o._shape_tuple()[:-2] for o in grid.values()])
    first = grid[0, 0]._dense()
    out = torch.zeros(tuple(batch) + (sum(heights), sum(widths)), dtype=dtype, device=first.device)
    for (i, j), o in grid.items():
        r0, c0 = sum(heights[:i]), sum(widths[:j])
        out[..., r0:r0 + heights[i], c0:c0 + widths[j]] = o._dense()
    return out


@public("torchflow.linalg")
class LinearOperatorBlockDiag(LinearOperator):
    """A block-diagonal operator with the given (square) operators as blocks.

    Args:
      operators: A non-empty list of ``LinearOperator``s of one dtype.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; default True.
      name: str: the operator's name.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        self.operators = list(operators)
        if not self.operators:
            raise ValueError("Expected a non-empty list of operators.")
        super().__init__(self.operators[0].dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square,
                         name or "_ds_".join(o.name for o in self.operators),
                         {"operators": operators})

    def _dense(self):
        grid = {(i, i): o for i, o in enumerate(self.operators)}
        return _blocks_dense(grid, len(self.operators), self._value_dtype()._torch)


@public("torchflow.linalg")
class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower-triangular operator: ``operators[i]`` holds row ``i``'s
    ``i + 1`` blocks (the last one on the diagonal).

    Args:
      operators: A non-empty list of ``LinearOperator``s of one dtype.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str: the operator's name.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self.operators = [list(r) for r in operators]
        if any(len(r) != i + 1 for i, r in enumerate(self.operators)):
            raise ValueError("Argument `operators` must be a list of lists where row i has "
                             "i + 1 operators.")
        super().__init__(self.operators[0][0].dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square,
                         name or "LinearOperatorBlockLowerTriangular",
                         {"operators": operators})

    def _dense(self):
        grid = {(i, j): o for i, row in enumerate(self.operators) for j, o in enumerate(row)}
        return _blocks_dense(grid, len(self.operators), self._value_dtype()._torch)


@public("torchflow.linalg")
class LinearOperatorToeplitz(LinearOperator):
    """A Toeplitz matrix: first column ``col``, first row ``row`` (``row[0]`` is
    ignored; the diagonal is ``col[0]``).

    Args:
      col: A tensor ``[..., N]``: the first column.
      row: A tensor ``[..., N]``: the first row (its first entry is ignored).
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str, default ``'LinearOperatorToeplitz'``.
    """

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        self._col, self._row = tensor_arg(col), tensor_arg(row)
        super().__init__(self._col._dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"col": col, "row": row})

    def _dense(self):
        c, r = self._col._t, self._row._t
        c, r = torch.broadcast_tensors(c, r)
        n = c.shape[-1]
        i = torch.arange(n, device=c.device).unsqueeze(1)
        j = torch.arange(n, device=c.device).unsqueeze(0)
        lower = c[..., (i - j).clamp(min=0)]
        upper = r[..., (j - i).clamp(min=0)]
        return torch.where(i >= j, lower, upper)


class _Circulant(LinearOperator):
    _ndims = 1

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True, name=None):
        self._spectrum = tensor_arg(spectrum)
        super().__init__(input_output_dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name or type(self).__name__,
                         {"spectrum": spectrum, "input_output_dtype": input_output_dtype})

    @property
    def spectrum(self):
        return self._spectrum

    def _dense(self):
        s = self._spectrum._t
        k = self._ndims
        block = tuple(s.shape[-k:])
        n = 1
        for v in block:
            n *= v
        basis = torch.eye(n, dtype=torch.complex128, device=s.device).reshape((n,) + block)
        dims = tuple(range(-k, 0))
        cols = torch.fft.ifftn(s.to(torch.complex128).unsqueeze(-k - 1) *
                               torch.fft.fftn(basis, dim=dims), dim=dims)
        dense = cols.reshape(s.shape[:-k] + (n, n)).mT
        return dense if self._value_dtype().is_complex else dense.real


@public("torchflow.linalg")
class LinearOperatorCirculant(_Circulant):
    """A circulant operator ``A = DFT^-1 diag(spectrum) DFT`` (1-D spectrum).

    Args:
      spectrum: A float or complex tensor: the FFT of the operator's kernel (the
        eigenvalues).
      input_output_dtype: The dtype of vectors the operator acts on, default
        ``tf.complex64``.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; default True.
      name: str: the operator's name.
    """

    _ndims = 1


@public("torchflow.linalg")
class LinearOperatorCirculant2D(_Circulant):
    """A block-circulant operator with circulant blocks (2-D spectrum).

    Args:
      spectrum: A float or complex tensor: the FFT of the operator's kernel (the
        eigenvalues).
      input_output_dtype: The dtype of vectors the operator acts on, default
        ``tf.complex64``.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; default True.
      name: str: the operator's name.
    """

    _ndims = 2


@public("torchflow.linalg")
class LinearOperatorCirculant3D(_Circulant):
    """A doubly block-circulant operator (3-D spectrum).

    Args:
      spectrum: A float or complex tensor: the FFT of the operator's kernel (the
        eigenvalues).
      input_output_dtype: The dtype of vectors the operator acts on, default
        ``tf.complex64``.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; default True.
      name: str: the operator's name.
    """

    _ndims = 3


@public("torchflow.linalg")
class LinearOperatorHouseholder(LinearOperator):
    """The reflection ``I - 2 v v^H / (v^H v)`` across the plane orthogonal to
    ``reflection_axis``.

    Args:
      reflection_axis: A tensor ``[B1, ..., Bb, N]``: the vector normal to the reflection
        hyperplane.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str, default ``'LinearOperatorHouseholder'``.
    """

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorHouseholder"):
        self._v = tensor_arg(reflection_axis)
        super().__init__(self._v._dtype, None, is_non_singular, True, is_positive_definite,
                         True, name, {"reflection_axis": reflection_axis})

    def _dense(self):
        v = self._v._t
        n = v.shape[-1]
        outer = v.unsqueeze(-1) * v.conj().unsqueeze(-2)
        norm = (v.conj() * v).sum(-1).real[..., None, None]
        return torch.eye(n, dtype=v.dtype, device=v.device) - 2 * outer / norm


@public("torchflow.linalg")
class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + u @ diag(diag_update) @ v^H`` (``v`` defaults to ``u``,
    ``diag_update`` to ones).

    Args:
      base_operator: The ``LinearOperator`` ``L`` being updated.
      u: A tensor ``[..., M, K]``: the left factor of the update.
      diag_update: None (default: ones) or a tensor ``[..., K]``: the diagonal ``D`` of the
        update.
      v: None (default: ``u``) or a tensor ``[..., N, K]``: the right factor.
      is_diag_update_positive: None or bool: a hint that ``diag_update`` is positive.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str, default ``'LinearOperatorLowRankUpdate'``.
    """

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorLowRankUpdate"):
        self.base_operator = base_operator
        self._u = tensor_arg(u, base_operator.dtype)
        self._v = self._u if v is None else tensor_arg(v, base_operator.dtype)
        self._d = None if diag_update is None else tensor_arg(diag_update, base_operator.dtype)
        if is_self_adjoint is None and v is None and base_operator.is_self_adjoint:
            is_self_adjoint = True
        super().__init__(base_operator.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"base_operator": base_operator, "u": u, "diag_update": diag_update,
                          "v": v})

    def _dense(self):
        u = self._u._t
        if self._d is not None:
            u = u * self._d._t.unsqueeze(-2)
        return self.base_operator._dense() + u @ self._v._t.mH


@public("torchflow.linalg")
class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix with a one at ``[i, perm[i]]`` of each row.

    Args:
      perm: An int tensor ``[..., N]``: a permutation of ``0 .. N-1``.
      dtype: The operator's dtype, default None (float32).
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str, default ``'LinearOperatorPermutation'``.
    """

    def __init__(self, perm, dtype=dtypes.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        self._perm = tensor_arg(perm)
        super().__init__(dtype, None, True, is_self_adjoint, is_positive_definite, True, name,
                         {"perm": perm, "dtype": dtype})

    @property
    def perm(self):
        return self._perm

    def _dense(self):
        p = self._perm._t.long()
        return torch.nn.functional.one_hot(p, p.shape[-1]).to(self._value_dtype()._torch)


@public("torchflow.linalg")
class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal operator (formats as in ``tf.linalg.tridiagonal_solve``).

    Args:
      diagonals: The three diagonals: ``[..., 3, N]`` (``'compact'``), a list of three
        ``[..., N]`` tensors (``'sequence'``) or ``[..., N, N]`` (``'matrix'``).
      diagonals_format: ``'compact'`` (default), ``'sequence'`` or ``'matrix'``.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str, default ``'LinearOperatorTridiag'``.
    """

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        t, dense = _tridiagonal("LinearOperatorTridiag", diagonals, diagonals_format)
        self._dense_t = dense
        super().__init__(t._dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, {"diagonals": diagonals,
                                      "diagonals_format": diagonals_format})

    def _dense(self):
        return self._dense_t

