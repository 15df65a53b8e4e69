"""``tf.signal`` framing, windows, STFT/MDCT, DCT and mel ops (TF 2.4 semantics)."""

from __future__ import annotations

import math

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import invalid_argument
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.signal_ops import irfft, rfft
from torchflow._src.util.api import public

_NS = "torchflow.signal"


def _int(v) -> int:
    return int(v.numpy()) if isinstance(v, Tensor) else int(v)


@public(_NS)
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1,
          name=None) -> Tensor:
    """Slices ``axis`` of ``signal`` into (possibly overlapping) frames.

    Args:
      signal: A tensor.
      frame_length: Samples per frame.
      frame_step: Samples between frame starts.
      pad_end: Pad the end with ``pad_value`` so every sample is in a frame.
      pad_value: The padding value.
      axis: The axis to frame.
      name: Unused (eager).

    Returns:
      ``signal.shape[:axis] + [num_frames, frame_length] + signal.shape[axis+1:]``.

    Raises:
      ValueError: For a scalar ``signal``.
    """
    t = tensor_arg(signal)
    x = t._t
    if x.dim() == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    fl, fs = _int(frame_length), _int(frame_step)
    ax = _int(axis) % x.dim()
    n = x.shape[ax]
    if pad_end:
        frames = -(-n // fs)
        need = max(0, (frames - 1) * fs + fl - n)
        if need:
            shape = list(x.shape)
            shape[ax] = need
            x = torch.cat([x, torch.full(shape, pad_value, dtype=x.dtype, device=x.device)],
                          ax)
    if x.shape[ax] < fl:
        shape = list(x.shape)
        shape[ax:ax + 1] = [0, fl]
        return wrap(x.new_zeros(shape), t._dtype)
    y = x.unfold(ax, fl, fs)  # [..., frames, ..., fl]
    return wrap(y.movedim(-1, ax + 1).contiguous(), t._dtype)


@public(_NS)
def overlap_and_add(signal, frame_step, name=None) -> Tensor:
    """Sums overlapping frames ``[..., frames, frame_length]`` into a signal.

    Args:
      signal: A tensor of rank >= 2.
      frame_step: Samples between frame starts (<= frame_length).
      name: Unused (eager).

    Returns:
      ``[..., (frames - 1) * frame_step + frame_length]``.

    Raises:
      ValueError: For rank < 2.
    """
    t = tensor_arg(signal)
    x = t._t
    if x.dim() < 2:
        raise ValueError(f"input must be at least 2-D, got shape {list(x.shape)}")
    fs = _int(frame_step)
    frames, fl = x.shape[-2], x.shape[-1]
    length = (frames - 1) * fs + fl if frames else 0
    out = x.new_zeros((*x.shape[:-2], length))
    for i in range(frames):
        out[..., i * fs:i * fs + fl] += x[..., i, :]
    return wrap(out, t._dtype)


def _window_dtype(dtype):
    d = dtypes.as_dtype(dtype)
    if not d.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {d}")
    return d


def _cosine_window(window_length, periodic, dtype, a: float, b: float) -> Tensor:
    d = _window_dtype(dtype)
    n = _int(window_length)
    if n == 1:
        return wrap(torch.ones(1, dtype=d._torch), d)
    # TF: N = L + periodic * even(L) - 1 (an odd periodic window equals the symmetric one).
    denom = n + (1 - n % 2) * int(bool(periodic)) - 1
    k = torch.arange(n, dtype=torch.float64)
    w = a - b * torch.cos(2.0 * math.pi * k / denom)
    return wrap(w.to(d._torch), d)


@public(_NS)
def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """Hann window ``0.5 - 0.5 cos(2 pi n / N)`` (``N = L`` for an even periodic
    window, else ``L - 1``).

    Args:
      window_length: The window length.
      periodic: A periodic (for spectral analysis) or symmetric window.
      dtype: A floating dtype.
      name: Unused (eager).

    Returns:
      A 1-D tensor of ``window_length``.

    Raises:
      ValueError: For a non-floating ``dtype``.
    """
    return _cosine_window(window_length, periodic, dtype, 0.5, 0.5)


@public(_NS)
def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """Hamming window ``0.54 - 0.46 cos(2 pi n / N)``.

    Args:
      window_length: The window length.
      periodic: A periodic or symmetric window.
      dtype: A floating dtype.
      name: Unused (eager).

    Returns:
      A 1-D tensor of ``window_length``.

    Raises:
      ValueError: For a non-floating ``dtype``.
    """
    return _cosine_window(window_length, periodic, dtype, 0.54, 0.46)


def _kaiser(n: int, beta: float) -> torch.Tensor:
    if n == 1:
        return torch.ones(1, dtype=torch.float64)
    arg = torch.arange(n, dtype=torch.float64) * 2.0 / (n - 1) - 1.0
    b = torch.tensor(float(beta), dtype=torch.float64)
    return torch.special.i0(b * torch.sqrt((1 - arg * arg).clamp(min=0))) / torch.special.i0(b)


@public(_NS)
def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None) -> Tensor:
    """Kaiser window ``I0(beta sqrt(1 - (2n/(L-1) - 1)^2)) / I0(beta)``.

    Args:
      window_length: The window length.
      beta: The shape parameter.
      dtype: A floating dtype.
      name: Unused (eager).

    Returns:
      A 1-D tensor of ``window_length``.

    Raises:
      ValueError: For a non-floating ``dtype``.
    """
    d = _window_dtype(dtype)
    return wrap(_kaiser(_int(window_length), float(beta)).to(d._torch), d)


@public(_NS)
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32,
                                 name=None) -> Tensor:
    """Kaiser-Bessel derived window (for MDCT): square roots of the normalised
    cumulative sums of a ``L // 2 + 1`` Kaiser window, mirrored.

    Args:
      window_length: The window length (even).
      beta: The Kaiser shape parameter.
      dtype: A floating dtype.
      name: Unused (eager).

    Returns:
      A 1-D tensor of ``window_length``.

    Raises:
      ValueError: For a non-floating ``dtype``.
    """
    d = _window_dtype(dtype)
    half = _int(window_length) // 2
    cs = torch.cumsum(_kaiser(half + 1, float(beta)), 0)
    hw = torch.sqrt(cs[:-1] / cs[-1])
    return wrap(torch.cat([hw, hw.flip(0)]).to(d._torch), d)


@public(_NS)
def vorbis_window(window_length, dtype=dtypes.float32, name=None) -> Tensor:
    """Vorbis power-complementary window ``sin(pi/2 sin^2(pi (n + 0.5) / L))``.

    Args:
      window_length: The window length.
      dtype: A floating dtype.
      name: Unused (eager).

    Returns:
      A 1-D tensor of ``window_length``.

    Raises:
      ValueError: For a non-floating ``dtype``.
    """
    d = _window_dtype(dtype)
    n = _int(window_length)
    k = torch.arange(n, dtype=torch.float64)
    w = torch.sin(math.pi / 2 * torch.sin(math.pi * (k + 0.5) / n) ** 2)
    return wrap(w.to(d._torch), d)


def _real(op: str, x) -> Tensor:
    t = tensor_arg(x)
    if t._dtype not in (dtypes.float32, dtypes.float64):
        raise invalid_argument(op, f"Value for attr 'T' of {t._dtype.name} is not in the "
                                   f"list of allowed values: float, double")
    return t


@public(_NS)
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None) -> Tensor:
    """Short-time Fourier transform: ``rfft`` of windowed frames.

    Args:
      signals: A ``[..., samples]`` float32/float64 tensor.
      frame_length: The window length in samples.
      frame_step: Samples between frames.
      fft_length: FFT size (default: the smallest power of 2 >= frame_length).
      window_fn: ``fn(frame_length, dtype=...)`` giving the window, or None.
      pad_end: Pad the end of ``signals`` with zeros.
      name: Unused (eager).

    Returns:
      ``[..., frames, fft_length // 2 + 1]`` complex STFT values.

    Raises:
      InvalidArgumentError: For a non-float dtype.
    """
    t = _real("RFFT", signals)
    fl = _int(frame_length)
    n = _int(fft_length) if fft_length is not None else 1 << max(0, (fl - 1).bit_length())
    framed = frame(t, fl, frame_step, pad_end=pad_end)
    x = framed._t
    if window_fn is not None:
        x = x * window_fn(fl, dtype=t._dtype)._t.to(x.device)
    return rfft(wrap(x, t._dtype), [n])


@public(_NS)
def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None) -> Tensor:
    """Inverse of ``stft``: ``irfft`` of each frame, windowed, overlap-added.

    For perfect reconstruction use ``window_fn=inverse_stft_window_fn(frame_step)``.

    Args:
      stfts: ``[..., frames, fft_unique_bins]`` complex tensor.
      frame_length: The window length in samples.
      frame_step: Samples between frames.
      fft_length: FFT size (default: the smallest power of 2 >= frame_length).
      window_fn: ``fn(frame_length, dtype=...)`` giving the window, or None.
      name: Unused (eager).

    Returns:
      ``[..., samples]`` float tensor.

    Raises:
      InvalidArgumentError: For a non-complex dtype.
    """
    fl = _int(frame_length)
    n = _int(fft_length) if fft_length is not None else 1 << max(0, (fl - 1).bit_length())
    frames = irfft(stfts, [n])
    x = frames._t[..., :fl]
    if x.shape[-1] < fl:
        x = torch.cat([x, x.new_zeros((*x.shape[:-1], fl - x.shape[-1]))], -1)
    if window_fn is not None:
        x = x * window_fn(fl, dtype=frames._dtype)._t.to(x.device)
    return overlap_and_add(wrap(x, frames._dtype), frame_step)


@public(_NS)
def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function for ``inverse_stft`` that inverts ``stft`` with
    ``forward_window_fn``: the forward window divided by the overlapped sum of its
    squares.

    Args:
      frame_step: The STFT's frame step.
      forward_window_fn: The window ``stft`` used.
      name: Unused (eager).

    Returns:
      A callable ``fn(frame_length, dtype)``.
    """
    step = _int(frame_step)

    def inverse_stft_window_fn_inner(frame_length, dtype):
        fl = _int(frame_length)
        fw = forward_window_fn(fl, dtype=dtype)
        w = fw._t
        overlaps = -(-fl // step)
        den = torch.cat([w * w, w.new_zeros(overlaps * step - fl)]).reshape(overlaps, step)
        den = den.sum(0, keepdim=True).repeat(overlaps, 1).reshape(-1)[:fl]
        return wrap(w / den, fw._dtype)

    return inverse_stft_window_fn_inner


def _dct_matrix(kind: int, n: int, norm, dt) -> torch.Tensor:
    """``M`` such that ``x @ M`` is TF's (scipy's) DCT of the given type."""
    i = torch.arange(n, dtype=torch.float64)[:, None]  # input index
    k = torch.arange(n, dtype=torch.float64)[None, :]  # output index
    if kind == 1:
        m = 2.0 * torch.cos(math.pi * i * k / (n - 1))
        m[0, :] = 1.0
        m[-1, :] = torch.cos(math.pi * k[0] * (n - 1) / (n - 1))
    elif kind == 2:
        m = 2.0 * torch.cos(math.pi * k * (2 * i + 1) / (2 * n))
        if norm == "ortho":
            m[:, 0] *= math.sqrt(1.0 / (4 * n))
            m[:, 1:] *= math.sqrt(1.0 / (2 * n))
    elif kind == 3:
        m = 2.0 * torch.cos(math.pi * i * (2 * k + 1) / (2 * n))
        m[0, :] = 1.0
        if norm == "ortho":
            m[0, :] *= math.sqrt(1.0 / n)
            m[1:, :] *= math.sqrt(1.0 / (2 * n))
    else:
        m = 2.0 * torch.cos(math.pi * (2 * k + 1) * (2 * i + 1) / (4 * n))
        if norm == "ortho":
            m *= math.sqrt(1.0 / (2 * n))
    return m.to(dt)


def _validate_dct(op, t, kind, n, axis, norm):
    if kind not in (1, 2, 3, 4):
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported, got {kind}.")
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError(f"n should be a positive integer or None, got {n}")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if kind == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if t._t.shape[-1] < 2 and n is None:
            raise ValueError(f"Type-I DCT requires the dimension to be greater than one, "
                             f"got {t._t.shape[-1]}")


@public(_NS)
def dct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002 - TF's argument name
    """Discrete cosine transform (types I-IV, scipy's definitions) over the last axis.

    Args:
      input: A float32/float64 tensor.
      type: The DCT type, 1-4.
      n: Length to crop or zero-pad the last axis to first.
      axis: Must be -1.
      norm: None or ``"ortho"`` (not for type I).
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype.

    Raises:
      ValueError: For an unsupported type, ``n`` or ``norm``.
      NotImplementedError: For ``axis != -1``.
    """
    t = _real("DCT", input)
    _validate_dct("DCT", t, type, n, axis, norm)
    x = t._t
    if n is not None:
        if x.shape[-1] > n:
            x = x[..., :n]
        elif x.shape[-1] < n:
            x = torch.cat([x, x.new_zeros((*x.shape[:-1], n - x.shape[-1]))], -1)
    m = _dct_matrix(type, x.shape[-1], norm, x.dtype).to(x.device)
    return wrap(x @ m, t._dtype)


@public(_NS)
def idct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002 - TF's argument name
    """Inverse DCT: the DCT of the inverse type (I->I, II->III, III->II, IV->IV),
    unscaled unless ``norm="ortho"`` (as in TF).

    Args:
      input: A float32/float64 tensor.
      type: The DCT type being inverted, 1-4.
      n: Length to crop or zero-pad the last axis to first.
      axis: Must be -1.
      norm: None or ``"ortho"``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype.

    Raises:
      ValueError: For an unsupported type, ``n`` or ``norm``.
      NotImplementedError: For ``axis != -1``.
    """
    t = _real("IDCT", input)
    _validate_dct("IDCT", t, type, n, axis, norm)
    return dct(t, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm)


@public(_NS)
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None,
         name=None) -> Tensor:
    """Modified DCT of half-overlapping frames (a type-IV DCT of folded frames).

    Args:
      signals: A ``[..., samples]`` float tensor.
      frame_length: Frame length, a multiple of 4.
      window_fn: ``fn(frame_length, dtype=...)`` or None (then scaled by 1/sqrt(2)).
      pad_end: Pad the end of ``signals`` with zeros.
      norm: None or ``"ortho"``.
      name: Unused (eager).

    Returns:
      ``[..., frames, frame_length // 2]`` MDCT values.

    Raises:
      ValueError: If ``frame_length`` is not a multiple of 4.
    """
    t = _real("MDCT", signals)
    fl = _int(frame_length)
    if fl % 4:
        raise ValueError(f"The frame length must be a multiple of 4. Got {fl}.")
    x = frame(t, fl, fl // 2, pad_end=pad_end)._t
    if window_fn is not None:
        x = x * window_fn(fl, dtype=t._dtype)._t.to(x.device)
    else:
        x = x * (1.0 / math.sqrt(2))
    q = fl // 4
    a, b, c, d = x[..., :q], x[..., q:2 * q], x[..., 2 * q:3 * q], x[..., 3 * q:]
    folded = torch.cat([-c.flip(-1) - d, a - b.flip(-1)], -1)
    return dct(wrap(folded, t._dtype), type=4, norm=norm)


@public(_NS)
def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None) -> Tensor:
    """Inverse of ``mdct`` (with a power-complementary window, perfect
    reconstruction away from the edges).

    Args:
      mdcts: ``[..., frames, frame_length // 2]`` float tensor.
      window_fn: ``fn(frame_length, dtype=...)`` or None.
      norm: None or ``"ortho"``.
      name: Unused (eager).

    Returns:
      ``[..., samples]`` float tensor.

    Raises:
      ValueError: For an unknown ``norm``.
    """
    t = _real("IMDCT", mdcts)
    half = t._t.shape[-1]
    if norm is None:
        r = dct(t, type=4)._t * (0.5 / half)
    elif norm == "ortho":
        r = dct(t, type=4, norm="ortho")._t
    else:
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    h = half // 2
    r0, r1 = r[..., :h], r[..., h:]
    frames = torch.cat([r1, -r1.flip(-1), -r0.flip(-1), -r0], -1)
    if window_fn is not None:
        frames = frames * window_fn(2 * half, dtype=t._dtype)._t.to(frames.device)
    else:
        frames = frames * (1.0 / math.sqrt(2))
    return overlap_and_add(wrap(frames, t._dtype), half)


def _hz_to_mel(f):
    return 1127.0 * torch.log(1.0 + f / 700.0)


@public(_NS)
def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=dtypes.float32, name=None) -> Tensor:
    """A ``[num_spectrogram_bins, num_mel_bins]`` matrix of triangular mel filters
    (HTK mel scale ``1127 ln(1 + f / 700)``; the DC bin row is zero).

    Args:
      num_mel_bins: Bands in the mel spectrum.
      num_spectrogram_bins: Bins of the linear spectrogram (``fft_length // 2 + 1``).
      sample_rate: Samples per second of the source signal.
      lower_edge_hertz: Lower bound of the lowest band.
      upper_edge_hertz: Upper bound of the highest band.
      dtype: A floating dtype.
      name: Unused (eager).

    Returns:
      The weight matrix.

    Raises:
      ValueError: For invalid bin counts or frequency edges.
    """
    d = _window_dtype(dtype)
    nm, ns = _int(num_mel_bins), _int(num_spectrogram_bins)
    sr, lo, hi = float(sample_rate), float(lower_edge_hertz), float(upper_edge_hertz)
    if nm <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {nm}")
    if lo < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lo >= hi:
        raise ValueError(f"lower_edge_hertz {lo:.1f} >= upper_edge_hertz {hi:.1f}")
    if sr <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if hi > sr / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                         f"(sample_rate / 2). "
                         f"Got {upper_edge_hertz} for sample_rate: {sample_rate}")
    td = d._torch
    freqs = torch.linspace(0.0, sr / 2.0, ns, dtype=td)[1:]
    mel = _hz_to_mel(freqs)[:, None]
    edges = torch.linspace(float(_hz_to_mel(torch.tensor(lo, dtype=td))),
                           float(_hz_to_mel(torch.tensor(hi, dtype=td))), nm + 2, dtype=td)
    lower, center, upper = edges[:-2][None], edges[1:-1][None], edges[2:][None]
    w = torch.clamp(torch.minimum((mel - lower) / (center - lower),
                                  (upper - mel) / (upper - center)), min=0.0)
    return wrap(torch.cat([w.new_zeros((1, nm)), w], 0), d)


@public(_NS)
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None) -> Tensor:
    """MFCCs: the orthonormal-scaled type-II DCT of log-mel spectrograms
    (``dct(x) / sqrt(2 * num_mel_bins)``).

    Args:
      log_mel_spectrograms: ``[..., num_mel_bins]`` float tensor.
      name: Unused (eager).

    Returns:
      ``[..., num_mel_bins]`` MFCCs.

    Raises:
      ValueError: If the last dimension is 0.
    """
    t = _real("DCT", log_mel_spectrograms)
    nb = t._t.shape[-1]
    if nb == 0:
        raise ValueError("num_mel_bins must be positive. Got: 0")
    return wrap(dct(t, type=2)._t * (1.0 / math.sqrt(nb * 2.0)), t._dtype)
