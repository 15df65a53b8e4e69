"""``tf.sparse`` arithmetic: add, maximum/minimum, reductions, matmul, segment
reductions, softmax, and SparseTensor's ``*`` and ``/`` with dense tensors."""

from __future__ import annotations

import torch

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.sparse import _sparse_common as sc
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public

_IDX = mc.TypeSet("int32", "int64")


def _union(op: str, a: SparseTensor, b: SparseTensor):
    """Merged row-major indices of two same-shape SparseTensors and where each input's
    entries land (``pos_a``, ``pos_b``) in the merged list."""
    sa, sb = sc.shape_list(a), sc.shape_list(b)
    sc.same_shape(op, sa, sb)
    ia, ib = sc.idx(a), sc.idx(b).to(sc.idx(a).device)
    lin = torch.cat([sc.linear(ia, sa), sc.linear(ib, sa)])
    uniq, inv = torch.unique(lin, sorted=True, return_inverse=True)
    ind = sc.unravel(uniq, sa)
    return ind, inv[:ia.shape[0]], inv[ia.shape[0]:], sa


def _scatter(n: int, pos: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    out = torch.zeros([n], dtype=v.dtype, device=v.device)
    return out.index_add(0, pos.to(v.device), v)


@public("torchflow.sparse")
def add(a, b, threshold=0) -> SparseTensor | Tensor:
    """Adds two tensors, at least one of them sparse.

    Sparse + sparse gives a SparseTensor of the union of the entries (inputs in
    row-major order), dropping sums whose magnitude is below ``threshold``;
    sparse + dense gives a dense Tensor.

    Args:
      a: A SparseTensor or Tensor.
      b: A SparseTensor or Tensor (at least one of ``a``, ``b`` sparse).
      threshold: Magnitude below which a sparse sum is dropped (sparse + sparse).

    Returns:
      A SparseTensor (both sparse) or a Tensor.

    Raises:
      TypeError: If neither input is sparse.
      InvalidArgumentError: If the shapes differ.

    >>> import torchflow as tf
    >>> a = tf.sparse.SparseTensor([[0]], [1.], [2])
    >>> b = tf.sparse.SparseTensor([[0], [1]], [2., 3.], [2])
    >>> tf.sparse.add(a, b).values.numpy().tolist()
    [3.0, 3.0]
    """
    a_sp, b_sp = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not a_sp and not b_sp:
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add?")
    if a_sp and b_sp:
        if a.dtype != b.dtype:
            raise TypeError(f"Input 'b_values' of 'SparseAdd' Op has type {b.dtype.name} that "
                            f"does not match type {a.dtype.name} of argument 'a_values'.")
        ind, pa, pb, shape = _union("SparseAdd", a, b)
        n = ind.shape[0]
        vals = _scatter(n, pa, a.values._t) + _scatter(n, pb, b.values._t)
        thr = float(tensor_arg(threshold)._t)
        if thr > 0:  # as TF's kernel: only sums of two entries are thresholded
            both = torch.zeros([n], dtype=torch.bool, device=vals.device)
            both[pa.to(vals.device)] = True
            in_b = torch.zeros_like(both)
            in_b[pb.to(vals.device)] = True
            keep = torch.nonzero(~(both & in_b) | (vals.abs() >= thr)).reshape(-1)
            ind, vals = ind[keep.to(ind.device)], vals[keep]
        return sc.make(ind, wrap(vals, a.dtype), shape)
    sp, dense = (a, b) if a_sp else (b, a)
    d = tensor_arg(dense, sp.dtype)
    shape = sc.shape_list(sp)
    if list(d._t.shape) != shape:
        raise InvalidArgumentError(
            None, None, f"Dimension mismatch between shapes of a and b: a.shape="
                        f"{sc.fmt(shape)} b.shape={sc.fmt(d._t.shape)} [Op:SparseTensorDenseAdd]")
    ind = sc.idx(sp).to(d._t.device)
    return wrap(d._t.index_put(ind.unbind(1), sp.values._t, accumulate=True), sp.dtype)


def _elementwise(op: str, a, b, fn) -> SparseTensor:
    a, b = sc.sparse_arg(a), sc.sparse_arg(b)
    ind, pa, pb, shape = _union(op, a, b)
    n = ind.shape[0]
    va, vb = _scatter(n, pa, a.values._t), _scatter(n, pb, b.values._t)
    return sc.make(ind, wrap(fn(va, vb), a.dtype), shape)


@public("torchflow.sparse")
def maximum(sp_a, sp_b, name=None) -> SparseTensor:
    """Element-wise maximum of two same-shape SparseTensors (missing entries count as 0).

    Args:
      sp_a: A SparseTensor (row-major order).
      sp_b: A SparseTensor of the same shape and dtype.
      name: Unused (eager).

    Returns:
      A SparseTensor on the union of the entries.

    >>> import torchflow as tf
    >>> a = tf.sparse.SparseTensor([[0], [1]], [-1, 2], [2])
    >>> b = tf.sparse.SparseTensor([[1]], [3], [2])
    >>> tf.sparse.maximum(a, b).values.numpy().tolist()
    [0, 3]
    """
    return _elementwise("SparseSparseMaximum", sp_a, sp_b, torch.maximum)


@public("torchflow.sparse")
def minimum(sp_a, sp_b, name=None) -> SparseTensor:
    """Element-wise minimum of two same-shape SparseTensors (missing entries count as 0).

    Args:
      sp_a: A SparseTensor (row-major order).
      sp_b: A SparseTensor of the same shape and dtype.
      name: Unused (eager).

    Returns:
      A SparseTensor on the union of the entries.

    >>> import torchflow as tf
    >>> a = tf.sparse.SparseTensor([[0], [1]], [-1, 2], [2])
    >>> b = tf.sparse.SparseTensor([[1]], [3], [2])
    >>> tf.sparse.minimum(a, b).values.numpy().tolist()
    [-1, 2]
    """
    return _elementwise("SparseSparseMinimum", sp_a, sp_b, torch.minimum)


def _axes(axis, rank: int) -> list[int]:
    if axis is None:
        return list(range(rank))
    ax = tensor_arg(axis)._t.reshape(-1).tolist()
    out = []
    for a in ax:
        a = int(a)
        if not -rank <= a < rank:
            raise InvalidArgumentError(None, None, f"Invalid reduction dimension {a}, for input "
                                                   f"with {rank} dimensions. [Op:SparseReduceSum]")
        out.append(a + rank if a < 0 else a)
    return sorted(set(out))


def _reduce(op: str, sp_input, axis, keepdims, output_is_sparse, kind: str):
    sp = sc.sparse_arg(sp_input)
    shape = sc.shape_list(sp)
    rank = len(shape)
    axes = _axes(axis, rank)
    keep = [i for i in range(rank) if i not in axes]
    kept_shape = [shape[i] for i in keep]
    ind = sc.idx(sp)
    v = sp.values._t
    lin = sc.linear(ind[:, keep], kept_shape).to(v.device)
    if output_is_sparse:
        uniq, inv = torch.unique(lin, sorted=True, return_inverse=True)
        n, groups = uniq.shape[0], inv
    else:
        n = 1
        for d in kept_shape:
            n *= d
        groups = lin
    if kind == "sum":
        out = torch.zeros([n], dtype=v.dtype, device=v.device).index_add(0, groups, v)
    else:  # max over the listed values only; groups with none give 0 (TF's kernel)
        low = float("-inf") if v.is_floating_point() else torch.iinfo(v.dtype).min
        init = torch.full([n], low, dtype=v.dtype, device=v.device)
        out = init.scatter_reduce(0, groups, v, "amax", include_self=True)
        present = torch.zeros([n], dtype=torch.bool, device=v.device)
        present[groups] = True
        out = torch.where(present, out, torch.zeros_like(out))
    if output_is_sparse:
        out_ind = sc.unravel(uniq, kept_shape)
        out_shape = kept_shape
        if keepdims:
            full = torch.zeros([n, rank], dtype=torch.int64, device=out_ind.device)
            full[:, keep] = out_ind.to(full.device)
            out_ind = full
            out_shape = [1 if i in axes else shape[i] for i in range(rank)]
        return sc.make(out_ind, wrap(out, sp.dtype), out_shape)
    out_shape = [1 if i in axes else shape[i] for i in range(rank)] if keepdims else kept_shape
    return wrap(out.reshape(out_shape), sp.dtype)


@public("torchflow.sparse")
def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """Sums a SparseTensor over ``axis`` (all axes by default).

    Args:
      sp_input: A SparseTensor.
      axis: An int or list of ints (negative count from the end), or None.
      keepdims: If True, reduced dimensions stay with size 1.
      output_is_sparse: If True, the result is a SparseTensor of the non-empty
        groups; otherwise a dense Tensor.
      name: Unused (eager).

    Returns:
      A Tensor, or a SparseTensor when ``output_is_sparse``.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 0], [1, 1], [1, 2]], [1, 2, 3], [2, 3])
    >>> tf.sparse.reduce_sum(st, axis=1).numpy().tolist()
    [1, 5]
    """
    return _reduce("SparseReduceSum", sp_input, axis, keepdims, output_is_sparse, "sum")


@public("torchflow.sparse")
def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum of the listed values of a SparseTensor over ``axis``.

    Unlike ``tf.reduce_max`` of the dense tensor, implicit zeros do not take
    part; a group without values gives 0.

    Args:
      sp_input: A SparseTensor.
      axis: An int or list of ints (negative count from the end), or None.
      keepdims: If True, reduced dimensions stay with size 1.
      output_is_sparse: If True, the result is a SparseTensor of the non-empty
        groups; otherwise a dense Tensor.
      name: Unused (eager).

    Returns:
      A Tensor, or a SparseTensor when ``output_is_sparse``.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 0], [1, 1]], [-1., 3.], [2, 3])
    >>> tf.sparse.reduce_max(st, axis=1).numpy().tolist()
    [-1.0, 3.0]
    """
    return _reduce("SparseReduceMax", sp_input, axis, keepdims, output_is_sparse, "max")


def _matmul_sd(sp: SparseTensor, b: torch.Tensor, adjoint_a: bool, adjoint_b: bool,
               bdtype) -> torch.Tensor:
    shape = sc.shape_list(sp)
    if len(shape) != 2:
        raise ValueError(f"Shape {sp.shape} must have rank 2")
    if b.ndim != 2:
        raise ValueError(f"Shape {tuple(b.shape)} must have rank 2")
    ind = sc.idx(sp).to(b.device)
    v = sp.values._t
    rows, cols = ind[:, 0], ind[:, 1]
    m, k = shape
    if adjoint_a:
        rows, cols, m, k = cols, rows, k, m
        v = v.conj() if v.is_complex() else v
    if adjoint_b:
        b = b.conj().T if b.is_complex() else b.T
    if b.shape[0] != k:
        raise InvalidArgumentError(
            None, None, f"Cannot multiply A and B because inner dimension does not match: {k} "
                        f"vs. {b.shape[0]}.  Did you forget a transpose?  Dimensions of A: "
                        f"[{m}, {k}).  Dimensions of B: {sc.fmt(b.shape)} "
                        "[Op:SparseTensorDenseMatMul]")
    out = torch.zeros([m, b.shape[1]], dtype=b.dtype, device=b.device)
    return out.index_add(0, rows, b[cols] * v[:, None])


@public("torchflow.sparse")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None) -> Tensor:
    """Multiplies a sparse matrix by a dense one (either operand may be the sparse one).

    Args:
      sp_a: A rank-2 SparseTensor (or a dense matrix when ``b`` is sparse).
      b: A rank-2 dense Tensor (or a SparseTensor) of the same dtype.
      adjoint_a: Use the (conjugate) transpose of ``sp_a``.
      adjoint_b: Use the (conjugate) transpose of ``b``.
      name: Unused (eager).

    Returns:
      A dense Tensor.

    Raises:
      InvalidArgumentError: If the inner dimensions differ.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 1]], [2.], [1, 2])
    >>> tf.sparse.sparse_dense_matmul(st, tf.ones([2, 3])).numpy().tolist()
    [[2.0, 2.0, 2.0]]
    """
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        a = tensor_arg(sp_a, b.dtype)._t
        # A @ B = (B^T @ A^T)^T
        out = _matmul_sd(b, a, not adjoint_b, not adjoint_a, b.dtype)
        return wrap(out.T.conj() if out.is_complex() else out.T, b.dtype)
    sp = sc.sparse_arg(sp_a)
    bt = tensor_arg(b, sp.dtype)
    if bt._dtype is not sp.dtype:
        raise TypeError(f"Input 'b' of 'SparseTensorDenseMatMul' Op has type {bt._dtype.name} "
                        f"that does not match type {sp.dtype.name} of argument 'a_values'.")
    return wrap(_matmul_sd(sp, bt._t, bool(adjoint_a), bool(adjoint_b), sp.dtype), sp.dtype)


def _segment(op: str, data, indices, segment_ids, num_segments, kind: str) -> Tensor:
    x = tensor_arg(data)
    if x._dtype._kind not in "fc":
        raise mc.bad_type(op, x._dtype, mc.TypeSet("bfloat16", "float16", "float32", "float64"))
    ii = tensor_arg(indices)
    ids = tensor_arg(segment_ids)
    for t, attr in ((ii, "Tidx"), (ids, "Tsegmentids")):
        if t._dtype._name not in _IDX:
            raise mc.bad_type(op, t._dtype, _IDX, attr)
    xt = x._t
    i = ii._t.to(torch.int64).to(xt.device)
    s = ids._t.to(torch.int64).to(xt.device)
    if i.ndim != 1 or s.ndim != 1 or i.shape[0] != s.shape[0]:
        raise InvalidArgumentError(None, None, f"segment_ids and indices should have same size. "
                                               f"[Op:{op}]")
    n0 = xt.shape[0]
    bad = (i < 0) | (i >= n0)
    if bool(bad.any()):
        p = int(torch.nonzero(bad)[0, 0])
        raise InvalidArgumentError(None, None, f"Bad: indices[{p}] == {int(i[p])} out of range "
                                               f"[0, {n0}) [Op:{op}]")
    if s.shape[0] > 1 and bool((s[1:] < s[:-1]).any()):
        raise InvalidArgumentError(None, None, f"segment ids are not increasing [Op:{op}]")
    if s.shape[0] and int(s[0]) < 0:
        raise InvalidArgumentError(None, None, f"segment ids must be >= 0 [Op:{op}]")
    if num_segments is not None:
        num = int(tensor_arg(num_segments)._t)
        if s.shape[0] and int(s[-1]) >= num:
            raise InvalidArgumentError(None, None, f"segment ids must be < num_segments "
                                                   f"[Op:{op}]")
    else:
        num = int(s[-1]) + 1 if s.shape[0] else 0
    rows = xt[i]
    out = torch.zeros([num] + list(xt.shape[1:]), dtype=xt.dtype, device=xt.device)
    out = out.index_add(0, s, rows)
    if kind != "sum":
        cnt = torch.zeros([num], dtype=xt.dtype, device=xt.device).index_add(
            0, s, torch.ones_like(s, dtype=xt.dtype))
        div = cnt if kind == "mean" else torch.sqrt(cnt)
        div = torch.where(cnt > 0, div, torch.ones_like(div))
        out = out / div.reshape([num] + [1] * (xt.ndim - 1))
    return wrap(out, x._dtype)


@public("torchflow.sparse")
def segment_sum(data, indices, segment_ids, num_segments=None, name=None) -> Tensor:
    """Sums the rows ``data[indices[i]]`` into segments ``segment_ids[i]`` (sorted).

    Args:
      data: A float Tensor.
      indices: 1-D int: the rows of ``data`` to use.
      segment_ids: 1-D int, non-decreasing, same length as ``indices``.
      num_segments: Optional number of output rows (default ``max id + 1``).
      name: Unused (eager).

    Returns:
      A Tensor of shape ``[num_segments] + data.shape[1:]``.

    Raises:
      InvalidArgumentError: Out-of-range indices or unsorted segment ids.

    >>> import torchflow as tf
    >>> tf.sparse.segment_sum(tf.constant([[1.], [2.], [4.]]), [0, 2], [0, 0]).numpy().tolist()
    [[5.0]]
    """
    op = "SparseSegmentSum" + ("WithNumSegments" if num_segments is not None else "")
    return _segment(op, data, indices, segment_ids, num_segments, "sum")


@public("torchflow.sparse")
def segment_mean(data, indices, segment_ids, num_segments=None, name=None) -> Tensor:
    """The mean of the rows ``data[indices[i]]`` per segment ``segment_ids[i]`` (sorted).

    Args:
      data: A float Tensor.
      indices: 1-D int: the rows of ``data`` to use.
      segment_ids: 1-D int, non-decreasing, same length as ``indices``.
      num_segments: Optional number of output rows (default ``max id + 1``).
      name: Unused (eager).

    Returns:
      A Tensor of shape ``[num_segments] + data.shape[1:]`` (empty segments 0).

    >>> import torchflow as tf
    >>> tf.sparse.segment_mean(tf.constant([[1.], [2.], [4.]]), [0, 2], [0, 0]).numpy().tolist()
    [[2.5]]
    """
    op = "SparseSegmentMean" + ("WithNumSegments" if num_segments is not None else "")
    return _segment(op, data, indices, segment_ids, num_segments, "mean")


@public("torchflow.sparse")
def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None) -> Tensor:
    """The sum of the rows ``data[indices[i]]`` per segment divided by sqrt(count).

    Args:
      data: A float Tensor.
      indices: 1-D int: the rows of ``data`` to use.
      segment_ids: 1-D int, non-decreasing, same length as ``indices``.
      num_segments: Optional number of output rows (default ``max id + 1``).
      name: Unused (eager).

    Returns:
      A Tensor of shape ``[num_segments] + data.shape[1:]`` (empty segments 0).

    >>> import torchflow as tf
    >>> tf.sparse.segment_sqrt_n(tf.constant([[3.], [1.]]), [0, 1], [0, 0]).numpy().tolist()
    [[2.8284270763397217]]
    """
    op = "SparseSegmentSqrtN" + ("WithNumSegments" if num_segments is not None else "")
    return _segment(op, data, indices, segment_ids, num_segments, "sqrtn")


@public("torchflow.sparse")
def softmax(sp_input, name=None) -> SparseTensor:
    """Softmax over the listed values of each innermost row of a SparseTensor.

    Implicit zeros do not take part (they stay absent).

    Args:
      sp_input: A float SparseTensor of rank >= 2, row-major order.
      name: Unused (eager).

    Returns:
      A SparseTensor with the same indices.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 0], [0, 2]], [1., 1.], [1, 3])
    >>> tf.sparse.softmax(st).values.numpy().tolist()
    [0.5, 0.5]
    """
    sp = sc.sparse_arg(sp_input)
    shape = sc.shape_list(sp)
    v = sp.values._t
    ind = sc.idx(sp).to(v.device)
    grp = sc.linear(ind[:, :-1], shape[:-1])
    uniq, inv = torch.unique(grp, return_inverse=True)
    n = uniq.shape[0]
    mx = torch.full([n], float("-inf"), dtype=v.dtype, device=v.device).scatter_reduce(
        0, inv, v, "amax", include_self=True)
    e = torch.exp(v - mx[inv])
    tot = torch.zeros([n], dtype=v.dtype, device=v.device).index_add(0, inv, e)
    return sc.make(sc.idx(sp), wrap(e / tot[inv], sp.dtype), sp.dense_shape._t)


def dense_cwise(sp: SparseTensor, other, kind: str) -> SparseTensor:
    """``sp * dense`` / ``sp / dense``: the dense operand broadcast to ``sp``'s shape and
    read at its indices (TF's SparseDenseCwiseMul/Div)."""
    op = "SparseDenseCwiseMul" if kind == "mul" else "SparseDenseCwiseDiv"
    d = tensor_arg(other, sp.dtype)
    if d._dtype is not sp.dtype:
        raise TypeError(f"Input 'dense' of '{op}' Op has type {d._dtype.name} that does not "
                        f"match type {sp.dtype.name} of argument 'sp_values'.")
    shape = sc.shape_list(sp)
    dt = d._t
    try:
        full = dt.expand(shape)
    except RuntimeError:
        raise InvalidArgumentError(
            None, None, f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got "
                        f"incompatible shapes: {sc.fmt(dt.shape)} vs. {sc.fmt(shape)} [Op:{op}]"
        ) from None
    ind = sc.idx(sp).to(dt.device)
    picked = full[ind.unbind(1)] if ind.shape[1] else full.reshape(1).expand(ind.shape[0])
    v = sp.values._t
    if kind == "mul":
        res = v * picked
    elif sp.dtype.is_integer:
        res = torch.div(v, picked, rounding_mode="trunc")
    else:
        res = v / picked
    return sc.make(sc.idx(sp), wrap(res, sp.dtype), sp.dense_shape._t)


def _mul(self, other):
    return dense_cwise(self, other, "mul")


def _div(self, other):
    return dense_cwise(self, other, "div")


SparseTensor.__mul__ = _mul  # pyright: ignore[reportAttributeAccessIssue] - operators installed here, where the ops live
SparseTensor.__truediv__ = _div  # pyright: ignore[reportAttributeAccessIssue] - as above
SparseTensor.__div__ = _div  # pyright: ignore[reportAttributeAccessIssue] - as above
