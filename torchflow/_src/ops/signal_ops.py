"""``tf.signal`` (TF 2.4 semantics) on ``torch.fft``: FFTs over the innermost
1-3 dimensions, real FFTs with ``fft_length``, shifts, framing and
overlap-add, windows, STFT/inverse STFT, MDCT, DCT types I-IV, the mel
filterbank and MFCCs."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import invalid_argument, translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.util.api import public

_NS = "torchflow.signal"
_COMPLEX = (dtypes.complex64, dtypes.complex128)
_REAL = (dtypes.float32, dtypes.float64)
_TO_COMPLEX = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}
_TO_REAL = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}


def _check(op: str, t: Tensor, allowed, attr: str) -> None:
    if t._dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise invalid_argument(op, f"Value for attr '{attr}' of {t._dtype.name} is not in "
                                   f"the list of allowed values: {names}")


def _fft(op: str, x, rank: int, inverse: bool) -> Tensor:
    t = tensor_arg(x)
    _check(op, t, _COMPLEX, "Tcomplex")
    if t._t.dim() < rank:
        raise invalid_argument(op, f"Input must have rank of at least {rank} but got: "
                                   f"{list(t._t.shape)}")
    dims = tuple(range(-rank, 0))
    try:
        y = torch.fft.ifftn(t._t, dim=dims) if inverse else torch.fft.fftn(t._t, dim=dims)
    except Exception as e:  # noqa: BLE001 - torch failures become TF errors
        raise translate(op, e) from None
    return wrap(y.to(t._t.dtype), t._dtype)


@public(_NS)
def fft(input, name=None) -> Tensor:
    """Fast Fourier transform over the innermost dimension.

    Args:
      input: A complex64 or complex128 tensor.
      name: Unused (eager).

    Returns:
      A tensor of the same shape and dtype.

    Raises:
      InvalidArgumentError: For a non-complex dtype.
    """
    return _fft("FFT", input, 1, False)


@public(_NS)
def ifft(input, name=None) -> Tensor:
    """Inverse FFT over the innermost dimension (scaled by ``1/n``).

    Args:
      input: A complex64 or complex128 tensor.
      name: Unused (eager).

    Returns:
      A tensor of the same shape and dtype.

    Raises:
      InvalidArgumentError: For a non-complex dtype.
    """
    return _fft("IFFT", input, 1, True)


@public(_NS)
def fft2d(input, name=None) -> Tensor:
    """2-D FFT over the innermost 2 dimensions.

    Args:
      input: A complex64 or complex128 tensor of rank >= 2.
      name: Unused (eager).

    Returns:
      A tensor of the same shape and dtype.

    Raises:
      InvalidArgumentError: For a non-complex dtype or rank < 2.
    """
    return _fft("FFT2D", input, 2, False)


@public(_NS)
def ifft2d(input, name=None) -> Tensor:
    """Inverse 2-D FFT over the innermost 2 dimensions.

    Args:
      input: A complex64 or complex128 tensor of rank >= 2.
      name: Unused (eager).

    Returns:
      A tensor of the same shape and dtype.

    Raises:
      InvalidArgumentError: For a non-complex dtype or rank < 2.
    """
    return _fft("IFFT2D", input, 2, True)


@public(_NS)
def fft3d(input, name=None) -> Tensor:
    """3-D FFT over the innermost 3 dimensions.

    Args:
      input: A complex64 or complex128 tensor of rank >= 3.
      name: Unused (eager).

    Returns:
      A tensor of the same shape and dtype.

    Raises:
      InvalidArgumentError: For a non-complex dtype or rank < 3.
    """
    return _fft("FFT3D", input, 3, False)


@public(_NS)
def ifft3d(input, name=None) -> Tensor:
    """Inverse 3-D FFT over the innermost 3 dimensions.

    Args:
      input: A complex64 or complex128 tensor of rank >= 3.
      name: Unused (eager).

    Returns:
      A tensor of the same shape and dtype.

    Raises:
      InvalidArgumentError: For a non-complex dtype or rank < 3.
    """
    return _fft("IFFT3D", input, 3, True)


def _lengths(op: str, fft_length, rank: int):
    if fft_length is None:
        return None
    v = fft_length.numpy() if isinstance(fft_length, Tensor) else fft_length
    n = [int(i) for i in np.asarray(v).reshape(-1)]
    if len(n) != rank:
        raise invalid_argument(op, f"fft_length must have {rank} elements, got {len(n)}")
    return n


def _fit(x: torch.Tensor, sizes) -> torch.Tensor:
    """Crops or zero-pads the innermost ``len(sizes)`` dimensions to ``sizes``."""
    for k, n in enumerate(sizes):
        d = x.dim() - len(sizes) + k
        cur = x.shape[d]
        if cur > n:
            x = x.narrow(d, 0, n)
        elif cur < n:
            shape = list(x.shape)
            shape[d] = n - cur
            x = torch.cat([x, x.new_zeros(shape)], dim=d)
    return x


def _rfft(op: str, x, fft_length, rank: int) -> Tensor:
    t = tensor_arg(x)
    _check(op, t, _REAL, "Treal")
    if t._t.dim() < rank:
        raise invalid_argument(op, f"Input must have rank of at least {rank} but got: "
                                   f"{list(t._t.shape)}")
    n = _lengths(op, fft_length, rank) or list(t._t.shape[-rank:])
    y = torch.fft.rfftn(_fit(t._t, n), dim=tuple(range(-rank, 0)))
    d = _TO_COMPLEX[t._dtype]
    return wrap(y.to(d._torch), d)


def _irfft(op: str, x, fft_length, rank: int) -> Tensor:
    t = tensor_arg(x)
    _check(op, t, _COMPLEX, "Tcomplex")
    if t._t.dim() < rank:
        raise invalid_argument(op, f"Input must have rank of at least {rank} but got: "
                                   f"{list(t._t.shape)}")
    n = _lengths(op, fft_length, rank)
    if n is None:
        shape = list(t._t.shape[-rank:])
        n = shape[:-1] + [2 * (shape[-1] - 1)]
    # The inner dimension is cropped/padded to n//2 + 1 bins, the others to n.
    y = _fit(t._t, n[:-1] + [n[-1] // 2 + 1])
    out = torch.fft.irfftn(y, s=n, dim=tuple(range(-rank, 0)))
    d = _TO_REAL[t._dtype]
    return wrap(out.to(d._torch), d)


@public(_NS)
def rfft(input_tensor, fft_length=None, name=None) -> Tensor:
    """Real FFT over the innermost dimension: ``fft_length // 2 + 1`` bins.

    Args:
      input_tensor: A float32 or float64 tensor.
      fft_length: A 1-element list/tensor; the input is cropped or zero-padded to
        it (default: the innermost size).
      name: Unused (eager).

    Returns:
      A complex64 (complex128 for float64) tensor.

    Raises:
      InvalidArgumentError: For a non-real dtype.
    """
    return _rfft("RFFT", input_tensor, fft_length, 1)


@public(_NS)
def irfft(input_tensor, fft_length=None, name=None) -> Tensor:
    """Inverse real FFT over the innermost dimension.

    Args:
      input_tensor: A complex64 or complex128 tensor of Hermitian half-spectra.
      fft_length: A 1-element list/tensor, the output length (default
        ``2 * (inner - 1)``).
      name: Unused (eager).

    Returns:
      A float32 (float64 for complex128) tensor.

    Raises:
      InvalidArgumentError: For a non-complex dtype.
    """
    return _irfft("IRFFT", input_tensor, fft_length, 1)


@public(_NS)
def rfft2d(input_tensor, fft_length=None, name=None) -> Tensor:
    """Real 2-D FFT over the innermost 2 dimensions.

    Args:
      input_tensor: A float32 or float64 tensor of rank >= 2.
      fft_length: A 2-element list/tensor (default: the innermost sizes).
      name: Unused (eager).

    Returns:
      A complex tensor whose innermost dimension is ``fft_length[-1] // 2 + 1``.

    Raises:
      InvalidArgumentError: For a non-real dtype or rank < 2.
    """
    return _rfft("RFFT2D", input_tensor, fft_length, 2)


@public(_NS)
def irfft2d(input_tensor, fft_length=None, name=None) -> Tensor:
    """Inverse real 2-D FFT over the innermost 2 dimensions.

    Args:
      input_tensor: A complex tensor of rank >= 2.
      fft_length: A 2-element list/tensor, the output sizes.
      name: Unused (eager).

    Returns:
      A real tensor.

    Raises:
      InvalidArgumentError: For a non-complex dtype or rank < 2.
    """
    return _irfft("IRFFT2D", input_tensor, fft_length, 2)


@public(_NS)
def rfft3d(input_tensor, fft_length=None, name=None) -> Tensor:
    """Real 3-D FFT over the innermost 3 dimensions.

    Args:
      input_tensor: A float32 or float64 tensor of rank >= 3.
      fft_length: A 3-element list/tensor (default: the innermost sizes).
      name: Unused (eager).

    Returns:
      A complex tensor whose innermost dimension is ``fft_length[-1] // 2 + 1``.

    Raises:
      InvalidArgumentError: For a non-real dtype or rank < 3.
    """
    return _rfft("RFFT3D", input_tensor, fft_length, 3)


@public(_NS)
def irfft3d(input_tensor, fft_length=None, name=None) -> Tensor:
    """Inverse real 3-D FFT over the innermost 3 dimensions.

    Args:
      input_tensor: A complex tensor of rank >= 3.
      fft_length: A 3-element list/tensor, the output sizes.
      name: Unused (eager).

    Returns:
      A real tensor.

    Raises:
      InvalidArgumentError: For a non-complex dtype or rank < 3.
    """
    return _irfft("IRFFT3D", input_tensor, fft_length, 3)


def _shift(x, axes, sign: int) -> Tensor:
    t = tensor_arg(x)
    nd = t._t.dim()
    if axes is None:
        axes = list(range(nd))
    elif isinstance(axes, int):
        axes = [axes]
    axes = [int(a) for a in (axes.numpy().reshape(-1) if isinstance(axes, Tensor) else axes)]
    shifts = [sign * (t._t.shape[a] // 2) for a in axes]
    return wrap(torch.roll(t._t, shifts, axes), t._dtype)


@public(_NS)
def fftshift(x, axes=None, name=None) -> Tensor:
    """Moves the zero-frequency term to the centre (rolls each axis by ``n // 2``).

    Args:
      x: A tensor.
      axes: Axes to shift (default: all).
      name: Unused (eager).

    Returns:
      The shifted tensor.
    """
    return _shift(x, axes, 1)


@public(_NS)
def ifftshift(x, axes=None, name=None) -> Tensor:
    """The inverse of ``fftshift`` (rolls each axis by ``-(n // 2)``).

    Args:
      x: A tensor.
      axes: Axes to shift (default: all).
      name: Unused (eager).

    Returns:
      The shifted tensor.
    """
    return _shift(x, axes, -1)
