"""Ops that move elements without computing on them: reshape, transpose, concat, ...

Every op here works for every dtype, strings included (see ``_array_helpers``).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from torchflow._src.core import dtypes
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import (
    _NATIVE,
    gather_pool,
    int_list,
    int_value,
    is_str,
    op_error,
    tensor_list,
    tensor_of,
    via_index,
)
from torchflow._src.ops._dispatch import COMPOSITE
from torchflow._src.util.api import public

_string = dtypes.string


def _move(x: Tensor, fn, op: str) -> Tensor:
    """Runs an element-moving torch function on any dtype."""
    t = x._t
    try:
        if isinstance(t, np.ndarray):
            return wrap(via_index(fn, t), _string)
        nt = _NATIVE.get(x._dtype)
        if nt is None:
            return wrap(fn(t), x._dtype)
        return wrap(fn(t.view(nt)).view(x._dtype._torch), x._dtype)
    except (TypeError, ValueError):
        raise
    except Exception as e:  # noqa: BLE001 - becomes a TF error
        raise translate(op, e) from None


def _fast_list(values):
    """``([torch tensors], dtype)`` when every value is a same-dtype numeric Tensor of one
    rank (the common case), else None."""
    v0 = values[0]
    if type(v0) is not Tensor:
        return None
    d = v0._dtype
    if d is _string or d in _NATIVE:
        return None
    nd = v0._t.ndim
    ts = []
    for v in values:
        if type(v) is not Tensor or v._dtype is not d or v._t.ndim != nd:
            return None
        ts.append(v._t)
    return ts, d


def _shape_str(s) -> str:
    return "[" + ",".join(str(d) for d in s) + "]"


# --- reshape / transpose ------------------------------------------------------


def _reshape_error(n: int, shape: list):
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        return op_error("Reshape", f"Only one input size may be -1, not both {unknown[0]} and "
                                   f"{unknown[1]}")
    for i, d in enumerate(shape):
        if d < -1:
            return op_error("Reshape", f"Size {i} must be non-negative, not {d}")
    known = 1
    for d in shape:
        if d != -1:
            known *= d
    if unknown:
        return op_error("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                                   f"requested shape requires a multiple of {known}")
    return op_error("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                               f"requested shape has {known}")


@public("torchflow")
def reshape(tensor, shape, name=None) -> Tensor:
    """Reshapes a tensor; one dimension of ``shape`` may be -1 (inferred).

    Args:
      tensor: A Tensor.
      shape: A list of ints or a 1-D int tensor.
      name: Unused (eager).

    Returns:
      A Tensor with the same values in row-major order and the new shape.

    Raises:
      InvalidArgumentError: If the number of elements does not fit ``shape``.

    >>> import torchflow as tf
    >>> tf.reshape(tf.range(6), [2, -1]).shape
    TensorShape([2, 3])
    """
    x = tensor if type(tensor) is Tensor else tensor_of(tensor)
    dims = int_list(shape, "shape")
    t = x._t
    if isinstance(t, np.ndarray):
        try:
            return wrap(t.reshape(dims), _string)
        except ValueError:
            raise _reshape_error(t.size, dims) from None
    try:
        return wrap(t.reshape(dims), x._dtype)
    except RuntimeError:
        raise _reshape_error(t.numel(), dims) from None


@public("torchflow")
def transpose(a, perm=None, conjugate=False, name="transpose") -> Tensor:
    """Permutes the dimensions of ``a`` (reverses them when ``perm`` is None).

    Args:
      a: A Tensor.
      perm: A permutation of the dimensions.
      conjugate: If True and ``a`` is complex, also conjugates.
      name: Unused (eager).

    Returns:
      The transposed Tensor.

    Raises:
      InvalidArgumentError: If ``perm`` is not a permutation of ``range(rank)``.
    """
    if perm is None and type(a) is Tensor and type(a._t) is torch.Tensor and \
            a._dtype not in _NATIVE and (not conjugate or not a._dtype.is_complex):
        t = a._t
        return wrap(t.permute(tuple(range(t.ndim - 1, -1, -1))), a._dtype)
    x = tensor_of(a)
    rank = x._t.ndim
    if perm is None:
        p = list(reversed(range(rank)))
    else:
        p = int_list(perm, "perm")
        if len(p) != rank:
            raise op_error("Transpose", f"transpose expects a vector of size {rank}. But "
                                        f"input(1) is a vector of size {len(p)}")
        p = [d + rank if d < 0 else d for d in p]
        for i in range(rank):
            if i not in p:
                raise op_error("Transpose", f"{i} is missing from {{{','.join(map(str, p))}}}.")
    out = _move(x, lambda t: t.permute(p), "Transpose")
    if conjugate and x._dtype.is_complex:
        out = wrap(torch.conj_physical(out._t), x._dtype)
    return out


# --- concat / stack / split -------------------------------------------------------


@public("torchflow")
def concat(values, axis, name="concat") -> Tensor:
    """Concatenates tensors along dimension ``axis`` (negative counts from the end).

    Args:
      values: A list of tensors of one dtype and rank, equal in every dimension except
        ``axis``.
      axis: A 0-D int32 tensor or int; in ``[-rank, rank)``.
      name: Unused (eager).

    Returns:
      A tensor of the inputs' dtype; its ``axis`` dimension is the sum of theirs.

    Raises:
      InvalidArgumentError: On mismatched dtypes, ranks or dimensions, or an
        axis out of range.

    >>> import torchflow as tf
    >>> tf.concat([[1, 2], [3]], 0).numpy()
    array([1, 2, 3], dtype=int32)
    """
    if type(axis) is int and type(values) in (list, tuple) and len(values) > 1:
        fast = _fast_list(values)
        if fast is not None:
            ts, d = fast
            try:
                return wrap(torch.cat(ts, axis), d)
            except (RuntimeError, IndexError):
                pass  # the checks below give TF's error
    if isinstance(values, Tensor):
        values = list(values)
    if type(values) in (list, tuple) and any(type(v) in COMPOSITE for v in values):
        return COMPOSITE[next(type(v) for v in values if type(v) in COMPOSITE)].concat(
            values, int_value(axis, "axis"))  # tf.RaggedTensor inputs
    xs = tensor_list(values, "ConcatV2")
    if not xs:
        raise op_error("ConcatV2", "ConcatOp : Expected at least one input to concatenate")
    if len(xs) == 1:
        return xs[0]
    ax = int_value(axis, "axis")
    rank = xs[0]._t.ndim
    if rank == 0:
        raise op_error("ConcatV2", "ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -rank <= ax < rank:
        raise op_error("ConcatV2", f"ConcatOp : Expected concatenating dimensions in the range "
                                   f"[{-rank}, {rank}), but got {ax}")
    ax = ax + rank if ax < 0 else ax
    s0 = xs[0]._t.shape
    for i, x in enumerate(xs[1:], 1):
        s = x._t.shape
        if len(s) != rank:
            raise op_error("ConcatV2", f"ConcatOp : Ranks of all input tensors should match: "
                                       f"shape[0] = {_shape_str(s0)} vs. shape[{i}] = "
                                       f"{_shape_str(s)}")
        for d in range(rank):
            if d != ax and s[d] != s0[d]:
                raise op_error("ConcatV2", f"ConcatOp : Dimension {d} in both shapes must be "
                                           f"equal: shape[0] = {_shape_str(s0)} vs. shape[{i}] "
                                           f"= {_shape_str(s)}")
    d = xs[0]._dtype
    if d is _string:
        return wrap(np.concatenate([x._t for x in xs], ax), _string)
    nt = _NATIVE.get(d)
    if nt is not None:
        return wrap(torch.cat([x._t.view(nt) for x in xs], ax).view(d._torch), d)
    try:
        return wrap(torch.cat([x._t for x in xs], ax), d)
    except Exception as e:  # noqa: BLE001
        raise translate("ConcatV2", e) from None


@public("torchflow")
def stack(values, axis=0, name="stack") -> Tensor:
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor.

    Args:
      values: A list of tensors of one shape and dtype.
      axis: int, default 0; the new dimension, in ``[-(R+1), R+1)``.
      name: Unused (eager).

    Returns:
      A tensor of the inputs' dtype and shape ``values[0].shape`` with ``len(values)``
        inserted at ``axis``.

    Raises:
      ValueError: If ``axis`` is out of range.
      InvalidArgumentError: If shapes or dtypes differ.
    """
    if type(axis) is int and type(values) in (list, tuple) and values:
        fast = _fast_list(values)
        if fast is not None:
            ts, d = fast
            try:
                return wrap(torch.stack(ts, axis), d)
            except (RuntimeError, IndexError):
                pass  # the checks below give TF's error
    if not isinstance(values, (list, tuple)):
        values = list(values) if isinstance(values, Tensor) else values
    if isinstance(values, (list, tuple)) and any(type(v) in COMPOSITE for v in values):
        return COMPOSITE[next(type(v) for v in values if type(v) in COMPOSITE)].stack(
            values, axis)  # tf.RaggedTensor inputs
    if axis == 0 and isinstance(values, (list, tuple)) and values and not any(
            type(v) is Tensor for v in values):
        try:  # TF converts a constant list as a whole (so [1, 2.5] is float32)
            return to_tensor(values)
        except (TypeError, ValueError):
            pass
    xs = tensor_list(values, "Pack")
    if not xs:
        return wrap(torch.zeros(0), dtypes.float32)
    n = xs[0]._t.ndim + 1
    ax = int_value(axis, "axis")
    if not -n <= ax < n:
        raise ValueError(f"Argument `axis` = {ax} not in range [{-n}, {n})")
    s0 = tuple(xs[0]._t.shape)
    for i, x in enumerate(xs[1:], 1):
        if tuple(x._t.shape) != s0:
            raise op_error("Pack", f"Shapes of all inputs must match: values[0].shape = "
                                   f"{_shape_str(s0)} != values[{i}].shape = "
                                   f"{_shape_str(x._t.shape)}")
    d = xs[0]._dtype
    if d is _string:
        return wrap(np.stack([x._t for x in xs], ax), _string)
    nt = _NATIVE.get(d)
    if nt is not None:
        return wrap(torch.stack([x._t.view(nt) for x in xs], ax).view(d._torch), d)
    return wrap(torch.stack([x._t for x in xs], ax), d)


@public("torchflow")
def unstack(value, num=None, axis=0, name="unstack") -> list:
    """Unpacks the dimension ``axis`` of ``value`` into a list of tensors.

    Args:
      value: A tensor of rank R > 0.
      num: int or None (default): the length of dimension ``axis``; inferred when None.
      axis: int, default 0; the dimension to unpack, in ``[-R, R)``.
      name: Unused (eager).

    Returns:
      A list of ``value.shape[axis]`` tensors of rank R-1 and ``value``'s dtype.

    Raises:
      ValueError: If ``axis`` is out of range.
      InvalidArgumentError: If ``num`` differs from the dimension size.
    """
    x = tensor_of(value)
    rank = x._t.ndim
    ax = int_value(axis, "axis")
    if not -rank <= ax < rank:
        raise ValueError(f"Argument `axis` = {ax} not in range [{-rank}, {rank})")
    ax = ax + rank if ax < 0 else ax
    n = x._t.shape[ax]
    if num is not None and int_value(num, "num") != n:
        raise op_error("Unpack", f"Input shape axis {ax} must equal {num}, got shape "
                                 f"{_shape_str(x._t.shape)}")
    t, d = x._t, x._dtype
    if is_str(t):
        return [wrap(np.array(np.take(t, i, axis=ax), dtype=object), _string)
                for i in range(n)]
    return [wrap(p, d) for p in torch.unbind(t, ax)]


@public("torchflow")
def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list:
    """Splits a tensor into sub tensors along ``axis``.

    Args:
      value: The Tensor to split.
      num_or_size_splits: An int (number of equal splits) or a list of sizes
        (one may be -1, meaning the rest).
      axis: The dimension to split.
      num: Unused unless the sizes cannot be inferred (kept for TF's signature).
      name: Unused (eager).

    Returns:
      A list of Tensors.

    Raises:
      InvalidArgumentError: If the splits do not fit the dimension.
    """
    x = tensor_of(value)
    rank = x._t.ndim
    ax = int_value(axis, "axis")
    if not -rank <= ax < rank:
        raise op_error("Split", f"-input rank(-{rank}) <= split_dim < input rank ({rank}), "
                                f"but got {ax}")
    ax = ax + rank if ax < 0 else ax
    n = x._t.shape[ax]
    is_int = isinstance(num_or_size_splits, int) or (
        isinstance(num_or_size_splits, (Tensor, np.ndarray, np.integer))
        and np.ndim(num_or_size_splits) == 0)
    if is_int:
        k = int_value(num_or_size_splits, "num_or_size_splits")
        if k <= 0 or n % k:
            raise op_error("Split", f"Number of ways to split should evenly divide the split "
                                    f"dimension, but got split_dim {ax} (size = {n}) and "
                                    f"num_split {k}")
        sizes = [n // k] * k
    else:
        sizes = int_list(num_or_size_splits, "num_or_size_splits")
        neg = [i for i, s in enumerate(sizes) if s == -1]
        if len(neg) > 1:
            raise op_error("SplitV", "There can only be one -1 in the input.")
        rest = sum(s for s in sizes if s != -1)
        if neg:
            sizes[neg[0]] = n - rest
        if any(s < 0 for s in sizes) or sum(sizes) != n:
            raise op_error("SplitV", f"Determined shape must either match input shape along "
                                     f"split_dim exactly if fully specified, or be less than "
                                     f"the size of the input along split_dim if not fully "
                                     f"specified.  Got: {sum(sizes)}")
    t, d = x._t, x._dtype
    if is_str(t):
        bounds = np.cumsum(sizes)[:-1]
        return [wrap(p, _string) for p in np.split(t, bounds, axis=ax)]
    return [wrap(p, d) for p in torch.split(t, sizes, ax)]


# --- squeeze / expand_dims / tile / pad -------------------------------------------


@public("torchflow")
def squeeze(input, axis=None, name=None) -> Tensor:
    """Removes dimensions of size 1 (all of them, or those listed in ``axis``).

    Args:
      input: A tensor of any dtype.
      axis: None (default: every size-1 dimension) or an int / list of ints in ``[-rank,
        rank)``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and values with those dimensions removed.

    Raises:
      InvalidArgumentError: If a listed dimension is not 1 or is out of range.
    """
    if type(input) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input)].squeeze(input, axis, squeeze)
    x = tensor_of(input)
    shape = x._t.shape
    rank = len(shape)
    if axis is None:
        keep = [d for d in shape if d != 1]
    else:
        axes = int_list(axis, "axis")
        norm = set()
        for a in axes:
            if not -rank <= a < rank:
                raise op_error("Squeeze", f"Tried to squeeze dim index {a} for tensor with "
                                          f"{rank} dimensions.")
            a = a + rank if a < 0 else a
            if shape[a] != 1:
                raise op_error("Squeeze", f"Can not squeeze dim[{a}], expected a dimension of "
                                          f"1, got {shape[a]}")
            norm.add(a)
        keep = [d for i, d in enumerate(shape) if i not in norm]
    return _move(x, lambda t: t.reshape(keep), "Squeeze")


@public("torchflow")
def expand_dims(input, axis, name=None) -> Tensor:
    """Inserts a dimension of size 1 at ``axis`` (in ``[-rank-1, rank]``).

    Args:
      input: A tensor of any dtype.
      axis: 0-D int: where the new size-1 dimension goes.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and values, of rank ``rank(input) + 1``.

    Raises:
      InvalidArgumentError: If ``axis`` is out of range.
    """
    if type(input) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input)].expand_dims(input, axis, expand_dims)
    x = tensor_of(input)
    rank = x._t.ndim
    a = int_value(axis, "axis")
    if not -rank - 1 <= a <= rank:
        raise op_error("ExpandDims", f"Tried to expand dim index {a} for tensor with {rank} "
                                     f"dimensions.")
    a = a + rank + 1 if a < 0 else a
    t = x._t
    if is_str(t):
        return wrap(np.expand_dims(t, a), _string)
    return wrap(t.unsqueeze(a), x._dtype)


@public("torchflow")
def tile(input, multiples, name=None) -> Tensor:
    """Repeats ``input`` ``multiples[i]`` times along dimension ``i``.

    Args:
      input: A tensor of any dtype.
      multiples: A 1-D int32/int64 list or tensor of length ``rank(input)``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype whose dimension ``i`` is ``input.shape[i] *
        multiples[i]``.

    Raises:
      InvalidArgumentError: If ``multiples`` has the wrong length or a
        negative entry.
    """
    if type(input) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input)].tile(input, multiples, tile)
    x = tensor_of(input)
    m = int_list(multiples, "multiples")
    rank = x._t.ndim
    if len(m) != rank:
        raise op_error("Tile", f"Expected multiples argument to be a vector of length {rank} "
                               f"but got length {len(m)}")
    for i, v in enumerate(m):
        if v < 0:
            raise op_error("Tile", f"Expected multiples[{i}] >= 0, but got {v}")
    if is_str(x._t):
        return wrap(np.tile(x._t, m) if rank else x._t.copy(), _string)
    if rank == 0:
        return x
    return _move(x, lambda t: t.repeat(*m), "Tile")


def _mirror_index(n: int, before: int, after: int, symmetric: bool, device):
    i = torch.arange(-before, n + after, device=device)
    if symmetric:
        i = torch.where(i < 0, -i - 1, i)
        i = torch.where(i >= n, 2 * n - 1 - i, i)
    else:
        i = torch.where(i < 0, -i, i)
        i = torch.where(i >= n, 2 * (n - 1) - i, i)
    return i


@public("torchflow")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None) -> Tensor:  # noqa: C901 (one flat dispatch on the hot path)
    """Pads a tensor.

    Args:
      tensor: A Tensor.
      paddings: An int list/tensor of shape ``[rank, 2]``: how many values to
        add before and after each dimension.
      mode: "CONSTANT", "REFLECT" or "SYMMETRIC" (case-insensitive).
      constant_values: The fill value in CONSTANT mode (same dtype as tensor).
      name: Unused (eager).

    Returns:
      The padded Tensor.

    Raises:
      ValueError: For an unknown mode.
      InvalidArgumentError: For bad paddings.

    >>> import torchflow as tf
    >>> tf.pad([[1, 2]], [[1, 0], [0, 1]]).numpy()
    array([[0, 0, 0],
           [1, 2, 0]], dtype=int32)
    """
    x = tensor_of(tensor)
    m = str(mode).upper()
    if m not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC". Received `mode` = {mode}')
    if isinstance(paddings, Tensor) and paddings._t.ndim == 2:  # the usual [rank, 2] tensor
        if not paddings._dtype.is_integer:
            raise TypeError(f"Expected int32 or int64 for `paddings`, got {paddings._dtype.name}")
        p = np.asarray(paddings._t.tolist(), dtype=np.int64).reshape(tuple(paddings._t.shape))
    else:
        p = np.asarray(int_list(paddings, "paddings") if not isinstance(paddings, (list, tuple))
                       else [int_list(r, "paddings") for r in paddings], dtype=np.int64)
    shape = list(x._t.shape)
    rank = len(shape)
    op = "Pad" if m == "CONSTANT" else "MirrorPad"
    if isinstance(paddings, (Tensor, np.ndarray)):
        p = p.reshape(np.shape(paddings) if not isinstance(paddings, Tensor)
                      else tuple(paddings.shape))
    if p.ndim != 2 or p.shape[0] != rank or p.shape[1] != 2:  # pyright: ignore[reportGeneralTypeIssues] - numpy's stub types reshape(()) as 0-d
        raise op_error(op, f"The first dimension of paddings must be the rank of inputs"
                           f"{_shape_str(p.shape)} {_shape_str(shape)}")
    for r in range(rank):
        b, a = int(p[r, 0]), int(p[r, 1])
        if b < 0 or a < 0:
            raise op_error(op, f"Paddings must be non-negative: {b} {a}")
        if m == "REFLECT" and (b >= shape[r] or a >= shape[r]):
            raise op_error(op, f"paddings must be less than the dimension size: {b}, {a} not "
                               f"less than {shape[r]}")
        if m == "SYMMETRIC" and (b > shape[r] or a > shape[r]):
            raise op_error(op, f"paddings must be no greater than the dimension size: {b}, {a} "
                               f"greater than {shape[r]}")
    flat = [int(v) for v in p[::-1].reshape(-1)]  # F.pad wants last dim first
    if m == "CONSTANT":
        if type(constant_values) is int and constant_values == 0:
            constant_values = b"" if x._dtype is _string else x._dtype.as_numpy_dtype(0) \
                if x._dtype is not dtypes.bfloat16 else 0.0
        cv = tensor_of(constant_values, x._dtype)
        if cv._dtype is not x._dtype:
            raise TypeError(f"tf.pad: constant_values of dtype {cv._dtype.name} does not match "
                            f"tensor dtype {x._dtype.name}")
        if is_str(x._t):
            pool = np.concatenate([x._t.reshape(-1), cv._t.reshape(-1)[:1]])
            idx = torch.arange(x._t.size, dtype=torch.int64).reshape(shape)
            return wrap(gather_pool(pool, F.pad(idx, flat, value=x._t.size)), _string)
        if rank == 0:
            return x
        t = x._t
        if cv._t.requires_grad:
            mask = F.pad(torch.zeros(shape, dtype=torch.bool, device=t.device), flat,
                         value=True)
            return wrap(torch.where(mask, cv._t, F.pad(t, flat)), x._dtype)
        val = cv._t.item()
        if x._dtype.is_complex:
            if val == 0:
                return _move(x, lambda u: F.pad(u, flat), op)
            mask = F.pad(torch.zeros(shape, dtype=torch.bool, device=t.device), flat, value=True)
            return wrap(torch.where(mask, cv._t.to(t.device), F.pad(t, flat)), x._dtype)
        if x._dtype in _NATIVE:  # padded through the same-width signed view
            val = int(np.array(val, dtype=x._dtype.as_numpy_dtype).view(
                np.dtype(f"i{x._dtype.size}")))
        return _move(x, lambda u: F.pad(u, flat, value=val), op)
    sym = m == "SYMMETRIC"

    def fn(u):
        for r in range(rank):
            b, a = int(p[r, 0]), int(p[r, 1])
            if b or a:
                u = u.index_select(r, _mirror_index(shape[r], b, a, sym, u.device))
        return u

    return _move(x, fn, op)


# --- reverse / roll / repeat / reverse_sequence -----------------------------------------


@public("torchflow")
def reverse(tensor, axis, name=None) -> Tensor:
    """Reverses the dimensions listed in ``axis``.

    Args:
      tensor: A tensor of any dtype.
      axis: A 1-D int32/int64 list or tensor of distinct dimensions to reverse.
      name: Unused (eager).

    Returns:
      A tensor of ``tensor``'s shape and dtype.

    Raises:
      InvalidArgumentError: If an axis is out of range or repeated.
    """
    if type(tensor) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(tensor)].reverse(tensor, axis, reverse)
    x = tensor_of(tensor)
    rank = x._t.ndim
    axes = []
    for i, a in enumerate(int_list(axis, "axis")):
        if not -rank <= a < rank:
            raise op_error("ReverseV2", f"'axis'[{i}] = {a} is out of valid range [0, "
                                        f"{rank - 1}")
        a = a + rank if a < 0 else a
        if a in axes:
            raise op_error("ReverseV2", f"axis {a} specified more than once.")
        axes.append(a)
    if not axes:
        return x
    return _move(x, lambda t: t.flip(axes), "ReverseV2")


@public("torchflow")
def roll(input, shift, axis, name=None) -> Tensor:
    """Rolls elements along ``axis`` by ``shift`` (both ints or equal-length lists).

    Args:
      input: A tensor of any dtype.
      shift: int or 1-D int list: how far to shift; positive moves elements towards higher
        indices.
      axis: int or 1-D int list of the same length as ``shift``: the dimensions to roll.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s shape and dtype.

    Raises:
      InvalidArgumentError: If ``shift`` and ``axis`` differ in length or an
        axis is out of range.
    """
    x = tensor_of(input)
    s = int_list(shift, "shift")
    a = int_list(axis, "axis")
    rank = x._t.ndim
    if len(s) != len(a):
        raise op_error("Roll", "shift and axis must have the same size")
    for v in a:
        if not -rank <= v < rank:
            raise op_error("Roll", f"axis {v} is out of range")
    return _move(x, lambda t: torch.roll(t, s, a), "Roll")


@public("torchflow")
def repeat(input, repeats, axis=None, name=None) -> Tensor:
    """Repeats each element ``repeats`` times along ``axis`` (flattening if None).

    Args:
      input: A tensor of any dtype.
      repeats: A 0-D or 1-D int tensor: repeats per element, broadcast to
        ``input.shape[axis]``.
      axis: int or None (default): the dimension to repeat along; None flattens ``input``
        first.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype; dimension ``axis`` has ``sum(repeats)`` entries.

    Raises:
      InvalidArgumentError: If ``repeats`` does not broadcast to the dimension.
    """
    x = tensor_of(input)
    if axis is None:
        x = reshape(x, [-1])
        ax = 0
    else:
        ax = int_value(axis, "axis")
        rank = x._t.ndim
        if not -rank <= ax < rank:
            raise op_error("Repeat", f"axis {ax} out of range for rank {rank}")
    r = tensor_of(repeats)
    if not r._dtype.is_integer:
        raise TypeError(f"tf.repeat: `repeats` must be integers, got {r._dtype.name}")
    rt = r._t.to(torch.int64).reshape(-1) if r._t.ndim else int(r._t.item())
    n = x._t.shape[ax]
    if not isinstance(rt, int) and rt.numel() not in (1, n):
        raise op_error("Repeat", f"repeats must have 1 or {n} elements, got {rt.numel()}")
    if not isinstance(rt, int) and rt.numel() == 1:
        rt = int(rt.item())
    return _move(x, lambda t: torch.repeat_interleave(t, rt.to(t.device) if not isinstance(
        rt, int) else rt, dim=ax), "Repeat")


@public("torchflow")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None) -> Tensor:
    """Reverses the first ``seq_lengths[b]`` elements along ``seq_axis`` of each batch b.

    Args:
      input: A tensor of any dtype.
      seq_lengths: A 1-D int32/int64 tensor of length ``input.shape[batch_axis]``, each at
        most ``input.shape[seq_axis]``.
      seq_axis: int: the dimension that is partially reversed.
      batch_axis: int, default 0: the dimension indexed by ``seq_lengths``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s shape and dtype.

    Raises:
      InvalidArgumentError: If a length exceeds the sequence dimension.
    """
    x = tensor_of(input)
    rank = x._t.ndim
    sa = int_value(seq_axis if seq_axis is not None else 1, "seq_axis")
    ba = int_value(batch_axis if batch_axis is not None else 0, "batch_axis")
    sa, ba = sa % rank, ba % rank
    lens = tensor_of(seq_lengths)
    lt = lens._t.to(torch.int64)
    shape = x._t.shape
    if lt.shape != (shape[ba],):
        raise op_error("ReverseSequence", f"Length of seq_lengths != input.dims({ba}), "
                                          f"({lt.shape[0] if lt.ndim else 0} vs. {shape[ba]})")
    if lt.numel() and (lt.max() > shape[sa] or lt.min() < 0):
        raise op_error("ReverseSequence", f"seq_lens(i) > input.dims(seq_dim) ({sa})")

    def fn(t):
        u = t.movedim((ba, sa), (0, 1))
        j = torch.arange(u.shape[1], device=u.device)
        ln = lt.to(u.device).unsqueeze(1)
        idx = torch.where(j < ln, ln - 1 - j, j)
        b = torch.arange(u.shape[0], device=u.device).unsqueeze(1)
        return u[b, idx].movedim((0, 1), (ba, sa))

    return _move(x, fn, "ReverseSequence")


__all__ = ["reshape", "transpose", "concat", "stack", "unstack", "split", "squeeze",
           "expand_dims", "tile", "pad", "reverse", "roll", "repeat", "reverse_sequence"]
