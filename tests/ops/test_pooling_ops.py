"""Pooling against real TensorFlow: same random inputs, values and dtypes."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf

CASES_2D = [
    ((2, 7, 6, 3), 2, 2, "SAME"),
    ((2, 7, 6, 3), 3, 2, "SAME"),  # asymmetric padding
    ((2, 7, 6, 3), [2, 3], [1, 2], "SAME"),
    ((2, 7, 6, 3), [1, 3, 3, 1], [1, 2, 2, 1], "VALID"),
    ((1, 5, 5, 2), 4, 1, "SAME"),  # padding wider than half the window
    ((1, 5, 5, 2), 2, 3, "SAME"),  # stride > window
]


@pytest.mark.parametrize("xs,k,s,padding", CASES_2D)
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
# Real TF is fed tf.constant inputs: TF 2.21's max_pool2d returns float32 for a
# float64 NumPy input once it has seen a float32 one (a TF quirk, not a reference).
def test_pool2d_matches_tf(xs, k, s, padding, kind, dtype):
    rtf = real_tf()
    x = rand(xs, dtype, 1)
    want = getattr(rtf.nn, f"{kind}_pool2d")(rtf.constant(x), k, s, padding)
    assert_close(getattr(tf.nn, f"{kind}_pool2d")(x, k, s, padding), want, rtol=1e-6, atol=1e-6)
    assert_close(getattr(tf.nn, f"{kind}_pool")(x, k, s, padding), want, rtol=1e-6, atol=1e-6)
    nchw = np.ascontiguousarray(np.moveaxis(x, -1, 1))
    ks = k if not isinstance(k, list) or len(k) != 4 else [1, 1] + k[1:3]
    ss = s if not isinstance(s, list) or len(s) != 4 else [1, 1] + s[1:3]
    got = getattr(tf.nn, f"{kind}_pool2d")(nchw, ks, ss, padding, data_format="NCHW")
    assert_close(got, np.moveaxis(want.numpy(), -1, 1), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("k,s,padding", [(2, 2, "SAME"), (3, 2, "SAME"), (3, 1, "VALID")])
def test_pool1d_and_3d_match_tf(kind, k, s, padding):
    rtf = real_tf()
    x1 = rand((2, 9, 3), "float32", 1)
    assert_close(getattr(tf.nn, f"{kind}_pool1d")(x1, k, s, padding),
                 getattr(rtf.nn, f"{kind}_pool1d")(rtf.constant(x1), k, s, padding),
                 rtol=1e-6, atol=1e-6)
    x3 = rand((1, 5, 4, 6, 2), "float32", 2)
    assert_close(getattr(tf.nn, f"{kind}_pool3d")(x3, k, s, padding),
                 getattr(rtf.nn, f"{kind}_pool3d")(rtf.constant(x3), k, s, padding),
                 rtol=1e-6, atol=1e-6)
    assert_close(getattr(tf.nn, f"{kind}_pool")(x3, k, s, padding),
                 getattr(rtf.nn, f"{kind}_pool")(rtf.constant(x3), k, s, padding),
                 rtol=1e-6, atol=1e-6)


def test_max_pool_int32_float16_and_explicit_padding():
    rtf = real_tf()
    xi = rand((1, 5, 5, 2), "int32", 3, -50, 50)
    assert_close(tf.nn.max_pool2d(xi, 2, 2, "SAME"),
                 rtf.nn.max_pool2d(rtf.constant(xi), 2, 2, "SAME"))
    xh = rand((1, 5, 5, 2), "float16", 4)
    assert_close(tf.nn.avg_pool2d(xh, 3, 2, "SAME"),
                 rtf.nn.avg_pool2d(rtf.constant(xh), 3, 2, "SAME"), rtol=1e-3, atol=1e-3)
    x = rand((1, 6, 6, 2), "float32", 5)
    pad = [[0, 0], [1, 0], [1, 1], [0, 0]]
    assert_close(tf.nn.max_pool2d(x, 2, 2, pad), rtf.nn.max_pool2d(rtf.constant(x), 2, 2, pad))


def test_avg_pool_same_excludes_padding_analytic():
    # A 2x2 input of ones with a 3x3 SAME window: every output is exactly 1.
    got = tf.nn.avg_pool2d(np.ones((1, 2, 2, 1), np.float32), 3, 1, "SAME").numpy()
    np.testing.assert_array_equal(got, np.ones((1, 2, 2, 1), np.float32))


BAD = [
    ("avg int", lambda m: m.nn.avg_pool2d(np.ones((1, 4, 4, 1), np.int32), 2, 2, "SAME")),
    ("rank 3 input", lambda m: m.nn.max_pool2d(np.ones((4, 4, 1), np.float32), 2, 2, "SAME")),
    ("bad padding", lambda m: m.nn.max_pool2d(np.ones((1, 4, 4, 1), np.float32), 2, 2, "FULL")),
    ("ksize length 3", lambda m: m.nn.max_pool2d(np.ones((1, 4, 4, 1), np.float32), [2, 2, 2],
                                                 2, "SAME")),
]


@pytest.mark.parametrize("case,fn", BAD, ids=[c for c, _ in BAD])
def test_bad_inputs_raise_tf_error_types(case, fn):
    rtf = real_tf()
    with pytest.raises(Exception) as want:
        fn(rtf)
    with pytest.raises(Exception) as got:
        fn(tf)
    assert type(got.value).__name__ == type(want.value).__name__, (got.value, want.value)


@pytest.mark.parametrize("pooling_type", ["MAX", "AVG"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_generic_pool_matches_tf(pooling_type, padding):
    rtf = real_tf()
    x = rand((2, 7, 6, 3), "float32", 6)
    assert_close(tf.nn.pool(x, [3, 2], pooling_type, [2, 2], padding),
                 rtf.nn.pool(rtf.constant(x), [3, 2], pooling_type, strides=[2, 2],
                             padding=padding), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("include_batch", [False, True])
def test_max_pool_with_argmax_matches_tf(padding, include_batch):
    rtf = real_tf()
    x = rand((2, 5, 7, 3), "float32", 7)
    out, idx = tf.nn.max_pool_with_argmax(x, 3, 2, padding, include_batch_in_index=include_batch)
    wout, widx = rtf.nn.max_pool_with_argmax(rtf.constant(x), 3, 2, padding,
                                             include_batch_in_index=include_batch)
    assert_close(out, wout)
    assert_close(idx, widx)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_pool_regions_match_tf_and_sequences_are_valid(kind, pseudo_random,
                                                                  overlapping):
    import torch

    from torchflow._src.ops.fractional_pooling_ops import pool_regions

    rtf = real_tf()
    x = rand((2, 9, 11, 3), "float64", 8)
    ratio = [1.0, 1.44, 1.73, 1.0]
    fn = getattr(rtf.nn, f"fractional_{kind}_pool")
    w_out, w_rows, w_cols = fn(rtf.constant(x), ratio, pseudo_random=pseudo_random,
                               overlapping=overlapping, seed=5)
    # Same windows as TF drew -> same values.
    got = pool_regions(kind, torch.from_numpy(x), torch.from_numpy(w_rows.numpy()),
                       torch.from_numpy(w_cols.numpy()), overlapping)
    np.testing.assert_allclose(got.numpy(), w_out.numpy(), rtol=1e-12)
    out, rows, cols = getattr(tf.nn, f"fractional_{kind}_pool")(
        x, ratio, pseudo_random=pseudo_random, overlapping=overlapping)
    assert out.shape == w_out.shape and out.dtype == tf.float64
    for seq, n, r in ((rows.numpy(), 9, 1.44), (cols.numpy(), 11, 1.73)):
        assert seq[0] == 0 and seq[-1] == n and len(seq) == int(n // r) + 1
        assert set(np.diff(seq)) <= {int(np.floor(r)), int(np.ceil(r))}
