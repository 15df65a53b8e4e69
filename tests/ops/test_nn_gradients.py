"""tf.nn / tf.linalg ops stay differentiable through torch autograd: gradients of a
sum-of-squares loss match real TensorFlow's (float64, same random inputs)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf

CASES = {
    "conv2d": lambda m, a, b: m.nn.conv2d(a, b, 2, "SAME"),
    "conv2d_transpose": lambda m, a, b: m.nn.conv2d_transpose(
        m.nn.conv2d(a, b, 2, "SAME"), b, [2, 6, 5, 3], 2, "SAME"),
    "depthwise_conv2d": lambda m, a, b: m.nn.depthwise_conv2d(a, b[:, :, :, :2], [1, 2, 2, 1],
                                                              "SAME"),
    "max_pool2d": lambda m, a, b: m.nn.max_pool2d(a, 3, 2, "SAME"),
    "avg_pool2d": lambda m, a, b: m.nn.avg_pool2d(a, 3, 2, "SAME"),
    "softmax_cross_entropy": lambda m, a, b: m.nn.softmax_cross_entropy_with_logits(
        m.nn.softmax(a), a * 2.0),
    "sparse_softmax_cross_entropy": lambda m, a, b: m.nn.sparse_softmax_cross_entropy_with_logits(
        np.zeros((2, 6, 5), np.int32) + 1, a),
    "moments": lambda m, a, b: m.nn.moments(a, [0, 1, 2])[1],
    "gelu_dropout0": lambda m, a, b: m.nn.dropout(m.nn.gelu(a), 0.0),
    "matmul": lambda m, a, b: m.matmul(m.reshape(a, [12, 15]), m.reshape(a, [15, 12])),
    "inv": lambda m, a, b: m.linalg.inv(m.reshape(a, [2, 3, 5, 6])[:, :, :5, :5] +
                                        m.eye(5, dtype=m.float64) * 5.0),
    "spectral_norm": lambda m, a, b: m.norm(m.reshape(a, [12, 15]), 2, axis=[0, 1]),
    "singular_values": lambda m, a, b: m.linalg.svd(m.reshape(a, [12, 15]), compute_uv=False),
    "embedding_lookup": lambda m, a, b: m.nn.embedding_lookup(m.reshape(a, [12, 15]),
                                                              [[1, 3], [3, 0]], max_norm=2.0),
    "dilation2d": lambda m, a, b: m.nn.dilation2d(a, b[:, :, :, 0], [1, 1, 1, 1], "SAME",
                                                  "NHWC", [1, 1, 1, 1]),
    "lstsq": lambda m, a, b: m.linalg.lstsq(m.reshape(a, [12, 15])[:, :5],
                                            m.reshape(a, [12, 15])[:, 5:7], l2_regularizer=0.1),
    "conv1d": lambda m, a, b: m.nn.conv1d(m.reshape(a, [2, 30, 3]), b[0], 2, "SAME"),
    "conv3d": lambda m, a, b: m.nn.conv3d(m.reshape(a, [2, 3, 2, 5, 3]),
                                          m.reshape(b[:2, :2, :, :2], [2, 2, 1, 3, 2]),
                                          [1, 1, 1, 1, 1], "SAME"),
    "separable_conv2d": lambda m, a, b: m.nn.separable_conv2d(
        a, b[:, :, :, :1], m.reshape(b[0, 0, :, :3], [1, 1, 3, 3]), [1, 1, 1, 1], "VALID"),
    "avg_pool1d": lambda m, a, b: m.nn.avg_pool1d(m.reshape(a, [2, 30, 3]), 3, 2, "SAME"),
    "bias_add": lambda m, a, b: m.nn.bias_add(a, b[0, 0, :, 0]) ** 3,
    "sigmoid_ce": lambda m, a, b: m.nn.sigmoid_cross_entropy_with_logits(m.nn.sigmoid(a), a),
    "log_softmax_softplus": lambda m, a, b: m.nn.log_softmax(m.nn.softplus(a) * 3.0, axis=1),
    "batch_normalization": lambda m, a, b: m.nn.batch_normalization(
        a, m.reduce_mean(a, [0, 1, 2]), m.math.reduce_variance(a, [0, 1, 2]), b[0, 0, :, 1],
        b[0, 0, :, 2], 1e-3),
    "cholesky_det": lambda m, a, b: m.linalg.cholesky(
        m.matmul(m.reshape(a, [12, 15]), m.reshape(a, [12, 15]), transpose_b=True) +
        m.eye(12, dtype=m.float64)) * m.linalg.det(m.reshape(a, [2, 3, 5, 6])[0, 0, :3, :3]),
    "triangular_solve": lambda m, a, b: m.linalg.triangular_solve(
        m.reshape(a, [2, 3, 5, 6])[:, :, :5, :5] + m.eye(5, dtype=m.float64) * 4.0,
        m.reshape(a, [2, 3, 5, 6])[:, :, :, 5:]),
    "eigvalsh_slogdet": lambda m, a, b: m.linalg.eigvalsh(
        m.matmul(m.reshape(a, [12, 15]), m.reshape(a, [12, 15]), transpose_b=True)) +
        m.linalg.slogdet(m.reshape(a, [12, 15])[:, :12] + m.eye(12, dtype=m.float64) * 9.0)[1],
    # TF backpropagates softmax - labels to the logits even for unnormalized labels.
    "softmax_ce_unnormalized_labels": lambda m, a, b: m.nn.softmax_cross_entropy_with_logits(
        m.nn.sigmoid(a), a * 2.0),
    "cholesky_solve_reads_lower": lambda m, a, b: m.linalg.cholesky_solve(
        m.reshape(a, [12, 15])[:, :12] + m.eye(12, dtype=m.float64) * 6.0,
        m.reshape(a, [12, 15])[:, 12:]),
    "ctc_loss_float32": lambda m, a, b: m.nn.ctc_loss(
        np.array([[1, 2], [3, 3]], np.int32), m.cast(m.reshape(a, [6, 2, 15]), m.float32),
        [2, 2], [6, 5]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_match_tf(name):
    rtf = real_tf()
    x, w = rand((2, 6, 5, 3), "float64", 1), rand((3, 3, 3, 4), "float64", 2)
    grads = []
    for m in (tf, rtf):
        a, b = m.constant(x), m.constant(w)
        with m.GradientTape() as tape:
            tape.watch(a)
            tape.watch(b)
            y = CASES[name](m, a, b)
            loss = m.reduce_sum(y * y)
        grads.append(tape.gradient(loss, [a, b]))
    for got, want in zip(*grads):
        assert (got is None) == (want is None)
        if got is not None:
            tol = dict(rtol=1e-4, atol=1e-5) if "float32" in name else dict(rtol=1e-6, atol=1e-8)
            assert_close(got, want, **tol)
