"""``tf.linalg.experimental.conjugate_gradient``: CG for self-adjoint positive-definite
linear operators, batched over leading dimensions."""

from __future__ import annotations

import collections

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.ops import (
    array_ops,
    comparison_ops,
    control_flow_ops,
    creation_ops,
    linalg_ops,
    math_ops,
    reduction_ops,
    unary_math_ops,
)
from torchflow._src.util.api import public

CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def _dot(x, y):
    return reduction_ops.reduce_sum(unary_math_ops.conj(x) * y, axis=-1)


def _col(v):
    return array_ops.expand_dims(v, -1)


def _norm(x):
    return linalg_ops.norm(x, axis=-1)


@public("torchflow.linalg.experimental")
def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20,
                       name="conjugate_gradient"):
    """Solves ``operator @ x = rhs`` by the conjugate gradient method.

    Iterates until every batch member's residual norm is at most ``tol`` times
    its initial residual norm, or ``max_iter`` steps.

    Args:
      operator: A self-adjoint, positive-definite ``tf.linalg.LinearOperator``
        of shape ``[..., N, N]``.
      rhs: A Tensor of shape ``[..., N]``.
      preconditioner: A LinearOperator approximating ``operator``'s inverse, or None.
      x: The initial guess, shape ``[..., N]`` (default zeros).
      tol: The relative residual tolerance.
      max_iter: The most iterations.
      name: Unused (eager).

    Returns:
      A namedtuple ``CGState(i, x, r, p, gamma)``: the iterations run, the
      solution, the residual, the search direction and ``r^H M r`` (shape
      ``[...]``).

    >>> import torchflow as tf
    >>> op = tf.linalg.LinearOperatorFullMatrix([[4.0, 1.0], [1.0, 3.0]],
    ...                                         is_self_adjoint=True,
    ...                                         is_positive_definite=True)
    >>> result = tf.linalg.experimental.conjugate_gradient(op, [1.0, 2.0])
    >>> [round(v, 4) for v in result.x.numpy().tolist()]
    [0.0909, 0.6364]
    """
    rhs = convert_to_tensor(rhs, dtype=operator.dtype)
    if x is None:
        x = creation_ops.zeros_like(rhs)
        r0 = rhs
    else:
        x = convert_to_tensor(x, dtype=operator.dtype)
        r0 = rhs - operator.matvec(x)
    p0 = r0 if preconditioner is None else preconditioner.matvec(r0)
    gamma0 = _dot(r0, p0)
    tol = math_ops.multiply(_norm(r0), convert_to_tensor(tol, dtype=r0.dtype.real_dtype))

    def cond(i, state):
        return (i < max_iter) & reduction_ops.reduce_any(comparison_ops.greater(_norm(state.r), tol))

    def body(i, state):
        z = operator.matvec(state.p)
        alpha = state.gamma / _dot(state.p, z)
        x = state.x + _col(alpha) * state.p
        r = state.r - _col(alpha) * z
        q = r if preconditioner is None else preconditioner.matvec(r)
        gamma = _dot(r, q)
        p = q + _col(gamma / state.gamma) * state.p
        return i + 1, CGState(i + 1, x, r, p, gamma)

    i0 = convert_to_tensor(0)
    _, state = control_flow_ops.while_loop(cond, body, [i0, CGState(i0, x, r0, p0, gamma0)])
    return state
