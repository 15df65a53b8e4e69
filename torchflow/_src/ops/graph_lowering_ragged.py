"""TF graphs of ragged and sparse values: their stand-ins in dry traces, and the TF
lowerings of the ragged ops that do not reduce to dense ops on the components.

A ``tf.function`` argument of a ``RaggedTensorSpec`` is, in TF's graph, one
placeholder per component (``flat_values``, then each ``row_splits``); a
``SparseTensorSpec`` one each for ``indices``, ``values`` and ``dense_shape``. The
dry trace that builds the graph (``core.function``) binds them to a stand-in value
of the spec made here (rows of length ``unknown`` in each ragged dimension).

Ops on a ragged argument are transparent in the op graph (``op_graph.register``):
elementwise ops dispatch to the flat values and are recorded as the dense ops they
run. The ragged ops computed directly on torch get a lowering here, as the TF ops
TF's ragged library builds: ``RaggedTensorToTensor``, ``RaggedTensorToSparse``,
row lengths as ``Sub`` of ``StridedSlice``\\ s, reductions as ``Segment*`` ops.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes, function
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor, SparseTensorSpec


def _zeros(dims, dtype) -> Tensor:
    if dtype is dtypes.string:
        return wrap(np.full(tuple(dims), b"", dtype=object), dtype)
    return wrap(torch.zeros(tuple(dims), dtype=dtype._torch), dtype)


def ragged_placeholder(spec: RaggedTensorSpec, unknown: int = 1):
    """A value of ``spec`` whose unknown sizes are ``unknown``: every row of each
    ragged dimension ``unknown`` long."""
    dims = spec.shape.as_list() if spec.shape.rank is not None else None
    if spec.ragged_rank == 0:
        return function._placeholder(TensorSpec(spec.shape, spec.dtype), unknown)
    if dims is None:
        dims = [None] * (spec.ragged_rank + 1)
    nrows = dims[0] if dims[0] is not None else unknown
    splits, n = [], nrows
    for k in range(1, spec.ragged_rank + 1):
        length = dims[k] if dims[k] is not None else unknown
        s = torch.arange(n + 1, dtype=spec.row_splits_dtype._torch) * length
        splits.append(wrap(s, spec.row_splits_dtype))
        n = n * length
    inner = [d if d is not None else unknown for d in dims[spec.ragged_rank + 1:]]
    fv_spec = spec.flat_values_spec
    flat = _zeros([n] + inner, fv_spec.dtype if fv_spec is not None else spec.dtype)
    return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


def sparse_placeholder(spec: SparseTensorSpec, unknown: int = 1) -> SparseTensor:
    """A value of ``spec`` with one stored value (at the origin); unknown dimensions
    ``unknown``."""
    shape = spec.shape
    rank = shape.rank if shape.rank is not None else 1
    dims = shape.as_list() if shape.rank is not None else [None]
    dense = [d if d is not None else unknown for d in dims]
    n = 1 if all(d > 0 for d in dense) else 0
    indices = wrap(torch.zeros((n, rank), dtype=torch.int64), dtypes.int64)
    values = _zeros([n], spec.dtype)
    dense_shape = wrap(torch.tensor(dense, dtype=torch.int64), dtypes.int64)
    return SparseTensor(indices, values, dense_shape)


function.register_composite_placeholder(RaggedTensorSpec, ragged_placeholder)
function.register_composite_placeholder(SparseTensorSpec, sparse_placeholder)
