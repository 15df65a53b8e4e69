"""``tf.TypeSpec`` and the ``CompositeTensor`` base: values made of several tensors.

A composite tensor (``tf.RaggedTensor``, ``tf.SparseTensor``) is a Python object
whose value is a fixed structure of plain tensors, its *components*. Its type is
a ``TypeSpec``, which knows how to split a value into components
(``_to_components``) and build one back (``_from_components``), and what type each
component has (``_component_specs``). ``tf.nest(..., expand_composites=True)``,
``tf.data`` and ``tf.function`` signatures use only that protocol.

A spec is described by ``_serialize()``: a tuple of its constructor arguments
(shapes, dtypes, numbers, nested specs). Equality, hashing, ``repr``,
``is_compatible_with`` and ``most_specific_compatible_type`` are defined once,
on that tuple, as TF 2.4 defines them.
"""

from __future__ import annotations

from typing import Any

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.util.api import public


@public("torchflow")
class TypeSpec:
    """Specifies a TensorFlow value type (the type of a tensor or composite tensor).

    Subclasses describe one kind of value: ``tf.TensorSpec`` a dense tensor,
    ``tf.RaggedTensorSpec`` a ragged one. A spec is hashable and compares equal to
    specs of the same class with the same serialization.

    >>> import torchflow as tf
    >>> spec = tf.TensorSpec([None, 2], tf.int32)
    >>> isinstance(spec, tf.TypeSpec), spec.is_compatible_with(tf.constant([[1, 2]]))
    (True, True)
    """

    __slots__ = ()

    # --- what subclasses define ----------------------------------------------
    @property
    def value_type(self):
        """The Python type of values this spec describes."""
        raise NotImplementedError(f"{type(self).__name__}.value_type")

    @property
    def _component_specs(self):
        """A nested structure of ``TypeSpec``s, one per component."""
        raise NotImplementedError(f"{type(self).__name__}._component_specs")

    def _to_components(self, value):
        """The components of ``value`` (a nested structure of tensors)."""
        raise NotImplementedError(f"{type(self).__name__}._to_components")

    def _from_components(self, components):
        """The value built from ``components`` (as ``_to_components`` gave them)."""
        raise NotImplementedError(f"{type(self).__name__}._from_components")

    def _serialize(self) -> tuple:
        """The constructor arguments of this spec, as a tuple."""
        raise NotImplementedError(f"{type(self).__name__}._serialize")

    @classmethod
    def _deserialize(cls, serialization: tuple):
        return cls(*serialization)

    # --- defined once on the serialization -----------------------------------
    def is_compatible_with(self, spec_or_value) -> bool:
        """True if ``spec_or_value`` (a spec or a value) could have this type.

        Args:
          spec_or_value: A ``TypeSpec`` or a value (whose spec is taken).

        Returns:
          True when both are of the same spec class and every shape is
          compatible and every other field equal.
        """
        other = spec_or_value
        if not isinstance(other, TypeSpec):
            other = getattr(other, "_type_spec", None)
            if other is None:
                return False
        if type(self) is not type(other):
            return False
        return _compatible(self._serialize(), other._serialize())

    def most_specific_compatible_type(self, other) -> "TypeSpec":
        """The most specific ``TypeSpec`` compatible with both ``self`` and ``other``.

        Args:
          other: A ``TypeSpec``.

        Returns:
          A spec of the same class whose shapes are the most specific shapes both
          are compatible with.

        Raises:
          ValueError: If there is no such spec (other class, other dtype).
        """
        if type(self) is not type(other):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        try:
            merged = _most_specific(self._serialize(), other._serialize())
        except ValueError:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}") from None
        return self._deserialize(merged)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._serialize() == other._serialize()

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self), _hashable(self._serialize())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self._serialize()}"

    def __reduce__(self):
        return type(self)._deserialize, (self._serialize(),)

    # --- tf.data batching (TF's BatchableTypeSpec) -----------------------------
    def _batch(self, batch_size) -> "TypeSpec":
        """The spec of a batch of ``batch_size`` (int or None) such values."""
        raise NotImplementedError(f"{type(self).__name__} values cannot be batched.")

    def _unbatch(self) -> "TypeSpec":
        """The spec of one row of a value of this spec."""
        raise NotImplementedError(f"{type(self).__name__} values cannot be unbatched.")


def _compatible(a, b) -> bool:
    if isinstance(a, TensorShape) or isinstance(b, TensorShape):
        return (isinstance(a, TensorShape) and isinstance(b, TensorShape)
                and a.is_compatible_with(b))
    if isinstance(a, (list, tuple)):
        return (isinstance(b, (list, tuple)) and len(a) == len(b)
                and all(_compatible(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict):
        return (isinstance(b, dict) and sorted(a) == sorted(b)
                and all(_compatible(a[k], b[k]) for k in a))
    if isinstance(a, TypeSpec):
        return a.is_compatible_with(b)
    return type(a) is type(b) and a == b


def _most_specific(a, b) -> Any:
    if isinstance(a, TensorShape):
        if not isinstance(b, TensorShape) or (a.rank is not None and b.rank is not None
                                              and a.rank != b.rank):
            raise ValueError("incompatible")
        return a.most_specific_compatible_shape(b)
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            raise ValueError("incompatible")
        return type(a)(_most_specific(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if not isinstance(b, dict) or sorted(a) != sorted(b):
            raise ValueError("incompatible")
        return {k: _most_specific(a[k], b[k]) for k in a}
    if isinstance(a, TypeSpec):
        return a.most_specific_compatible_type(b)
    if type(a) is not type(b) or a != b:
        raise ValueError("incompatible")
    return a


def _hashable(x):
    if isinstance(x, (list, tuple)):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, dict):
        return tuple((k, _hashable(x[k])) for k in sorted(x))
    return x


class CompositeTensor:
    """Base of values made of several tensors (``tf.RaggedTensor``, ``tf.SparseTensor``).

    A subclass defines ``_type_spec`` (a ``TypeSpec`` whose ``_to_components`` and
    ``_from_components`` split and rebuild it); ``tf.nest`` with
    ``expand_composites=True`` and ``tf.data`` need nothing else.
    """

    __slots__ = ()

    @property
    def _type_spec(self) -> TypeSpec:
        raise NotImplementedError(f"{type(self).__name__}._type_spec")

    def _consumers(self) -> list:
        return []

    def _shape_invariant_to_type_spec(self, shape) -> TypeSpec:
        raise NotImplementedError(f"{type(self).__name__} has no shape invariant.")


def is_composite(value) -> bool:
    """True for ``CompositeTensor`` values."""
    return isinstance(value, CompositeTensor)
