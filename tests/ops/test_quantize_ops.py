"""tf.quantization.quantize / dequantize / quantized_concat against real TF over
modes, dtypes and ranges."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(13)
X = (RNG.standard_normal((4, 6)) * 3).astype("float32")
QT = ["qint8", "quint8", "qint16", "quint16", "qint32"]


@pytest.mark.parametrize("T", QT)
@pytest.mark.parametrize("mode", ["MIN_COMBINED", "MIN_FIRST", "SCALED"])
@pytest.mark.parametrize("rng", [(-4.0, 4.0), (-1.0, 6.0), (0.5, 2.0), (0.0, 0.0)])
def test_quantize_dequantize_match_tf(T, mode, rng):
    t = real_tf()
    if mode == "MIN_FIRST" and T in ("qint32",):
        pytest.skip("TF's MIN_FIRST int64 intermediate overflows for qint32")
    want = t.quantization.quantize(X, *rng, getattr(t, T), mode=mode)
    got = tf.quantization.quantize(X, *rng, getattr(tf, T), mode=mode)
    assert got.output.dtype.name == T and got.output.shape == tuple(want.output.shape)
    diff = np.abs(got.output.numpy().astype(np.int64) - want.output.numpy().astype(np.int64))
    assert diff.max() <= (1 if T in ("qint32",) else 0), diff.max()
    np.testing.assert_allclose(got.output_min.numpy(), want.output_min.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got.output_max.numpy(), want.output_max.numpy(), rtol=1e-6)
    back = tf.quantization.dequantize(got.output, got.output_min, got.output_max, mode=mode)
    wback = t.quantization.dequantize(want.output, want.output_min, want.output_max, mode=mode)
    assert back.dtype == tf.float32
    np.testing.assert_allclose(back.numpy(), wback.numpy(), rtol=1e-5,
                               atol=1e-5 * float(want.output_max - want.output_min) + 1e-6)


@pytest.mark.parametrize("narrow", [False, True])
@pytest.mark.parametrize("round_mode", ["HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"])
def test_scaled_options_and_axis_match_tf(narrow, round_mode):
    t = real_tf()
    lo, hi = np.array([-1.0, -2.0, -3.0, -0.5], "float32"), np.array([1.0, 2.5, 3.0, 4.0],
                                                                       "float32")
    want = t.quantization.quantize(X, lo, hi, t.qint8, mode="SCALED", round_mode=round_mode,
                                   narrow_range=narrow, axis=0)
    got = tf.quantization.quantize(X, lo, hi, tf.qint8, mode="SCALED", round_mode=round_mode,
                                   narrow_range=narrow, axis=0)
    np.testing.assert_array_equal(got.output.numpy(), want.output.numpy())
    np.testing.assert_allclose(got.output_min.numpy(), want.output_min.numpy(), rtol=1e-6)
    back = tf.quantization.dequantize(got.output, got.output_min, got.output_max, mode="SCALED",
                                      axis=0, narrow_range=narrow)
    wback = t.quantization.dequantize(want.output, want.output_min, want.output_max,
                                      mode="SCALED", axis=0, narrow_range=narrow)
    np.testing.assert_allclose(back.numpy(), wback.numpy(), rtol=1e-6)


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.quantization.quantize(X, -1.0, 1.0, tf.int8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="HALF_TO_EVEN"):
        tf.quantization.quantize(X, -1.0, 1.0, tf.qint8, round_mode="HALF_TO_EVEN")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.quantization.dequantize(tf.constant([1, 2]), -1.0, 1.0)


@pytest.mark.parametrize("T", ["quint8", "qint32"])
def test_quantized_concat_matches_tf(T):
    t = real_tf()
    a = t.quantization.quantize(X[:2], -1.0, 3.0, getattr(t, T))
    b = t.quantization.quantize(X[2:], -5.0, 2.0, getattr(t, T))
    want = t.quantization.quantized_concat(0, [a.output, b.output], [a.output_min, b.output_min],
                                           [a.output_max, b.output_max])
    ga = tf.quantization.quantize(X[:2], -1.0, 3.0, getattr(tf, T))
    gb = tf.quantization.quantize(X[2:], -5.0, 2.0, getattr(tf, T))
    got = tf.quantization.quantized_concat(0, [ga.output, gb.output],
                                           [ga.output_min, gb.output_min],
                                           [ga.output_max, gb.output_max])
    assert float(got.output_min) == float(want.output_min)
    assert float(got.output_max) == float(want.output_max)
    diff = np.abs(got.output.numpy().astype(int) - want.output.numpy().astype(int))
    assert diff.max() <= 0, diff.max()
    same = tf.quantization.quantized_concat(1, [ga.output, ga.output], [ga.output_min] * 2,
                                            [ga.output_max] * 2)
    wsame = t.quantization.quantized_concat(1, [a.output, a.output], [a.output_min] * 2,
                                            [a.output_max] * 2)
    np.testing.assert_array_equal(same.output.numpy(), wsame.output.numpy())


def test_quantized_concat_has_no_qint8_kernel_like_tf():
    q = tf.quantization.quantize(X, -1.0, 1.0, tf.qint8)
    with pytest.raises(tf.errors.NotFoundError, match="QuantizedConcat"):
        tf.quantization.quantized_concat(0, [q.output], [q.output_min], [q.output_max])
