"""The sampling kernels of TF's ``ScaleAndTranslate`` op, which ``tf.image.resize``
uses for ``lanczos3``, ``lanczos5``, ``gaussian`` and ``mitchellcubic``, and for
``bilinear``/``bicubic`` with ``antialias=True``.

Each output pixel ``o`` samples the input at ``(o + 0.5) / scale``; the kernel is
widened by ``1 / scale`` when downsampling with ``antialias`` (a low-pass filter),
its taps are clamped to the image and the weights renormalised to sum to 1, as
TF's ``ComputeSpans``. The result is one ``(out, in)`` weight matrix per axis, in
float32 arithmetic as TF's kernel computes it.
"""

from __future__ import annotations

import functools
import math

import numpy as np


def _lanczos(radius: float):
    def k(x: float) -> float:
        x = abs(x)
        if x > radius:
            return 0.0
        if x <= 1000 * np.finfo(np.float32).eps:
            return 1.0
        x *= math.pi
        return radius * math.sin(x) * math.sin(x / radius) / (x * x)
    return k, radius


def _gaussian(x: float) -> float:
    radius, sigma = 1.5, 1.5 / 3.0
    x = abs(x)
    return 0.0 if x >= radius else math.exp(-x * x / (2.0 * sigma * sigma))


def _triangle(x: float) -> float:
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _keys_cubic(x: float) -> float:
    x = abs(x)
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return (1.5 * x - 2.5) * x * x + 1.0


def _mitchell_cubic(x: float) -> float:
    x = abs(x)
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    return ((7.0 / 6.0) * x - 2.0) * x * x + 8.0 / 9.0


KERNELS = {"lanczos3": _lanczos(3.0), "lanczos5": _lanczos(5.0), "gaussian": (_gaussian, 1.5),
           "triangle": (_triangle, 1.0), "keyscubic": (_keys_cubic, 2.0),
           "mitchellcubic": (_mitchell_cubic, 2.0)}


@functools.lru_cache(maxsize=64)
def scale_translate_weights(kernel: str, n_in: int, n_out: int, antialias: bool) -> np.ndarray:
    """The ``(n_out, n_in)`` sampling matrix of ``kernel`` for a zero translation."""
    fn, radius = KERNELS[kernel]
    f32 = np.float32
    scale = f32(n_out) / f32(n_in)
    inv_scale = f32(1.0) / scale
    kernel_scale = max(inv_scale, f32(1.0)) if antialias else f32(1.0)
    reach = f32(radius) * kernel_scale
    w = np.zeros((n_out, n_in), np.float64)
    for o in range(n_out):
        sample = (f32(o) + f32(0.5)) * inv_scale
        if sample < 0 or sample > n_in:
            continue  # TF leaves an empty span
        start = min(max(math.ceil(sample - reach - f32(0.5)), 0), n_in - 1)
        end = min(max(math.floor(sample + reach - f32(0.5)), 0), n_in - 1) + 1
        taps = [fn(float(abs((f32(i) + f32(0.5) - sample) / kernel_scale)))
                for i in range(start, end)]
        total = f32(sum(taps))
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            w[o, start:end] = np.asarray(taps, np.float32) * (f32(1.0) / total)
    return w
