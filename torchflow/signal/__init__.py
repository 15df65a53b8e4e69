"""``tf.signal``: FFTs, framing, windows, STFT/MDCT, DCT and mel features."""

from torchflow._src.ops.signal_ops import fft as fft
from torchflow._src.ops.signal_ops import fft2d as fft2d
from torchflow._src.ops.signal_ops import fft3d as fft3d
from torchflow._src.ops.signal_ops import fftshift as fftshift
from torchflow._src.ops.signal_ops import ifft as ifft
from torchflow._src.ops.signal_ops import ifft2d as ifft2d
from torchflow._src.ops.signal_ops import ifft3d as ifft3d
from torchflow._src.ops.signal_ops import ifftshift as ifftshift
from torchflow._src.ops.signal_ops import irfft as irfft
from torchflow._src.ops.signal_ops import irfft2d as irfft2d
from torchflow._src.ops.signal_ops import irfft3d as irfft3d
from torchflow._src.ops.signal_ops import rfft as rfft
from torchflow._src.ops.signal_ops import rfft2d as rfft2d
from torchflow._src.ops.signal_ops import rfft3d as rfft3d
from torchflow._src.ops.signal_spectral_ops import dct as dct
from torchflow._src.ops.signal_spectral_ops import frame as frame
from torchflow._src.ops.signal_spectral_ops import hamming_window as hamming_window
from torchflow._src.ops.signal_spectral_ops import hann_window as hann_window
from torchflow._src.ops.signal_spectral_ops import idct as idct
from torchflow._src.ops.signal_spectral_ops import inverse_mdct as inverse_mdct
from torchflow._src.ops.signal_spectral_ops import inverse_stft as inverse_stft
from torchflow._src.ops.signal_spectral_ops import inverse_stft_window_fn as inverse_stft_window_fn
from torchflow._src.ops.signal_spectral_ops import (
    kaiser_bessel_derived_window as kaiser_bessel_derived_window,
)
from torchflow._src.ops.signal_spectral_ops import kaiser_window as kaiser_window
from torchflow._src.ops.signal_spectral_ops import (
    linear_to_mel_weight_matrix as linear_to_mel_weight_matrix,
)
from torchflow._src.ops.signal_spectral_ops import mdct as mdct
from torchflow._src.ops.signal_spectral_ops import (
    mfccs_from_log_mel_spectrograms as mfccs_from_log_mel_spectrograms,
)
from torchflow._src.ops.signal_spectral_ops import overlap_and_add as overlap_and_add
from torchflow._src.ops.signal_spectral_ops import stft as stft
from torchflow._src.ops.signal_spectral_ops import vorbis_window as vorbis_window
