"""``tf.linalg`` products and structure: ``matmul``, ``matvec``, ``norm``, diagonals,
bands, traces, transposes, ``cross``.

``matmul`` is the hot path: transposes and adjoints are strided views that the
BLAS call reads directly (no copies), so it costs what ``torch.matmul`` costs.
"""

from __future__ import annotations

import numbers

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError, NotFoundError, dims
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, dtype_error, tensor_arg, translate, wrap
from torchflow._src.util.api import public

_MM_TYPES = nc.TypeSet((dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64,
                       dtypes.int32, dtypes.int64, dtypes.complex64, dtypes.complex128))
_MM_LIST = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32,
            dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64,
            dtypes.complex64, dtypes.complex128)


def _mm_pair(a, b):
    if type(a) is not Tensor:
        a = tensor_arg(a, b._dtype if type(b) is Tensor else None)
    if type(b) is not Tensor:
        b = tensor_arg(b, a._dtype)
    return a, b


def _mm_error(at: torch.Tensor, bt: torch.Tensor) -> InvalidArgumentError:
    sa, sb = dims(at.shape), dims(bt.shape)  # TF prints [2,3]
    if at.ndim == 2 and bt.ndim == 2:
        return InvalidArgumentError(
            None, None,
            f"Matrix size-incompatible: In[0]: {sa}, In[1]: {sb} [Op:MatMul]")
    k_a = at.shape[-1]
    k_b = bt.shape[-2]
    if k_a != k_b:
        return InvalidArgumentError(
            None, None,
            f"Matrix size-incompatible: In[0]: {sa}, In[1]: {sb} [Op:BatchMatMulV2]")
    return InvalidArgumentError(
        None, None, f"In[0] and In[1] must have compatible batch dimensions: {sa} vs. {sb} "
                    f"[Op:BatchMatMulV2]")


@public("torchflow.linalg")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None) -> Tensor:
    """Multiplies matrix ``a`` by matrix ``b``, batching over leading dimensions.

    Args:
      a: A Tensor of rank >= 2 (float, half, bfloat16, int32, int64, complex).
      b: A Tensor of ``a``'s dtype and rank >= 2; batch dimensions broadcast.
      transpose_a, transpose_b: Transpose the last two dimensions first.
      adjoint_a, adjoint_b: Conjugate-transpose the last two dimensions first.
      a_is_sparse, b_is_sparse: Hints, ignored.
      output_type: Optional output dtype (the result is cast to it).
      name: Unused (eager).

    Returns:
      A Tensor of ``a``'s dtype, ``[..., M, N]``.

    Raises:
      ValueError: if both ``transpose_x`` and ``adjoint_x`` are set.
      InvalidArgumentError: on differing dtypes, rank < 2 or incompatible shapes.

    >>> import torchflow as tf
    >>> tf.matmul(tf.constant([[1., 2.]]), tf.constant([[3.], [4.]])).numpy()
    array([[11.]], dtype=float32)
    """
    if type(a) is not Tensor or type(b) is not Tensor:
        a, b = _mm_pair(a, b)
    d = a._dtype
    if b._dtype is not d:
        raise dtype_error("MatMul", 1, d, b._dtype)
    if d._enum not in _MM_TYPES.enums:
        if d._kind == "u":
            raise NotFoundError(None, None, f"Could not find device for node: {{{{node MatMul}}}}"
                                            f" = MatMul[T=DT_{d.name.upper()}] [Op:MatMul]")
        raise nc.attr_error("MatMul", d, _MM_LIST)
    at = a._t
    bt = b._t
    if at.ndim < 2 or bt.ndim < 2:
        if at.ndim == bt.ndim:
            msg = f"In[0] and In[1] ndims must be == 2: {at.ndim}"
        else:
            msg = f"In[0] and In[1] has different ndims: {list(at.shape)} vs. {list(bt.shape)}"
        raise InvalidArgumentError(None, None, f"{msg} [Op:MatMul]")
    if transpose_a or adjoint_a:
        if transpose_a and adjoint_a:
            raise ValueError(f"Only one of `transpose_a` and `adjoint_a` can be True. Received "
                             f"`transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}.")
        at = at.mH if adjoint_a else at.mT
    if transpose_b or adjoint_b:
        if transpose_b and adjoint_b:
            raise ValueError(f"Only one of `transpose_b` and `adjoint_b` can be True. Received "
                             f"`transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}.")
        bt = bt.mH if adjoint_b else bt.mT
    try:
        r = torch.matmul(at, bt)
    except RuntimeError as e:
        try:
            torch.broadcast_shapes(at.shape[:-2], bt.shape[:-2])
            ok = at.shape[-1] == bt.shape[-2]
        except RuntimeError:
            ok = False
        if not ok:
            raise _mm_error(at, bt) from None
        if at.dtype not in (torch.int32, torch.int64):
            raise translate("MatMul", e) from None
        r = torch.matmul(at.double(), bt.double()).to(at.dtype)  # no integer GEMM on CUDA
    if r.is_conj():
        r = r.resolve_conj()
    if output_type is not None and dtypes.as_dtype(output_type) is not d:
        od = dtypes.as_dtype(output_type)
        return wrap(r.to(od._torch), od)
    return wrap(r, d)


@public("torchflow.linalg")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None) -> Tensor:
    """Multiplies matrix ``a`` by vector ``b``: ``[..., M, N] x [..., N] -> [..., M]``.

    Args:
      a: A Tensor of rank >= 2.
      b: A Tensor of ``a``'s dtype and rank >= 1.
      transpose_a, adjoint_a: Transpose / adjoint ``a`` first.
      a_is_sparse, b_is_sparse: Hints, ignored.
      name: Unused (eager).

    Returns:
      A Tensor ``[..., M]``.
    """
    a, b = _mm_pair(a, b)
    return _squeeze_last(matmul(a, wrap(b._t.unsqueeze(-1), b._dtype), transpose_a=transpose_a,
                                adjoint_a=adjoint_a))


def _squeeze_last(t: Tensor) -> Tensor:
    return wrap(t._t.squeeze(-1), t._dtype)


def _matrix_arg(op: str, x, allowed=None) -> Tensor:
    t = tensor_arg(x) if allowed is None else nc.typed_arg(op, x, allowed)
    if t._t.ndim < 2:
        raise InvalidArgumentError(
            None, None, f"input must be at least 2-dim, received shape: {list(t._t.shape)} "
                        f"[Op:{op}]")
    return t


@public("torchflow.linalg")
def matrix_transpose(a, name="matrix_transpose", conjugate=False) -> Tensor:
    """Transposes the last two dimensions of ``a`` (conjugating if asked).

    Args:
      a: A tensor of rank >= 2, shape ``[..., M, N]``.
      name: Unused (eager).
      conjugate: bool, default False: also conjugate complex values.

    Returns:
      A tensor of ``a``'s dtype and shape ``[..., N, M]``.

    Raises:
      ValueError: if ``a`` has rank < 2.
    """
    x = tensor_arg(a)
    t = x._t
    if t.ndim < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received "
                         f"`a` = {x.numpy()} with shape: {tuple(t.shape)}")
    r = t.mT
    if conjugate and t.is_complex():
        r = r.conj().resolve_conj()
    return wrap(r, x._dtype)


@public("torchflow.linalg")
def adjoint(matrix, name=None) -> Tensor:
    """The conjugate transpose of the last two dimensions of ``matrix``.

    Args:
      matrix: A tensor of rank >= 2, shape ``[..., M, N]``.
      name: Unused (eager).

    Returns:
      A tensor of ``matrix``'s dtype and shape ``[..., N, M]``.
    """
    return matrix_transpose(matrix, conjugate=True)


@public("torchflow.linalg")
def trace(x, name=None) -> Tensor:
    """The sum of the main diagonal of each innermost matrix of ``x``.

    Args:
      x: A tensor of rank >= 2, shape ``[..., M, N]``.
      name: Unused (eager).

    Returns:
      A tensor of ``x``'s dtype and shape ``[...]``.
    """
    t = _matrix_arg("Trace", x)
    return wrap(torch.diagonal(t._t, 0, -2, -1).sum(-1, dtype=t._t.dtype), t._dtype)


@public("torchflow.linalg")
def band_part(input, num_lower, num_upper, name=None) -> Tensor:
    """Keeps a central band of each innermost matrix and zeros the rest.

    Args:
      input: A Tensor of rank >= 2.
      num_lower: Number of subdiagonals to keep; negative keeps the whole lower triangle.
      num_upper: Number of superdiagonals to keep; negative keeps the whole upper triangle.
      name: Unused (eager).

    Returns:
      A Tensor of ``input``'s shape and dtype.
    """
    t = _matrix_arg("MatrixBandPart", input)
    x = t._t
    lo, up = int(num_lower), int(num_upper)
    m, n = x.shape[-2], x.shape[-1]
    if lo > m or up > n:
        raise InvalidArgumentError(
            None, None, f"num_lower must be negative or less or equal to number of rows "
                        f"({m}) got: {lo} [Op:MatrixBandPart]")
    i = torch.arange(m, device=x.device).unsqueeze(-1)
    j = torch.arange(n, device=x.device)
    keep = torch.ones((m, n), dtype=torch.bool, device=x.device)
    if lo >= 0:
        keep &= (i - j) <= lo
    if up >= 0:
        keep &= (j - i) <= up
    return wrap(torch.where(keep, x, torch.zeros((), dtype=x.dtype, device=x.device)), t._dtype)


def _k_pair(k):
    ks = nc.int_list(k, "k")
    return (ks[0], ks[0]) if len(ks) == 1 else (ks[0], ks[1])


@public("torchflow.linalg")
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT") -> Tensor:
    """Returns the ``k``-th diagonal(s) of each innermost matrix.

    Args:
      input: A Tensor of rank >= 2.
      name: Unused (eager).
      k: A diagonal offset, or a ``(low, high)`` pair for a band of diagonals.
      padding_value: Fills the short diagonals of a band.
      align: How short diagonals of a band are aligned (``"RIGHT_LEFT"`` ...).

    Returns:
      ``[..., diag_len]`` for one diagonal, ``[..., high - low + 1, max_len]`` for a band.
    """
    t = _matrix_arg("MatrixDiagPartV3", input)
    x = t._t
    lo, hi = _k_pair(k)
    if lo == hi:
        return wrap(torch.diagonal(x, lo, -2, -1), t._dtype)
    if lo > hi:
        raise InvalidArgumentError(None, None, f"lower_diag_index must not be larger than "
                                               f"upper_diag_index: {lo} > {hi} "
                                               f"[Op:MatrixDiagPartV3]")
    m, n = x.shape[-2], x.shape[-1]
    max_len = max(min(m + min(d, 0), n - max(d, 0)) for d in range(lo, hi + 1))
    sup, sub = align.split("_")
    rows = []
    for d in range(hi, lo - 1, -1):
        diag = torch.diagonal(x, d, -2, -1)
        pad = max_len - diag.shape[-1]
        if pad:
            fill = torch.full(diag.shape[:-1] + (pad,), padding_value, dtype=x.dtype,
                              device=x.device)
            right = (sup if d >= 0 else sub) == "RIGHT"
            diag = torch.cat([fill, diag] if right else [diag, fill], -1)
        rows.append(diag)
    return wrap(torch.stack(rows, -2), t._dtype)


@public("torchflow.linalg")
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT") -> Tensor:
    """Builds batched matrices with ``diagonal`` on their ``k``-th diagonal.

    Args:
      diagonal: A Tensor ``[..., N]`` (``[..., high - low + 1, N]`` for a band).
      name: Unused (eager).
      k: The diagonal offset (0: main, > 0: above, < 0: below), or a
        ``(low, high)`` pair for a band of diagonals.
      num_rows, num_cols: Output size; by default a square matrix just big enough.
      padding_value: The value outside the diagonal(s).
      align: How the short diagonals of a band are aligned (``"RIGHT_LEFT"`` ...).

    Returns:
      A Tensor ``[..., num_rows, num_cols]``.

    >>> import torchflow as tf
    >>> tf.linalg.diag([1, 2]).numpy()
    array([[1, 0],
           [0, 2]], dtype=int32)
    """
    t = tensor_arg(diagonal)
    x = t._t
    # As graph inputs (MatrixDiagV3's) these arrive as scalar tensors.
    num_rows, num_cols, padding_value = (
        v.numpy().item() if isinstance(v, Tensor) else v
        for v in (num_rows, num_cols, padding_value))
    if x.ndim < 1:
        raise InvalidArgumentError(None, None, "diagonal must be at least 1-dim [Op:MatrixDiagV3]")
    lo, hi = _k_pair(k)
    if lo > hi:
        raise InvalidArgumentError(None, None, f"lower_diag_index must not be larger than "
                                               f"upper_diag_index: {lo} > {hi} [Op:MatrixDiagV3]")
    if lo != hi and (x.ndim < 2 or x.shape[-2] != hi - lo + 1):
        raise InvalidArgumentError(
            None, None, "The number of diagonals provided in the input does not match the "
                        "lower_diag_index and upper_diag_index range. [Op:MatrixDiagV3]")
    max_len = x.shape[-1]
    min_rows = max_len - min(hi, 0)
    min_cols = max_len + max(lo, 0)
    rows, cols = int(num_rows), int(num_cols)
    if rows < 0 and cols < 0:
        rows = cols = max(min_rows, min_cols)
    elif rows < 0:
        rows = min_rows
    elif cols < 0:
        cols = min_cols
    if rows < min_rows or cols < min_cols or (rows != min_rows and cols != min_cols):
        raise InvalidArgumentError(
            None, None, "The number of rows or columns is not consistent with the specified "
                        "d_lower, d_upper, and diagonal. [Op:MatrixDiagV3]")
    batch = x.shape[:-1] if lo == hi else x.shape[:-2]
    base = torch.full(batch + (rows, cols), padding_value, dtype=x.dtype, device=x.device)
    band = x.unsqueeze(-2) if lo == hi else x
    return wrap(_scatter_band(base, band, lo, hi, align), t._dtype)


def _scatter_band(base: torch.Tensor, band: torch.Tensor, lo: int, hi: int, align: str):
    """Writes the rows of ``band`` (diagonal ``hi`` first) onto ``base``'s diagonals."""
    m, n = base.shape[-2:]
    max_len = band.shape[-1]
    sup, sub = str(align).split("_")
    for d in range(lo, hi + 1):
        row = band[..., hi - d, :]
        ln = min(m + min(d, 0), n - max(d, 0))
        if ln <= 0:
            continue
        right = (sup if d >= 0 else sub) == "RIGHT"
        vals = row[..., max_len - ln:] if right else row[..., :ln]
        if vals.shape[-1] < ln:  # a short row: pad as the matrix would be
            vals = torch.cat([vals, vals.new_zeros(vals.shape[:-1] + (ln - vals.shape[-1],))], -1)
        base = torch.diagonal_scatter(base, vals, d, -2, -1)
    return base


@public("torchflow.linalg")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT") -> Tensor:
    """Returns ``input`` with its ``k``-th diagonal replaced by ``diagonal``.

    Args:
      input: A Tensor of rank >= 2.
      diagonal: A Tensor ``input.shape[:-2] + [diag_len]`` of ``input``'s dtype
        (``[..., high - low + 1, max_len]`` for a band).
      name: Unused (eager).
      k: The diagonal offset, or a ``(low, high)`` pair for a band of diagonals.
      align: How the short diagonals of a band are aligned (``"RIGHT_LEFT"`` ...).

    Returns:
      A Tensor like ``input``.
    """
    t = _matrix_arg("MatrixSetDiagV3", input)
    dg = nc.same_dtype("MatrixSetDiagV3", t, diagonal)
    lo, hi = _k_pair(k)
    x = t._t
    m, n = x.shape[-2], x.shape[-1]
    if lo == hi:
        want = tuple(torch.diagonal(x, lo, -2, -1).shape)
    else:
        max_len = max(min(m + min(d, 0), n - max(d, 0)) for d in range(lo, hi + 1))
        want = tuple(x.shape[:-2]) + (hi - lo + 1, max_len)
    if tuple(dg._t.shape) != want:
        raise InvalidArgumentError(
            None, None,
            f"Either first dimensions of diagonal don't match input.shape[:-2], or "
            f"diagonal.shape[:-1] is not equal to the diagonal length: {list(dg._t.shape)} vs. "
            f"{list(want)} [Op:MatrixSetDiagV3]")
    band = dg._t.unsqueeze(-2) if lo == hi else dg._t
    return wrap(_scatter_band(x, band, lo, hi, align), t._dtype)


@public("torchflow.linalg")
def cross(a, b, name=None) -> Tensor:
    """The pairwise cross product of 3-element vectors in the last dimension.

    Args:
      a: A real tensor of shape ``[..., 3]``.
      b: A tensor of ``a``'s dtype and shape.
      name: Unused (eager).

    Returns:
      A tensor of ``a``'s dtype and shape.

    Raises:
      InvalidArgumentError: If the shapes differ or the last dimension is not 3.
    """
    x = nc.typed_arg("Cross", a, nc.REALS)
    y = nc.same_dtype("Cross", x, b)
    if tuple(x._t.shape) != tuple(y._t.shape):
        raise InvalidArgumentError(
            None, None, f"Both inputs must be of same shape: {list(x._t.shape)} vs. "
                        f"{list(y._t.shape)} [Op:Cross]")
    if x._t.ndim < 1 or x._t.shape[-1] != 3:
        raise InvalidArgumentError(
            None, None, f"Trailing dimension must be 3, got {list(x._t.shape)} [Op:Cross]")
    return wrap(torch.linalg.cross(x._t, y._t, dim=-1), x._dtype)


_VECTOR_ORDS = ("euclidean", 1, 2, np.inf)
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


@public("torchflow.linalg")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None) -> Tensor:  # noqa: A002 (TF's argument name)
    """Computes vector norms (``axis`` None or an int) or matrix norms (``axis`` a
    pair of ints).

    Args:
      tensor: A float or complex Tensor.
      ord: ``"euclidean"``, ``"fro"`` (matrices), ``1``, ``2``, ``np.inf`` or, for
        vectors, any positive real ``p``.
      axis: None (the whole tensor as a vector), an int, or a pair of ints.
      keepdims: Keep the reduced dimensions with size 1.
      name: Unused (eager).

    Returns:
      The norm, of ``tensor``'s dtype (complex inputs give a complex Tensor with a
      zero imaginary part, as in TF).

    Raises:
      ValueError: on an unsupported ``ord``/``axis`` combination.

    >>> import torchflow as tf
    >>> float(tf.norm(tf.constant([3., 4.])))
    5.0
    """
    is_matrix = False
    ax: tuple = ()  # the matrix norm's two axes
    vec_axis: int | None = None  # the vector norm's axis (None: all)
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        is_matrix = True
        ax = tuple(int(a) for a in axis)
        if ax[0] == ax[1]:
            raise ValueError(f"'axis' must be a list or tuple of two distinct integers, got "
                             f"{axis}")
        if not any(_ord_eq(ord, o) for o in _MATRIX_ORDS):
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, "
                             f"2, inf], got {ord}")
    else:
        if isinstance(axis, (list, tuple)) and len(axis) == 1:
            axis = axis[0]
        if axis is not None and not isinstance(axis, numbers.Integral):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        vec_axis = None if axis is None else int(axis)
        if not (any(_ord_eq(ord, o) for o in _VECTOR_ORDS) or
                (isinstance(ord, numbers.Real) and not isinstance(ord, bool) and float(ord) > 0)):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    x = nc.typed_arg("Sqrt", tensor, nc.FLOATS_COMPLEX)
    t = x._t
    keep = bool(keepdims)
    a = t.abs()
    try:
        if is_matrix:
            r = _matrix_norm(a, t, ord, ax, keep)
        else:
            dims = tuple(range(t.ndim)) if vec_axis is None else (vec_axis,)
            if ord == "euclidean" or _ord_eq(ord, 2):
                r = a.square().sum(dims, keepdim=keep).sqrt()
            elif _ord_eq(ord, 1):
                r = a.sum(dims, keepdim=keep)
            elif _ord_eq(ord, np.inf):
                r = a.amax(dims, keepdim=keep)
            else:
                p = float(ord)
                r = a.pow(p).sum(dims, keepdim=keep).pow(1.0 / p)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("Norm", e) from None
    return wrap(r.to(t.dtype), x._dtype)


def _ord_eq(ord, o) -> bool:  # noqa: A002 (TF's argument name)
    if isinstance(ord, str) or isinstance(o, str):
        return ord == o
    try:
        return float(ord) == float(o)
    except (TypeError, ValueError):
        return False


def _matrix_norm(a, t, ord, ax, keep):  # noqa: A002 (TF's argument name)
    nd = t.ndim
    r_ax, c_ax = ax[0] % nd, ax[1] % nd
    if ord in ("euclidean", "fro"):
        return a.square().sum((r_ax, c_ax), keepdim=keep).sqrt()
    if _ord_eq(ord, 1):
        s = a.sum(r_ax, keepdim=True).amax(c_ax, keepdim=True)
    elif _ord_eq(ord, np.inf):
        s = a.sum(c_ax, keepdim=True).amax(r_ax, keepdim=True)
    else:  # spectral norm: the largest singular value
        m = torch.movedim(t, (r_ax, c_ax), (-2, -1))
        low = m.dtype in (torch.float16, torch.bfloat16)
        sv = torch.linalg.svdvals(m.float() if low else m)[..., 0]
        s = sv.to(a.dtype).unsqueeze(-1).unsqueeze(-1)
        s = torch.movedim(s, (-2, -1), (r_ax, c_ax)) if nd > 2 else s
    if keep:
        return s
    return s.squeeze(max(r_ax, c_ax)).squeeze(min(r_ax, c_ax))
