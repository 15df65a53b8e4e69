"""What the op helpers do with a ``tf.SparseTensor`` argument (``_dispatch.COMPOSITE``).

As in TF, the zero-preserving unary ops (``tf.abs``, ``tf.math.square``,
``tf.sin``, ...) and ``tf.cast`` apply to the values and keep the indices; every
other op raises TF's conversion error, since a SparseTensor is not a Tensor.
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import wrap
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
    def shape(x: SparseTensor, out_type):  # TF: cast(dense_shape, out_type)
        return wrap(x.dense_shape._t.to(out_type._torch), out_type)

    @staticmethod
    def size(x: SparseTensor, out_type):  # TF: prod(dense_shape), values or not
        return wrap(x.dense_shape._t.to(out_type._torch).prod(), out_type)

    @staticmethod
    def rank(x: SparseTensor):
        return wrap(torch.tensor(int(x.dense_shape._t.shape[0]), dtype=torch.int32),
                    dtypes.int32)

    @staticmethod
    def cast(x: SparseTensor, dtype, fn):
        return SparseTensor._from_parts(x.indices, fn(x.values, dtype), x.dense_shape)

    def __getattr__(self, name):  # elementwise, reduce, concat, gather, ...
        return lambda *args, **kwargs: _not_a_tensor(*args, *kwargs.values())


_dispatch.COMPOSITE[SparseTensor] = _Handler()
