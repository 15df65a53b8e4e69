"""Gradients through sparse ops (w.r.t. the values and the dense operands) against
real TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

IND = [[0, 0], [0, 2], [1, 1], [3, 0]]
VALS = [1.0, 2.0, -3.0, 4.0]


def _dense(g, tf):
    if isinstance(g, tf.IndexedSlices):
        return tf.convert_to_tensor(g).numpy()
    return g.numpy()


CASES = {
    "to_dense": lambda tf, v, d: tf.reduce_sum(
        tf.sparse.to_dense(tf.sparse.SparseTensor(IND, v, [4, 3])) * d[:4, :3]),
    "matmul": lambda tf, v, d: tf.reduce_sum(tf.sparse.sparse_dense_matmul(
        tf.sparse.SparseTensor(IND, v, [4, 3]), d[:3, :2]) ** 2),
    "matmul_adjoint": lambda tf, v, d: tf.reduce_sum(tf.sparse.sparse_dense_matmul(
        tf.sparse.SparseTensor(IND, v, [4, 3]), d[:2, :4], adjoint_a=True, adjoint_b=True) ** 2),
    "reduce_sum": lambda tf, v, d: tf.reduce_sum(tf.sparse.reduce_sum(
        tf.sparse.SparseTensor(IND, v * v, [4, 3]), axis=1) * d[0, :4]),
    "add_dense": lambda tf, v, d: tf.reduce_sum(tf.sparse.add(
        tf.sparse.SparseTensor(IND, v, [4, 3]), d[:4, :3]) ** 2),
    "embedding_sparse": lambda tf, v, d: tf.reduce_sum(tf.nn.embedding_lookup_sparse(
        d, tf.sparse.SparseTensor(IND, tf.constant([1, 3, 5, 1], tf.int64), [4, 3]),
        tf.sparse.SparseTensor(IND, v, [4, 3]), combiner="sqrtn") ** 2),
    "safe_embedding": lambda tf, v, d: tf.reduce_sum(tf.nn.safe_embedding_lookup_sparse(
        d, tf.sparse.SparseTensor(IND, tf.constant([1, 3, -1, 1], tf.int64), [4, 3]),
        None, combiner="mean") ** 2),
}


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_gradient_matches_tf(name):
    rtf = real_tf()
    d0 = np.arange(24, dtype=np.float32).reshape(6, 4) / 10
    out = {}
    for tf in (rtf, torchflow):
        v = tf.Variable(np.array(VALS, np.float32))
        d = tf.Variable(d0)
        with tf.GradientTape() as tape:
            loss = CASES[name](tf, v, d)
        gv, gd = tape.gradient(loss, [v, d])
        out[tf.__name__] = (loss.numpy(), None if gv is None else _dense(gv, tf), _dense(gd, tf))
    want, got = out[rtf.__name__], out["torchflow"]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    if want[1] is None:
        assert got[1] is None
    else:
        np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5, atol=1e-6)
