"""tf.audio against real TensorFlow: encode_wav's bytes must be identical to TF's,
decode_wav's samples, rate and dtypes equal, and bad headers or arguments raise
TF's error type and message."""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

X = np.array([[0.0, 0.5], [-1.0, 1.0], [0.25, -0.3], [2.0, -2.0], [0.99999, 1 / 65536],
              [-1 / 65536, 3 / 65536]], np.float32)
# Values on the rounding edges (k + 0.5 steps), clipped values and non-finite ones.
EDGES = np.array([[0.5], [1.5], [-0.5], [-1.5], [2.5], [np.nan], [np.inf], [-np.inf],
                  [32767.5], [-32768.5], [0.49999997]], np.float32) / np.float32(32768.0)
RNG = np.random.default_rng(3).uniform(-1.2, 1.2, size=(257, 3)).astype(np.float32)


def _wav(x=X, rate=16000) -> bytes:
    return real_tf().audio.encode_wav(x, rate).numpy()


def _run(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - both sides' errors are compared
        msg = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", str(e))
        return "err", type(e).__name__, re.sub(r" name: \S*$", "", msg)
    if isinstance(r, tuple):
        return "ok", [(t.numpy().tolist(), t.dtype.name, t.shape.as_list()) for t in r]
    return "ok", r.numpy(), r.dtype.name, r.shape.as_list()


ENCODE = {
    "stereo": lambda tf: tf.audio.encode_wav(X, 16000),
    "edges": lambda tf: tf.audio.encode_wav(EDGES, 8000),
    "random_3ch": lambda tf: tf.audio.encode_wav(RNG, 44100),
    "tensor_rate": lambda tf: tf.audio.encode_wav(tf.constant(X), tf.constant(22050)),
    "no_samples": lambda tf: tf.audio.encode_wav(np.zeros([0, 2], np.float32), 8000),
    "float64_array": lambda tf: tf.audio.encode_wav(X.astype(np.float64), 16000),
    "rank1": lambda tf: tf.audio.encode_wav(X[:, 0], 16000),
    "rank3": lambda tf: tf.audio.encode_wav(np.zeros([1, 1, 1], np.float32), 8000),
    "no_channels": lambda tf: tf.audio.encode_wav(np.zeros([3, 0], np.float32), 8000),
    "rate_vector": lambda tf: tf.audio.encode_wav(X, [16000]),
    "rate_negative": lambda tf: tf.audio.encode_wav(X, -1),
    "rate_zero": lambda tf: tf.audio.encode_wav(X, 0),
    "rate_float": lambda tf: tf.audio.encode_wav(X, 16000.0),
    "rate_int64": lambda tf: tf.audio.encode_wav(X, tf.constant(8000, tf.int64)),
    "int_audio": lambda tf: tf.audio.encode_wav(tf.constant([[1]]), 8000),
    "float64_audio": lambda tf: tf.audio.encode_wav(tf.constant([[1.0]], tf.float64), 8000),
}


@pytest.mark.parametrize("case", sorted(ENCODE))
def test_encode_wav_is_tfs_file(case):
    want = _run(lambda: ENCODE[case](real_tf()))
    got = _run(lambda: ENCODE[case](torchflow))
    if want[0] == "ok":
        assert got[0] == "ok", got
        assert bytes(got[1]) == bytes(want[1])
        assert got[2:] == want[2:]
    else:
        assert got == want


def _fmt(w, size, extra=b""):
    return w[12:16] + struct.pack("<I", size) + w[20:36] + extra


_D = slice(44, None)  # the samples of a file TF wrote

# name -> the file's bytes, made from TF's encoding of X (w) and of X[:3] (s).
FILES = {
    "plain": lambda w, s: w,
    "empty_data": lambda w, s: _wav(np.zeros([0, 2], np.float32), 8000),
    "edges": lambda w, s: _wav(EDGES, 8000),
    "random_3ch": lambda w, s: _wav(RNG, 44100),
    "riff": lambda w, s: b"RIFX" + w[4:],
    "wave": lambda w, s: w[:8] + b"WAVX" + w[12:],
    "fmt_id": lambda w, s: w[:12] + b"fmx " + w[16:],
    "fmt17": lambda w, s: s[:12] + _fmt(s, 17, b"\0") + s[36:],
    "fmt18": lambda w, s: s[:12] + _fmt(s, 18, b"\1\1") + s[36:],
    "junk_before_fmt": lambda w, s: s[:12] + b"JUNK" + struct.pack("<I", 4) + b"abcd" + s[12:],
    "bext_before_fmt": lambda w, s: s[:12] + b"bext" + struct.pack("<I", 4) + b"abcd" + s[12:],
    "list_before_fmt": lambda w, s: s[:12] + b"LIST" + struct.pack("<I", 4) + b"abcd" + s[12:],
    "float_format": lambda w, s: w[:20] + struct.pack("<H", 3) + w[22:],
    "zero_channels": lambda w, s: w[:22] + struct.pack("<H", 0) + w[24:],
    "three_channels": lambda w, s: w[:22] + struct.pack("<H", 3) + w[24:],
    "rate_zero": lambda w, s: w[:24] + struct.pack("<I", 0) + w[28:],
    "bytes_per_second": lambda w, s: w[:28] + struct.pack("<I", 5) + w[32:],
    "bytes_per_sample": lambda w, s: w[:32] + struct.pack("<H", 3) + w[34:],
    "bits8": lambda w, s: w[:34] + struct.pack("<H", 8) + w[36:],
    "list_after_fmt": lambda w, s: w[:36] + b"LIST" + struct.pack("<I", 4) + b"abc\0" + w[36:],
    "odd_data": lambda w, s: s[:36] + b"data" + struct.pack("<I", 5) + s[_D][:5],
    "two_data": lambda w, s: s + b"data" + struct.pack("<I", 4) + s[_D][:4],
    "huge_chunk": lambda w, s: s + b"junk" + struct.pack("<I", 2 ** 31),
    "data_too_long": lambda w, s: s[:36] + b"data" + struct.pack("<I", 1000) + s[_D],
    "trailing_byte": lambda w, s: s + b"\0",
    "trailing_id": lambda w, s: s + b"abcd",
    "trailing_chunk": lambda w, s: s + b"abcd\x10\0\0\0",
    "no_data": lambda w, s: w[:36],
    "empty": lambda w, s: b"",
    **{f"cut{n}": (lambda w, s, n=n: w[:n]) for n in (3, 11, 14, 22, 38, 42, 65)},
}


@pytest.mark.parametrize("args", [(-1, -1), (1, -1), (3, -1), (-1, 3), (-1, 8), (1, 8),
                                  (0, -1), (-1, 0)])
@pytest.mark.parametrize("name", sorted(FILES))
def test_decode_wav_matches_tf(name, args):
    data = FILES[name](_wav(), _wav(X[:3]))
    want = _run(lambda: real_tf().audio.decode_wav(data, *args))
    got = _run(lambda: torchflow.audio.decode_wav(data, *args))
    assert got == want


@pytest.mark.parametrize("call", ["vector", "int", "channels_list", "channels_-2",
                                  "samples_-2", "tensor"])
def test_decode_wav_bad_arguments_as_tf(call):
    def fn(tf):
        w = _wav()
        return {"vector": lambda: tf.audio.decode_wav([w]),
                "int": lambda: tf.audio.decode_wav(5),
                "channels_list": lambda: tf.audio.decode_wav(w, desired_channels=[1]),
                "channels_-2": lambda: tf.audio.decode_wav(w, desired_channels=-2),
                "samples_-2": lambda: tf.audio.decode_wav(w, desired_samples=-2),
                "tensor": lambda: tf.audio.decode_wav(tf.constant(w))}[call]()
    assert _run(lambda: fn(torchflow)) == _run(lambda: fn(real_tf()))


def test_round_trip_is_int16_quantisation():
    x = RNG[:50]
    audio, rate = torchflow.audio.decode_wav(torchflow.audio.encode_wav(x, 11025))
    q = np.clip(x.astype(np.float64) * 32768, -32768, 32767)
    want = (np.sign(q) * np.floor(np.abs(q) + 0.5)) / 32768
    np.testing.assert_array_equal(audio.numpy(), want.astype(np.float32))
    assert int(rate) == 11025
