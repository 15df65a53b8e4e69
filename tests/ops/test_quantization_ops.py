"""tf.quantization forward passes against real TensorFlow on random inputs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import torchflow as tfl
from torchflow._src.testing import real_tf

_OPTS = list(itertools.product([True, False], [2, 3, 8], [True, False],
                               ["HALF_TO_EVEN", "HALF_UP"], [False, True]))


def _x(dtype, seed):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(4, 3, 5)) * 2).astype(dtype)
    x[0, 0, :4] = [0.5, -0.5, 1.5, 0.0]  # exact halves exercise the rounding mode
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("signed,num_bits,range_given,round_mode,narrow", _OPTS)
def test_qdq_v2_per_tensor_like_tf(dtype, signed, num_bits, range_given, round_mode, narrow):
    tf = real_tf()
    x = _x(dtype, num_bits)
    lo, hi = np.array(-1.3, dtype), np.array(1.7, dtype)
    kw = dict(signed_input=signed, num_bits=num_bits, range_given=range_given,
              round_mode=round_mode, narrow_range=narrow)
    theirs = tf.quantization.quantize_and_dequantize_v2(tf.constant(x), lo, hi, **kw).numpy()
    ours = tfl.quantization.quantize_and_dequantize_v2(tfl.constant(x), lo, hi, **kw)
    assert ours.dtype.name == dtype
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-6, atol=1e-7)
    v1 = tfl.quantization.quantize_and_dequantize(tfl.constant(x), lo, hi, **kw).numpy()
    theirs_v1 = tf.quantization.quantize_and_dequantize(tf.constant(x), lo, hi, **kw).numpy()
    np.testing.assert_allclose(v1, theirs_v1, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("signed,narrow", [(True, False), (True, True), (False, False)])
def test_qdq_v2_per_channel(axis, signed, narrow):
    tf = real_tf()
    x = _x("float32", 3 + axis)
    depth = x.shape[axis]
    rng = np.random.default_rng(axis + 10)
    lo = -rng.uniform(0.1, 2, depth).astype(np.float32)
    hi = rng.uniform(0.1, 2, depth).astype(np.float32)
    kw = dict(signed_input=signed, num_bits=4, narrow_range=narrow)
    # Ranges from the data (range_given=False): compare with TF's per-channel kernel.
    theirs = tf.quantization.quantize_and_dequantize_v2(
        tf.constant(x), lo, hi, axis=axis % 3, **kw).numpy()
    ours = tfl.quantization.quantize_and_dequantize_v2(tfl.constant(x), lo, hi, axis=axis, **kw)
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-6, atol=1e-7)
    # Given ranges: TF 2.4 accepts per-channel ranges (TF 2.21's kernel no longer does),
    # so the reference is TF's per-tensor op on each channel.
    ours = tfl.quantization.quantize_and_dequantize_v2(
        tfl.constant(x), lo, hi, axis=axis, range_given=True, **kw).numpy()
    xm, om = np.moveaxis(x, axis, 0), np.moveaxis(ours, axis, 0)
    for c in range(depth):
        ref = tf.quantization.quantize_and_dequantize_v2(
            tf.constant(xm[c]), lo[c], hi[c], range_given=True, **kw).numpy()
        np.testing.assert_allclose(om[c], ref, rtol=1e-6, atol=1e-7)


_BAD = [
    ("min_gt_max", dict(input_min=1.0, input_max=-1.0, range_given=True)),
    ("bits_zero", dict(num_bits=0)),
    ("axis_range", dict(axis=3)),
]


@pytest.mark.parametrize("name,kw", _BAD, ids=[b[0] for b in _BAD])
def test_qdq_errors_like_tf(name, kw):
    tf = real_tf()
    kw = {"input_min": -1.0, "input_max": 1.0, **kw}
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(Exception) as theirs:
        tf.quantization.quantize_and_dequantize_v2(tf.constant(x), **kw)
    with pytest.raises(Exception) as ours:
        tfl.quantization.quantize_and_dequantize_v2(tfl.constant(x), **kw)
    assert type(ours.value).__name__ == type(theirs.value).__name__, str(ours.value)


def test_bad_round_mode_is_value_error():
    with pytest.raises(ValueError):
        tfl.quantization.quantize_and_dequantize_v2([1.0], -1.0, 1.0, round_mode="UP")


@pytest.mark.parametrize("num_bits,narrow", [(2, False), (8, False), (8, True), (16, False)])
@pytest.mark.parametrize("lo,hi", [(-6.0, 6.0), (-1.3, 2.7), (0.2, 3.0), (-3.0, -0.5)])
def test_fake_quant_like_tf(num_bits, narrow, lo, hi):
    tf = real_tf()
    x = (np.random.default_rng(num_bits).normal(size=(64,)) * 3).astype(np.float32)
    theirs = tf.quantization.fake_quant_with_min_max_args(x, lo, hi, num_bits, narrow).numpy()
    ours = tfl.quantization.fake_quant_with_min_max_args(tfl.constant(x), lo, hi, num_bits,
                                                         narrow).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    theirs = tf.quantization.fake_quant_with_min_max_vars(x, lo, hi, num_bits, narrow).numpy()
    ours = tfl.quantization.fake_quant_with_min_max_vars(tfl.constant(x), lo, hi, num_bits,
                                                         narrow).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_fake_quant_per_channel_like_tf():
    tf = real_tf()
    x = (np.random.default_rng(0).normal(size=(5, 3)) * 3).astype(np.float32)
    lo, hi = np.array([-1.0, -3.0, 0.5], np.float32), np.array([1.0, 2.0, 4.0], np.float32)
    theirs = tf.quantization.fake_quant_with_min_max_vars_per_channel(x, lo, hi).numpy()
    ours = tfl.quantization.fake_quant_with_min_max_vars_per_channel(tfl.constant(x), lo, hi)
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-6, atol=1e-6)


def test_gradients_like_tf():
    if not hasattr(tfl, "GradientTape"):
        pytest.skip("tf.GradientTape not available yet")
    tf = real_tf()
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    for name in ("quantize_and_dequantize_v2", "quantize_and_dequantize"):
        grads = []
        for m in (tf, tfl):
            xt = m.constant(x)
            with m.GradientTape() as tape:
                tape.watch(xt)
                y = getattr(m.quantization, name)(xt, -1.0, 1.0, range_given=True)
                loss = m.reduce_sum(y * m.constant(np.arange(9, dtype=np.float32)))
            grads.append(tape.gradient(loss, xt).numpy())
        np.testing.assert_allclose(grads[1], grads[0])


@pytest.mark.parametrize("narrow", [False, True])
def test_fake_quant_gradient_ops_like_tf(narrow):
    tf = real_tf()
    rng = np.random.default_rng(1)
    x = (rng.normal(size=(6, 3)) * 3).astype(np.float32)
    g = rng.normal(size=(6, 3)).astype(np.float32)
    lo, hi = np.float32(-1.2), np.float32(2.5)
    theirs = tf.quantization.fake_quant_with_min_max_args_gradient(g, x, lo, hi, 8, narrow)
    ours = tfl.quantization.fake_quant_with_min_max_args_gradient(g, x, lo, hi, 8, narrow)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    theirs = tf.quantization.fake_quant_with_min_max_vars_gradient(g, x, lo, hi, 5, narrow)
    ours = tfl.quantization.fake_quant_with_min_max_vars_gradient(g, x, lo, hi, 5, narrow)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)
    lo3, hi3 = np.array([-1.0, -3.0, 0.5], np.float32), np.array([1.0, 2.0, 4.0], np.float32)
    theirs = tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(g, x, lo3, hi3)
    ours = tfl.quantization.fake_quant_with_min_max_vars_per_channel_gradient(g, x, lo3, hi3)
    assert ours.backprop_wrt_min.shape == theirs.backprop_wrt_min.shape
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)


def test_fake_quant_vars_tape_gradients_like_tf():
    if not hasattr(tfl, "GradientTape"):
        pytest.skip("tf.GradientTape not available yet")
    tf = real_tf()
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    w = np.arange(13, dtype=np.float32)
    grads = []
    for m in (tf, tfl):
        xt, lo, hi = m.constant(x), m.constant(-1.0), m.constant(1.5)
        with m.GradientTape() as tape:
            tape.watch([xt, lo, hi])
            y = m.quantization.fake_quant_with_min_max_vars(xt, lo, hi, num_bits=4)
            loss = m.reduce_sum(y * m.constant(w))
        grads.append([g.numpy() for g in tape.gradient(loss, [xt, lo, hi])])
    for a, b in zip(grads[1], grads[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m: m.quantization.quantize_and_dequantize_v2(m.constant([1, 2]), -1, 1),
    lambda m: m.quantization.fake_quant_with_min_max_args(m.constant([1.0], dtype=m.float64)),
    lambda m: m.quantization.fake_quant_with_min_max_args([1.0], 1.0, 1.0),
    lambda m: m.quantization.fake_quant_with_min_max_args([1.0], num_bits=1),
    lambda m: m.quantization.quantize_and_dequantize_v2(m.constant([1.0]), [-1.0, 0.0], 1.0,
                                                        range_given=True),
])
def test_more_errors_like_tf(call):
    with pytest.raises(Exception) as theirs:
        call(real_tf())
    with pytest.raises(Exception) as ours:
        call(tfl)
    assert type(ours.value).__name__ == type(theirs.value).__name__, str(ours.value)


def test_vector_range_ignored_without_range_given_like_tf():
    tf = real_tf()
    x = np.array([[1.0, -2.0]], np.float32)
    theirs = tf.quantization.quantize_and_dequantize_v2(x, [-1.0, -1.0], [1.0, 1.0]).numpy()
    ours = tfl.quantization.quantize_and_dequantize_v2(tfl.constant(x), [-1.0, -1.0],
                                                       [1.0, 1.0]).numpy()
    np.testing.assert_allclose(ours, theirs)
