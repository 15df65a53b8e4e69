"""Running a layer on KerasTensors: output shapes by placeholder execution.

TF 2.4 infers a KerasTensor's shape by tracing the layer in a scratch graph.
torchflow runs the layer eagerly twice on zero-filled placeholders, each
unknown dimension replaced by a different size, and marks the output
dimensions that differ between the two runs as unknown (None). While this
runs, ``in_symbolic_pass()`` is True: layers with side effects on state
(BatchNormalization's moving statistics, stateful RNNs, metrics, losses)
skip them.
"""

from __future__ import annotations

import contextlib

import numpy as np

from torchflow._src.core import context, dtypes
from torchflow._src.core.convert import constant
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.keras.engine.node import Node
from torchflow._src.ops.creation_ops import zeros
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from torchflow._src.ops.sparse.sparse_data import placeholder as sparse_placeholder
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor, SparseTensorSpec
from torchflow._src.util import nest

_SIZES = ((2, 8), (3, 9))


def in_symbolic_pass() -> bool:
    """True while Keras runs a layer on placeholders to infer output shapes."""
    return getattr(context.thread_state(), "keras_symbolic_pass", False)


@contextlib.contextmanager
def _symbolic_pass():
    st = context.thread_state()
    old = getattr(st, "keras_symbolic_pass", False)
    st.keras_symbolic_pass = True
    try:
        yield
    finally:
        st.keras_symbolic_pass = old


def _placeholder(shape: TensorShape, dtype, variant: int):
    if shape.rank is None:
        raise ValueError("Keras cannot infer shapes through an input of unknown rank.")
    batch, other = _SIZES[variant]
    dims = [d if d is not None else (batch if i == 0 else other)
            for i, d in enumerate(shape.as_list())]
    if dtype is dtypes.string:
        return constant(np.full(dims, b"", dtype=object), dtype=dtypes.string)
    return zeros(dims, dtype=dtype)


def _ragged_placeholder(spec: RaggedTensorSpec, variant: int) -> RaggedTensor:
    """Rows of lengths 1, 2, ... (each ragged dimension), so ragged dims come out None."""
    dims = spec.shape.as_list()
    nrows = dims[0] if dims[0] is not None else _SIZES[variant][0]
    nested, n = [], nrows
    for _ in range(spec.ragged_rank):
        lengths = [1 + (i + variant) % 3 for i in range(n)]
        nested.append([0] + np.cumsum(lengths).tolist())
        n = sum(lengths)
    inner = [d if d is not None else _SIZES[variant][1] for d in dims[spec.ragged_rank + 1:]]
    flat = _placeholder(TensorShape([n] + inner), spec.dtype, variant)
    splits = [constant(s, dtype=spec.row_splits_dtype) for s in nested]
    return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


def _concretize(structure, variant):
    def conv(x):
        if isinstance(x, KerasTensor) and x.ragged:
            return _ragged_placeholder(x.type_spec, variant)
        if isinstance(x, KerasTensor) and isinstance(x.type_spec, SparseTensorSpec):
            batch, other = _SIZES[variant]
            dims = [d if d is not None else (batch if i == 0 else other)
                    for i, d in enumerate(x.shape.as_list())]
            return sparse_placeholder(dims, x.dtype)
        if isinstance(x, KerasTensor):
            t = _placeholder(x.shape, x.dtype, variant)
            if x._keras_mask is not None:
                t._keras_mask = _placeholder(x._keras_mask.shape, dtypes.bool, variant)
            return t
        return x

    return nest.map_structure(conv, structure)


def _run(layer, args, kwargs, variant):
    cargs = _concretize(args, variant)
    ckwargs = _concretize(kwargs, variant)
    st = context.thread_state()
    outer = st.keras_call_context
    st.keras_call_context = None
    try:
        with _symbolic_pass():
            return layer._eager_call(cargs[0], tuple(cargs), dict(ckwargs))
    finally:
        st.keras_call_context = outer


def _merge_shape(a, b) -> TensorShape:
    if len(a.shape) != len(b.shape):
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.shape, b.shape)])


def _to_keras(a, b):
    if isinstance(a, RaggedTensor):  # a ragged output: its spec, shapes merged
        shape = _merge_shape(a, b)
        return KerasTensor(shape, a.dtype, type_spec=RaggedTensorSpec(
            shape, a.dtype, a.ragged_rank, a.row_splits_dtype))
    if isinstance(a, SparseTensor):  # a sparse output: its spec, shapes merged
        shape = _merge_shape(a, b)
        return KerasTensor(shape, a.dtype, type_spec=SparseTensorSpec(shape, a.dtype))
    if not isinstance(a, Tensor):
        raise TypeError(f"A Keras layer called on symbolic inputs returned a non-tensor "
                        f"output: {a!r}")
    kt = KerasTensor(_merge_shape(a, b), a.dtype)
    mask = getattr(a, "_keras_mask", None)
    if mask is not None:
        kt._keras_mask = KerasTensor(_merge_shape(mask, getattr(b, "_keras_mask", mask)),
                                     mask.dtype)
    return kt


def symbolic_call(layer, args, kwargs):
    """Calls ``layer`` on KerasTensors: returns KerasTensor outputs and records a Node."""
    inputs = args[0]
    if not layer.built:
        layer._maybe_build(inputs)
    out_a = _run(layer, args, kwargs, 0)
    has_unknown = any(isinstance(x, KerasTensor) and (x.shape.rank is None or None in
                                                      x.shape.as_list())
                      for x in nest.flatten((args, kwargs)))
    out_b = _run(layer, args, kwargs, 1) if has_unknown else out_a
    outputs = nest.map_structure(_to_keras, out_a, out_b)
    Node(layer, tuple(args), dict(kwargs), outputs)
    return outputs


def infer_output_shape(layer, input_shape):
    """``compute_output_shape`` by symbolic execution (see the module docstring)."""
    def to_kt(s):
        return KerasTensor(TensorShape(s), layer.compute_dtype or "float32")

    shapes_are_list = isinstance(input_shape, (list, tuple)) and input_shape and all(
        isinstance(s, (list, tuple, TensorShape)) or s is None for s in input_shape)
    kts = [to_kt(s) for s in input_shape] if shapes_are_list else to_kt(input_shape)
    if not layer.built:
        layer._maybe_build(kts)
    a = _run(layer, (kts,), {}, 0)
    b = _run(layer, (kts,), {}, 1)
    return nest.map_structure(lambda x, y: _merge_shape(x, y), a, b)
