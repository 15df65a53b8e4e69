"""TF's ragged and sparse graph ops for ``graph_exec``: what TF's graphs of functions
on ``tf.RaggedTensor`` / ``tf.SparseTensor`` arguments hold besides dense ops.

TF's ragged library writes ``to_tensor`` as ``RaggedTensorToTensor``, ``to_sparse``
as ``RaggedTensorToSparse``, ``tf.ragged.range`` as ``RaggedRange`` and ragged
reductions as ``UnsortedSegment*`` ops over segment ids made from the row splits;
``tf.sparse`` ops are ``SparseToDense``, ``SparseReduceSum``/``Max`` and
``SparseTensorDenseMatMul`` (the others are not here yet); segment ids of row splits are ``UpperBound``. Each handler builds the composite from its component inputs
and runs torchflow's op on it.
"""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes, errors
from torchflow._src.core.tensor import wrap
from torchflow._src.ops import array_ops, segment_ops, string_ops, unicode_ops
from torchflow._src.ops.ragged import ragged_factory, ragged_gather
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.sparse import sparse_math, sparse_ops
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor


def _ints(t) -> list:
    a = t.numpy() if hasattr(t, "numpy") else t
    return [int(v) for v in (a.reshape(-1) if hasattr(a, "reshape") else [a])]


def _ragged_to_tensor(library, attrs, inputs):
    shape, values, default = inputs[0], inputs[1], inputs[2]
    parts = inputs[3:]
    types = [t.decode() if isinstance(t, bytes) else t for t in attrs.get("row_partition_types", [])]
    if types and types[0] == "FIRST_DIM_SIZE":
        nrows = _ints(parts[0])[0]  # then one VALUE_ROWIDS per ragged dimension
        rt = RaggedTensor.from_nested_value_rowids(values, list(parts[1:]),
                                                   [nrows] + [None] * (len(parts) - 2))
    elif all(t == "ROW_SPLITS" for t in types):
        rt = RaggedTensor.from_nested_row_splits(values, list(parts), validate=False)
    else:
        raise errors.UnimplementedError(
            None, None, f"RaggedTensorToTensor with row_partition_types {types} is not "
            "supported [Op:RaggedTensorToTensor]")
    dims = _ints(shape)
    if len(dims) == 1 and len(shape.shape) == 0 and dims[0] == -1:
        out_shape = None  # TF's "shape not given"
    else:
        out_shape = [None if d < 0 else d for d in dims]
    return [rt.to_tensor(default_value=default, shape=out_shape)]


def _ragged_to_sparse(library, attrs, inputs):
    splits, values = inputs[:-1], inputs[-1]
    st = RaggedTensor.from_nested_row_splits(values, list(splits), validate=False).to_sparse()
    return [st.indices, st.values, st.dense_shape]


def _ragged_range(library, attrs, inputs):
    starts, limits, deltas = inputs
    rt = ragged_factory.range(starts, limits, deltas,
                              row_splits_dtype=attrs.get("Tsplits", dtypes.int64))
    return [rt.row_splits, rt.flat_values]


def _ragged_gather(library, attrs, inputs):
    """TF's ``RaggedGather`` (PARAMS_RAGGED_RANK splits, the values, the indices)."""
    k = int(attrs.get("PARAMS_RAGGED_RANK", 1))
    if int(attrs.get("OUTPUT_RAGGED_RANK", k)) != k:
        raise errors.UnimplementedError(None, None, "RaggedGather of ragged indices is not "
                                        "supported [Op:RaggedGather]")
    rt = RaggedTensor.from_nested_row_splits(inputs[k], list(inputs[:k]), validate=False)
    out = ragged_gather.gather0(rt, inputs[k + 1])
    return list(out.nested_row_splits) + [out.flat_values]


def _string_ngrams(library, attrs, inputs):
    """TF's ``StringNGrams``: the n-grams of each row of a ragged matrix."""
    data, splits = inputs
    rt = RaggedTensor.from_row_splits(data, splits, validate=False)
    pw = int(attrs.get("pad_width", -1))

    def text(k):
        v = attrs.get(k, b"")
        return v.decode() if isinstance(v, bytes) else v

    out = unicode_ops.ngrams(
        rt, [int(w) for w in attrs.get("ngram_widths", [])], text("separator"),
        None if pw == 0 else (text("left_pad"), text("right_pad")), None if pw < 0 else pw,
        bool(attrs.get("preserve_short_sequences", False)))
    return [out.flat_values, out.row_splits]


def _string_split_v2(library, attrs, inputs):
    """TF's ``StringSplitV2``: a rank-1 string input's pieces as a sparse matrix."""
    x, sep = inputs
    s = sep.numpy()
    rt = string_ops.split(x, s if s else None, int(attrs.get("maxsplit", -1)))
    st = rt.to_sparse()
    return [st.indices, st.values, st.dense_shape]


def _unsorted(fn):
    def run(library, attrs, inputs):
        data, ids, num = inputs
        return [fn(data, ids, num)]

    return run


def _sparse(indices, values, shape) -> SparseTensor:
    return SparseTensor(indices, values, shape)


def _sparse_to_dense(library, attrs, inputs):
    indices, output_shape, values, default = inputs
    if len(indices.shape) < 2:  # TF accepts a vector (or scalar) of 1-D indices
        indices = array_ops.reshape(indices, [-1, 1])
    st = _sparse(indices, values, output_shape)
    return [sparse_ops.to_dense(st, default_value=default,
                                validate_indices=bool(attrs.get("validate_indices", True)))]


def _sparse_reduce(fn):
    def run(library, attrs, inputs):
        indices, values, shape, axes = inputs
        ax = _ints(axes)
        return [fn(_sparse(indices, values, shape), axis=ax if ax else None,
                   keepdims=bool(attrs.get("keep_dims", False)))]

    return run


def _sparse_dense_matmul(library, attrs, inputs):
    indices, values, shape, b = inputs
    return [sparse_math.sparse_dense_matmul(
        _sparse(indices, values, shape), b, adjoint_a=bool(attrs.get("adjoint_a", False)),
        adjoint_b=bool(attrs.get("adjoint_b", False)))]


HANDLERS = {
    "RaggedTensorToTensor": _ragged_to_tensor,
    "RaggedTensorToSparse": _ragged_to_sparse,
    "RaggedRange": _ragged_range,
    "StringSplitV2": _string_split_v2,
    "StringNGrams": _string_ngrams,
    "RaggedGather": _ragged_gather,
    "UnsortedSegmentMax": _unsorted(segment_ops.unsorted_segment_max),
    "UnsortedSegmentMin": _unsorted(segment_ops.unsorted_segment_min),
    "UnsortedSegmentProd": _unsorted(segment_ops.unsorted_segment_prod),
    "SparseToDense": _sparse_to_dense,
    "SparseReduceSum": _sparse_reduce(sparse_math.reduce_sum),
    "SparseReduceMax": _sparse_reduce(sparse_math.reduce_max),
    "SparseTensorDenseMatMul": _sparse_dense_matmul,
}

# Ops whose outputs are several arguments (see graph_exec._OUTPUT_ARGS).
OUTPUT_ARGS = {
    "RaggedTensorToSparse": ("sparse_indices", "sparse_values", "sparse_dense_shape"),
    "RaggedRange": ("rt_nested_splits", "rt_dense_values"),
    "StringSplitV2": ("indices", "values", "shape"),
    "StringNGrams": ("ngrams", "ngrams_splits"),
    "RaggedGather": ("output_nested_splits", "output_dense_values"),
}


def _bound(side: str):
    def run(library, attrs, inputs):
        sorted_inputs, values = inputs
        out = torch.searchsorted(sorted_inputs._t.contiguous(), values._t.contiguous(),
                                 right=side == "right")
        d = attrs.get("out_type", dtypes.int32)
        return [wrap(out.to(d._torch), d)]

    return run


HANDLERS["UpperBound"] = _bound("right")
HANDLERS["LowerBound"] = _bound("left")
