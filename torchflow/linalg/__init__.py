"""``tf.linalg``: linear algebra."""

from torchflow._src.ops.clip_ops import global_norm as global_norm

# Aliases of ops that live elsewhere (tf.eye, tf.einsum, tf.math.l2_normalize ...).
from torchflow._src.ops.creation_ops import eye as eye
from torchflow._src.ops.einsum_ops import einsum as einsum
from torchflow._src.ops.einsum_ops import tensordot as tensordot
from torchflow._src.ops.linalg_decomp_ops import cholesky as cholesky
from torchflow._src.ops.linalg_decomp_ops import cholesky_solve as cholesky_solve
from torchflow._src.ops.linalg_decomp_ops import det as det
from torchflow._src.ops.linalg_decomp_ops import eig as eig
from torchflow._src.ops.linalg_decomp_ops import eigh as eigh
from torchflow._src.ops.linalg_decomp_ops import eigvals as eigvals
from torchflow._src.ops.linalg_decomp_ops import eigvalsh as eigvalsh
from torchflow._src.ops.linalg_decomp_ops import expm as expm
from torchflow._src.ops.linalg_decomp_ops import inv as inv
from torchflow._src.ops.linalg_decomp_ops import logdet as logdet
from torchflow._src.ops.linalg_decomp_ops import lstsq as lstsq
from torchflow._src.ops.linalg_decomp_ops import normalize as normalize
from torchflow._src.ops.linalg_decomp_ops import pinv as pinv
from torchflow._src.ops.linalg_decomp_ops import qr as qr
from torchflow._src.ops.linalg_decomp_ops import slogdet as slogdet
from torchflow._src.ops.linalg_decomp_ops import solve as solve
from torchflow._src.ops.linalg_decomp_ops import svd as svd
from torchflow._src.ops.linalg_decomp_ops import triangular_solve as triangular_solve
from torchflow._src.ops.linalg_ops import adjoint as adjoint
from torchflow._src.ops.linalg_ops import band_part as band_part
from torchflow._src.ops.linalg_ops import cross as cross
from torchflow._src.ops.linalg_ops import diag as diag
from torchflow._src.ops.linalg_ops import diag_part as diag_part
from torchflow._src.ops.linalg_ops import matmul as matmul
from torchflow._src.ops.linalg_ops import matrix_transpose as matrix_transpose
from torchflow._src.ops.linalg_ops import matvec as matvec
from torchflow._src.ops.linalg_ops import norm as norm
from torchflow._src.ops.linalg_ops import set_diag as set_diag
from torchflow._src.ops.linalg_ops import trace as trace
from torchflow._src.ops.linalg_special_ops import banded_triangular_solve as banded_triangular_solve
from torchflow._src.ops.linalg_special_ops import logm as logm
from torchflow._src.ops.linalg_special_ops import lu as lu
from torchflow._src.ops.linalg_special_ops import lu_matrix_inverse as lu_matrix_inverse
from torchflow._src.ops.linalg_special_ops import lu_reconstruct as lu_reconstruct
from torchflow._src.ops.linalg_special_ops import lu_solve as lu_solve
from torchflow._src.ops.linalg_special_ops import matrix_rank as matrix_rank
from torchflow._src.ops.linalg_special_ops import sqrtm as sqrtm
from torchflow._src.ops.linalg_special_ops import tensor_diag as tensor_diag
from torchflow._src.ops.linalg_special_ops import tensor_diag_part as tensor_diag_part
from torchflow._src.ops.linalg_special_ops import tridiagonal_matmul as tridiagonal_matmul
from torchflow._src.ops.linalg_special_ops import tridiagonal_solve as tridiagonal_solve
from torchflow._src.ops.linear_operator import LinearOperator as LinearOperator
from torchflow._src.ops.linear_operator import LinearOperatorAdjoint as LinearOperatorAdjoint
from torchflow._src.ops.linear_operator import (
    LinearOperatorComposition as LinearOperatorComposition,
)
from torchflow._src.ops.linear_operator import LinearOperatorFullMatrix as LinearOperatorFullMatrix
from torchflow._src.ops.linear_operator import LinearOperatorInversion as LinearOperatorInversion
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorBlockDiag as LinearOperatorBlockDiag,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorBlockLowerTriangular as LinearOperatorBlockLowerTriangular,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorCirculant as LinearOperatorCirculant,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorCirculant2D as LinearOperatorCirculant2D,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorCirculant3D as LinearOperatorCirculant3D,
)
from torchflow._src.ops.linear_operator_types import LinearOperatorDiag as LinearOperatorDiag
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorHouseholder as LinearOperatorHouseholder,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorIdentity as LinearOperatorIdentity,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorKronecker as LinearOperatorKronecker,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorLowerTriangular as LinearOperatorLowerTriangular,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorLowRankUpdate as LinearOperatorLowRankUpdate,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorPermutation as LinearOperatorPermutation,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorScaledIdentity as LinearOperatorScaledIdentity,
)
from torchflow._src.ops.linear_operator_types import (
    LinearOperatorToeplitz as LinearOperatorToeplitz,
)
from torchflow._src.ops.linear_operator_types import LinearOperatorTridiag as LinearOperatorTridiag
from torchflow._src.ops.linear_operator_types import LinearOperatorZeros as LinearOperatorZeros
from torchflow._src.ops.reduction_ops import l2_normalize as l2_normalize
from torchflow.linalg import experimental as experimental
