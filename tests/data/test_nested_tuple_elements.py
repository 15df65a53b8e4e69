"""Tuples whose parts are dicts (features, label) slice and batch as TF's (the flat
tuple fast paths must not take them), compared with real TF."""

import numpy as np

import torchflow as tf
from torchflow._src.testing import real_tf


def _program(m):
    ds = m.data.Dataset.from_tensor_slices(({"a": [1, 2, 3], "b": [[1.0], [2.0], [3.0]]},
                                            ["x", "y", "z"]))
    out = [(int(f["a"]), f["b"].numpy().tolist(), lbl.numpy()) for f, lbl in ds]
    f, lbl = next(iter(ds.batch(2)))
    out.append((f["a"].numpy().tolist(), f["b"].numpy().tolist(), lbl.numpy().tolist()))
    ds2 = m.data.Dataset.from_tensors(({"f": m.constant([1.0, 2.0])}, m.constant(1)))
    f2, l2 = next(iter(ds2.repeat(3).batch(3)))
    out.append((f2["f"].numpy().tolist(), l2.numpy().tolist()))
    return out


def test_tuple_of_dict_and_tensor_matches_tf():
    assert _program(tf) == _program(real_tf())
    assert np.asarray(_program(tf)[3][0]).shape == (2,)
