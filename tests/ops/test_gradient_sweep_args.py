"""The ops the plain-float gradient sweep (test_gradients.py) cannot call on one or
two (3, 3) float tensors: each gets the arguments it needs here, and its values and
gradients (or TF's None gradient, for integer/boolean results and step functions) are
compared with real TF. Decompositions are compared through sign-free functions of
their factors."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf

R = np.random.default_rng(19)
F = lambda *s: R.uniform(0.2, 0.9, size=s).astype(np.float32)  # noqa: E731 - table helper
SPD = (lambda a: (a @ a.T + 3 * np.eye(3)).astype(np.float32))(F(3, 3))
I32 = lambda *v: np.array(v, np.int32)  # noqa: E731 - table helper
BOOL = np.array([[True, False, True], [False, False, True]])

# name -> (fn(module, *tensors), input arrays, indices of the inputs to differentiate)
CALLS = {
    "math.accumulate_n": (lambda m, a, b: m.math.accumulate_n([a, b]), [F(3, 3), F(3, 3)], [0, 1]),
    "math.acosh": (lambda m, a: m.math.acosh(a + 1.5), [F(3, 3)], [0]),
    "math.angle": (lambda m, a: m.math.angle(a), [F(3, 3)], [0]),
    "math.argmax": (lambda m, a: m.math.argmax(a, 1), [F(3, 4)], [0]),
    "math.argmin": (lambda m, a: m.math.argmin(a, 0), [F(3, 4)], [0]),
    "math.betainc": (lambda m, a, b, x: m.math.betainc(a + 1.0, b + 1.0, x), [F(4), F(4), F(4)],
                     [2]),
    "math.bincount": (lambda m, a: m.math.bincount(a), [I32(1, 1, 3, 0)], []),
    "math.ceil": (lambda m, a: m.math.ceil(a * 4.0), [F(3, 3)], [0]),
    "math.floor": (lambda m, a: m.math.floor(a * 4.0), [F(3, 3)], [0]),
    "math.round": (lambda m, a: m.math.round(a * 4.0), [F(3, 3)], [0]),
    "math.rint": (lambda m, a: m.math.rint(a * 4.0), [F(3, 3)], [0]),
    "math.floordiv": (lambda m, a, b: m.math.floordiv(a * 9.0, b), [F(3, 3), F(3, 3)], [0, 1]),
    "math.confusion_matrix": (lambda m, a, b: m.math.confusion_matrix(a, b, 4),
                              [I32(0, 1, 3, 1), I32(0, 2, 3, 1)], []),
    "math.count_nonzero": (lambda m, a: m.math.count_nonzero(a - 0.5), [F(3, 3)], [0]),
    "math.equal": (lambda m, a, b: m.math.equal(a, b), [F(3), F(3)], [0, 1]),
    "math.greater": (lambda m, a, b: m.math.greater(a, b), [F(3), F(3)], [0, 1]),
    "math.less_equal": (lambda m, a, b: m.math.less_equal(a, b), [F(3), F(3)], [0, 1]),
    "math.is_finite": (lambda m, a: m.math.is_finite(a), [F(3)], [0]),
    "math.is_nan": (lambda m, a: m.math.is_nan(a), [F(3)], [0]),
    "math.is_non_decreasing": (lambda m, a: m.math.is_non_decreasing(a), [F(4)], [0]),
    "math.logical_and": (lambda m, a: m.math.logical_and(a, m.logical_not(a)), [BOOL], []),
    "math.logical_xor": (lambda m, a: m.math.logical_xor(a, a[::-1]), [BOOL], []),
    "math.reduce_any": (lambda m, a: m.math.reduce_any(a, 1), [BOOL], []),
    "math.in_top_k": (lambda m, a: m.math.in_top_k(I32(0, 2, 1), a, 2), [F(3, 4)], [0]),
    "math.invert_permutation": (lambda m, a: m.math.invert_permutation(a), [I32(2, 0, 1)], []),
    "math.polygamma": (lambda m, x: m.math.polygamma(m.constant([1.0, 2.0, 3.0]), x + 1.0),
                       [F(3)], [0]),
    "math.polyval": (lambda m, a, x: m.math.polyval([a[0], a[1], a[2]], x), [F(3), F(4)], [0, 1]),
    "math.scalar_mul": (lambda m, a: m.math.scalar_mul(2.5, a), [F(3, 3)], [0]),
    "math.segment_sum": (lambda m, a: m.math.segment_sum(a, I32(0, 0, 1, 2)), [F(4, 2)], [0]),
    "math.segment_mean": (lambda m, a: m.math.segment_mean(a, I32(0, 0, 1, 2)), [F(4, 2)], [0]),
    "math.segment_max": (lambda m, a: m.math.segment_max(a, I32(0, 0, 1, 2)), [F(4, 2)], [0]),
    "math.segment_min": (lambda m, a: m.math.segment_min(a, I32(0, 0, 1, 2)), [F(4, 2)], [0]),
    "math.segment_prod": (lambda m, a: m.math.segment_prod(a, I32(0, 0, 1, 2)), [F(4, 2)], [0]),
    "math.unsorted_segment_sum": (lambda m, a: m.math.unsorted_segment_sum(a, I32(2, 0, 2, 1), 3),
                                  [F(4, 2)], [0]),
    "math.unsorted_segment_mean": (lambda m, a: m.math.unsorted_segment_mean(
        a, I32(2, 0, 2, 1), 3), [F(4, 2)], [0]),
    "math.unsorted_segment_max": (lambda m, a: m.math.unsorted_segment_max(
        a, I32(2, 0, 2, 1), 3), [F(4, 2)], [0]),
    "math.unsorted_segment_min": (lambda m, a: m.math.unsorted_segment_min(
        a, I32(2, 0, 2, 1), 3), [F(4, 2)], [0]),
    "math.unsorted_segment_prod": (lambda m, a: m.math.unsorted_segment_prod(
        a, I32(2, 0, 2, 1), 3), [F(4, 2)], [0]),
    "math.unsorted_segment_sqrt_n": (lambda m, a: m.math.unsorted_segment_sqrt_n(
        a, I32(2, 0, 2, 1), 3), [F(4, 2)], [0]),
    "math.top_k": (lambda m, a: m.math.top_k(a, 2).values, [F(3, 4)], [0]),
    "math.zero_fraction": (lambda m, a: m.math.zero_fraction(m.nn.relu(a - 0.5)), [F(3, 3)], [0]),
    "math.zeta": (lambda m, x, q: m.math.zeta(x + 1.5, q + 0.5), [F(4), F(4)], [1]),
    "nn.avg_pool2d": (lambda m, a: m.nn.avg_pool2d(a, 2, 1, "SAME"), [F(1, 4, 4, 2)], [0]),
    "nn.max_pool2d": (lambda m, a: m.nn.max_pool2d(a, 2, 2, "VALID"), [F(1, 4, 4, 2)], [0]),
    "nn.avg_pool1d": (lambda m, a: m.nn.avg_pool1d(a, 2, 1, "VALID"), [F(1, 5, 2)], [0]),
    "nn.max_pool1d": (lambda m, a: m.nn.max_pool1d(a, 3, 2, "SAME"), [F(1, 5, 2)], [0]),
    "nn.avg_pool3d": (lambda m, a: m.nn.avg_pool3d(a, 2, 1, "VALID"), [F(1, 3, 3, 3, 1)], [0]),
    "nn.max_pool3d": (lambda m, a: m.nn.max_pool3d(a, 2, 1, "SAME"), [F(1, 3, 3, 3, 1)], [0]),
    "nn.pool": (lambda m, a: m.nn.pool(a, [2, 2], "AVG", padding="SAME"), [F(1, 4, 4, 1)], [0]),
    "nn.bias_add": (lambda m, a, b: m.nn.bias_add(a, b[0]), [F(2, 3), F(1, 3)], [0, 1]),
    "nn.conv1d": (lambda m, a, k: m.nn.conv1d(a, k, 1, "SAME"), [F(1, 5, 2), F(3, 2, 3)], [0, 1]),
    "nn.conv2d": (lambda m, a, k: m.nn.conv2d(a, k, 1, "VALID"), [F(1, 4, 4, 2), F(3, 3, 2, 3)],
                  [0, 1]),
    "nn.conv2d_strided": (lambda m, a, k: m.nn.conv2d(a, k, 2, "SAME"),
                          [F(1, 5, 5, 2), F(3, 3, 2, 3)], [0, 1]),
    "nn.conv3d": (lambda m, a, k: m.nn.conv3d(a, k, [1] * 5, "SAME"),
                  [F(1, 3, 3, 3, 1), F(2, 2, 2, 1, 2)], [0, 1]),
    "nn.convolution": (lambda m, a, k: m.nn.convolution(a, k, padding="SAME"),
                       [F(1, 4, 4, 2), F(2, 2, 2, 2)], [0, 1]),
    "nn.conv2d_transpose": (lambda m, a, k: m.nn.conv2d_transpose(a, k, [1, 6, 6, 2], 2, "SAME"),
                            [F(1, 3, 3, 3), F(3, 3, 2, 3)], [0, 1]),
    "nn.conv1d_transpose": (lambda m, a, k: m.nn.conv1d_transpose(a, k, [1, 6, 2], 2, "SAME"),
                            [F(1, 3, 3), F(3, 2, 3)], [0, 1]),
    "nn.atrous_conv2d": (lambda m, a, k: m.nn.atrous_conv2d(a, k, 2, "SAME"),
                         [F(1, 5, 5, 1), F(2, 2, 1, 2)], [0, 1]),
    "nn.depthwise_conv2d": (lambda m, a, k: m.nn.depthwise_conv2d(a, k, [1] * 4, "VALID"),
                            [F(1, 4, 4, 2), F(2, 2, 2, 2)], [0, 1]),
    "nn.separable_conv2d": (lambda m, a, d, p: m.nn.separable_conv2d(a, d, p, [1] * 4, "SAME"),
                            [F(1, 4, 4, 2), F(2, 2, 2, 1), F(1, 1, 2, 3)], [0, 1, 2]),
    "nn.dilation2d": (lambda m, a, k: m.nn.dilation2d(a, k, [1] * 4, "SAME", "NHWC", [1] * 4),
                      [F(1, 4, 4, 1), F(2, 2, 1)], [0, 1]),
    "nn.depth_to_space": (lambda m, a: m.nn.depth_to_space(a, 2), [F(1, 2, 2, 4)], [0]),
    "nn.space_to_depth": (lambda m, a: m.nn.space_to_depth(a, 2), [F(1, 4, 4, 1)], [0]),
    "nn.space_to_batch": (lambda m, a: m.nn.space_to_batch(a, [2, 2], [[0, 0], [0, 0]]),
                          [F(1, 4, 4, 1)], [0]),
    "nn.batch_normalization": (lambda m, x, mu, v: m.nn.batch_normalization(
        x, mu[0], v[0] + 0.5, 0.1, 2.0, 1e-3), [F(4, 3), F(1, 3), F(1, 3)], [0, 1, 2]),
    "nn.moments": (lambda m, x: m.add_n(list(m.nn.moments(x, [0]))), [F(4, 3)], [0]),
    "nn.weighted_moments": (lambda m, x, w: m.add_n(list(m.nn.weighted_moments(x, [0], w))),
                            [F(4, 3), F(4, 3)], [0, 1]),
    "nn.local_response_normalization": (lambda m, a: m.nn.local_response_normalization(a, 2),
                                        [F(1, 2, 2, 5)], [0]),
    "nn.sparse_softmax_cross_entropy_with_logits": (
        lambda m, z: m.nn.sparse_softmax_cross_entropy_with_logits(I32(0, 2, 1), z),
        [F(3, 4)], [0]),
    "nn.weighted_cross_entropy_with_logits": (
        lambda m, y, z: m.nn.weighted_cross_entropy_with_logits(y, z, 2.0),
        [F(3, 3), F(3, 3)], [0, 1]),
    "nn.embedding_lookup": (lambda m, p: m.nn.embedding_lookup(p, I32(0, 2, 2)), [F(3, 2)], [0]),
    "nn.in_top_k": (lambda m, a: m.nn.in_top_k(I32(0, 2, 1), a, 2), [F(3, 4)], [0]),
    "nn.zero_fraction": (lambda m, a: m.nn.zero_fraction(m.nn.relu(a - 0.5)), [F(3, 3)], [0]),
    "nn.isotonic_regression": (lambda m, a: m.nn.isotonic_regression(a)[0], [F(2, 5)], [0]),
    "linalg.band_part": (lambda m, a: m.linalg.band_part(a, 1, 0), [F(3, 3)], [0]),
    "linalg.cholesky": (lambda m, a: m.linalg.cholesky(a), [SPD], [0]),
    "linalg.eigh": (lambda m, a: m.linalg.eigh(a)[0], [SPD], [0]),
    "linalg.eigvalsh": (lambda m, a: m.linalg.eigvalsh(a), [SPD], [0]),
    "linalg.svd": (lambda m, a: m.linalg.svd(a, compute_uv=False), [F(3, 2)], [0]),
    "linalg.qr": (lambda m, a: (lambda q, r: m.matmul(q, r))(*m.linalg.qr(a)), [F(3, 3)], [0]),
    "linalg.logdet": (lambda m, a: m.linalg.logdet(a), [SPD], [0]),
    "linalg.slogdet": (lambda m, a: m.linalg.slogdet(a)[1], [SPD], [0]),
    "linalg.global_norm": (lambda m, a, b: m.linalg.global_norm([a, b]), [F(3), F(2, 2)], [0, 1]),
    "linalg.normalize": (lambda m, a: m.linalg.normalize(a)[0], [F(3, 3)], [0]),
    "linalg.set_diag": (lambda m, a, d: m.linalg.set_diag(a, d[0]), [F(3, 3), F(1, 3)], [0, 1]),
    "linalg.tensordot": (lambda m, a, b: m.linalg.tensordot(a, b, 1), [F(2, 3), F(3, 2)], [0, 1]),
    "linalg.einsum": (lambda m, a, b: m.linalg.einsum("ij,jk->ik", a, b), [F(2, 3), F(3, 2)],
                      [0, 1]),
    "linalg.matrix_rank": (lambda m, a: m.linalg.matrix_rank(a), [F(3, 3)], [0]),
    "linalg.lu_solve": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu(a), b), [SPD, F(3, 2)],
                        [1]),
    "linalg.sqrtm": (lambda m, a: m.linalg.sqrtm(a), [SPD], []),
    "linalg.eye": (lambda m, a: m.linalg.eye(3) * a, [F(3, 3)], [0]),
}


def _run(lib, fn, arrays, watch):
    xs = [lib.constant(a) for a in arrays]
    src = [xs[i] for i in watch]
    with lib.GradientTape() as tape:
        tape.watch(src)
        y = fn(lib, *xs)
        loss = lib.reduce_sum(y) if y.dtype.is_floating else None
    grads = tape.gradient(loss, src) if loss is not None and src else [None] * len(src)
    return y, grads


@pytest.mark.parametrize("name", sorted(CALLS))
def test_value_and_gradient_match_tf(name):
    rtf = real_tf()
    fn, arrays, watch = CALLS[name]
    y_t, g_t = _run(rtf, fn, arrays, watch)
    y_o, g_o = _run(tf, fn, arrays, watch)
    assert y_o.dtype.name == y_t.dtype.name
    if y_t.dtype.is_floating:
        assert_close(y_o, y_t.numpy(), rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_array_equal(y_o.numpy(), y_t.numpy())
    for a, b in zip(g_o, g_t):
        if b is None:  # TF: no gradient (step functions, integer/boolean results)
            assert a is None or not np.any(np.asarray(a))
            continue
        assert a is not None, "torchflow gave no gradient where TF gives one"
        # Gathers' gradients are IndexedSlices on both sides (as TF): compare dense.
        assert isinstance(a, tf.IndexedSlices) == isinstance(b, rtf.IndexedSlices)
        if isinstance(a, tf.IndexedSlices):
            a = tf.convert_to_tensor(a)
        assert_close(a, np.asarray(rtf.convert_to_tensor(b)), rtol=1e-3, atol=1e-4)
