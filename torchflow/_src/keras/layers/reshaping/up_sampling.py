"""``UpSampling1D/2D/3D``: repeat (nearest) or bilinear upscaling by integer factors."""

from __future__ import annotations

import numpy as np

from torchflow._src.core.convert import constant
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.array_ops import repeat
from torchflow._src.ops.einsum_ops import einsum
from torchflow._src.util.api import public


def _bilinear_matrix(n_in: int, scale: int) -> np.ndarray:
    """``(n_in * scale, n_in)`` weights of TF's half-pixel-centre bilinear resize."""
    n_out = n_in * scale
    src = (np.arange(n_out) + 0.5) / scale - 0.5
    lo = np.floor(src)
    frac = src - lo
    lo_i = np.clip(lo, 0, n_in - 1).astype(np.int64)
    hi_i = np.clip(lo + 1, 0, n_in - 1).astype(np.int64)
    m = np.zeros((n_out, n_in))
    m[np.arange(n_out), lo_i] += 1 - frac
    m[np.arange(n_out), hi_i] += frac
    return m


class _UpSampling(Layer):
    _rank = 1

    def __init__(self, size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = U.normalize_tuple(size, self._rank, "size")
        self.data_format = U.normalize_data_format(data_format) if self._rank > 1 else None
        self._cl = self.data_format != "channels_first"
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _axes(self):
        return list(range(1, self._rank + 1)) if self._cl else list(range(2, self._rank + 2))

    def call(self, inputs):
        for ax, s in zip(self._axes(), self.size):
            if s != 1:
                inputs = repeat(inputs, s, axis=ax)
        return inputs

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        for ax, k in zip(self._axes(), self.size):
            s[ax] = None if s[ax] is None else s[ax] * k
        return TensorShape(s)

    def get_config(self):
        config = super().get_config()
        config["size"] = self.size
        if self._rank > 1:
            config["data_format"] = self.data_format
        return config


@public("torchflow.keras.layers")
class UpSampling1D(_UpSampling):
    """Repeats each step ``size`` times along the time axis of ``(batch, steps, features)``.

    Args:
      size: Positive int, default 2: the repeat factor.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 1

    def __init__(self, size=2, **kwargs):
        super().__init__(size, **kwargs)

    def get_config(self):
        config = super().get_config()
        config["size"] = self.size[0]
        return config


@public("torchflow.keras.layers")
class UpSampling2D(_UpSampling):
    """Upscales rows and columns by ``size``.

    Args:
      size: An int or 2 ints.
      data_format: ``"channels_last"`` (default) or ``"channels_first"``.
      interpolation: ``"nearest"`` (repeat) or ``"bilinear"`` (``tf.image.resize``'s
        half-pixel-centre bilinear).
    """

    _rank = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(size, data_format, **kwargs)
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"`interpolation` argument should be one of `\"nearest\"` or "
                             f"`\"bilinear\"`. Received: \"{interpolation}\".")
        self.interpolation = interpolation

    def call(self, inputs):
        if self.interpolation == "nearest":
            return super().call(inputs)
        h_ax, w_ax = self._axes()
        h, w = inputs.shape[h_ax], inputs.shape[w_ax]
        mh = constant(_bilinear_matrix(h, self.size[0]), dtype=inputs.dtype)
        mw = constant(_bilinear_matrix(w, self.size[1]), dtype=inputs.dtype)
        eq = "hH,bHWc,wW->bhwc" if self._cl else "hH,bcHW,wW->bchw"
        return einsum(eq, mh, inputs, mw)

    def get_config(self):
        config = super().get_config()
        config["interpolation"] = self.interpolation
        return config


@public("torchflow.keras.layers")
class UpSampling3D(_UpSampling):
    """Repeats the three spatial axes by ``size`` (an int or 3 ints).

    Args:
      size: An int or 3 ints, default 2 each.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 3

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(size, data_format, **kwargs)
