"""tf.nn statistics helpers, depth/space rearrangement, morphology and CTC against
real TensorFlow (same random inputs; values, dtypes and error types)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf


@pytest.mark.parametrize("shift", [None, 0.5])
def test_sufficient_statistics_and_normalize_moments_match_tf(shift):
    rtf = real_tf()
    x = rand((3, 4, 5), "float32", 1)
    got = tf.nn.sufficient_statistics(x, [0, 2], shift=shift)
    want = rtf.nn.sufficient_statistics(rtf.constant(x), [0, 2], shift=shift)
    for g, w in zip(got[:3], want[:3]):
        assert_close(g, w, rtol=1e-5, atol=1e-5)
    assert (got[3] is None) == (want[3] is None)
    assert_close(tf.nn.normalize_moments(*got)[1], rtf.nn.normalize_moments(*want)[1],
                 rtol=1e-4, atol=1e-5)
    assert_close(tf.nn.normalize_moments(*got)[0], rtf.nn.normalize_moments(*want)[0],
                 rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_depth_to_space_and_back_match_tf(fmt):
    rtf = real_tf()
    x = rand((2, 3, 4, 8), "int32", 2)
    want = rtf.nn.depth_to_space(rtf.constant(x), 2)
    assert_close(tf.nn.depth_to_space(x, 2), want)
    assert_close(tf.nn.space_to_depth(want.numpy(), 2), x)
    if fmt == "NCHW":  # TF's CPU has no NCHW kernel: compare with the NHWC result
        got = tf.nn.depth_to_space(np.ascontiguousarray(np.moveaxis(x, -1, 1)), 2,
                                   data_format="NCHW")
        assert_close(got, np.moveaxis(want.numpy(), -1, 1))
        back = tf.nn.space_to_depth(got, 2, data_format="NCHW")
        assert_close(back, np.moveaxis(x, -1, 1))


@pytest.mark.parametrize("strides,padding,rates", [([1, 1, 1, 1], "SAME", [1, 1, 1, 1]),
                                                   ([1, 2, 2, 1], "SAME", [1, 1, 1, 1]),
                                                   ([1, 1, 1, 1], "VALID", [1, 2, 2, 1])])
def test_dilation_and_erosion_match_tf(strides, padding, rates):
    rtf = real_tf()
    x, f = rand((2, 7, 6, 3), "float32", 3), rand((3, 2, 3), "float32", 4)
    assert_close(tf.nn.dilation2d(x, f, strides, padding, "NHWC", rates),
                 rtf.nn.dilation2d(rtf.constant(x), f, strides, padding, "NHWC", rates))
    assert_close(tf.nn.erosion2d(x, f, strides, padding, "NHWC", rates),
                 rtf.nn.erosion2d(rtf.constant(x), f, strides, padding, "NHWC", rates))


@pytest.mark.parametrize("blank", [None, -1])
@pytest.mark.parametrize("time_major", [True, False])
def test_ctc_loss_matches_tf(blank, time_major):
    rtf = real_tf()
    logits = rand((12, 3, 6) if time_major else (3, 12, 6), "float32", 5)
    labels = np.array([[1, 2, 2, 3], [4, 1, 0, 0], [2, 0, 0, 0]], np.int32)
    label_len, logit_len = np.array([4, 2, 1], np.int32), np.array([12, 10, 7], np.int32)
    want = rtf.nn.ctc_loss(rtf.constant(labels), rtf.constant(logits), label_len, logit_len,
                           logits_time_major=time_major, blank_index=blank)
    got = tf.nn.ctc_loss(labels, logits, label_len, logit_len, logits_time_major=time_major,
                         blank_index=blank)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


def _c(m, a):
    return m.constant(np.asarray(a))


BAD = [
    ("depth_to_space indivisible", lambda m: m.nn.depth_to_space(_c(m, np.ones((1, 2, 2, 6))), 2)),
    ("space_to_depth indivisible", lambda m: m.nn.space_to_depth(_c(m, np.ones((1, 3, 2, 1))), 2)),
    ("depth_to_space rank 3", lambda m: m.nn.depth_to_space(_c(m, np.ones((2, 2, 4))), 2)),
]


@pytest.mark.parametrize("case,fn", BAD, ids=[c for c, _ in BAD])
def test_bad_inputs_raise_tf_error_types(case, fn):
    rtf = real_tf()
    with pytest.raises(Exception) as want:
        fn(rtf)
    with pytest.raises(Exception) as got:
        fn(tf)
    assert type(got.value).__name__ == type(want.value).__name__, (got.value, want.value)


def test_compute_accidental_hits_matches_tf():
    rtf = real_tf()
    tc = np.array([[1, 2], [3, 1], [5, 6]], np.int64)
    sc = np.array([1, 3, 1, 6], np.int64)
    got = tf.nn.compute_accidental_hits(tc, sc, 2)
    want = rtf.nn.compute_accidental_hits(rtf.constant(tc), rtf.constant(sc), 2)
    for g, w in zip(got, want):
        assert_close(g, w)


@pytest.mark.parametrize("num_true", [1, 2])
@pytest.mark.parametrize("remove_hits", [False, True])
@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
def test_sampled_losses_match_tf_given_the_same_samples(num_true, remove_hits, loss):
    rtf = real_tf()
    w, b = rand((10, 4), "float32", 10), rand((10,), "float32", 11)
    x = rand((3, 4), "float32", 12)
    labels = np.array([[1, 7], [3, 2], [9, 1]], np.int64)[:, :num_true]
    sampled = np.array([0, 2, 5, 7], np.int64)
    true_exp = rand((3, num_true), "float32", 13, 0.1, 0.9)
    sampled_exp = rand((4,), "float32", 14, 0.1, 0.9)
    got = getattr(tf.nn, loss)(w, b, labels, x, 4, 10, num_true=num_true,
                               sampled_values=(sampled, true_exp, sampled_exp),
                               remove_accidental_hits=remove_hits)
    want = getattr(rtf.nn, loss)(rtf.constant(w), rtf.constant(b), rtf.constant(labels),
                                 rtf.constant(x), 4, 10, num_true=num_true,
                                 sampled_values=(rtf.constant(sampled), rtf.constant(true_exp),
                                                 rtf.constant(sampled_exp)),
                                 remove_accidental_hits=remove_hits)
    assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_sampled_softmax_loss_with_its_own_sampler_runs_and_is_positive():
    w, b = rand((50, 4), "float32", 15), rand((50,), "float32", 16)
    x, labels = rand((6, 4), "float32", 17), rand((6, 1), "int64", 18, 0, 49)
    out = tf.nn.sampled_softmax_loss(w, b, labels, x, 5, 50, seed=1).numpy()
    assert out.shape == (6,) and (out > 0).all()


def test_collapse_repeated_and_ctc_unique_labels_match_tf():
    rtf = real_tf()
    labels = np.array([[1, 1, 2, 2, 1], [1, 2, 3, 4, 5], [3, 3, 3, 0, 0]], np.int32)
    for lengths in ([5, 5, 2], [4, 3, 1]):
        got = tf.nn.collapse_repeated(labels, lengths)
        want = rtf.nn.collapse_repeated(rtf.constant(labels), rtf.constant(lengths))
        for g, w in zip(got, want):
            assert_close(g, w)
    u = np.array([[3, 4, 4, 3], [1, 1, 1, 0]], np.int32)
    for g, w in zip(tf.nn.ctc_unique_labels(u), rtf.nn.ctc_unique_labels(rtf.constant(u))):
        assert_close(g, w)


def test_batch_norm_with_global_normalization_matches_tf():
    rtf = real_tf()
    x, m, v = rand((4, 3), "float32", 19), rand((3,), "float32", 20), rand((3,), "float32", 21, 0.5)
    beta, gamma = rand((3,), "float32", 22), rand((3,), "float32", 23)
    for scale in (True, False):
        assert_close(tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 1e-3, scale),
                     rtf.nn.batch_norm_with_global_normalization(rtf.constant(x), m, v, beta,
                                                                 gamma, 1e-3, scale), rtol=1e-5)


@pytest.mark.parametrize("strides,padding", [([1, 1, 1, 1], "SAME"), ([1, 2, 2, 1], "SAME"),
                                             ([1, 2, 2, 1], "VALID")])
def test_depthwise_backprops_match_tf(strides, padding):
    rtf = real_tf()
    x, w = rand((2, 7, 6, 3), "float32", 24), rand((3, 3, 3, 2), "float32", 25)
    g = rtf.nn.depthwise_conv2d(rtf.constant(x), w, strides, padding).numpy()
    g = rand(g.shape, "float32", 26)
    assert_close(tf.nn.depthwise_conv2d_backprop_input([2, 7, 6, 3], w, g, strides, padding),
                 rtf.nn.depthwise_conv2d_backprop_input([2, 7, 6, 3], rtf.constant(w),
                                                        rtf.constant(g), strides, padding),
                 rtol=1e-4, atol=1e-4)
    assert_close(tf.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 3, 2], g, strides, padding),
                 rtf.nn.depthwise_conv2d_backprop_filter(rtf.constant(x), [3, 3, 3, 2],
                                                         rtf.constant(g), strides, padding),
                 rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("decreasing,axis", [(True, -1), (False, -1), (False, 0), (True, 1)])
def test_isotonic_regression_matches_tf(dtype, decreasing, axis):
    rtf = real_tf()
    x = rand((4, 9), dtype, 27, -5, 5)
    got = tf.nn.isotonic_regression(x, decreasing=decreasing, axis=axis)
    want = rtf.nn.isotonic_regression(rtf.constant(x), decreasing=decreasing, axis=axis)
    assert_close(got[0], want[0], rtol=1e-6, atol=1e-6)
    assert_close(got[1], want[1])


def test_isotonic_regression_gradient_matches_tf():
    rtf = real_tf()
    x = rand((3, 7), "float64", 28)
    grads = []
    for m in (tf, rtf):
        v = m.constant(x)
        with m.GradientTape() as tape:
            tape.watch(v)
            y = m.nn.isotonic_regression(v)[0]
            loss = m.reduce_sum(y * y * np.arange(7.0))
        grads.append(tape.gradient(loss, v))
    assert_close(grads[0], grads[1], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype,fmt", [("float32", "NHWC"), ("float16", "NHWC"),
                                       ("float32", "NCHW")])
@pytest.mark.parametrize("training,factor", [(True, 1.0), (True, 0.3), (False, 1.0)])
def test_fused_batch_norm_matches_tf_compat_v1(dtype, fmt, training, factor):
    from torchflow._src.ops.normalization_ops import fused_batch_norm

    rtf = real_tf()
    x = rand((2, 3, 4, 5), dtype, 29)
    c = 3 if fmt == "NCHW" else 5
    s, o = rand((c,), "float32", 30), rand((c,), "float32", 31)
    m, v = rand((c,), "float32", 32), rand((c,), "float32", 33, 0.5, 2)
    if fmt == "NCHW":  # TF's CPU kernel is NHWC-only: compare on the transposed layout
        want = rtf.compat.v1.nn.fused_batch_norm(
            rtf.constant(np.moveaxis(x, 1, -1)), s, o, m, v, is_training=training,
            exponential_avg_factor=factor)
        want = (np.moveaxis(want[0].numpy(), -1, 1), want[1], want[2])
    else:
        want = rtf.compat.v1.nn.fused_batch_norm(rtf.constant(x), s, o, m, v,
                                                  is_training=training,
                                                  exponential_avg_factor=factor)
    got = fused_batch_norm(x, s, o, m, v, data_format=fmt, is_training=training,
                           exponential_avg_factor=factor)
    tol = dict(rtol=2e-3, atol=2e-3) if dtype == "float16" else dict(rtol=1e-5, atol=1e-5)
    for g, w in zip(got, want):
        assert_close(g, w, **tol)


@pytest.mark.parametrize("padding,rate", [("SAME", [2, 2]), ("VALID", [2, 3]), ("SAME", [1, 1])])
def test_with_space_to_batch_matches_tf(padding, rate):
    rtf = real_tf()
    x, w = rand((2, 9, 8, 3), "float32", 34), rand((3, 2, 3, 4), "float32", 35)

    def run(m, inp):
        return m.nn.with_space_to_batch(
            inp, rate, padding, lambda v, n, p: m.nn.conv2d(v, w, 1, p), filter_shape=[3, 2])

    assert_close(run(tf, x), run(rtf, rtf.constant(x)), rtol=1e-4, atol=1e-4)
