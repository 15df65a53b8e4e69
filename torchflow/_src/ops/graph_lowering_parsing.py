"""TF lowering of ``tf.io.parse_example``: one ``ParseExampleV2`` node, as TF's Python
writes it for ``FixedLenFeature`` and ``VarLenFeature`` keys (sorted, each kind in
its list; a dense feature's default a constant of its shape, an empty one where it
is required). Other feature kinds (sparse, ragged, sequence) are refused. In the dry
trace that writes the graph the stand-in empty string parses with required features
as zeros (``parsing_ops._dry_stand_in``)."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.op_graph import shape_attr
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.ops import parsing_ops

_S = dtypes.string


def _parse_example(b, call):
    a = call.args
    serialized, features = a["serialized"], a["features"]
    if not isinstance(serialized, Tensor) or serialized.dtype != _S or \
            serialized.shape.rank != 1 or not isinstance(features, dict) or \
            a.get("example_names") is not None:
        return None
    dense, sparse = [], []
    for key in sorted(features):
        spec = features[key]
        if type(spec) is parsing_ops.FixedLenFeature:
            dense.append((key, spec))
        elif type(spec) is parsing_ops.VarLenFeature:
            sparse.append((key, spec))
        else:
            return None
    defaults = []
    for key, spec in dense:
        d = dtypes.as_dtype(spec.dtype)
        try:
            shape = parsing_ops.known_shape(spec, key)
        except ValueError:
            return None
        if spec.default_value is None:
            defaults.append(b.constant(np.zeros([0], d.as_numpy_dtype) if d != _S else
                                       np.zeros([0], object), d))
        else:
            dv = spec.default_value
            dv = dv.numpy() if isinstance(dv, Tensor) else dv
            arr = np.broadcast_to(np.asarray(dv, dtype=object if d == _S else
                                             d.as_numpy_dtype), shape)
            defaults.append(b.constant(np.array(arr), d))  # (a copy; 0-d stays 0-d)
    keys = [b.constant(np.asarray([k.encode() for k, _ in group] or [], dtype=object)
                       .reshape(len(group)), _S) for group in (sparse, dense)]
    empty = b.constant(np.zeros([0], object), _S)
    sparse_types = [dtypes.as_dtype(s.dtype) for _, s in sparse]
    dense_types = [dtypes.as_dtype(s.dtype) for _, s in dense]
    ns = len(sparse)
    outs = [dtypes.int64] * ns + sparse_types + [dtypes.int64] * ns + dense_types
    n = b.node("ParseExampleV2", [b.input(serialized), empty, keys[0], keys[1], empty] +
               defaults,
               {"Tdense": dense_types, "num_sparse": ns, "sparse_types": sparse_types,
                "ragged_value_types": [], "ragged_split_types": [],
                "dense_shapes": [shape_attr(TensorShape(s.shape).as_list()) for _, s in dense]},
               name="ParseExampleV2", out_dtypes=outs)
    index = {k: i for i, (k, _) in enumerate(sparse)}
    dense_at = {k: 3 * ns + i for i, (k, _) in enumerate(dense)}
    eps = []
    for key in sorted(features):  # the flat order of the result dict's tensors
        if key in index:
            i = index[key]
            eps += [f"{n}:{i}", f"{n}:{ns + i}", f"{n}:{2 * ns + i}"]
        else:
            eps.append(f"{n}:{dense_at[key]}")
    return eps


op_graph.register(parsing_ops.parse_example, _parse_example, composite=True)
