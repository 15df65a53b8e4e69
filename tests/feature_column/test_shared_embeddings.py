"""``tf.feature_column.shared_embeddings``: refused eagerly (TF 2.4's
RuntimeError, tested in test_feature_column_errors), built inside a ``tf.function``, where the
columns look up one table (not a layer weight, as in TF)."""

from __future__ import annotations

import pytest

import torchflow
from torchflow._src.testing import real_tf


def _program(m, num_b=4):
    fc = m.feature_column
    a = fc.categorical_column_with_identity("a", 4)
    b = fc.categorical_column_with_identity("b", num_b)
    holder = {}

    def init(shape, dtype=None, partition_info=None):
        return m.reshape(m.range(8, dtype=m.float32), shape)

    @m.function
    def f(feats):
        if "cols" not in holder:
            holder["cols"] = fc.shared_embeddings([b, a], 2, initializer=init,
                                                  combiner="sum")
            holder["layer"] = m.keras.layers.DenseFeatures(holder["cols"])
        return holder["layer"](feats)

    out = f({"a": m.constant([[1, 2], [3, -1]]), "b": m.constant([[3, 3], [1, 0]])})
    return (out.numpy().tolist(), [c.name for c in holder["cols"]],
            [w.name for w in holder["layer"].weights])


def test_shared_embeddings_in_a_function_match_tf():
    assert _program(torchflow) == _program(real_tf())


def test_shared_embeddings_need_equal_bucket_counts():
    for m in (torchflow, real_tf()):
        with pytest.raises(ValueError, match="all categorical_columns must have the same "
                                             "number of buckets"):
            _program(m, num_b=5)
