"""``tf.TensorSpec``: the type of a tensor (shape, dtype, optional name).

Used by ``tf.data`` (``element_spec``), ``tf.function(input_signature=...)``
and Keras input specs.
"""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.util.api import public


@public("torchflow")
class TensorSpec(TypeSpec):
    """Describes a tensor: its ``shape`` (possibly partial), ``dtype`` and ``name``.

    Args:
      shape: A ``TensorShape`` or value convertible to one (None dims allowed).
      dtype: The element type (default ``tf.float32``).
      name: Optional name.

    >>> import torchflow as tf
    >>> tf.TensorSpec([None, 2], tf.int32)
    TensorSpec(shape=(None, 2), dtype=tf.int32, name=None)
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def value_type(self):
        return Tensor

    @classmethod
    def from_spec(cls, spec, name=None) -> "TensorSpec":
        """A TensorSpec with ``spec``'s shape and dtype (and ``name`` if given).

        Args:
          spec: A ``TensorSpec`` (or any object with ``shape``, ``dtype`` and ``name``).
          name: None (``spec``'s name) or a str.

        Returns:
          A new ``TensorSpec``.
        """
        return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

    @classmethod
    def from_tensor(cls, tensor, name=None) -> "TensorSpec":
        """The spec of a concrete tensor (its full shape and dtype).

        Args:
          tensor: A Tensor (or anything with ``shape`` and ``dtype``).
          name: None or a str, the spec's name.

        Returns:
          A new ``TensorSpec``.
        """
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, spec_or_tensor) -> bool:
        """True if ``spec_or_tensor`` (a TensorSpec or tensor) could have this type.

        The dtypes must be equal and the shapes compatible (unknown dimensions match
        any size).

        Args:
          spec_or_tensor: A ``TensorSpec`` or a Tensor.

        Returns:
          A bool; False for an object without ``shape`` and ``dtype``.
        """
        dtype = getattr(spec_or_tensor, "dtype", None)
        shape = getattr(spec_or_tensor, "shape", None)
        if dtype is None or shape is None:
            return False
        return dtypes.as_dtype(dtype) == self._dtype and self._shape.is_compatible_with(shape)

    def is_subtype_of(self, other) -> bool:
        """Whether this spec is at least as specific as ``other`` (same dtype, a shape that is
        a subtype of ``other``'s).

        Args:
          other: A ``TensorSpec``.

        Returns:
          A bool.
        """
        return (isinstance(other, TensorSpec) and self._dtype == other._dtype
                and self._shape.is_subtype_of(other._shape))

    def most_specific_compatible_type(self, other) -> "TensorSpec":
        """The most specific spec that both ``self`` and ``other`` are compatible with.

        Args:
          other: A ``TensorSpec`` of the same dtype.

        Returns:
          A ``TensorSpec`` whose shape keeps the dimensions both agree on (and the name
          when both have it).

        Raises:
          ValueError: If the dtypes differ.
        """
        if not isinstance(other, TensorSpec) or other._dtype != self._dtype:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        name = self._name if self._name == other._name else None
        return TensorSpec(self._shape.most_specific_compatible_shape(other._shape), self._dtype,
                          name)

    def __eq__(self, other) -> bool:
        return (type(other) is type(self) and self._dtype == other._dtype
                and self._shape == other._shape and self._name == other._name)

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __reduce__(self):
        return TensorSpec, (self._shape, self._dtype, self._name)

    # --- the TypeSpec protocol: a dense tensor is its own one component ------
    def _serialize(self) -> tuple:
        return (self._shape, self._dtype, self._name)

    @property
    def _component_specs(self) -> "TensorSpec":
        return self

    def _to_components(self, value):
        return value

    def _from_components(self, components):
        return components

    def _batch(self, batch_size) -> "TensorSpec":
        return TensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self) -> "TensorSpec":
        if self._shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return TensorSpec(self._shape[1:] if self._shape.rank else None, self._dtype)

    def __repr__(self) -> str:
        dims = self._shape.dims
        shape = "<unknown>" if dims is None else (
            "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")")
        return f"TensorSpec(shape={shape}, dtype={self._dtype!r}, name={self._name!r})"


@public("torchflow")
def type_spec_from_value(value) -> TypeSpec:
    """Returns a ``tf.TypeSpec`` that represents the given ``value``.

    Args:
      value: A value: a Tensor, a composite tensor (``tf.RaggedTensor``, ...), or
        anything ``tf.convert_to_tensor`` accepts.

    Returns:
      A ``TypeSpec`` that ``value`` is compatible with.

    Raises:
      TypeError: If no TypeSpec can be built for ``value``.

    >>> import torchflow as tf
    >>> tf.type_spec_from_value(tf.constant([1, 2]))
    TensorSpec(shape=(2,), dtype=tf.int32, name=None)
    """
    spec = getattr(value, "_type_spec", None)
    if isinstance(spec, TypeSpec):
        return spec
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    try:
        t = convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} with type "
                        f"{type(value).__name__}") from None
    return TensorSpec(t.shape, t.dtype)
