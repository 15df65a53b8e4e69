"""TF linear-algebra graph ops for ``graph_exec`` that have no ``tf.raw_ops`` entry
here: ``MatrixSolve``, ``MatrixTriangularSolve``, ``LogMatrixDeterminant``, ``Svd``,
``SelfAdjointEigV2``, ``Cross``, ``EuclideanNorm`` and ``CumulativeLogsumexp``. Each
handler runs torchflow's op on its inputs; ``OUTPUT_ARGS`` names the outputs of those
(and of ``Qr``) with several."""

from __future__ import annotations

from torchflow._src.ops import linalg_decomp_ops, linalg_ops, reduction_ops, scan_ops


def _solve(library, attrs, inputs):
    return [linalg_decomp_ops.solve(*inputs, adjoint=bool(attrs.get("adjoint")))]


def _triangular_solve(library, attrs, inputs):
    return [linalg_decomp_ops.triangular_solve(
        *inputs, lower=bool(attrs.get("lower", True)), adjoint=bool(attrs.get("adjoint")))]


def _slogdet(library, attrs, inputs):
    return list(linalg_decomp_ops.slogdet(inputs[0]))


def _svd(library, attrs, inputs):
    full = bool(attrs.get("full_matrices"))
    if attrs.get("compute_uv", True):
        return list(linalg_decomp_ops.svd(inputs[0], full_matrices=full))
    s = linalg_decomp_ops.svd(inputs[0], full_matrices=full, compute_uv=False)
    return [s, None, None]


def _eigh(library, attrs, inputs):
    if attrs.get("compute_v", True):
        return list(linalg_decomp_ops.eigh(inputs[0]))
    return [linalg_decomp_ops.eigvalsh(inputs[0]), None]


def _cross(library, attrs, inputs):
    return [linalg_ops.cross(*inputs)]


def _euclidean_norm(library, attrs, inputs):
    x, axis = inputs
    return [reduction_ops.reduce_euclidean_norm(x, axis,
                                                keepdims=bool(attrs.get("keep_dims")))]


def _cumulative_logsumexp(library, attrs, inputs):
    x, axis = inputs
    return [scan_ops.cumulative_logsumexp(x, axis, exclusive=bool(attrs.get("exclusive")),
                                          reverse=bool(attrs.get("reverse")))]


HANDLERS = {
    "MatrixSolve": _solve,
    "MatrixTriangularSolve": _triangular_solve,
    "LogMatrixDeterminant": _slogdet,
    "Svd": _svd,
    "SelfAdjointEigV2": _eigh,
    "Cross": _cross,
    "EuclideanNorm": _euclidean_norm,
    "CumulativeLogsumexp": _cumulative_logsumexp,
}

OUTPUT_ARGS = {
    "Qr": ("q", "r"),
    "Svd": ("s", "u", "v"),
    "SelfAdjointEigV2": ("e", "v"),
    "LogMatrixDeterminant": ("sign", "log_abs_determinant"),
}
