"""``tf.RaggedTensor`` and ``tf.RaggedTensorSpec``.

A ragged tensor is ``flat_values`` (a Tensor holding every value in row-major
order) plus one ``row_splits`` vector per ragged dimension: row ``i`` of a level
is ``values[row_splits[i]:row_splits[i + 1]]``. ``values`` of the outer level
is itself a RaggedTensor when there are several ragged dimensions. Splits are
int64 Tensors unless built from int32 ones (TF's ``row_splits_dtype``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.composite_tensor import CompositeTensor, TypeSpec
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.util.api import public

_I64 = dtypes.int64
_SPLIT_DTYPES = (dtypes.int32, dtypes.int64)


# --- helpers on the Tensors behind a ragged tensor ----------------------------------
def take_rows(values, idx: torch.Tensor):
    """``values[idx]`` along the first dimension (Tensor, string Tensor or RaggedTensor)."""
    if isinstance(values, RaggedTensor):
        return values._gather_rows(idx)
    if values._dtype is dtypes.string:
        return wrap(values._t[idx.cpu().numpy()], dtypes.string)
    return wrap(values._t[idx.to(values._t.device)], values._dtype)


def slice_rows(values, start: int, stop: int):
    if isinstance(values, RaggedTensor):
        return values._slice_rows(start, stop)
    return wrap(values._t[start:stop], values._dtype)


def nrows_of(values) -> int:
    if isinstance(values, RaggedTensor):
        return values._nrows()
    return int(values._t.shape[0])


def splits_tensor(t: torch.Tensor, dtype: dtypes.DType = _I64) -> Tensor:
    return wrap(t.to(dtype._torch), dtype)


def lengths_to_splits(lengths: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(lengths.shape[0] + 1, dtype=torch.int64, device=lengths.device)
    torch.cumsum(lengths.to(torch.int64), 0, out=out[1:])
    return out


def rowids_of(splits: torch.Tensor) -> torch.Tensor:
    """The row of each value (TF's ``value_rowids``) for ``splits``."""
    lengths = splits[1:] - splits[:-1]
    return torch.repeat_interleave(torch.arange(lengths.shape[0], device=splits.device), lengths)


def from_nested_rows(nested: list, ragged_rank: int, make_flat, splits_dtype=_I64,
                     uniform=()):
    """A RaggedTensor from ``ragged_rank`` levels of nested Python lists.

    ``make_flat(items)`` builds the flat values Tensor from the innermost items (so
    an all-empty input still gets its dtype); ``uniform[i]`` is the row length of
    level ``i + 1`` when it comes from a dense dimension. Used by ops whose TF result
    is ragged (``tf.strings.split``, ``unicode_decode``, ...).
    """
    items, levels = nested, []
    for _ in range(ragged_rank):
        levels.append(torch.tensor([len(x) for x in items], dtype=torch.int64))
        items = [v for x in items for v in x]
    result = make_flat(items)
    uniform = list(uniform) + [None] * (ragged_rank - len(uniform))
    for lengths, k in reversed(list(zip(levels, uniform))):
        result = RaggedTensor(result, splits_tensor(lengths_to_splits(lengths), splits_dtype),
                              internal=True, uniform_row_length=k)
    return result


def replace_innermost(rt, new):
    """``rt`` with its innermost ragged level (the RaggedTensor over the flat values)
    replaced by ``new`` (a Tensor, to drop that dimension, or a RaggedTensor)."""
    if not isinstance(rt._values, RaggedTensor):
        return new
    return rt.with_values(replace_innermost(rt._values, new))


def rank_of(x) -> int:
    """The rank of a Tensor or RaggedTensor (always known eagerly)."""
    if isinstance(x, RaggedTensor):
        return x.ragged_rank + rank_of(x.flat_values)
    return len(x._t.shape)


def _int_arg(x, what: str, op: str) -> Tensor:
    t = x if isinstance(x, Tensor) else convert_to_tensor(
        x, None if isinstance(x, (Tensor, np.ndarray)) else _I64)
    if t._dtype not in _SPLIT_DTYPES:
        raise ValueError(f"{op}: {what} must have dtype int32 or int64, got {t._dtype.name}")
    if t.shape.rank != 1:
        raise ValueError(f"Shape {t.shape} must have rank 1")
    return t


def _check_splits(op: str, splits: torch.Tensor, nvals: int) -> None:
    s = splits.cpu()
    if s.shape[0] == 0:
        raise InvalidArgumentError(None, None, f"Arguments to {op} do not form a valid "
                                   f"RaggedTensor:zero row_splits must not be empty")
    if int(s[0]) != 0:
        raise InvalidArgumentError(None, None, f"Arguments to {op} do not form a valid "
                                   f"RaggedTensor:zeros:Condition x == y did not hold.")
    if bool((s[1:] < s[:-1]).any()):
        raise InvalidArgumentError(None, None, f"Arguments to {op} do not form a valid "
                                   f"RaggedTensor:monotonic:Condition x >= 0 did not hold.")
    if int(s[-1]) != nvals:
        raise InvalidArgumentError(None, None, f"Arguments to {op} do not form a valid "
                                   f"RaggedTensor:nvals:Condition x == y did not hold element-"
                                   f"wise:x (row_splits[-1] = {int(s[-1])}) and y "
                                   f"(nvals = {nvals})")


def _stand_in_partition(op: str, values, splits: "Tensor | None"):
    """``(values, splits)`` made a valid partition where a dry trace's stand-in
    arguments (zeros of the signature: ``get_concrete_function``, SavedModel) are not
    one; None elsewhere (the arguments are checked as given). Only the graph of such
    a trace is used: the factory's lowering (``graph_lowering_ragged_build``) builds
    on the real arguments, and the recording is not kept for replay."""
    r = graph_trace.active()
    if r is None or not r.dry:
        return None
    if splits is None:  # the caller found its arguments invalid
        graph_trace.mark_eager(f"{op} of a dry trace's stand-in arguments")
        return True
    if splits._t.shape[0] == 0:
        return None
    s = splits._t
    try:
        _check_splits(op, s, nrows_of(values))
        return None
    except InvalidArgumentError:
        pass
    if int(s[0]) != 0 or bool((s[1:] < s[:-1]).any()):
        s = torch.zeros_like(s)
    if isinstance(values, RaggedTensor):
        if int(s[-1]) != 0:
            return None
        graph_trace.mark_eager(f"{op} of a dry trace's stand-in arguments")
        return _no_rows(values), wrap(s, splits._dtype)
    graph_trace.mark_eager(f"{op} of a dry trace's stand-in arguments")
    shape = (int(s[-1]),) + tuple(values._t.shape[1:])
    v = np.full(shape, b"", dtype=object) if values._dtype is dtypes.string else \
        torch.zeros(shape, dtype=values._t.dtype, device=values._t.device)
    return wrap(v, values._dtype), wrap(s, splits._dtype)


def _no_rows(values):
    """``values`` with no rows (a RaggedTensor keeps its ragged rank)."""
    if isinstance(values, RaggedTensor):
        d = values.row_splits_dtype
        return RaggedTensor(_no_rows(values._values), wrap(torch.zeros(1, dtype=d._torch), d),
                            internal=True)
    shape = (0,) + tuple(values._t.shape[1:])
    v = np.full(shape, b"", dtype=object) if values._dtype is dtypes.string else \
        torch.zeros(shape, dtype=values._t.dtype, device=values._t.device)
    return wrap(v, values._dtype)


def _values_arg(values):
    if isinstance(values, RaggedTensor):
        return values
    t = convert_to_tensor(values)
    if t.shape.rank == 0:
        raise ValueError("values must have rank >= 1")
    return t


@public("torchflow")
class RaggedTensor(CompositeTensor):
    """Represents a ragged tensor: a tensor whose rows may have different lengths.

    Build one with ``tf.ragged.constant`` or a ``RaggedTensor.from_*`` factory; the
    constructor is private, as in TF. ``from_tensor``, ``to_tensor``, ``merge_dims``,
    indexing and the operators are installed by ``ragged_convert``,
    ``ragged_getitem`` and ``ragged_operators`` (one concept per file).

    >>> import torchflow as tf
    >>> rt = tf.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], row_splits=[0, 2, 2, 5])
    >>> rt
    <tf.RaggedTensor [[3, 1], [], [4, 1, 5]]>
    >>> rt.shape, rt.ragged_rank
    (TensorShape([3, None]), 1)

    Args:
      values: The flat values (a Tensor) or the inner RaggedTensor.
      row_splits: A 1-D int64/int32 Tensor of row boundaries.
      internal: Must be True; only the factories pass it.
      uniform_row_length: None, or the int length of every row (a uniform dimension).

    Raises:
      ValueError: a direct call without ``internal=True`` (TF's message).
    """

    __slots__ = ("_values", "_row_splits", "_uniform_row_length", "__weakref__")

    # Installed at import by ragged_convert, ragged_getitem and ragged_dispatch.
    to_tensor: Callable[..., Tensor]
    from_tensor: Callable[..., Any]
    merge_dims: Callable[..., Any]
    to_sparse: Callable[..., Any]
    from_sparse: Callable[..., Any]
    __getitem__: Callable[..., Any]
    __div__: Callable[..., Any]
    __lt__: Callable[..., Any]
    __le__: Callable[..., Any]
    __gt__: Callable[..., Any]
    __ge__: Callable[..., Any]
    __neg__: Callable[..., Any]
    __abs__: Callable[..., Any]
    __invert__: Callable[..., Any]

    def __init__(self, values, row_splits, internal=False, uniform_row_length=None):
        if internal is not True:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length  # an int for a uniform dimension

    # --- factories --------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True) -> "RaggedTensor":
        """A RaggedTensor whose row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``.

        Args:
          values: A Tensor (or RaggedTensor) of shape ``[nvals, ...]``.
          row_splits: A 1-D int32/int64 vector, starting at 0, non-decreasing,
            ending at ``nvals``.
          name: Unused (eager).
          validate: If True, checks that ``row_splits`` is valid.

        Returns:
          A RaggedTensor with ``len(row_splits) - 1`` rows.

        Raises:
          InvalidArgumentError: If ``row_splits`` is not valid for ``values``.
        """
        values = _values_arg(values)
        splits = _int_arg(row_splits, "row_splits", "from_row_splits")
        fixed = _stand_in_partition("from_row_splits", values, splits) if validate else None
        if fixed is not None:
            values, splits = fixed
        elif validate:
            _check_splits("from_row_splits", splits._t, nrows_of(values))
        return cls(values, splits, internal=True)._with_splits_dtype(splits._dtype)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True) -> "RaggedTensor":
        """A RaggedTensor whose row ``i`` has ``row_lengths[i]`` values of ``values``.

        Args:
          values: A Tensor (or RaggedTensor) of shape ``[nvals, ...]``.
          row_lengths: A 1-D int32/int64 vector of non-negative lengths summing to ``nvals``.
          name: A name for the operation (optional).
          validate: bool, default True: whether the partition is checked.

        Returns:
          A RaggedTensor with ``len(row_lengths)`` rows.

        Raises:
          InvalidArgumentError: If a length is negative or they do not sum to ``nvals``.
        """
        values = _values_arg(values)
        lengths = _int_arg(row_lengths, "row_lengths", "from_row_lengths")
        if validate and bool((lengths._t < 0).any()):
            raise InvalidArgumentError(None, None, "Arguments to from_row_lengths do not form "
                                       "a valid RaggedTensor:Condition x >= 0 did not hold")
        splits = splits_tensor(lengths_to_splits(lengths._t), lengths._dtype)
        fixed = _stand_in_partition("from_row_lengths", values, splits) if validate else None
        if fixed is not None:
            values, splits = fixed
        elif validate:
            _check_splits("from_row_lengths", splits._t, nrows_of(values))
        return cls(values, splits, internal=True)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None,
                          validate=True) -> "RaggedTensor":
        """A RaggedTensor where ``values[i]`` goes to row ``value_rowids[i]``.

        Args:
          values: A Tensor of shape ``[nvals, ...]``.
          value_rowids: A sorted 1-D int vector of length ``nvals``.
          nrows: The number of rows (default ``value_rowids[-1] + 1``).
          name: Unused (eager).
          validate: If True, checks that the row ids are sorted and in range.

        Raises:
          InvalidArgumentError: If the row ids are not sorted or out of range.
        """
        values = _values_arg(values)
        ids = _int_arg(value_rowids, "value_rowids", "from_value_rowids")
        t = ids._t.to(torch.int64)
        n = (int(t[-1]) + 1 if t.shape[0] else 0) if nrows is None else int(
            convert_to_tensor(nrows).numpy())
        bad = validate and (t.shape[0] and (bool((t[1:] < t[:-1]).any()) or int(t[0]) < 0
                                            or int(t[-1]) >= n) or t.shape[0] != nrows_of(values))
        if bad and _stand_in_partition("from_value_rowids", values, None):
            t = t[:0]  # no values: a partition of the dry trace's nrows zeros
            values = _no_rows(values)
        if validate and t.shape[0] and (bool((t[1:] < t[:-1]).any()) or int(t[0]) < 0
                                        or int(t[-1]) >= n):
            raise InvalidArgumentError(None, None, "Arguments to from_value_rowids do not form "
                                       "a valid RaggedTensor:Condition x >= 0 did not hold")
        if validate and t.shape[0] != nrows_of(values):
            raise InvalidArgumentError(None, None, "Arguments to from_value_rowids do not form "
                                       "a valid RaggedTensor:Condition x == y did not hold")
        lengths = torch.bincount(t, minlength=n) if t.shape[0] else torch.zeros(n, dtype=t.dtype)
        return cls(values, splits_tensor(lengths_to_splits(lengths), ids._dtype), internal=True)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True) -> "RaggedTensor":
        """A RaggedTensor whose row ``i`` starts at ``row_starts[i]``.

        Args:
          values: A Tensor (or RaggedTensor) of shape ``[nvals, ...]``.
          row_starts: A 1-D int32/int64 vector, starting at 0 and non-decreasing; the last
            row ends at ``nvals``.
          name: A name for the operation (optional).
          validate: bool, default True: whether the partition is checked.

        Returns:
          A RaggedTensor with ``len(row_starts)`` rows.

        Raises:
          InvalidArgumentError: If ``row_starts`` is not valid for ``values``.
        """
        values = _values_arg(values)
        starts = _int_arg(row_starts, "row_starts", "from_row_starts")
        end = torch.tensor([nrows_of(values)], dtype=starts._t.dtype, device=starts._t.device)
        return cls.from_row_splits(values, wrap(torch.cat([starts._t, end]), starts._dtype),
                                   validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True) -> "RaggedTensor":
        """A RaggedTensor whose row ``i`` ends at ``row_limits[i]``.

        Args:
          values: A Tensor (or RaggedTensor) of shape ``[nvals, ...]``.
          row_limits: A 1-D int32/int64 vector, non-decreasing, ending at ``nvals``; the
            first row starts at 0.
          name: A name for the operation (optional).
          validate: bool, default True: whether the partition is checked.

        Returns:
          A RaggedTensor with ``len(row_limits)`` rows.

        Raises:
          InvalidArgumentError: If ``row_limits`` is not valid for ``values``.
        """
        values = _values_arg(values)
        limits = _int_arg(row_limits, "row_limits", "from_row_limits")
        zero = torch.zeros(1, dtype=limits._t.dtype, device=limits._t.device)
        return cls.from_row_splits(values, wrap(torch.cat([zero, limits._t]), limits._dtype),
                                   validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None) -> "RaggedTensor":
        """A RaggedTensor whose rows all have ``uniform_row_length`` values.

        Args:
          values: A Tensor (or RaggedTensor) of shape ``[nvals, ...]``.
          uniform_row_length: A scalar int: the length of every row.
          nrows: None (``nvals / uniform_row_length``) or the number of rows (needed when
            the length is 0).
          validate: bool, default True: whether the partition is checked.
          name: A name for the operation (optional).

        Returns:
          A RaggedTensor with a uniform (non-ragged) second dimension.

        Raises:
          InvalidArgumentError: If ``nvals`` is not ``nrows * uniform_row_length``.
        """
        values = _values_arg(values)
        k = int(convert_to_tensor(uniform_row_length).numpy())
        nvals = nrows_of(values)
        n = (nvals // k if k else 0) if nrows is None else int(nrows)
        if validate and n * k != nvals:
            raise InvalidArgumentError(None, None, "Arguments to from_uniform_row_length do not "
                                       "form a valid RaggedTensor")
        return cls(values, splits_tensor(torch.arange(n + 1) * k), internal=True,
                   uniform_row_length=k)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None,
                               validate=True) -> "RaggedTensor":
        """A RaggedTensor with one ragged dimension per vector of ``nested_row_splits``.

        Args:
          flat_values: A Tensor of shape ``[nvals, ...]``, the innermost values.
          nested_row_splits: A list of 1-D row-splits vectors, outermost first.
          name: A name for the operation (optional).
          validate: bool, default True: whether the partition is checked.

        Returns:
          A RaggedTensor of ragged rank ``len(nested_row_splits)``.

        Raises:
          TypeError: If ``nested_row_splits`` is a single Tensor, not a list.
        """
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True) -> "RaggedTensor":
        """A RaggedTensor with one ragged dimension per vector of ``nested_row_lengths``.

        Args:
          flat_values: A Tensor of shape ``[nvals, ...]``, the innermost values.
          nested_row_lengths: A list of 1-D row-lengths vectors, outermost first.
          name: A name for the operation (optional).
          validate: bool, default True: whether the partition is checked.

        Returns:
          A RaggedTensor of ragged rank ``len(nested_row_lengths)``.
        """
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True) -> "RaggedTensor":
        """A RaggedTensor with one ragged dimension per vector of ``nested_value_rowids``.

        Args:
          flat_values: A Tensor of shape ``[nvals, ...]``, the innermost values.
          nested_value_rowids: A list of 1-D sorted row-id vectors, outermost first.
          nested_nrows: None or a list of the numbers of rows, one per row-id vector.
          name: A name for the operation (optional).
          validate: bool, default True: whether the partition is checked.

        Returns:
          A RaggedTensor of ragged rank ``len(nested_value_rowids)``.
        """
        ids = list(nested_value_rowids)
        nrows = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
        result = flat_values
        for rowids, n in reversed(list(zip(ids, nrows))):
            result = cls.from_value_rowids(result, rowids, n, validate=validate)
        return result

    # --- properties ----------------------------------------------------------
    @property
    def values(self):
        """The concatenated rows (a Tensor, or a RaggedTensor if ragged_rank > 1)."""
        return self._values

    @property
    def row_splits(self) -> Tensor:
        """The row-split indices of the outermost ragged dimension."""
        return self._row_splits

    @property
    def flat_values(self) -> Tensor:
        """The innermost values (a Tensor of shape ``[nvals, ...]``)."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self) -> tuple:
        """The ``row_splits`` of every ragged dimension, outermost first."""
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions."""
        v = self._values
        return 1 + (v.ragged_rank if isinstance(v, RaggedTensor) else 0)

    @property
    def dtype(self) -> dtypes.DType:
        return self.flat_values._dtype

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        return self._row_splits._dtype

    @property
    def uniform_row_length(self):
        """The length of every row (a scalar Tensor) for a uniform dimension, else None."""
        k = self._uniform_row_length
        return None if k is None else wrap(torch.tensor(k, dtype=self.row_splits_dtype._torch),
                                           self.row_splits_dtype)

    @property
    def shape(self) -> TensorShape:
        """Static shape: ``[nrows, None, ...]`` (None for each ragged dimension)."""
        dims: list = [self._nrows()]
        rt = self
        while isinstance(rt, RaggedTensor):
            dims.append(rt._uniform_row_length)
            rt = rt._values
        return TensorShape(dims + list(rt.shape.dims[1:]))

    def get_shape(self) -> TensorShape:
        """The static shape, the same as ``shape``: None for the ragged dimensions.

        Returns:
          A ``TensorShape``.
        """
        return self.shape

    @property
    def _type_spec(self) -> "RaggedTensorSpec":
        return RaggedTensorSpec.from_value(self)

    # --- row partitions ------------------------------------------------------
    def _nrows(self) -> int:
        return int(self._row_splits._t.shape[0]) - 1

    def nrows(self, out_type=None, name=None) -> Tensor:
        """The number of rows, as a scalar Tensor of ``out_type`` (default splits dtype).

        Args:
          out_type: None (the row splits' dtype) or ``tf.int32``/``tf.int64``.
          name: A name for the operation (optional).

        Returns:
          A scalar Tensor.
        """
        d = self.row_splits_dtype if out_type is None else dtypes.as_dtype(out_type)
        return wrap(torch.tensor(self._nrows(), dtype=d._torch), d)

    def row_lengths(self, axis=1, name=None):
        """The length of each row of dimension ``axis`` (a Tensor, or ragged for axis > 1).

        Args:
          axis: int, default 1: the ragged dimension whose row lengths are returned.
          name: A name for the operation (optional).

        Returns:
          A 1-D Tensor for ``axis=1``, else a RaggedTensor of the lengths.
        """
        if axis < 0:
            axis += rank_of(self)
        if axis == 1:
            s = self._row_splits
            return wrap(s._t[1:] - s._t[:-1], s._dtype)
        if axis == 0:
            raise ValueError("axis=0 is not a ragged dimension")
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        shape = list(self.flat_values._t.shape)
        n = int(shape[axis - 1])
        return self.with_flat_values(
            wrap(torch.full(shape[:axis - 1], n, dtype=self.row_splits_dtype._torch),
                 self.row_splits_dtype))

    def nested_row_lengths(self, name=None) -> tuple:
        """The row lengths of every ragged dimension, outermost first.

        Args:
          name: A name for the operation (optional).

        Returns:
          A tuple of 1-D Tensors, one per ragged dimension.
        """
        return tuple(wrap(s._t[1:] - s._t[:-1], s._dtype) for s in self.nested_row_splits)

    def value_rowids(self, name=None) -> Tensor:
        """The row of each value of ``values``.

        Args:
          name: A name for the operation (optional).

        Returns:
          A 1-D Tensor of the splits' dtype, as long as ``values``.
        """
        return wrap(rowids_of(self._row_splits._t).to(self.row_splits_dtype._torch),
                    self.row_splits_dtype)

    def nested_value_rowids(self, name=None) -> tuple:
        """The row ids of every ragged dimension, outermost first.

        Args:
          name: A name for the operation (optional).

        Returns:
          A tuple of 1-D Tensors, one per ragged dimension.
        """
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    def row_starts(self, name=None) -> Tensor:
        """The index in ``values`` where each row starts: ``row_splits[:-1]``.

        Args:
          name: A name for the operation (optional).

        Returns:
          A 1-D Tensor of the splits' dtype.
        """
        return wrap(self._row_splits._t[:-1], self.row_splits_dtype)

    def row_limits(self, name=None) -> Tensor:
        """The index in ``values`` where each row ends: ``row_splits[1:]``.

        Args:
          name: A name for the operation (optional).

        Returns:
          A 1-D Tensor of the splits' dtype.
        """
        return wrap(self._row_splits._t[1:], self.row_splits_dtype)

    def bounding_shape(self, axis=None, name=None, out_type=None) -> Tensor:
        """The tightest dense shape containing this ragged tensor (an int Tensor).

        Args:
          axis: An int or list of ints: only those dimensions.
          name: Unused (eager).
          out_type: The result dtype (default the splits dtype).
        """
        d = self.row_splits_dtype if out_type is None else dtypes.as_dtype(out_type)
        dims = [self._nrows()]
        for s in self.nested_row_splits:
            lengths = s._t[1:] - s._t[:-1]
            dims.append(int(lengths.max()) if lengths.shape[0] else 0)
        dims += self.flat_values.shape.as_list()[1:]
        r = torch.tensor(dims, dtype=d._torch)
        if axis is not None:
            r = r[axis] if isinstance(axis, int) else r[list(axis)]
        return wrap(r, d)

    # --- derived ragged tensors --------------------------------------------------
    def with_values(self, new_values) -> "RaggedTensor":
        """This tensor's outer row partition with ``new_values`` as values.

        Args:
          new_values: A Tensor or RaggedTensor with as many rows as ``values``.

        Returns:
          A RaggedTensor.
        """
        new_values = _values_arg(new_values)
        return RaggedTensor(new_values, self._row_splits, internal=True,
                            uniform_row_length=self._uniform_row_length)

    def with_flat_values(self, new_values) -> "RaggedTensor":
        """This tensor's row partitions with ``new_values`` as flat values.

        Args:
          new_values: A Tensor with as many rows as ``flat_values``.

        Returns:
          A RaggedTensor of the same ragged structure.
        """
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype) -> "RaggedTensor":
        """This tensor with every row_splits cast to ``dtype`` (int32 or int64).

        Args:
          dtype: ``tf.int32`` or ``tf.int64``.

        Returns:
          A RaggedTensor of the same values and partitions.
        """
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _SPLIT_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, got {dtype!r}")
        return self._with_splits_dtype(dtype)

    def _with_splits_dtype(self, dtype) -> "RaggedTensor":
        v = self._values
        if isinstance(v, RaggedTensor):
            v = v._with_splits_dtype(dtype)
        s = self._row_splits
        if s._dtype is not dtype:
            s = wrap(s._t.to(dtype._torch), dtype)
        return RaggedTensor(v, s, internal=True, uniform_row_length=self._uniform_row_length)

    def _gather_rows(self, idx: torch.Tensor) -> "RaggedTensor":
        s = self._row_splits._t.to(torch.int64)
        idx = idx.to(s.device)
        starts, limits = s[:-1][idx], s[1:][idx]
        lengths = limits - starts
        new_splits = lengths_to_splits(lengths)
        flat_idx = (torch.repeat_interleave(starts - new_splits[:-1], lengths)
                    + torch.arange(int(new_splits[-1]), device=s.device))
        return RaggedTensor(take_rows(self._values, flat_idx),
                            splits_tensor(new_splits, self.row_splits_dtype), internal=True,
                            uniform_row_length=self._uniform_row_length)

    def _slice_rows(self, start: int, stop: int) -> "RaggedTensor":
        s = self._row_splits._t[start:stop + 1]
        if s.shape[0] == 0:
            s = self._row_splits._t[:1] * 0
        lo, hi = int(s[0]), int(s[-1])
        return RaggedTensor(slice_rows(self._values, lo, hi),
                            wrap(s - lo, self.row_splits_dtype), internal=True,
                            uniform_row_length=self._uniform_row_length)

    # --- conversion -----------------------------------------------------------------
    def to_list(self) -> list:
        """The nested Python list of this tensor's values.

        Returns:
          A list of lists (bytes for strings), as ``tf.ragged.constant`` takes.
        """
        vals = self.flat_values.numpy().tolist()
        for splits in reversed(self.nested_row_splits):
            s = splits._t.tolist()
            vals = [vals[s[i]:s[i + 1]] for i in range(len(s) - 1)]
        return vals

    def numpy(self) -> np.ndarray:
        """A NumPy object array of the rows (each a NumPy array, or nested for rank > 2).

        Returns:
          A 1-D NumPy array of ``dtype=object``, one entry per row.
        """
        values = self._values.numpy()
        s = self._row_splits._t.tolist()
        rows = [values[s[i]:s[i + 1]] for i in range(len(s) - 1)]
        out = np.empty(len(rows), dtype=object)
        for i, r in enumerate(rows):
            out[i] = r
        return out

    def __repr__(self) -> str:
        return f"<tf.RaggedTensor {self.to_list()}>"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __iter__(self):
        for i in range(self._nrows()):
            yield self[i]

    def consumers(self) -> list:
        """The ops that use this tensor in a graph; always empty (torchflow runs eagerly).

        Returns:
          An empty list.
        """
        return []


@public("torchflow")
class RaggedTensorSpec(TypeSpec):
    """Type specification for a ``tf.RaggedTensor``.

    Args:
      shape: The shape (ragged dimensions are None).
      dtype: The values' dtype (default float32).
      ragged_rank: The number of ragged dimensions (default ``rank - 1``).
      row_splits_dtype: int32 or int64 (default int64).
      flat_values_spec: Optional TypeSpec of the flat values.

    >>> import torchflow as tf
    >>> tf.RaggedTensorSpec([2, None], tf.int32)
    RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)
    """

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None,
                 row_splits_dtype=_I64, flat_values_spec=None):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"ragged_rank must be an int, got {ragged_rank!r}")
        if rank is not None and (ragged_rank >= rank or ragged_rank < 0):
            raise ValueError(f"ragged_rank must be non-negative and less than rank ({rank}); "
                             f"got {ragged_rank}")
        self._ragged_rank = ragged_rank

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def ragged_rank(self) -> int:
        return self._ragged_rank

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        return self._row_splits_dtype

    @property
    def flat_values_spec(self):
        return self._flat_values_spec

    @property
    def value_type(self):
        return RaggedTensor if self._ragged_rank > 0 else Tensor

    def _serialize(self) -> tuple:
        base = (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
        return base if self._flat_values_spec is None else base + (self._flat_values_spec,)

    def _flat_shape(self) -> TensorShape:
        if self._shape.rank is None:
            return TensorShape(None)
        return TensorShape([None]).concatenate(self._shape[self._ragged_rank + 1:])

    @property
    def _component_specs(self) -> list:
        flat = self._flat_values_spec or TensorSpec(self._flat_shape(), self._dtype)
        if self._ragged_rank == 0:
            return [TensorSpec(self._shape, self._dtype)]
        return [flat] + [TensorSpec([None], self._row_splits_dtype)] * self._ragged_rank

    def _to_components(self, value) -> list:
        if isinstance(value, RaggedTensor):
            return [value.flat_values] + list(value.nested_row_splits)
        return [value]

    def _from_components(self, components):
        flat, splits = components[0], components[1:]
        if not splits:
            return flat
        return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)

    def _batch(self, batch_size) -> "RaggedTensorSpec":
        return RaggedTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype,
                                self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self) -> "RaggedTensorSpec":
        return RaggedTensorSpec(self._shape[1:], self._dtype, self._ragged_rank - 1,
                                self._row_splits_dtype)

    def is_compatible_with(self, spec_or_value) -> bool:
        if isinstance(spec_or_value, Tensor) and self._ragged_rank == 0:
            return (spec_or_value.dtype == self._dtype
                    and self._shape.is_compatible_with(spec_or_value.shape))
        return super().is_compatible_with(spec_or_value)

    @classmethod
    def from_value(cls, value) -> "RaggedTensorSpec":
        """The spec of a RaggedTensor (or, with ragged_rank 0, a Tensor)."""
        if isinstance(value, RaggedTensor):
            return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)
        return cls(value.shape, value.dtype, 0)
