"""How the data service's messages look on the wire.

A message is a dict of ids, flags and NumPy arrays, framed by ``rpc.encode``
(raw buffers and a JSON skeleton), never a pickle. An element of a dataset travels
as the list of the arrays of its flattened leaves; its structure is the dataset's
``element_spec``, which each side knows (the spec itself travels as JSON).

Datasets themselves are the one thing that is pickled (cloudpickle of the
dataset object, its functions included), and only between authenticated peers:
see ``data_service_ops.register_dataset``.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import _structure
from torchflow._src.ops import data_ops


def element_arrays(element) -> list:
    """The leaves of a dataset element as NumPy arrays (in ``flatten`` order)."""
    out = []
    for t in _structure.flatten(element):
        a = t.numpy()
        out.append(a if isinstance(a, np.ndarray) else np.asarray(a))
    return out


def element_from_arrays(spec, arrays: list):
    """The element (Tensors in ``spec``'s structure) whose leaves are ``arrays``."""
    flat = _structure.flatten(spec)
    if len(flat) != len(arrays):
        raise ValueError(f"An element has {len(arrays)} components but its element_spec "
                         f"has {len(flat)}.")
    return _structure.pack_as(spec, [data_ops.from_numpy(a, s.dtype)
                                     for a, s in zip(arrays, flat)])


def spec_to_json(spec):
    """A JSON-able form of a nested ``TensorSpec`` structure."""
    if isinstance(spec, TensorSpec):
        dims = spec.shape.as_list() if spec.shape.rank is not None else None
        return {"s": [spec.dtype.name, dims]}
    if isinstance(spec, dict):
        return {"d": [[k, spec_to_json(v)] for k, v in spec.items()]}
    if isinstance(spec, (tuple, list)):
        return {"t": [spec_to_json(v) for v in spec]}
    raise TypeError(f"The tf.data service cannot serve elements containing "
                    f"{type(spec).__name__}.")


def spec_from_json(j):
    if "s" in j:
        name, dims = j["s"]
        return TensorSpec(TensorShape(dims), dtypes.as_dtype(name))
    if "d" in j:
        return {k: spec_from_json(v) for k, v in j["d"]}
    return tuple(spec_from_json(v) for v in j["t"])
