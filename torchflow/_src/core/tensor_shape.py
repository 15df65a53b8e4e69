"""``tf.TensorShape``: a possibly partially known shape."""

from __future__ import annotations

from typing import Iterable

from torchflow._src.util.api import public


def _dim(d):
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # a Dimension-like object
        d = d.value
        if d is None:
            return None
    try:
        v = d.__index__()
    except AttributeError:
        raise TypeError(
            f"Dimension value must be integer or None or have an __index__ method, got value "
            f"'{d!r}' with type '{type(d)}'"
        ) from None
    if v < 0:
        raise ValueError(f"Dimension {v} must be >= 0")
    return v


@public("torchflow")
class TensorShape:
    """Represents the shape of a ``Tensor``; dimensions and the rank may be unknown.

    Args:
      dims: None (unknown rank), or a list of ints / None (unknown dimension).

    >>> import torchflow as tf
    >>> tf.TensorShape([None, 3]).is_compatible_with([2, 3])
    True
    """

    __slots__ = ("_dims",)

    def __init__(self, dims=None):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (str, bytes)):
            raise TypeError(f"Cannot convert {dims!r} to a TensorShape.")
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = (_dim(dims),)
            else:
                self._dims = tuple(_dim(d) for d in it)

    # --- basic -------------------------------------------------------------
    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self):
        return self.rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        """The dimensions as a list of ints, None for unknown ones.

        Returns:
          A list, as ``[2, None, 3]``.

        Raises:
          ValueError: the rank is unknown.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self):
        """The number of elements of a tensor of this shape.

        Returns:
          An int, or None when a dimension (or the rank) is unknown.
        """
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:  # pyright: ignore[reportOptionalIterable] - fully defined, checked above
            n *= d  # pyright: ignore[reportOperatorIssue] - fully defined, checked above
        return n

    def is_fully_defined(self) -> bool:
        """Whether the rank and every dimension are known.

        Returns:
          A bool.
        """
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self):
        """Raises unless the rank and every dimension are known.

        Raises:
          ValueError: the shape is not fully defined.
        """
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if isinstance(key, slice):
            if self._dims is None:
                return TensorShape(None)
            return TensorShape(self._dims[key])
        if self._dims is None:
            return None
        return self._dims[key]

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)".replace("None", "None")
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self._dims)

    def __reduce__(self):
        return TensorShape, (self.dims,)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    # --- algebra -----------------------------------------------------------
    def is_compatible_with(self, other) -> bool:
        """Whether this shape and ``other`` could describe the same tensor.

        Two shapes are compatible when either rank is unknown, or the ranks agree and each
        pair of dimensions is equal or has an unknown one.

        Args:
          other: A ``TensorShape``, or a list/tuple of ints and Nones (None: unknown rank).

        Returns:
          A bool.
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        """Raises unless this shape is compatible with ``other`` (see ``is_compatible_with``).

        Args:
          other: A ``TensorShape``, or a list/tuple of ints and Nones (None: unknown rank).

        Raises:
          ValueError: the shapes are incompatible.
        """
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other) -> TensorShape:
        """The most specific shape compatible with both: unknown dimensions filled from the other.

        Args:
          other: A ``TensorShape``, or a list/tuple of ints and Nones (None: unknown rank).

        Returns:
          A ``TensorShape``.

        Raises:
          ValueError: the shapes are not compatible.
        """
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims) or not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other) -> TensorShape:
        """This shape's dimensions followed by ``other``'s.

        Args:
          other: A ``TensorShape``, or a list/tuple of ints and Nones (None: unknown rank).

        Returns:
          A ``TensorShape``; of unknown rank when either rank is unknown.
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The most specific shape compatible with both shapes (the dimensions they agree on).

        Args:
          other: A ``TensorShape``, or a list/tuple of ints and Nones (None: unknown rank).

        Returns:
          A ``TensorShape``: None where the dimensions differ; of unknown rank when the
          ranks differ or one is unknown.
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def with_rank(self, rank: int) -> TensorShape:
        """This shape, checked to have ``rank`` (an unknown rank becomes ``rank`` Nones).

        Args:
          rank: int, the required rank.

        Returns:
          A ``TensorShape`` of rank ``rank``.

        Raises:
          ValueError: the known rank differs.
        """
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> TensorShape:
        """This shape, checked to have at least ``rank`` dimensions.

        Args:
          rank: int, the least rank.

        Returns:
          This ``TensorShape``.

        Raises:
          ValueError: the known rank is lower.
        """
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        """This shape, checked to have at most ``rank`` dimensions.

        Args:
          rank: int, the greatest rank.

        Returns:
          This ``TensorShape``.

        Raises:
          ValueError: the known rank is higher.
        """
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank: int):
        """Raises unless the rank is unknown or equal to ``rank``.

        Args:
          rank: int, the required rank.

        Raises:
          ValueError: the known rank differs.
        """
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        """Raises unless this shape and ``other`` have the same rank (or one is unknown).

        Args:
          other: A ``TensorShape``, or a list/tuple of ints and Nones (None: unknown rank).

        Raises:
          ValueError: the known ranks differ.
        """
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self) != len(other):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def is_subtype_of(self, other) -> bool:
        """Whether this shape is at least as specific as ``other``.

        True when ``other``'s rank is unknown, or the ranks agree and each of ``other``'s
        known dimensions equals this shape's.

        Args:
          other: A ``TensorShape``, or a list/tuple of ints and Nones (None: unknown rank).

        Returns:
          A bool.
        """
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def as_proto(self):  # pragma: no cover - no protos in torchflow
        """TF's ``TensorShapeProto`` of this shape; not supported by torchflow.

        Raises:
          NotImplementedError: always.
        """
        raise NotImplementedError("TensorShape.as_proto is not supported by torchflow.")


@public("torchflow")
def as_shape(shape) -> TensorShape:
    """Converts ``shape`` (a TensorShape, list, tuple or None) to a ``TensorShape``."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank=None) -> TensorShape:
    """A shape of unknown rank, or of ``rank`` unknown dimensions."""
    return TensorShape(None if rank is None else [None] * rank)


def from_tuple(dims: Iterable[int]) -> TensorShape:
    """Fast constructor for a fully known shape from a tuple of ints."""
    s = object.__new__(TensorShape)
    s._dims = tuple(dims)
    return s
