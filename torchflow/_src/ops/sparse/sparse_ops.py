"""``tf.sparse`` ops that move, reshape, pick or build sparse entries."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.indexed_slices import IndexedSlices
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import shape_ops
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.sparse import _sparse_common as sc
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public


def _int_list(op: str, value, what: str) -> list[int]:
    t = tensor_arg(value)
    if t._dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{what} must be int32 or int64, got {t._dtype.name} [Op:{op}]")
    return [int(v) for v in t._t.reshape(-1).tolist()]


@public("torchflow.sparse")
def from_dense(tensor, name=None) -> SparseTensor:
    """The SparseTensor of the non-zero (non-empty string) entries of a dense tensor.

    Args:
      tensor: A Tensor.
      name: Unused (eager).

    Returns:
      A SparseTensor with row-major indices.

    >>> import torchflow as tf
    >>> tf.sparse.from_dense([0, 3, 0, 4]).indices.numpy().tolist()
    [[1], [3]]
    """
    t = tensor_arg(tensor)
    if sc.is_str(t):
        arr = np.asarray(t._t, dtype=object)
        nz = np.argwhere(arr != b"").reshape(-1, arr.ndim)
        vals = wrap(arr[tuple(nz.T)] if arr.ndim else arr.reshape(-1)[:len(nz)], dtypes.string)
        ind = torch.from_numpy(nz.astype(np.int64))
        return sc.make(ind, vals, list(arr.shape))
    x = t._t
    mask = x != 0
    ind = torch.nonzero(mask)
    # The mask selects the values in nonzero()'s row-major order, without reading the
    # count into Python (a tf.function records this body once).
    vals = wrap(x[mask] if x.ndim else x.reshape(-1)[mask.reshape(-1)], t._dtype)
    # tf.shape's node: a replay gives this call's shape (an iterator's final batch).
    return sc.make(ind, vals, shape_ops.shape(t, out_type=dtypes.int64)._t)


@public("torchflow.sparse")
def to_dense(sp_input, default_value=None, validate_indices=True, name=None) -> Tensor:
    """The dense Tensor of a SparseTensor, unlisted positions set to ``default_value``.

    Args:
      sp_input: A SparseTensor.
      default_value: Scalar for the unlisted positions (default zero / ``b""``).
      validate_indices: If True, indices must be in bounds, sorted and unique.
      name: Unused (eager).

    Returns:
      A Tensor of shape ``sp_input.dense_shape``.

    Raises:
      TypeError: If ``sp_input`` is not a SparseTensor.
      InvalidArgumentError: Out-of-bounds, unsorted or repeated indices.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 1]], [5], [2, 2])
    >>> tf.sparse.to_dense(st).numpy().tolist()
    [[0, 5], [0, 0]]
    """
    sp = sc.sparse_arg(sp_input)
    shape = sc.shape_list(sp)
    ind = sc.idx(sp)
    if validate_indices:
        sc.validate("SparseToDense", ind, shape)
    else:
        _check_indicator(ind, shape)
    v = sp.values
    if sc.is_str(v):
        fill = b"" if default_value is None else tensor_arg(default_value, dtypes.string)._t
        out = np.full(shape, np.asarray(fill).reshape(()).item(), dtype=object)
        out[tuple(ind.cpu().numpy().T)] = np.asarray(v._t, dtype=object)
        return wrap(out, dtypes.string)
    vt = v._t
    if default_value is None:
        out = torch.zeros(shape, dtype=vt.dtype, device=vt.device)
    else:
        d = tensor_arg(default_value, v._dtype)
        if d._dtype is not v._dtype:
            raise InvalidArgumentError(
                None, None, f"cannot compute SparseToDense as input #3(zero-based) was expected "
                            f"to be a {v._dtype.name} tensor but is a {d._dtype.name} tensor "
                            f"[Op:SparseToDense]")
        out = d._t.to(vt.device).expand(shape).clone()
    if not len(shape):  # a scalar: index_put with no index tensors writes everything
        return wrap(vt.reshape(()) if vt.numel() else out, v._dtype)
    return wrap(out.index_put(ind.to(vt.device).unbind(1), vt), v._dtype)


@public("torchflow.sparse")
def reorder(sp_input, name=None) -> SparseTensor:
    """Puts the entries of a SparseTensor in row-major (canonical) order.

    Args:
      sp_input: A SparseTensor.
      name: Unused (eager).

    Returns:
      A SparseTensor with the same dense shape and sorted indices.

    >>> import torchflow as tf
    >>> st = tf.sparse.reorder(tf.sparse.SparseTensor([[1], [0]], [1, 2], [3]))
    >>> st.values.numpy().tolist()
    [2, 1]
    """
    sp = sc.sparse_arg(sp_input)
    ind = sc.idx(sp)
    if graph_trace.active() is None and sc.is_ordered(ind):
        return sp  # eager: already in order (a trace orders every call's indices)
    perm = sc.lex_order(ind)
    return SparseTensor._from_parts(wrap(ind[perm], dtypes.int64), sc.take(sp.values, perm),
                                    sp.dense_shape)


@public("torchflow.sparse")
def reshape(sp_input, shape, name=None) -> SparseTensor:
    """Reshapes a SparseTensor (its entries keep their row-major positions).

    Args:
      sp_input: A SparseTensor.
      shape: A 1-D int Tensor or list, at most one ``-1`` (inferred).
      name: Unused (eager).

    Returns:
      A SparseTensor of the new dense shape.

    Raises:
      InvalidArgumentError: If the sizes do not fit.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 3]], [1], [2, 4])
    >>> tf.sparse.reshape(st, [4, 2]).indices.numpy().tolist()
    [[1, 1]]
    """
    sp = sc.sparse_arg(sp_input)
    old = sc.shape_list(sp)
    new = _int_list("SparseReshape", shape, "shape")
    total = int(np.prod(old)) if old else 1
    unknown = [i for i, d in enumerate(new) if d == -1]
    if len(unknown) > 1:
        raise InvalidArgumentError(None, None, f"only one output dimension may be -1, not "
                                               f"both {unknown[0]} and {unknown[1]} "
                                               "[Op:SparseReshape]")
    known = int(np.prod([d for d in new if d != -1])) if new else 1
    io = f"input_shape={sc.fmt(old)} output_shape={sc.fmt([1 if d == -1 else d for d in new])}"
    if unknown:
        if known == 0 or total % known:
            raise InvalidArgumentError(
                None, None, f"Input to reshape is a SparseTensor with {total} dense values, but "
                            f"the requested shape requires a multiple of {known}. {io} "
                            "[Op:SparseReshape]")
        new[unknown[0]] = total // known
    elif known != total:
        raise InvalidArgumentError(
            None, None, f"Input to reshape is a tensor with {total} dense values, but the "
                        f"requested shape has {known}. {io} [Op:SparseReshape]")
    lin = sc.linear(sc.idx(sp), old)
    return sc.make(sc.unravel(lin, new), sp.values, new)


@public("torchflow.sparse")
def slice(sp_input, start, size, name=None) -> SparseTensor:  # noqa: A001 (TF's name)
    """The entries of a SparseTensor inside the box ``[start, start + size)``.

    Args:
      sp_input: A SparseTensor.
      start: 1-D int: the corner of the box.
      size: 1-D int: the extent of the box.
      name: Unused (eager).

    Returns:
      A SparseTensor of dense shape ``min(start + size, dense_shape) - start``,
      with indices relative to ``start``.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 1], [1, 3]], [1, 2], [2, 4])
    >>> tf.sparse.slice(st, [0, 2], [2, 2]).indices.numpy().tolist()
    [[1, 1]]
    """
    sp = sc.sparse_arg(sp_input)
    shape = sc.shape_list(sp)
    st = _int_list("SparseSlice", start, "start")
    sz = _int_list("SparseSlice", size, "size")
    if len(st) != len(shape) or len(sz) != len(shape):
        raise InvalidArgumentError(
            None, None, f"Expected start and size to be vectors of length {len(shape)}, got "
                        f"{len(st)} and {len(sz)} [Op:SparseSlice]")
    ind = sc.idx(sp)
    lo = torch.tensor(st, dtype=torch.int64, device=ind.device)
    hi = lo + torch.tensor(sz, dtype=torch.int64, device=ind.device)
    keep = ((ind >= lo) & (ind < hi)).all(1)
    pos = torch.nonzero(keep).reshape(-1)
    out_shape = [max(0, min(s + z, d) - s) for s, z, d in zip(st, sz, shape)]
    return sc.make(ind[pos] - lo, sc.take(sp.values, pos), out_shape)


@public("torchflow.sparse")
def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None) -> SparseTensor:
    """Concatenates SparseTensors along ``axis``.

    Args:
      axis: The dimension to concatenate along (negative counts from the end).
      sp_inputs: A list of SparseTensors of one rank and dtype.
      expand_nonconcat_dims: If True, the other dimensions grow to the largest
        input's; otherwise they must match.
      name: Unused (eager).

    Returns:
      A SparseTensor, indices in row-major order when the inputs' are.

    Raises:
      InvalidArgumentError: If the shapes do not fit.

    >>> import torchflow as tf
    >>> a = tf.sparse.SparseTensor([[0, 0]], [1], [1, 2])
    >>> tf.sparse.concat(1, [a, a]).indices.numpy().tolist()
    [[0, 0], [0, 2]]
    """
    sps = [sc.sparse_arg(s) for s in sp_inputs]
    if len(sps) < 2:
        raise InvalidArgumentError(None, None, f"Expected at least 2 inputs, got {len(sps)} "
                                               "[Op:SparseConcat]")
    shapes = [sc.shape_list(s) for s in sps]
    rank = len(shapes[0])
    ax = int(axis) + rank if int(axis) < 0 else int(axis)
    if not 0 <= ax < rank:
        raise InvalidArgumentError(None, None, f"Concat dimension must be in range [{-rank}, "
                                               f"{rank}), got {int(axis)} [Op:SparseConcat]")
    out_shape = list(shapes[0])
    if expand_nonconcat_dims:
        out_shape = [max(s[i] for s in shapes) for i in range(rank)]
    for pos, s in enumerate(shapes[1:], 1):
        if len(s) != rank:
            raise InvalidArgumentError(
                None, None, f"Ranks of all input tensors should match: shape[0] = "
                            f"{sc.fmt(shapes[0])} vs. shape[{pos}] = {sc.fmt(s)} [Op:SparseConcat]")
        for i in range(rank):
            if i != ax and not expand_nonconcat_dims and s[i] != shapes[0][i]:
                raise InvalidArgumentError(
                    None, None, f"Input shapes must match: expected {shapes[0][i]} for "
                                f"dimension {i} but got {s[i]} at position {pos} [Op:SparseConcat]")
    parts, off = [], 0
    for s, shp in zip(sps, shapes):
        ind = sc.idx(s).clone()
        ind[:, ax] += off
        parts.append(ind)
        off += shp[ax]
    out_shape[ax] = off
    ind = torch.cat(parts)
    vals = sc.cat_values([s.values for s in sps], sps[0].dtype)
    if ax != 0:  # TF orders the output row-major; axis 0 keeps the inputs' order
        perm = sc.lex_order(ind)
        ind, vals = ind[perm], sc.take(vals, perm)
    return sc.make(ind, vals, out_shape)


@public("torchflow.sparse")
def retain(sp_input, to_retain) -> SparseTensor:
    """Keeps the entries of ``sp_input`` where the bool vector ``to_retain`` is True.

    Args:
      sp_input: A SparseTensor with N entries.
      to_retain: A bool Tensor of shape ``[N]``.

    Returns:
      A SparseTensor with the same dense shape.

    Raises:
      ValueError: If ``to_retain`` is not a vector of length N.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0], [2]], [1, 2], [3])
    >>> tf.sparse.retain(st, [False, True]).values.numpy().tolist()
    [2]
    """
    sp = sc.sparse_arg(sp_input)
    keep = tensor_arg(to_retain, dtypes.bool)
    if keep._t.ndim != 1:
        raise ValueError(f"Shape {keep.shape} must have rank 1")
    n = sp.indices.shape[0]
    if keep._t.shape[0] != n:
        raise ValueError(f"Dimensions {n} and {keep._t.shape[0]} are not compatible")
    pos = torch.nonzero(keep._t.bool()).reshape(-1).to(sc.idx(sp).device)
    return SparseTensor._from_parts(wrap(sc.idx(sp)[pos], dtypes.int64),
                                    sc.take(sp.values, pos), sp.dense_shape)


@public("torchflow.sparse")
def fill_empty_rows(sp_input, default_value, name=None):
    """Puts ``default_value`` at ``[row, 0, ..., 0]`` of every empty row.

    Args:
      sp_input: A SparseTensor of rank >= 1.
      default_value: A scalar of the values' dtype.
      name: Unused (eager).

    Returns:
      ``(sp_ordered_output, empty_row_indicator)``: the filled SparseTensor
      (ordered by row) and a bool Tensor of shape ``[dense_shape[0]]``.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[1, 0]], [5], [3, 2])
    >>> out, empty = tf.sparse.fill_empty_rows(st, -1)
    >>> out.values.numpy().tolist(), empty.numpy().tolist()
    ([-1, 5, -1], [True, False, True])
    """
    sp = sc.sparse_arg(sp_input)
    shape = sc.shape_list(sp)
    ind = sc.idx(sp)
    rows = shape[0]
    _check_rows(ind, rows)
    present = torch.zeros(rows, dtype=torch.bool, device=ind.device)
    present[ind[:, 0]] = True
    empty = ~present
    new_rows = torch.nonzero(empty).reshape(-1)
    new_ind = torch.zeros([new_rows.shape[0], len(shape)], dtype=torch.int64, device=ind.device)
    new_ind[:, 0] = new_rows
    all_ind = torch.cat([ind, new_ind])
    vals = sc.cat_values([sp.values, sc.full_values(new_rows.shape[0], default_value,
                                                    sp.values)], sp.dtype)
    perm = torch.sort(all_ind[:, 0], stable=True).indices
    out = sc.make(all_ind[perm], sc.take(vals, perm), sp.dense_shape._t)
    return out, wrap(empty.to(sp.values._t.device if not sc.is_str(sp.values) else empty.device),
                     dtypes.bool)


@public("torchflow.sparse")
def to_indicator(sp_input, vocab_size, name=None) -> Tensor:
    """A dense bool tensor marking, per row, the ids held in the last dimension.

    ``out[i_0, ..., i_{n-2}, id] = True`` for each entry ``id`` of
    ``sp_input[i_0, ..., i_{n-2}, :]``.

    Args:
      sp_input: An int32/int64 SparseTensor of rank n.
      vocab_size: The size of the new last dimension.
      name: Unused (eager).

    Returns:
      A bool Tensor of shape ``dense_shape[:-1] + [vocab_size]``.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 0], [0, 1]], [2, 0], [1, 2])
    >>> tf.sparse.to_indicator(st, 3).numpy().tolist()
    [[True, False, True]]
    """
    sp = sc.sparse_arg(sp_input)
    if sp.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Value passed to parameter 'sp_input' has DataType {sp.dtype.name} "
                        "not in list of allowed values: int32, int64")
    shape = sc.shape_list(sp)[:-1] + [int(tensor_arg(vocab_size)._t)]
    ind = sc.idx(sp)
    full = torch.cat([ind[:, :-1], sp.values._t.to(torch.int64).to(ind.device)[:, None]], 1)
    _check_indicator(full, shape)
    out = torch.zeros(shape, dtype=torch.bool, device=ind.device)
    out[full.unbind(1)] = True
    return wrap(out, dtypes.bool)


@public("torchflow.sparse")
def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None) -> SparseTensor:
    """A sparse identity matrix of shape ``[num_rows, num_columns]``.

    Args:
      num_rows: Number of rows.
      num_columns: Number of columns (default ``num_rows``).
      dtype: The values' dtype.
      name: Unused (eager).

    Returns:
      A SparseTensor with ones on the diagonal.

    >>> import torchflow as tf
    >>> tf.sparse.eye(2).indices.numpy().tolist()
    [[0, 0], [1, 1]]
    """
    r = int(tensor_arg(num_rows)._t)
    c = r if num_columns is None else int(tensor_arg(num_columns)._t)
    d = dtypes.as_dtype(dtype)
    n = min(r, c)
    diag = torch.arange(n, dtype=torch.int64)
    vals = wrap(torch.ones(n, dtype=d._torch), d)
    return sc.make(torch.stack([diag, diag], 1), vals, [r, c])


@public("torchflow.sparse")
def expand_dims(sp_input, axis=None, name=None) -> SparseTensor:
    """Inserts a dimension of size 1 at ``axis`` (negative counts from the end).

    Args:
      sp_input: A SparseTensor of rank n.
      axis: An int in ``[-(n+1), n]``.
      name: Unused (eager).

    Returns:
      A SparseTensor of rank n + 1.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[1]], [1], [3])
    >>> tf.sparse.expand_dims(st, 0).dense_shape.numpy().tolist()
    [1, 3]
    """
    sp = sc.sparse_arg(sp_input)
    shape = sc.shape_list(sp)
    rank = len(shape)
    ax = 0 if axis is None else int(tensor_arg(axis)._t)
    if not -(rank + 1) <= ax <= rank:
        raise InvalidArgumentError(None, None, f"Tried to expand dim index {ax} for tensor "
                                               f"with {rank} dimensions. [Op:ExpandDims]")
    ax = ax + rank + 1 if ax < 0 else ax
    ind = sc.idx(sp)
    zero = torch.zeros([ind.shape[0], 1], dtype=torch.int64, device=ind.device)
    new = torch.cat([ind[:, :ax], zero, ind[:, ax:]], 1)
    return sc.make(new, sp.values, shape[:ax] + [1] + shape[ax:])


@public("torchflow.sparse")
def transpose(sp_input, perm=None, name=None) -> SparseTensor:
    """Permutes the dimensions of a SparseTensor (default: reverses them).

    Args:
      sp_input: A SparseTensor.
      perm: A permutation of the dimensions.
      name: Unused (eager).

    Returns:
      A SparseTensor in row-major order.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 1]], [1], [2, 3])
    >>> tf.sparse.transpose(st).indices.numpy().tolist()
    [[1, 0]]
    """
    sp = sc.sparse_arg(sp_input)
    shape = sc.shape_list(sp)
    rank = len(shape)
    p = list(range(rank - 1, -1, -1)) if perm is None else _int_list("SparseTranspose", perm,
                                                                     "perm")
    if sorted(p) != list(range(rank)):
        raise InvalidArgumentError(None, None, f"{sc.fmt(p)} is not a valid permutation of "
                                               f"{rank} dimensions [Op:Transpose]")
    ind = sc.idx(sp)[:, p]
    order = sc.lex_order(ind)
    return sc.make(ind[order], sc.take(sp.values, order), [shape[i] for i in p])


@public("torchflow.sparse")
def split(sp_input=None, num_split=None, axis=None, name=None) -> list:
    """Splits a SparseTensor into ``num_split`` pieces along ``axis``.

    When the size of ``axis`` is not a multiple of ``num_split``, the first
    ``size % num_split`` pieces are one larger.

    Args:
      sp_input: A SparseTensor.
      num_split: The number of pieces.
      axis: The dimension to split.
      name: Unused (eager).

    Returns:
      A list of ``num_split`` SparseTensors.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 0], [0, 3]], [1, 2], [1, 4])
    >>> [s.indices.numpy().tolist() for s in tf.sparse.split(sp_input=st, num_split=2, axis=1)]
    [[[0, 0]], [[0, 1]]]
    """
    sp = sc.sparse_arg(sp_input)
    shape = sc.shape_list(sp)
    if num_split is None or axis is None:
        raise ValueError("num_split and axis are required")
    n = int(num_split)
    ax = int(tensor_arg(axis)._t)
    ax = ax + len(shape) if ax < 0 else ax
    if not 0 <= ax < len(shape):
        raise InvalidArgumentError(None, None, f"Input axis should be in range [{-len(shape)}, "
                                               f"{len(shape)}), got {ax} [Op:SparseSplit]")
    if n < 1 or n > shape[ax]:
        raise InvalidArgumentError(None, None, f"Input num_split should be between 1 and "
                                               f"{shape[ax]}, got {n} [Op:SparseSplit]")
    base, extra = divmod(shape[ax], n)
    out, start = [], 0
    for i in range(n):
        size = base + (1 if i < extra else 0)
        st = [0] * len(shape)
        sz = list(shape)
        st[ax], sz[ax] = start, size
        out.append(slice(sp, st, sz))
        start += size
    return out


@public("torchflow.sparse")
def reset_shape(sp_input, new_shape=None) -> SparseTensor:
    """A SparseTensor with the same entries and a new (default: tight) dense shape.

    Args:
      sp_input: A SparseTensor.
      new_shape: 1-D int64; each dim must hold the entries. None gives the
        tight bounding box ``max(indices) + 1``.

    Returns:
      A SparseTensor.

    Raises:
      ValueError: If ``new_shape`` has another rank or is too small.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0, 1]], [1], [5, 5])
    >>> tf.sparse.reset_shape(st).dense_shape.numpy().tolist()
    [1, 2]
    """
    sp = sc.sparse_arg(sp_input)
    ind = sc.idx(sp)
    rank = ind.shape[1]
    tight = (ind.max(0).values + 1) if ind.shape[0] else torch.zeros(rank, dtype=torch.int64)
    if new_shape is None:
        return sc.make(ind, sp.values, tight.tolist())
    new = _int_list("SparseResetShape", new_shape, "new_shape")
    if len(new) != rank:
        raise ValueError(f"Shapes ({rank},) and ({len(new)},) are incompatible")
    if any(a < b for a, b in zip(new, tight.tolist())):
        raise InvalidArgumentError(None, None, "assertion failed: new_shape must be at least as "
                                               "large as the tight bounding box")
    return sc.make(ind, sp.values, new)


@public("torchflow.sparse")
def mask(a, mask_indices, name=None) -> IndexedSlices:
    """Removes the slices of the ``IndexedSlices`` ``a`` whose index is in ``mask_indices``.

    Args:
      a: An ``IndexedSlices``.
      mask_indices: 1-D int Tensor of indices to drop.
      name: Unused (eager).

    Returns:
      An ``IndexedSlices`` with the other slices.

    >>> import torchflow as tf
    >>> s = tf.IndexedSlices(tf.constant([[1.], [2.]]), tf.constant([3, 5]))
    >>> tf.sparse.mask(s, [5]).indices.numpy().tolist()
    [3]
    """
    ind = a.indices._t
    drop = tensor_arg(mask_indices)._t.to(ind.device).to(ind.dtype)
    keep = torch.nonzero(~torch.isin(ind, drop)).reshape(-1)
    return IndexedSlices(wrap(a.values._t[keep], a.values.dtype), wrap(ind[keep], a.indices.dtype),
                         a.dense_shape)


@public("torchflow.sparse")
def map_values(op, *args, **kwargs) -> SparseTensor:
    """Applies ``op`` to the ``values`` of the SparseTensors among its arguments.

    All SparseTensor arguments must share their indices and dense shape.

    Args:
      op: The function to call (for example ``tf.math.abs``).
      *args: Positional arguments; SparseTensors are replaced by their values.
      **kwargs: Keyword arguments, likewise.

    Returns:
      A SparseTensor with the shared indices and ``op``'s result as values.

    Raises:
      ValueError: If no argument is a SparseTensor.
      InvalidArgumentError: If the SparseTensors' indices differ.

    >>> import torchflow as tf
    >>> st = tf.sparse.SparseTensor([[0]], [-2], [3])
    >>> tf.sparse.map_values(tf.abs, st).values.numpy().tolist()
    [2]
    """
    found: list[SparseTensor] = []

    def repl(x):
        if isinstance(x, SparseTensor):
            found.append(x)
            return x.values
        return x

    args2 = [repl(x) for x in args]
    kwargs2 = {k: repl(v) for k, v in kwargs.items()}
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        same = (sc.shape_list(other) == sc.shape_list(first)
                and tuple(sc.idx(other).shape) == tuple(sc.idx(first).shape)
                and bool(torch.equal(sc.idx(other), sc.idx(first))))
        if not same:
            raise InvalidArgumentError(None, None, "Expected all SparseTensors to have the same "
                                                   "indices and dense_shape")
    return SparseTensor._from_parts(first.indices, tensor_arg(op(*args2, **kwargs2)),
                                    first.dense_shape)


# Value checks of TF's kernels: host nodes of traced functions, so that each replay
# checks its own indices.
@graph_trace.host_op
def _check_rows(ind: torch.Tensor, rows: int) -> None:
    if not ind.shape[0]:
        return
    bad = (ind[:, 0] < 0) | (ind[:, 0] >= rows)
    if bool(bad.any()):
        i = int(torch.nonzero(bad)[0, 0])
        raise InvalidArgumentError(None, None, f"indices({i}, 0) is invalid: {int(ind[i, 0])} "
                                               f">= {rows} [Op:SparseFillEmptyRows]")


@graph_trace.host_op
def _check_indicator(full: torch.Tensor, shape: list) -> None:
    lim = torch.tensor(shape, device=full.device)
    if full.shape[0] and bool(((full < 0) | (full >= lim)).any()):
        raise InvalidArgumentError(None, None, "Indices are not valid (out of bounds).  Shape: "
                                               f"{sc.fmt(shape)} [Op:SparseToDense]")
