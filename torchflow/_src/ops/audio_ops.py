"""``tf.audio``: 16-bit PCM WAV files, decoded to and encoded from float32 samples.

The files written are byte for byte TF's (a 44-byte RIFF header, then
little-endian int16 samples, channels interleaved). Decoding reads the chunks
TF's reader accepts and raises its ``InvalidArgumentError`` text for the rest.
"""

from __future__ import annotations

import struct

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import dtype_error, tensor_arg
from torchflow._src.util.api import public

_SHORT = "Data too short when trying to read string"
# Chunks TF's reader skips when they come before the format chunk.
_SKIPPED_BEFORE_FMT = (b"JUNK", b"bext")
_INT32_MAX = 2 ** 31 - 1


def _error(msg: str, op: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{msg} [Op:{op}]")


class _Reader:
    """Reads little-endian fields from ``data``, raising TF's error past the end."""

    def __init__(self, data: bytes):
        self.data, self.offset = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.offset + n > len(self.data):
            raise _error(_SHORT, "DecodeWav")
        out = self.data[self.offset:self.offset + n]
        self.offset += n
        return out

    def value(self, fmt: str) -> int:
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]

    def expect(self, text: bytes) -> None:
        found = self.take(len(text))
        if found != text:
            raise _error(f"Header mismatch: Expected {text.decode()} but found "
                         f"{found.decode('latin-1')}", "DecodeWav")


def _read_format(r: _Reader) -> tuple[int, int, int]:
    """The format chunk: ``(channels, sample_rate, bytes_per_sample)``."""
    op = "DecodeWav"
    chunk_id = r.take(4)
    while chunk_id != b"fmt ":
        if chunk_id not in _SKIPPED_BEFORE_FMT:
            raise _error(f"Unexpected field {chunk_id.decode('latin-1')}", op)
        r.take(r.value("I"))
        chunk_id = r.take(4)
    size = r.value("I")
    if size not in (16, 18):
        raise _error(f"Bad format chunk size for WAV: Expected 16 or 18, but got{size}", op)
    audio_format = r.value("H")
    if audio_format != 1:
        raise _error(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}", op)
    channels = r.value("H")
    if channels < 1:
        raise _error(f"Bad number of channels for WAV: Expected at least 1, but got "
                     f"{channels}", op)
    sample_rate = r.value("I")
    bytes_per_second = r.value("I")
    bytes_per_sample = r.value("H")
    bits = r.value("H")
    if bits != 16:
        raise _error(f"Can only read 16-bit WAV files, but received {bits}", op)
    expected = (bits * channels + 7) // 8
    if bytes_per_sample != expected:
        raise _error(f"Bad bytes per sample in WAV header: Expected {expected} but got "
                     f"{bytes_per_sample}", op)
    expected = (bytes_per_sample * sample_rate) % 2 ** 32
    if bytes_per_second != expected:
        raise _error(f"Bad bytes per second in WAV header: Expected {expected} but got "
                     f"{bytes_per_second} (sample_rate={sample_rate}, bytes_per_sample="
                     f"{bytes_per_sample})", op)
    if size == 18:
        r.take(2)
    return channels, sample_rate, bytes_per_sample


def _decode(data: bytes) -> tuple[np.ndarray, int]:
    """``(int16 samples [frames, channels], sample_rate)`` of a WAV file."""
    r = _Reader(data)
    r.expect(b"RIFF")
    r.value("I")  # the RIFF size, which TF's reader does not check
    r.expect(b"WAVE")
    channels, sample_rate, bytes_per_sample = _read_format(r)
    samples = None
    while r.offset < len(data):
        chunk_id = r.take(4)
        size = r.value("I")
        if size > _INT32_MAX:
            raise _error(f"WAV data chunk '{chunk_id.decode('latin-1')}' is too large: "
                         f"{size} bytes, but the limit is {_INT32_MAX}", "DecodeWav")
        if chunk_id == b"data":
            if samples is not None:
                raise _error("More than one data chunk found in WAV", "DecodeWav")
            frames = size // bytes_per_sample
            raw = r.take(2 * frames * channels)
            samples = np.frombuffer(raw, dtype="<i2").reshape(frames, channels)
        else:
            r.offset += size
    if samples is None:
        raise _error("No data chunk found in WAV", "DecodeWav")
    return samples, sample_rate


def _scalar_bytes(contents, op: str) -> bytes:
    t = tensor_arg(contents, dtypes.string)
    if t._dtype is not dtypes.string:
        raise dtype_error(op, 0, dtypes.string, t._dtype)
    if t.shape.rank != 0:
        raise _error(f"contents must be scalar, got shape {_dims(t)}", op)
    v = np.asarray(t._t, dtype=object).reshape(()).item()
    return v.encode() if isinstance(v, str) else bytes(v)


def _dims(t: Tensor) -> str:
    """A shape as TF's kernels print it: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in t.shape.as_list()) + "]"


def _int_attr(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"Expected int for argument '{name}' not {value!r}.")
    return int(value)


@public("torchflow.audio")
def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """Decodes a 16-bit PCM WAV file to float32 samples in ``[-1.0, 1.0)``.

    Each int16 sample ``s`` becomes ``s / 32768``. With ``desired_channels``,
    a file with more channels keeps the first ones and one with fewer repeats
    its last channel; with ``desired_samples``, a longer file is cut and a
    shorter one padded with zeros.

    Args:
      contents: A scalar string Tensor: the bytes of a WAV file.
      desired_channels: Number of channels wanted, or -1 for the file's.
      desired_samples: Number of samples (frames) wanted, or -1 for the file's.
      name: Unused (eager).

    Returns:
      A tuple ``(audio, sample_rate)``: a float32 Tensor of shape
      ``[samples, channels]`` and an int32 scalar.

    Raises:
      InvalidArgumentError: If ``contents`` is not a scalar or not a 16-bit PCM
        WAV file TF's reader accepts, or a desired size is below -1.
      TypeError: If ``desired_channels`` or ``desired_samples`` is not an int.

    >>> import torchflow as tf
    >>> wav = tf.audio.encode_wav([[0.5], [-0.25]], 8000)
    >>> audio, rate = tf.audio.decode_wav(wav)
    >>> audio.numpy().tolist(), int(rate)
    ([[0.5], [-0.25]], 8000)
    """
    op = "DecodeWav"
    dc = _int_attr(desired_channels, "desired_channels")
    ds = _int_attr(desired_samples, "desired_samples")
    data = _scalar_bytes(contents, op)
    if dc < -1:
        raise _error(f"desired_channels must be >= -1, got {dc}", op)
    if ds < -1:
        raise _error(f"desired_samples must be >= -1, got {ds}", op)
    samples, sample_rate = _decode(data)
    frames, channels = samples.shape
    out_frames = frames if ds == -1 else ds
    out_channels = channels if dc == -1 else dc
    src = np.minimum(np.arange(out_channels), channels - 1)
    out = np.zeros([out_frames, out_channels], np.float32)
    n = min(frames, out_frames)
    out[:n] = samples[:n][:, src].astype(np.float32) / np.float32(32768.0)
    rate = torch.tensor(np.uint32(sample_rate).astype(np.int32).item(), dtype=torch.int32)
    return wrap(torch.from_numpy(out), dtypes.float32), wrap(rate, dtypes.int32)


@public("torchflow.audio")
def encode_wav(audio, sample_rate, name=None) -> Tensor:
    """Encodes float32 samples as a 16-bit PCM WAV file.

    Samples are clipped to ``[-1.0, 1.0]``, scaled by 32768 and rounded half
    away from zero to int16 (NaN becomes 0). The file is the one TF writes.

    Args:
      audio: A float32 Tensor of shape ``[samples, channels]``.
      sample_rate: An int32 scalar Tensor: samples per second.
      name: Unused (eager).

    Returns:
      A scalar string Tensor holding the WAV file.

    Raises:
      InvalidArgumentError: If ``audio`` is not float32 of rank 2 with 1 to
        65535 channels, or ``sample_rate`` is not a positive int32 scalar.

    >>> import torchflow as tf
    >>> wav = tf.audio.encode_wav(tf.zeros([3, 2]), 16000)
    >>> len(wav.numpy())
    56
    """
    op = "EncodeWav"
    a = tensor_arg(audio, dtypes.float32)
    if a._dtype is not dtypes.float32:
        raise dtype_error(op, 0, dtypes.float32, a._dtype)
    sr = tensor_arg(sample_rate, dtypes.int32)
    if sr._dtype is not dtypes.int32:
        raise dtype_error(op, 1, dtypes.int32, sr._dtype)
    if sr.shape.rank != 0:
        raise _error(f"Input sample_rate should be a scalar tensor, got {_dims(sr)} instead.",
                     op)
    if a.shape.rank != 2:
        raise _error(f"audio must be 2-dimensional{_dims(a)}", op)
    channels = int(a._t.shape[1])
    if not 0 < channels < 2 ** 16:
        raise _error(f"num_channels must be in (0, 2^16), got: {channels}", op)
    rate = int(sr._t)
    if rate <= 0:
        raise _error(f"sample_rate must be in (0, 2^32), got: {rate % 2 ** 64}", op)
    x = np.nan_to_num(a._t.detach().cpu().numpy().astype(np.float64), nan=0.0,
                      posinf=1.0, neginf=-1.0)
    x = np.clip(x * 32768.0, -32768.0, 32767.0)
    pcm = (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype("<i2")
    data = pcm.tobytes()
    block = 2 * channels
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", (36 + len(data)) % 2 ** 32, b"WAVE",
                         b"fmt ", 16, 1, channels, rate, (rate * block) % 2 ** 32, block, 16, b"data",
                         len(data) % 2 ** 32)
    return wrap(np.array(header + data, dtype=object), dtypes.string)
