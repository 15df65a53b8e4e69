"""TF lowerings of the linear-algebra ops: each the TF op (or the few ops) that TF's
Python writes for it.

``inv`` (``MatrixInverse``), ``det`` (``MatrixDeterminant``), ``slogdet``
(``LogMatrixDeterminant``), ``logdet`` (twice the sum of the log of the Cholesky
factor's diagonal), ``cholesky``, ``solve`` (``MatrixSolve``), ``triangular_solve``
(``MatrixTriangularSolve``), ``cholesky_solve`` (two triangular solves), ``qr``,
``svd``, ``eigh``/``eigvalsh`` (``SelfAdjointEigV2``), ``set_diag``
(``MatrixSetDiagV3``), ``cross``, ``matvec`` (a ``MatMul`` of the vector as a column),
``matrix_transpose``/``adjoint`` (``Transpose``), ``global_norm`` (of ``L2Loss``es)
and ``reduce_euclidean_norm`` (``EuclideanNorm``); ``cumulative_logsumexp`` is
``graph_lowering_math``'s scan. Real (float) inputs only; a call these do not cover
returns None and is refused where its results are read.
"""

from __future__ import annotations

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import clip_ops, linalg_decomp_ops, linalg_ops, reduction_ops

_I32 = dtypes.int32


def _float(x) -> bool:
    return isinstance(x, (Tensor, Variable)) and x.dtype.is_floating


def _node(b, op: str, inputs: list, attrs: dict, n_out: int, d) -> list:
    n = b.node(op, inputs, {"T": d, **attrs}, name=op, out_dtypes=[d] * n_out)
    return [f"{n}:{i}" for i in range(n_out)]


def _matrix_op(op: str, key: str, n_out: int = 1, keep: int | None = None, **fixed):
    """``op`` of the matrix argument ``key`` (``n_out`` outputs, the first ``keep`` of
    them the call's); ``fixed`` maps TF attrs to the Python argument that gives each,
    or to the attr's value where it is not a string."""
    def lower(b, call):
        a = call.args
        x = a[key]
        if not _float(x):
            return None
        attrs = {k: bool(a.get(v, False)) if isinstance(v, str) else v
                 for k, v in fixed.items()}
        return _node(b, op, [b.input(x)], attrs, n_out, x.dtype)[:keep]

    return lower


def _solve(op: str, **fixed):
    def lower(b, call):
        a = call.args
        m, rhs = a["matrix"], a["rhs"]
        if not _float(m):
            return None
        attrs = {k: bool(a.get(k, v)) for k, v in fixed.items()}
        return _node(b, op, [b.input(m), b.input(rhs, m.dtype)], attrs, 1, m.dtype)

    return lower


def _cholesky_solve(b, call):
    """TF's ``cholesky_solve``: ``L y = rhs``, then ``adjoint(L) x = y``."""
    a = call.args
    chol = a["chol"]
    if not _float(chol):
        return None
    d, ce = chol.dtype, b.input(chol)
    y = _node(b, "MatrixTriangularSolve", [ce, b.input(a["rhs"], d)],
              {"lower": True, "adjoint": False}, 1, d)[0]
    return _node(b, "MatrixTriangularSolve", [ce, y], {"lower": True, "adjoint": True}, 1, d)


def _logdet(b, call):
    """TF's ``logdet``: ``2 * sum(log(diag_part(cholesky(matrix))), -1)``."""
    x = call.args["matrix"]
    if not _float(x):
        return None
    d = x.dtype
    chol = _node(b, "Cholesky", [b.input(x)], {}, 1, d)[0]
    diag = _node(b, "MatrixDiagPartV3", [chol, b.constant(0, _I32), b.constant(0, d)],
                 {"align": "RIGHT_LEFT"}, 1, d)[0]
    log = _node(b, "Log", [diag], {}, 1, d)[0]
    total = _node(b, "Sum", [log, b.constant([-1], _I32)], {"Tidx": _I32, "keep_dims": False},
                  1, d)[0]
    return _node(b, "Mul", [b.constant(2.0, d), total], {}, 1, d)


def _svd(b, call):
    a = call.args
    x = a["tensor"]
    if not _float(x):
        return None
    uv = bool(a.get("compute_uv", True))
    outs = _node(b, "Svd", [b.input(x)], {"compute_uv": uv,
                                          "full_matrices": bool(a.get("full_matrices"))},
                 3, x.dtype)
    return outs if uv else outs[:1]


def _set_diag(b, call):
    a = call.args
    x = a["input"]
    if not _float(x):
        return None
    return _node(b, "MatrixSetDiagV3", [b.input(x), b.input(a["diagonal"], x.dtype),
                                        b.input(a.get("k", 0), _I32)],
                 {"align": a.get("align", "RIGHT_LEFT")}, 1, x.dtype)


def _cross(b, call):
    a = call.args
    x = a["a"]
    if not _float(x):
        return None
    return _node(b, "Cross", [b.input(x), b.input(a["b"], x.dtype)], {}, 1, x.dtype)


def _matvec(b, call):
    """TF's ``matvec``: ``squeeze(matmul(a, expand_dims(b, -1)), -1)``."""
    a = call.args
    m, v = a["a"], a["b"]
    if not _float(m) or m.shape.rank is None or a.get("a_is_sparse") or \
            a.get("b_is_sparse"):
        return None
    d = m.dtype
    col = b.node("ExpandDims", [b.input(v, d), b.constant(-1, _I32)], {"T": d, "Tdim": _I32},
                 out_dtypes=[d])
    adj = bool(a.get("transpose_a")) or bool(a.get("adjoint_a"))
    if m.shape.rank == 2:
        mm = _node(b, "MatMul", [b.input(m), f"{col}:0"],
                   {"transpose_a": adj, "transpose_b": False}, 1, d)[0]
    else:
        mm = _node(b, "BatchMatMulV2", [b.input(m), f"{col}:0"],
                   {"adj_x": adj, "adj_y": False}, 1, d)[0]
    return _node(b, "Squeeze", [mm], {"squeeze_dims": [-1]}, 1, d)


def _matrix_transpose(key: str, conj: bool | None):
    """TF's ``matrix_transpose`` (``adjoint``: conjugated): ``Transpose`` of the last two
    axes, ``ConjugateTranspose`` for conjugated complex input."""
    def lower(b, call):
        a = call.args
        x = a[key]
        if not isinstance(x, (Tensor, Variable)) or x.shape.rank is None or \
                x.shape.rank < 2:
            return None
        r = x.shape.rank
        perm = list(range(r - 2)) + [r - 1, r - 2]
        c = bool(a.get("conjugate")) if conj is None else conj
        op = "ConjugateTranspose" if c and x.dtype.is_complex else "Transpose"
        return _node(b, op, [b.input(x), b.constant(perm, _I32)], {"Tperm": _I32}, 1,
                     x.dtype)

    return lower


def _global_norm(b, call):
    """TF's ``global_norm``: ``sqrt(2 * sum(stack([l2_loss(t) ...])))``."""
    ts = call.args["t_list"]
    if not isinstance(ts, (list, tuple)) or not ts or not all(_float(t) for t in ts) or \
            len({t.dtype for t in ts}) != 1:
        return None
    d = ts[0].dtype
    halves = [_node(b, "L2Loss", [b.input(t)], {}, 1, d)[0] for t in ts]
    packed = b.node("Pack", halves, {"T": d, "N": len(halves), "axis": 0}, out_dtypes=[d])
    total = _node(b, "Sum", [f"{packed}:0", b.constant([0], _I32)],
                  {"Tidx": _I32, "keep_dims": False}, 1, d)[0]
    doubled = _node(b, "Mul", [total, b.constant(2.0, d)], {}, 1, d)[0]
    return _node(b, "Sqrt", [doubled], {}, 1, d)


def _euclidean_norm(b, call):
    a = call.args
    x = a["input_tensor"]
    if not _float(x) or isinstance(a.get("axis"), Tensor):
        return None
    axis = a.get("axis")
    if axis is None:
        if x.shape.rank is None:
            return None
        axis = list(range(x.shape.rank))
    axis = [int(axis)] if isinstance(axis, int) else [int(v) for v in axis]
    return _node(b, "EuclideanNorm", [b.input(x), b.constant(axis, _I32)],
                 {"Tidx": _I32, "keep_dims": bool(a.get("keepdims"))}, 1, x.dtype)


for _fn, _lower in (
        (linalg_decomp_ops.inv, _matrix_op("MatrixInverse", "input", adjoint="adjoint")),
        (linalg_decomp_ops.det, _matrix_op("MatrixDeterminant", "input")),
        (linalg_decomp_ops.slogdet, _matrix_op("LogMatrixDeterminant", "input", 2)),
        (linalg_decomp_ops.logdet, _logdet),
        (linalg_decomp_ops.cholesky, _matrix_op("Cholesky", "input")),
        (linalg_decomp_ops.solve, _solve("MatrixSolve", adjoint=False)),
        (linalg_decomp_ops.triangular_solve,
         _solve("MatrixTriangularSolve", lower=True, adjoint=False)),
        (linalg_decomp_ops.cholesky_solve, _cholesky_solve),
        (linalg_decomp_ops.qr, _matrix_op("Qr", "input", 2, full_matrices="full_matrices")),
        (linalg_decomp_ops.svd, _svd),
        (linalg_decomp_ops.eigh, _matrix_op("SelfAdjointEigV2", "tensor", 2, compute_v=True)),
        (linalg_decomp_ops.eigvalsh,
         _matrix_op("SelfAdjointEigV2", "tensor", 2, keep=1, compute_v=False)),
        (linalg_ops.set_diag, _set_diag),
        (linalg_ops.adjoint, _matrix_transpose("matrix", True)),
        (linalg_ops.matrix_transpose, _matrix_transpose("a", None)),
        (linalg_ops.cross, _cross),
        (linalg_ops.matvec, _matvec),
        (clip_ops.global_norm, _global_norm),
        (reduction_ops.reduce_euclidean_norm, _euclidean_norm)):
    if not op_graph.is_registered(_fn):
        op_graph.register(_fn, _lower)
del _fn, _lower
