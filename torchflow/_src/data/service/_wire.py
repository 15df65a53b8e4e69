"""How the data service's messages look on the wire.

A message is a dict of ids, flags and NumPy arrays, framed by ``rpc.encode``
(raw buffers and a JSON skeleton), never a pickle. An element of a dataset travels
as the list of the arrays of its flattened leaves; its structure is the dataset's
``element_spec``, which each side knows (the spec itself travels as JSON).

Datasets travel as their graph (a TF ``GraphDef``, ``data.dataset_graph``), or,
where a pipeline has no graph form, as the one thing that is pickled (cloudpickle
of the dataset object, its functions included), and only between authenticated
peers: see ``data_service_ops.register_dataset``.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import _structure
from torchflow._src.ops import data_ops


def element_arrays(element) -> list:
    """The leaves of a dataset element as NumPy arrays (in ``flatten`` order)."""
    return leaf_arrays(_structure.flatten(element))


def leaf_arrays(leaves: list) -> list:
    """``leaves`` (a flat list of Tensors) as NumPy arrays."""
    out = []
    for t in leaves:
        a = t.numpy()
        out.append(a if isinstance(a, np.ndarray) else np.asarray(a))
    return out


def stacked_arrays(elements: list):
    """The flat elements ``elements`` (lists of Tensors) as one array per component,
    stacked along a new dimension 0, or None when their shapes differ. One array per
    component instead of one per element leaf makes a reply of many small elements
    cheap to frame, send and split again."""
    if len(elements) < 2:
        return None
    out = []
    for i in range(len(elements[0])):
        try:
            t = data_ops.stack([e[i] for e in elements], i)
        except (InvalidArgumentError, TypeError, AttributeError):
            return None  # different shapes (or composite leaves): one array each
        a = t.numpy()
        out.append(a if isinstance(a, np.ndarray) else np.asarray(a))
    return out


def elements_from_stacked(spec, arrays: list, n: int) -> list:
    """The ``n`` elements of ``spec`` whose components ``stacked_arrays`` stacked."""
    flat = _structure.flatten(spec)
    parts = [data_ops.unstack_range(data_ops.from_numpy(a, s.dtype), 0, n)
             for a, s in zip(arrays, flat)]
    return [_structure.pack_as(spec, [p[k] for p in parts]) for k in range(n)]


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
