"""``KerasTensor``: the symbolic value that flows through the Functional API.

A KerasTensor has a ``shape`` (with None dims) and a ``dtype`` and remembers
which layer call produced it (``_keras_history``). ``tf.is_tensor`` is True for
it; ``isinstance(x, tf.Tensor)`` is not, as in TF 2.4. Using one where a value
is needed (``.numpy()``, an op outside Keras' dispatch) raises TypeError.
"""

from __future__ import annotations

import operator

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Reference
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.util.api import public


class SymbolicValueError(TypeError):
    pass


@public("torchflow.keras")
class KerasTensor:
    """A symbolic tensor of a Functional model under construction."""

    _is_tf_tensor_like = True
    __array_priority__ = 200

    def __init__(self, shape, dtype="float32", name=None, keras_history=None, type_spec=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name
        self._keras_history = keras_history
        self._keras_mask = None
        self._composite_spec = type_spec  # a RaggedTensorSpec for ragged values, else None

    @property
    def type_spec(self):
        """The ``tf.TypeSpec`` of the values this KerasTensor stands for."""
        if self._composite_spec is not None:
            return self._composite_spec
        return TensorSpec(self._shape, self._dtype)

    @property
    def ragged(self) -> bool:
        """True when the values are ``tf.RaggedTensor``s."""
        return type(self._composite_spec).__name__ == "RaggedTensorSpec"

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def ndim(self):
        return self._shape.rank

    @property
    def node(self):
        return self._keras_history[0]._inbound_nodes[self._keras_history[1]]

    def _tf_value(self, dtype=None):
        raise SymbolicValueError(
            f"Cannot convert a symbolic Keras input/output to a value: {self!r}. This error "
            f"may indicate that you're trying to pass a symbolic value to a torchflow call "
            f"that does not support it, or compute gradients of symbolic tensors. Wrap the "
            f"computation in a Lambda layer or a custom Layer.")

    def numpy(self):
        self._tf_value()

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"You are passing {self!r}, an intermediate Keras symbolic input/output, to a "
            f"function that tries to convert it to a NumPy array. Keras symbolic inputs/outputs "
            f"do not implement `__array__`.")

    def __len__(self):
        if self._shape.rank is None or self._shape[0] is None:
            raise TypeError("Keras symbolic inputs/outputs do not implement `__len__`.")
        return self._shape[0]

    def __bool__(self):
        raise TypeError("Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.")

    def __iter__(self):
        raise TypeError(f"Cannot iterate over a KerasTensor {self!r}.")

    __hash__ = object.__hash__

    def ref(self):
        return Reference(self)

    def __repr__(self):
        extra = ""
        if self._keras_history is not None:
            extra = f" (created by layer '{self._keras_history[0].name}')"
        return (f"<KerasTensor: shape={self._shape.as_list() if self._shape.rank is not None else None} "
                f"dtype={self._dtype.name}{extra}>")

    __str__ = __repr__


def _op_layer(fn, name):
    def method(self, *args):
        # cycle: tf_op_layer builds KerasTensors.
        from torchflow._src.keras.engine.tf_op_layer import call_symbolic

        return call_symbolic(fn, (self,) + args, {}, name)

    method.__name__ = name
    return method


def _rop(fn):
    return lambda x, y: fn(y, x)


_OPS = {
    "__add__": operator.add, "__radd__": _rop(operator.add),
    "__sub__": operator.sub, "__rsub__": _rop(operator.sub),
    "__mul__": operator.mul, "__rmul__": _rop(operator.mul),
    "__truediv__": operator.truediv, "__rtruediv__": _rop(operator.truediv),
    "__floordiv__": operator.floordiv, "__rfloordiv__": _rop(operator.floordiv),
    "__mod__": operator.mod, "__rmod__": _rop(operator.mod),
    "__pow__": operator.pow, "__rpow__": _rop(operator.pow),
    "__matmul__": operator.matmul, "__rmatmul__": _rop(operator.matmul),
    "__neg__": operator.neg, "__abs__": operator.abs, "__pos__": operator.pos,
    "__invert__": operator.invert,
    "__and__": operator.and_, "__or__": operator.or_, "__xor__": operator.xor,
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
    "__getitem__": operator.getitem,
}
for _name, _fn in _OPS.items():
    setattr(KerasTensor, _name, _op_layer(_fn, _name.strip("_")))
del _name, _fn


def is_keras_tensor(x) -> bool:
    return isinstance(x, KerasTensor)
