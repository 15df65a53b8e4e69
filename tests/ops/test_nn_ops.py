"""tf.nn activations, bias_add, dropout, normalization, losses and embeddings against
real TensorFlow (same random inputs; values, dtypes and error types)."""

import math

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf

TOL = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-12),
       "float16": dict(rtol=2e-3, atol=2e-3)}

ACTIVATIONS = [
    ("relu", {}), ("relu6", {}), ("elu", {}), ("selu", {}), ("gelu", {}),
    ("gelu", {"approximate": True}), ("leaky_relu", {}), ("leaky_relu", {"alpha": 0.5}),
    ("sigmoid", {}), ("tanh", {}), ("softmax", {}), ("softmax", {"axis": 0}),
    ("log_softmax", {}), ("log_softmax", {"axis": 1}), ("softplus", {}), ("softsign", {}),
    ("swish", {}), ("silu", {}), ("crelu", {}),
]


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=[f"{n}{k}" for n, k in ACTIVATIONS])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_activation_matches_tf(name, kw, dtype):
    rtf = real_tf()
    x = rand((3, 4, 5), dtype, 1, -8, 8)
    x[0, 0, :2] = [30, -30]  # far tails (softplus/sigmoid saturation)
    want = getattr(rtf.nn, name)(rtf.constant(x), **kw)
    got = getattr(tf.nn, name)(x, **kw)
    tol = TOL[dtype]
    if name == "gelu" and dtype == "float64":
        tol = dict(rtol=1e-6, atol=1e-8)  # TF 2.21's float64 gelu is float32-accurate
    assert_close(got, want, **tol)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_float64_matches_the_formula(approximate):
    x = rand((20,), "float64", 2, -4, 4)
    if approximate:
        ref = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))
               for v in x]
    else:
        ref = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x]
    assert_close(tf.nn.gelu(x, approximate=approximate), np.array(ref), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu"])
def test_integer_activations_match_tf(name):
    rtf = real_tf()
    x = rand((4, 5), "int32", 2, -9, 9)
    assert_close(getattr(tf.nn, name)(x), getattr(rtf.nn, name)(rtf.constant(x)))


def test_silu_beta_matches_tf():
    rtf = real_tf()
    x = rand((7,), "float32", 3)
    assert_close(tf.nn.silu(x, beta=2.0), rtf.nn.silu(rtf.constant(x), beta=2.0), rtol=1e-5)


@pytest.mark.parametrize("shape,fmt", [((2, 3), None), ((2, 4, 5, 3), "NHWC"),
                                       ((2, 3, 4, 5), "NCHW"), ((2, 3, 4), "NC..."),
                                       ((2, 4, 3), "N...C")])
def test_bias_add_matches_tf(shape, fmt):
    rtf = real_tf()
    x = rand(shape, "float32", 4)
    b = rand((3,), "float32", 5)
    want = rtf.nn.bias_add(rtf.constant(x), b, data_format=fmt)
    assert_close(tf.nn.bias_add(x, b, data_format=fmt), want)


def test_dropout_scales_kept_values_and_respects_noise_shape():
    x = np.ones((200, 50), np.float32)
    y = tf.nn.dropout(x, 0.3).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert 0.25 < 1 - kept.mean() < 0.35
    z = tf.nn.dropout(x, 0.5, noise_shape=[200, 1]).numpy()
    assert ((z == 0).all(1) | (z != 0).all(1)).all()  # whole rows kept or dropped
    assert tf.nn.dropout(x, 0.0).numpy() is not None and (tf.nn.dropout(x, 0.0).numpy() == x).all()


def test_dropout_seeded_is_reproducible():
    tf.random.set_seed(7)
    a = tf.nn.dropout(np.ones(100, np.float32), 0.5, seed=3).numpy()
    tf.random.set_seed(7)
    b = tf.nn.dropout(np.ones(100, np.float32), 0.5, seed=3).numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("axes,keepdims",
                         [([0], False), ([0, 1], True), ([1, 2], False), (1, False)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_moments_match_tf(axes, keepdims, dtype):
    rtf = real_tf()
    x = rand((4, 3, 5), dtype, 6)
    want = rtf.nn.moments(rtf.constant(x), axes, keepdims=keepdims)
    got = tf.nn.moments(x, axes, keepdims=keepdims)
    for g, w in zip(got, want):
        assert_close(g, w, **TOL[dtype])


def test_moments_int_and_weighted_moments_match_tf():
    rtf = real_tf()
    xi = rand((7,), "int32", 7, -9, 9)
    for g, w in zip(tf.nn.moments(xi, [0]), rtf.nn.moments(rtf.constant(xi), [0])):
        assert_close(g, w)
    x, f = rand((4, 5), "float32", 8), rand((4, 5), "float32", 9, 0, 2)
    for g, w in zip(tf.nn.weighted_moments(x, [1], f),
                    rtf.nn.weighted_moments(rtf.constant(x), [1], rtf.constant(f))):
        assert_close(g, w, rtol=1e-5, atol=1e-6)


def test_batch_normalization_matches_tf():
    rtf = real_tf()
    x = rand((4, 3), "float32", 10)
    m, v = rand((3,), "float32", 11), rand((3,), "float32", 12, 0.1, 2)
    o, s = rand((3,), "float32", 13), rand((3,), "float32", 14)
    for off, sc in [(o, s), (None, None), (o, None)]:
        want = rtf.nn.batch_normalization(rtf.constant(x), m, v, off, sc, 1e-3)
        assert_close(tf.nn.batch_normalization(x, m, v, off, sc, 1e-3), want, rtol=1e-5)


def test_local_response_normalization_matches_tf():
    rtf = real_tf()
    x = rand((2, 3, 3, 7), "float32", 15)
    want = rtf.nn.local_response_normalization(rtf.constant(x), 2, 1.5, 0.3, 0.75)
    assert_close(tf.nn.local_response_normalization(x, 2, 1.5, 0.3, 0.75), want, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropies_match_tf(dtype):
    rtf = real_tf()
    logits = rand((5, 4), dtype, 16, -5, 5)
    logits[0, :2] = [40, -40]
    probs = rand((5, 4), dtype, 17, 0, 1)
    probs /= probs.sum(1, keepdims=True)
    ids = rand((5,), "int32", 18, 0, 3)
    L, P = rtf.constant(logits), rtf.constant(probs)
    tol = TOL[dtype]
    assert_close(tf.nn.sigmoid_cross_entropy_with_logits(probs, logits),
                 rtf.nn.sigmoid_cross_entropy_with_logits(P, L), **tol)
    assert_close(tf.nn.weighted_cross_entropy_with_logits(probs, logits, 2.5),
                 rtf.nn.weighted_cross_entropy_with_logits(P, L, 2.5), **tol)
    assert_close(tf.nn.softmax_cross_entropy_with_logits(probs, logits),
                 rtf.nn.softmax_cross_entropy_with_logits(P, L), **tol)
    assert_close(tf.nn.softmax_cross_entropy_with_logits(probs, logits, axis=0),
                 rtf.nn.softmax_cross_entropy_with_logits(P, L, axis=0), **tol)
    assert_close(tf.nn.sparse_softmax_cross_entropy_with_logits(ids, logits),
                 rtf.nn.sparse_softmax_cross_entropy_with_logits(rtf.constant(ids), L), **tol)
    assert_close(tf.nn.l2_loss(logits), rtf.nn.l2_loss(L), **tol)
    t = rand((5, 4), dtype, 19, 0, 4).round()
    for full in (False, True):
        assert_close(tf.nn.log_poisson_loss(t, logits / 10, compute_full_loss=full),
                     rtf.nn.log_poisson_loss(rtf.constant(t), L / 10, compute_full_loss=full),
                     **tol)


def test_half_precision_softmax_cross_entropy_matches_tf():
    rtf = real_tf()
    logits, probs = rand((3, 5), "float16", 20), rand((3, 5), "float16", 21, 0, 1)
    assert_close(tf.nn.softmax_cross_entropy_with_logits(probs, logits),
                 rtf.nn.softmax_cross_entropy_with_logits(rtf.constant(probs),
                                                          rtf.constant(logits)), **TOL["float16"])
    ids = rand((3,), "int64", 22, 0, 4)
    assert_close(tf.nn.sparse_softmax_cross_entropy_with_logits(ids, logits),
                 rtf.nn.sparse_softmax_cross_entropy_with_logits(rtf.constant(ids),
                                                                 rtf.constant(logits)),
                 **TOL["float16"])


def test_average_and_regularization_losses_match_tf():
    rtf = real_tf()
    loss, w = rand((6,), "float32", 23, 0, 3), rand((6,), "float32", 24, 0, 1)
    L = rtf.constant(loss)
    assert_close(tf.nn.compute_average_loss(loss), rtf.nn.compute_average_loss(L))
    assert_close(tf.nn.compute_average_loss(loss, sample_weight=w, global_batch_size=10),
                 rtf.nn.compute_average_loss(L, sample_weight=rtf.constant(w),
                                             global_batch_size=10))
    assert_close(tf.nn.compute_average_loss(loss, sample_weight=2.0),
                 rtf.nn.compute_average_loss(L, sample_weight=2.0))
    assert_close(tf.nn.scale_regularization_loss(loss), rtf.nn.scale_regularization_loss(L))
    loss2 = rand((6, 3), "float32", 25, 0, 3)
    for weight in (w, w[:, None]):  # per-example weights against a [batch, d] loss
        assert_close(tf.nn.compute_average_loss(loss2, sample_weight=weight),
                     rtf.nn.compute_average_loss(rtf.constant(loss2),
                                                 sample_weight=rtf.constant(weight)))


@pytest.mark.parametrize("max_norm", [None, 2.0])
def test_embedding_lookup_matches_tf(max_norm):
    rtf = real_tf()
    params = rand((7, 3), "float32", 25)
    ids = np.array([[0, 6, 2], [3, 3, 1]], np.int32)
    assert_close(tf.nn.embedding_lookup(params, ids, max_norm=max_norm),
                 rtf.nn.embedding_lookup(rtf.constant(params), ids, max_norm=max_norm))
    shards = [params[:3], params[3:5], params[5:]]  # "div" layout: 3, 2, 2 rows
    assert_close(tf.nn.embedding_lookup(shards, ids, max_norm=max_norm),
                 rtf.nn.embedding_lookup([rtf.constant(s) for s in shards], ids,
                                         max_norm=max_norm))


def _c(m, a):
    return m.constant(np.asarray(a))


BAD = [
    ("sigmoid int", lambda m: m.nn.sigmoid(_c(m, [1, 2]))),
    ("elu int", lambda m: m.nn.elu(_c(m, [1, 2]))),
    ("gelu int", lambda m: m.nn.gelu(_c(m, [1, 2]))),
    ("softmax scalar", lambda m: m.nn.softmax(_c(m, 1.0))),
    ("softmax bad axis", lambda m: m.nn.softmax(_c(m, np.ones((2, 3))), axis=3)),
    ("dropout int", lambda m: m.nn.dropout(_c(m, [1, 2]), 0.5)),
    ("dropout rate 1", lambda m: m.nn.dropout(_c(m, [1.0, 2.0]), 1.0)),
    ("bias_add wrong size", lambda m: m.nn.bias_add(_c(m, np.ones((2, 3))), _c(m, np.ones(4)))),
    ("bias_add rank 1", lambda m: m.nn.bias_add(_c(m, np.ones(3)), _c(m, np.ones(3)))),
    ("bias_add dtype", lambda m: m.nn.bias_add(_c(m, np.ones((2, 3), np.float32)),
                                               _c(m, np.ones(3)))),
    ("sigmoid ce shapes", lambda m: m.nn.sigmoid_cross_entropy_with_logits(
        _c(m, np.ones(2, np.float32)), _c(m, np.ones(3, np.float32)))),
    ("softmax ce shapes", lambda m: m.nn.softmax_cross_entropy_with_logits(
        _c(m, np.ones((2, 3), np.float32)), _c(m, np.ones((2, 4), np.float32)))),
    ("sparse ce label out of range", lambda m: m.nn.sparse_softmax_cross_entropy_with_logits(
        _c(m, [0, 5]), _c(m, np.ones((2, 3), np.float32)))),
    ("sparse ce negative label", lambda m: m.nn.sparse_softmax_cross_entropy_with_logits(
        _c(m, [0, -1]), _c(m, np.ones((2, 3), np.float32)))),
    ("sparse ce shapes", lambda m: m.nn.sparse_softmax_cross_entropy_with_logits(
        _c(m, [0, 1, 1]), _c(m, np.ones((2, 3), np.float32)))),
    ("sparse ce float labels", lambda m: m.nn.sparse_softmax_cross_entropy_with_logits(
        _c(m, [0.0, 1.0]), _c(m, np.ones((2, 3), np.float32)))),
    ("l2_loss int", lambda m: m.nn.l2_loss(_c(m, [1, 2]))),
    ("average loss scalar", lambda m: m.nn.compute_average_loss(_c(m, 1.0))),
    ("embedding id out of range", lambda m: m.nn.embedding_lookup(
        _c(m, np.ones((5, 2), np.float32)), _c(m, [7]))),
    ("embedding float ids", lambda m: m.nn.embedding_lookup(
        _c(m, np.ones((5, 2), np.float32)), _c(m, [1.0]))),
    ("lrn rank 3", lambda m: m.nn.local_response_normalization(_c(m, np.ones((2, 2, 3),
                                                                              np.float32)))),
]


@pytest.mark.parametrize("case,fn", BAD, ids=[c for c, _ in BAD])
def test_bad_inputs_raise_tf_error_types(case, fn):
    rtf = real_tf()
    with pytest.raises(Exception) as want:
        fn(rtf)
    with pytest.raises(Exception) as got:
        fn(tf)
    assert type(got.value).__name__ == type(want.value).__name__, (got.value, want.value)
    assert isinstance(got.value, (ValueError, TypeError, tf.errors.OpError))


@pytest.mark.parametrize("labels,dtype", [([0, -100], "int32"), ([0, -100], "int64"),
                                          ([0, -(2 ** 63)], "int64"), ([0, 3], "int64"),
                                          ([2 ** 40, 1], "int64")])
def test_sparse_ce_rejects_every_out_of_range_label_as_tf(labels, dtype):
    # -100 is torch's default ignore_index and int64's minimum torchflow's: neither may
    # pass as an ignored example.
    rtf = real_tf()
    logits = np.ones((2, 3), np.float32)
    with pytest.raises(rtf.errors.InvalidArgumentError) as want:
        rtf.nn.sparse_softmax_cross_entropy_with_logits(rtf.constant(labels, dtype), logits)
    with pytest.raises(tf.errors.InvalidArgumentError) as got:
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant(labels, dtype), logits)
    assert f"Received a label value of {[v for v in labels if not 0 <= v < 3][0]}" in str(
        got.value)
    assert "Received a label value of" in str(want.value)


def test_sparse_ce_higher_rank_and_empty_batches_match_tf():
    rtf = real_tf()
    logits = rand((2, 4, 5), "float32", 25)
    ids = np.random.default_rng(26).integers(0, 5, size=(2, 4))
    assert_close(tf.nn.sparse_softmax_cross_entropy_with_logits(ids, logits),
                 rtf.nn.sparse_softmax_cross_entropy_with_logits(rtf.constant(ids), logits),
                 **TOL["float32"])
    empty = tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros([0, 2], tf.int32),
                                                           tf.zeros([0, 2, 3]))
    assert empty.shape == (0, 2) and empty.dtype == tf.float32
