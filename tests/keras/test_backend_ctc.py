"""tf.keras.backend.ctc_label_dense_to_sparse and ctc_batch_cost against real tf.keras."""

from __future__ import annotations

import numpy as np

import torchflow as tf
from torchflow._src.testing import real_tf

R = np.random.RandomState(0)
K = tf.keras.backend
LABELS = np.array([[1, 2, 3, 0], [4, 0, 0, 0], [2, 2, 1, 3]], np.int32)
LENGTHS = np.array([3, 1, 4], np.int32)


def test_ctc_label_dense_to_sparse_matches_tf():
    rtf = real_tf()
    want = rtf.keras.backend.ctc_label_dense_to_sparse(rtf.constant(LABELS),
                                                       rtf.constant(LENGTHS))
    got = K.ctc_label_dense_to_sparse(tf.constant(LABELS), tf.constant(LENGTHS))
    assert isinstance(got, tf.sparse.SparseTensor)
    for a, b in [(got.indices, want.indices), (got.values, want.values),
                 (got.dense_shape, want.dense_shape)]:
        assert a.dtype.name == b.dtype.name
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_ctc_batch_cost_matches_tf_with_gradients():
    rtf = real_tf()
    logits = R.randn(3, 9, 6).astype("float32")
    input_length = np.array([[9], [7], [8]])
    label_length = LENGTHS[:, None]

    def run(mod, backend_mod):
        z = mod.Variable(logits)
        with mod.GradientTape() as tape:
            y_pred = mod.nn.softmax(z)
            loss = backend_mod.ctc_batch_cost(LABELS, y_pred, input_length, label_length)
            total = mod.reduce_sum(loss)
        return loss.numpy(), tape.gradient(total, z).numpy()

    (ours, ours_g), (theirs, theirs_g) = run(tf, K), run(rtf, rtf.keras.backend)
    assert ours.shape == theirs.shape == (3, 1)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    np.testing.assert_allclose(ours_g, theirs_g, rtol=1e-4, atol=1e-5)
