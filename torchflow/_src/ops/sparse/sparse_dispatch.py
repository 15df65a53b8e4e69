"""What the op helpers do with a ``tf.SparseTensor`` argument (``_dispatch.COMPOSITE``).

As in TF, the zero-preserving unary ops (``tf.abs``, ``tf.math.square``,
``tf.sin``, ...) and ``tf.cast`` apply to the values and keep the indices; every
other op raises TF's conversion error, since a SparseTensor is not a Tensor.
"""

from __future__ import annotations

from torchflow._src.ops import _dispatch
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor

# TF ops whose SparseTensor form maps the values (f(0) == 0), by their op names.
_ZERO_PRESERVING = frozenset({"Abs", "Neg", "Sign", "Square", "Sqrt", "Erf", "Tanh", "Sin",
                              "Tan", "Asin", "Atan", "Asinh", "Atanh", "BesselI1e"})


def _not_a_tensor(*args):
    for a in args:
        if isinstance(a, SparseTensor):
            tensor_arg(a)  # raises TF's "Attempt to convert a value ..." ValueError
    raise TypeError("SparseTensor arguments are not supported by this op")


class _Handler:
    """The COMPOSITE protocol for SparseTensor: values-wise unary ops and cast."""

    @staticmethod
    def unary_op(op: str, f, x: SparseTensor):
        if op not in _ZERO_PRESERVING:
            _not_a_tensor(x)
        return SparseTensor._from_parts(x.indices, f(x.values), x.dense_shape)

    @staticmethod
    def unary(f, x: SparseTensor):
        _not_a_tensor(x)

    @staticmethod
    def cast(x: SparseTensor, dtype, fn):
        return SparseTensor._from_parts(x.indices, fn(x.values, dtype), x.dense_shape)

    def __getattr__(self, name):  # elementwise, reduce, concat, gather, ...
        return lambda *args, **kwargs: _not_a_tensor(*args, *kwargs.values())


_dispatch.COMPOSITE[SparseTensor] = _Handler()
