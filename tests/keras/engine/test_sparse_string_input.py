"""A Functional model over a sparse string ``tf.keras.Input``: Keras infers the
layers' outputs from a placeholder SparseTensor whose values are NumPy bytes, as
every string tensor's (it held a float torch tensor, which string ops could not
read). Compared with real TF."""

from __future__ import annotations

import numpy as np

import torchflow
from torchflow._src.testing import real_tf


def _program(m):
    lookup = m.keras.layers.experimental.preprocessing.StringLookup(
        vocabulary=["a", "b"], mask_token=None, num_oov_indices=1)  # one meaning in TF 2.4 and 2.21
    inp = m.keras.Input(shape=(None,), sparse=True, dtype=m.string)
    ids = lookup(inp)
    out = m.keras.layers.Lambda(lambda s: m.sparse.to_dense(s))(ids)
    model = m.keras.Model(inp, out)
    x = m.sparse.SparseTensor([[0, 0], [0, 2], [1, 1]], m.constant(["b", "z", "a"]), [2, 3])
    return out.shape.as_list(), model(x).numpy()


def test_sparse_string_input_in_functional_model_matches_tf():
    ours, theirs = _program(torchflow), _program(real_tf())
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])
