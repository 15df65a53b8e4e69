"""``tf.linalg.LinearOperator``: a (batch of) matrix described by its structure.

Every operator can build its dense matrix (``_dense``); the base class answers
every method from that, and the structured subclasses override what their
structure makes cheap (diagonal solves, triangular determinants ...).

Differences from TensorFlow 2.4: generic methods work on the dense matrix, so
they cost what dense linear algebra costs; ``__getitem__`` slicing and
``batch_shape`` broadcasting between mismatched operators are not supported.
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public


def _t(x, dtype=None) -> torch.Tensor:
    return tensor_arg(x, dtype)._t


def _low(m: torch.Tensor) -> torch.Tensor:
    return m.float() if m.dtype in (torch.float16, torch.bfloat16) else m


@public("torchflow.linalg")
class LinearOperator:
    """Base class for a linear operator on ``[..., N]`` vectors: a (batch of)
    ``[M, N]`` matrices, possibly never built densely.

    Args:
      dtype: The operator's dtype.
      graph_parents: Unused.
      is_non_singular, is_self_adjoint, is_positive_definite, is_square: Hints
        (None: unknown), checked for consistency as in TF.
      name: A name.
      parameters: The constructor's arguments (for ``parameters``).

    Raises:
      ValueError: on contradictory hints.
    """

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular and is_square is False:
            raise ValueError("A non-singular matrix is always square.")
        if is_self_adjoint and is_square is False:
            raise ValueError("A self-adjoint matrix is always square.")
        if is_non_singular or is_self_adjoint:
            is_square = True
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_hint = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    def _value_dtype(self) -> dtypes.DType:
        """The dtype of the operator's values (an operator made with ``dtype=None`` has none)."""
        d = self._dtype
        if d is None:
            raise TypeError(f"{self._name}: an operator with dtype None has no values")
        return d

    # --- to be provided by subclasses ----------------------------------------
    def _dense(self) -> torch.Tensor:
        raise NotImplementedError

    def _shape_tuple(self) -> tuple:
        return tuple(self._dense().shape)

    # --- metadata -------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def parameters(self) -> dict:
        return dict(self._parameters)

    @property
    def graph_parents(self) -> list:
        return []

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        s = self._shape_tuple()
        return s[-1] == s[-2] if self._is_square_hint is None else self._is_square_hint

    @property
    def shape(self) -> TensorShape:
        return TensorShape(list(self._shape_tuple()))

    @property
    def batch_shape(self) -> TensorShape:
        return TensorShape(list(self._shape_tuple()[:-2]))

    @property
    def tensor_rank(self) -> int:
        return len(self._shape_tuple())

    @property
    def domain_dimension(self):
        return self.shape[-1]

    @property
    def range_dimension(self):
        return self.shape[-2]

    def _int_tensor(self, values) -> Tensor:
        return wrap(torch.tensor(list(values), dtype=torch.int32), dtypes.int32)

    def shape_tensor(self, name="shape_tensor") -> Tensor:
        return self._int_tensor(self._shape_tuple())

    def batch_shape_tensor(self, name="batch_shape_tensor") -> Tensor:
        return self._int_tensor(self._shape_tuple()[:-2])

    def tensor_rank_tensor(self, name="tensor_rank_tensor") -> Tensor:
        return wrap(torch.tensor(self.tensor_rank, dtype=torch.int32), dtypes.int32)

    def domain_dimension_tensor(self, name="domain_dimension_tensor") -> Tensor:
        return wrap(torch.tensor(self._shape_tuple()[-1], dtype=torch.int32), dtypes.int32)

    def range_dimension_tensor(self, name="range_dimension_tensor") -> Tensor:
        return wrap(torch.tensor(self._shape_tuple()[-2], dtype=torch.int32), dtypes.int32)

    def __repr__(self) -> str:
        return (f"<tf.linalg.{type(self).__name__} '{self._name}' shape={self.shape} "
                f"dtype={self._dtype.name if self._dtype else None}>")

    # --- values ---------------------------------------------------------------
    def _wrap(self, t: torch.Tensor) -> Tensor:
        d = self._value_dtype()
        return wrap(t.to(d._torch) if t.dtype != d._torch else t, d)

    def to_dense(self, name="to_dense") -> Tensor:
        """The dense ``[..., M, N]`` matrix."""
        return self._wrap(self._dense())

    def _arg(self, x) -> torch.Tensor:
        d = self._value_dtype()
        t = tensor_arg(x, d)
        if t._dtype is not d:
            raise TypeError(f"{self._name}: expected an argument of dtype {d.name}, "
                            f"got {t._dtype.name}")
        return t._t

    def _matmul(self, x: torch.Tensor, adjoint: bool) -> torch.Tensor:
        a = self._dense()
        return (a.mH if adjoint else a) @ x

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``self @ x`` (or with adjoints); ``x`` a Tensor ``[..., N, R]`` or an operator.

        Returns:
          A Tensor, or a ``LinearOperatorComposition`` when ``x`` is an operator.
        """
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        xt = self._arg(x)
        if adjoint_arg:
            xt = xt.mH
        try:
            return self._wrap(self._matmul(xt, adjoint))
        except RuntimeError as e:
            raise translate("MatMul", e) from None

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec") -> Tensor:
        """``self @ x`` for vectors ``x`` ``[..., N]``."""
        xt = self._arg(x)
        return self._wrap(self._matmul(xt.unsqueeze(-1), adjoint).squeeze(-1))

    def _solve(self, rhs: torch.Tensor, adjoint: bool) -> torch.Tensor:
        a = _low(self._dense())
        x, info = torch.linalg.solve_ex(a.mH if adjoint else a, rhs.to(a.dtype))
        if info.numel() and bool((info != 0).any()):
            raise InvalidArgumentError(None, None, "Input matrix is not invertible. "
                                                   "[Op:MatrixSolve]")
        return x

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """Solves ``self @ X = rhs`` (or with adjoints) for ``X``."""
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            return LinearOperatorComposition([LinearOperatorInversion(left), right])
        r = self._arg(rhs)
        if adjoint_arg:
            r = r.mH
        return self._wrap(self._solve(r, adjoint))

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """Solves ``self @ x = rhs`` for vectors."""
        r = self._arg(rhs)
        return self._wrap(self._solve(r.unsqueeze(-1), adjoint).squeeze(-1))

    def _det(self) -> torch.Tensor:
        return torch.linalg.det(_low(self._dense()))

    def determinant(self, name="det") -> Tensor:
        """The determinant of each (square) matrix."""
        self._require_square("determinant")
        return self._wrap(self._det())

    def log_abs_determinant(self, name="log_abs_det") -> Tensor:
        """``log(|det(self)|)``."""
        self._require_square("log_abs_determinant")
        d = self._det()
        return self._wrap(torch.log(d.abs()).to(d.dtype))

    def _require_square(self, what: str) -> None:
        if self.is_square is False:
            raise NotImplementedError(f"Cannot take the {what} of a non-square operator.")

    def inverse(self, name="inverse") -> LinearOperator:
        """The inverse operator."""
        self._require_square("inverse")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        return LinearOperatorInversion(self)

    def adjoint(self, name="adjoint") -> LinearOperator:
        """The adjoint (conjugate transpose) operator."""
        if self.is_self_adjoint:
            return self
        return LinearOperatorAdjoint(self)

    H = property(adjoint)

    def diag_part(self, name="diag_part") -> Tensor:
        """The main diagonal of each matrix."""
        return self._wrap(torch.diagonal(self._dense(), 0, -2, -1))

    def trace(self, name="trace") -> Tensor:
        """The sum of the main diagonal."""
        return self._wrap(torch.diagonal(self._dense(), 0, -2, -1).sum(-1))

    def add_to_tensor(self, x, name="add_to_tensor") -> Tensor:
        """``self.to_dense() + x``."""
        return self._wrap(self._dense() + self._arg(x))

    def cholesky(self, name="cholesky") -> LinearOperator:
        """The Cholesky factor as a ``LinearOperatorLowerTriangular``.

        Raises:
          ValueError: unless the operator is flagged self-adjoint and positive definite.
        """
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cholesky decomposition only exists for self-adjoint positive "
                             "definite matrices.")
        # cycle: the concrete operator types subclass LinearOperator from this module.
        from torchflow._src.ops.linear_operator_types import LinearOperatorLowerTriangular

        chol = torch.linalg.cholesky(_low(self._dense())).to(self._dense().dtype)
        return LinearOperatorLowerTriangular(self._wrap(chol), is_non_singular=True,
                                             is_positive_definite=True)

    def eigvals(self, name="eigvals") -> Tensor:
        """Eigenvalues (real and ascending when the operator is self-adjoint)."""
        a = _low(self._dense())
        if self.is_self_adjoint:
            e = torch.linalg.eigvalsh(a)
            real = dtypes.as_dtype(self._value_dtype().real_dtype)
            return wrap(e.to(real._torch), real)
        e = torch.linalg.eigvals(a)
        return wrap(e, dtypes.from_torch(e.dtype))

    def cond(self, name="cond") -> Tensor:
        """The condition number: largest over smallest singular value."""
        s = torch.linalg.svdvals(_low(self._dense()))
        real = dtypes.as_dtype(self._value_dtype().real_dtype)
        return wrap((s[..., 0] / s[..., -1]).to(real._torch), real)

    def _assert(self, ok: bool, message: str):
        if not ok:
            raise InvalidArgumentError(None, None, message)

    def assert_non_singular(self, name="assert_non_singular"):
        """Raises InvalidArgumentError if a matrix is singular (to working precision)."""
        s = torch.linalg.svdvals(_low(self._dense()))
        eps = torch.finfo(s.dtype).eps
        self._assert(bool((s[..., -1] > s[..., 0] * eps * max(s.shape[-1], 1)).all()),
                     "Singular operator: smallest singular value is zero.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        """Raises InvalidArgumentError unless every matrix is positive definite."""
        a = _low(self._dense())
        _, info = torch.linalg.cholesky_ex((a + a.mH) / 2)
        self._assert(not bool((info != 0).any()), "Operator was not positive definite.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """Raises InvalidArgumentError unless every matrix equals its adjoint."""
        a = _low(self._dense())
        self._assert(bool(torch.allclose(a, a.mH)), "Operator was not self-adjoint.")


@public("torchflow.linalg")
class LinearOperatorFullMatrix(LinearOperator):
    """A ``LinearOperator`` holding a dense ``[..., M, N]`` matrix.

    Args:
      matrix: A tensor ``[B1, ..., Bb, M, N]``: the matrix.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str, default ``'LinearOperatorFullMatrix'``.
    """

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        m = tensor_arg(matrix)
        if m._t.ndim < 2:
            raise ValueError(f"Argument matrix must have at least 2 dimensions. Found: {m}")
        self._matrix = m
        super().__init__(m._dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"matrix": matrix})

    def _dense(self):
        return self._matrix._t


@public("torchflow.linalg")
class LinearOperatorAdjoint(LinearOperator):
    """The adjoint of another operator.

    Args:
      operator: The ``LinearOperator`` being wrapped.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str: the operator's name.
    """

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self.operator = operator
        super().__init__(operator.dtype, None,
                         operator.is_non_singular if is_non_singular is None else is_non_singular,
                         operator.is_self_adjoint if is_self_adjoint is None else is_self_adjoint,
                         operator.is_positive_definite if is_positive_definite is None
                         else is_positive_definite,
                         operator.is_square if is_square is None else is_square,
                         name or operator.name + "_adjoint", {"operator": operator})

    def _dense(self):
        return self.operator._dense().mH.resolve_conj()

    def _matmul(self, x, adjoint):
        return self.operator._matmul(x, not adjoint)

    def _solve(self, rhs, adjoint):
        return self.operator._solve(rhs, not adjoint)

    def adjoint(self, name="adjoint"):
        return self.operator


@public("torchflow.linalg")
class LinearOperatorInversion(LinearOperator):
    """The inverse of another (square, non-singular) operator.

    Args:
      operator: The ``LinearOperator`` being wrapped.
      is_non_singular: None or bool: a hint that the operator is invertible; None means
        unknown.
      is_self_adjoint: None or bool: a hint that the operator is self-adjoint (Hermitian);
        None means unknown.
      is_positive_definite: None or bool: a hint that the operator is positive definite;
        None means unknown.
      is_square: None or bool: a hint that the operator is square; None means unknown.
      name: str: the operator's name.
    """

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        if operator.is_non_singular is False:
            raise ValueError("operator and supplied hints must be non-singular.")
        self.operator = operator
        super().__init__(operator.dtype, None, True,
                         operator.is_self_adjoint if is_self_adjoint is None else is_self_adjoint,
                         operator.is_positive_definite if is_positive_definite is None
                         else is_positive_definite,
                         True, name or operator.name + "_inv", {"operator": operator})

    def _dense(self):
        a = self.operator._dense()
        return torch.linalg.inv(_low(a)).to(a.dtype)

    def _matmul(self, x, adjoint):
        return self.operator._solve(x, adjoint)

    def _solve(self, rhs, adjoint):
        return self.operator._matmul(rhs, adjoint)

    def inverse(self, name="inverse"):
        return self.operator


@public("torchflow.linalg")
class LinearOperatorComposition(LinearOperator):
    """The product ``A1 @ A2 @ ... @ An`` of operators (applied right to left).

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
        operators = list(operators)
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        d = operators[0].dtype
        if any(o.dtype != d for o in operators):
            raise TypeError("Expected all operators to have the same dtype. Found "
                            f"{[o.dtype.name for o in operators]}")
        if is_non_singular is None and all(o.is_non_singular for o in operators):
            is_non_singular = True
        self.operators = operators
        super().__init__(d, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name or "_o_".join(o.name for o in operators),
                         {"operators": operators})

    def _dense(self):
        out = self.operators[-1]._dense()
        for o in reversed(self.operators[:-1]):
            out = o._matmul(out, False)
        return out

    def _matmul(self, x, adjoint):
        ops = self.operators if adjoint else list(reversed(self.operators))
        for o in ops:
            x = o._matmul(x, adjoint)
        return x

    def _solve(self, rhs, adjoint):
        ops = list(reversed(self.operators)) if adjoint else self.operators
        for o in ops:
            rhs = o._solve(rhs, adjoint)
        return rhs
