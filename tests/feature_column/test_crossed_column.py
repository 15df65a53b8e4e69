"""``crossed_column`` hashing against real TF, and the input order of TF's
SparseCross kernels that it relies on (``tf.sparse.cross`` / ``cross_hashed``
cross the SparseTensor inputs first, then the dense ones)."""

from __future__ import annotations

import pytest

import torchflow
from torchflow._src.testing import real_tf


def _inputs(m):
    dense_s = m.constant([["cat"], ["dog"], ["cat"], [""]])
    dense_i = m.constant([[10], [20], [30], [-1]], dtype=m.int64)
    sparse_s = m.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 2]],
                                     m.constant(["a", "b", "c", "a"]), [4, 3])
    sparse_i = m.sparse.SparseTensor([[0, 0], [2, 0], [3, 0]],
                                     m.constant([7, 8, 9], dtype=m.int64), [4, 1])
    return dense_s, dense_i, sparse_s, sparse_i


ORDERS = [(0, 2), (2, 0), (1, 0, 2), (0, 3, 1, 2), (3, 0, 2)]


@pytest.mark.parametrize("order", ORDERS)
def test_sparse_cross_input_order_matches_tf(order):
    def run(m):
        xs = _inputs(m)
        picked = [xs[i] for i in order]
        s = m.sparse.cross(picked)
        h = m.sparse.cross_hashed(picked, num_buckets=1000, hash_key=5)
        return (s.indices.numpy().tolist(), s.values.numpy().tolist(),
                h.values.numpy().tolist(), h.dense_shape.numpy().tolist())

    assert run(torchflow) == run(real_tf())


@pytest.mark.parametrize("hash_key", [None, 123])
def test_crossed_column_ids_match_tf(hash_key):
    def run(m):
        fc = m.feature_column
        vocab = fc.categorical_column_with_vocabulary_list("t", ["x", "y"], num_oov_buckets=2)
        age = fc.bucketized_column(fc.numeric_column("age"), [20.0, 40.0])
        col = fc.crossed_column([age, vocab, "w"], hash_bucket_size=1000, hash_key=hash_key)
        feats = {"age": m.constant([[10.0], [30.0], [50.0]]),
                 "t": m.constant([["x"], ["q"], ["y"]]),
                 "w": m.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]],
                                            m.constant(["p", "q", "r"]), [3, 2])}
        # The column's ids, read through its public interface.
        from_layer = m.keras.layers.DenseFeatures([fc.indicator_column(col)])(feats)
        return col.name, from_layer.numpy().nonzero()[1].tolist()

    ours, theirs = run(torchflow), run(real_tf())
    assert ours == theirs
    assert ours[0] == "age_bucketized_X_t_X_w"
