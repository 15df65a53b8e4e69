"""tf.signal against real TensorFlow over shapes and dtypes."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(7)


def _c(shape, dtype):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype in ("complex64", "float32") else \
        {"rtol": 1e-10, "atol": 1e-10}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name,shape", [("fft", (5,)), ("ifft", (2, 6)), ("fft2d", (3, 4, 5)),
                                        ("ifft2d", (4, 4)), ("fft3d", (2, 3, 4, 5)),
                                        ("ifft3d", (3, 2, 4))])
def test_complex_ffts_match_tf(name, shape, dtype):
    t = real_tf()
    x = _c(shape, dtype)
    got = getattr(tf.signal, name)(x)
    want = getattr(t.signal, name)(t.constant(x))
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))


def test_fft_rejects_real_input_like_tf():
    t = real_tf()
    with pytest.raises(t.errors.InvalidArgumentError):
        t.signal.fft(t.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex64, complex128"):
        tf.signal.fft(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.signal.rfft(tf.constant([1 + 2j]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rank,shape,n", [(1, (7,), None), (1, (2, 8), [5]), (1, (3, 6), [10]),
                                          (2, (4, 6), None), (2, (2, 5, 6), [4, 8]),
                                          (3, (3, 4, 5), None), (3, (2, 3, 4, 4), [2, 5, 3])])
def test_real_ffts_match_tf(rank, shape, n, dtype):
    t = real_tf()
    sfx = {1: "", 2: "2d", 3: "3d"}[rank]
    x = RNG.standard_normal(shape).astype(dtype)
    got = getattr(tf.signal, "rfft" + sfx)(x, n)
    want = getattr(t.signal, "rfft" + sfx)(t.constant(x), n)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))
    spec = want.numpy()
    back = getattr(tf.signal, "irfft" + sfx)(spec, n)
    wback = getattr(t.signal, "irfft" + sfx)(t.constant(spec), n)
    assert back.dtype.name == wback.dtype.name
    np.testing.assert_allclose(back.numpy(), wback.numpy(), **_tol(dtype))


@pytest.mark.parametrize("n", [[6], [9], [3]])
def test_irfft_lengths_match_tf(n):
    t = real_tf()
    spec = _c((2, 5), "complex64")
    np.testing.assert_allclose(tf.signal.irfft(spec, n).numpy(),
                               t.signal.irfft(t.constant(spec), n).numpy(), atol=1e-5)


@pytest.mark.parametrize("axes", [None, 0, [1], (0, 2)])
def test_shifts_match_tf(axes):
    t = real_tf()
    x = np.arange(60).reshape(3, 4, 5)
    for name in ("fftshift", "ifftshift"):
        np.testing.assert_array_equal(getattr(tf.signal, name)(x, axes).numpy(),
                                      getattr(t.signal, name)(t.constant(x), axes).numpy())


@pytest.mark.parametrize("shape,fl,fs,pad_end,axis", [
    ((10,), 3, 2, False, -1), ((10,), 3, 2, True, -1), ((2, 9), 4, 4, True, -1),
    ((2, 9, 3), 2, 3, False, 1), ((7, 2), 3, 1, True, 0), ((2,), 4, 1, False, -1)])
def test_frame_and_overlap_and_add_match_tf(shape, fl, fs, pad_end, axis):
    t = real_tf()
    x = RNG.standard_normal(shape).astype("float32")
    got = tf.signal.frame(x, fl, fs, pad_end=pad_end, pad_value=-1.0, axis=axis)
    want = t.signal.frame(t.constant(x), fl, fs, pad_end=pad_end, pad_value=-1.0, axis=axis)
    assert got.shape == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    if axis == -1 and got.shape[-2] > 0 and fs <= fl:
        np.testing.assert_allclose(tf.signal.overlap_and_add(got, fs).numpy(),
                                   t.signal.overlap_and_add(want, fs).numpy(), atol=1e-6)


@pytest.mark.parametrize("length", [1, 2, 7, 8, 16])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_match_tf(length, dtype):
    t = real_tf()
    for name, kw in [("hann_window", {"periodic": True}), ("hann_window", {"periodic": False}),
                     ("hamming_window", {"periodic": True}),
                     ("hamming_window", {"periodic": False}),
                     ("kaiser_window", {"beta": 6.0}), ("vorbis_window", {}),
                     ("kaiser_bessel_derived_window", {"beta": 4.0})]:
        if name == "kaiser_bessel_derived_window" and length % 2:
            continue
        got = getattr(tf.signal, name)(length, dtype=getattr(tf, dtype), **kw)
        want = getattr(t.signal, name)(length, dtype=getattr(t, dtype), **kw)
        assert got.dtype.name == dtype, name
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    with pytest.raises(ValueError):
        tf.signal.hann_window(4, dtype=tf.int32)


@pytest.mark.parametrize("fl,fs,n,pad_end", [(8, 4, None, False), (10, 3, 16, True),
                                             (6, 2, 8, False), (16, 8, 12, False)])
def test_stft_and_inverse_match_tf(fl, fs, n, pad_end):
    t = real_tf()
    x = RNG.standard_normal((2, 50)).astype("float32")
    got = tf.signal.stft(x, fl, fs, n, pad_end=pad_end)
    want = t.signal.stft(t.constant(x), fl, fs, n, pad_end=pad_end)
    assert got.dtype == tf.complex64 and got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
    spec = want.numpy()
    back = tf.signal.inverse_stft(spec, fl, fs, n,
                                  window_fn=tf.signal.inverse_stft_window_fn(fs))
    wback = t.signal.inverse_stft(t.constant(spec), fl, fs, n,
                                  window_fn=t.signal.inverse_stft_window_fn(fs))
    np.testing.assert_allclose(back.numpy(), wback.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tf.signal.inverse_stft(spec, fl, fs, n, window_fn=None).numpy(),
                               t.signal.inverse_stft(t.constant(spec), fl, fs, n,
                                                     window_fn=None).numpy(), atol=1e-4)


@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("window", ["vorbis", "kbd", None])
def test_mdct_and_inverse_match_tf(norm, window):
    t = real_tf()
    x = RNG.standard_normal((3, 64)).astype("float32")
    wins = {"vorbis": (tf.signal.vorbis_window, t.signal.vorbis_window),
            "kbd": (tf.signal.kaiser_bessel_derived_window,
                    t.signal.kaiser_bessel_derived_window), None: (None, None)}[window]
    got = tf.signal.mdct(x, 16, window_fn=wins[0], pad_end=True, norm=norm)
    want = t.signal.mdct(t.constant(x), 16, window_fn=wins[1], pad_end=True, norm=norm)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
    back = tf.signal.inverse_mdct(want.numpy(), window_fn=wins[0], norm=norm)
    wback = t.signal.inverse_mdct(want, window_fn=wins[1], norm=norm)
    np.testing.assert_allclose(back.numpy(), wback.numpy(), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="multiple of 4"):
        tf.signal.mdct(x, 10)


@pytest.mark.parametrize("kind", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("n", [None, 5, 12])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dct_idct_match_tf(kind, norm, n, dtype):
    t = real_tf()
    if kind == 1 and norm == "ortho":
        with pytest.raises(ValueError):
            tf.signal.dct(np.ones((3, 8), dtype), type=1, norm="ortho")
        return
    x = RNG.standard_normal((3, 8)).astype(dtype)
    for name in ("dct", "idct"):
        got = getattr(tf.signal, name)(x, type=kind, n=n, norm=norm)
        want = getattr(t.signal, name)(t.constant(x), type=kind, n=n, norm=norm)
        assert got.dtype.name == dtype and got.shape == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), **_tol(dtype))
    with pytest.raises(NotImplementedError):
        tf.signal.dct(x, axis=0)


@pytest.mark.parametrize("args", [(), (40, 257, 16000, 20.0, 7600.0), (10, 33, 8000, 0.0, 4000.0)])
def test_mel_matrix_and_mfccs_match_tf(args):
    t = real_tf()
    got = tf.signal.linear_to_mel_weight_matrix(*args)
    want = t.signal.linear_to_mel_weight_matrix(*args)
    assert got.shape == tuple(want.shape) and got.dtype == tf.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-3, atol=2e-4)
    logmel = RNG.standard_normal((2, 5, got.shape[1])).astype("float32")
    np.testing.assert_allclose(tf.signal.mfccs_from_log_mel_spectrograms(logmel).numpy(),
                               t.signal.mfccs_from_log_mel_spectrograms(logmel).numpy(),
                               rtol=1e-4, atol=1e-4)


def test_mel_matrix_errors_match_tf():
    t = real_tf()
    for args in [(0,), (20, 129, 8000, -1.0), (20, 129, 8000, 500.0, 400.0),
                 (20, 129, 0), (20, 129, 8000, 125.0, 4100.0)]:
        with pytest.raises(ValueError) as want:
            t.signal.linear_to_mel_weight_matrix(*args)
        with pytest.raises(ValueError) as got:
            tf.signal.linear_to_mel_weight_matrix(*args)
        assert str(got.value) == str(want.value)
