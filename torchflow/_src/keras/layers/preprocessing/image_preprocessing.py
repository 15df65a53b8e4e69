"""Image preprocessing layers of TF 2.4: ``Resizing``, ``Rescaling``, ``CenterCrop``
and the ``Random*`` augmentation layers (active only with ``training=True``)."""

from __future__ import annotations

import math

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras import backend
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers.preprocessing.base import as_tensor
from torchflow._src.ops import image_ops
from torchflow._src.ops.array_ops import expand_dims, reverse, squeeze
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.gather_ops import where
from torchflow._src.ops.random_ops import uniform
from torchflow._src.util.api import public

_NS = "torchflow.keras.layers.experimental.preprocessing"


def _hw(x):
    s = x.shape.as_list()
    return s[-3], s[-2]


def _to4(x):
    x = as_tensor(x)
    single = x.shape.rank == 3
    return (expand_dims(x, 0) if single else x), single


def _from4(y, single):
    return squeeze(y, [0]) if single else y


def _image_shape(input_shape, h, w):
    s = TensorShape(input_shape).as_list()
    s[-3], s[-2] = h, w
    return TensorShape(s)


def _factor_pair(factor, name):
    if isinstance(factor, (tuple, list)):
        lower, upper = float(factor[0]), float(factor[1])
    else:
        lower, upper = -float(factor), float(factor)
    if upper < lower:
        raise ValueError(f"`{name}` upper bound {upper} is lower than lower bound {lower}.")
    return lower, upper


@public(_NS)
class Resizing(Layer):
    """Resizes image batches to ``height x width`` like ``tf.image.resize``.

    Args:
      height: Output height. width: Output width.
      interpolation: ``bilinear`` (default), ``nearest``, ``bicubic`` or ``area``.
    """

    def __init__(self, height, width, interpolation="bilinear", **kwargs):
        super().__init__(**kwargs)
        self.target_height, self.target_width = int(height), int(width)
        if interpolation not in ("bilinear", "nearest", "bicubic", "area"):
            raise NotImplementedError(f"Value not recognized for `interpolation`: "
                                      f"{interpolation}.")
        self.interpolation = interpolation

    def call(self, inputs):
        y = image_ops.resize(inputs, [self.target_height, self.target_width],
                             method=self.interpolation)
        return cast(y, self.compute_dtype) if y.dtype.is_floating else y

    def compute_output_shape(self, input_shape):
        return _image_shape(input_shape, self.target_height, self.target_width)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.target_height, "width": self.target_width,
                       "interpolation": self.interpolation})
        return config


@public(_NS)
class Rescaling(Layer):
    """``inputs * scale + offset`` (e.g. ``scale=1/255``).

    Args:
      scale: float: the multiplier.
      offset: float, default 0.0: added after scaling.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs):
        x = cast(inputs, self.compute_dtype)
        return x * cast(self.scale, self.compute_dtype) + cast(self.offset, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale, "offset": self.offset})
        return config


@public(_NS)
class CenterCrop(Layer):
    """Crops the central ``height x width`` region of each image.

    Args:
      height: int: the output height.
      width: int: the output width.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).

    Raises:
      InvalidArgumentError: If the input is smaller than the crop.
    """

    def __init__(self, height, width, **kwargs):
        super().__init__(**kwargs)
        self.target_height, self.target_width = int(height), int(width)

    def call(self, inputs):
        x = as_tensor(inputs)
        h, w = _hw(x)
        if h < self.target_height or w < self.target_width:
            raise InvalidArgumentError(
                None, None, f"Incompatible shapes: input ({h}, {w}) is smaller than the "
                f"crop ({self.target_height}, {self.target_width}).")
        return image_ops.crop_to_bounding_box(
            x, (h - self.target_height) // 2, (w - self.target_width) // 2,
            self.target_height, self.target_width)

    def compute_output_shape(self, input_shape):
        return _image_shape(input_shape, self.target_height, self.target_width)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.target_height, "width": self.target_width})
        return config


class _RandomLayer(Layer):
    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed

    def _uniform(self, shape, lo, hi):
        return uniform(shape, lo, hi, seed=self.seed)

    def call(self, inputs, training=True):
        if training is None:
            training = backend.learning_phase()
        x = as_tensor(inputs)
        if not training:
            return self._infer(x)
        x4, single = _to4(x)
        return _from4(self._augment(x4), single)

    def _infer(self, x):
        return x

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["seed"] = self.seed
        return config


@public(_NS)
class RandomFlip(_RandomLayer):
    """Flips each image at random in training (``horizontal``, ``vertical`` or
    ``horizontal_and_vertical``), each with probability 1/2.

    Args:
      mode: ``'horizontal'``, ``'vertical'`` or ``'horizontal_and_vertical'`` (default).
      seed: None (default) or a Python int.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).
    """

    def __init__(self, mode="horizontal_and_vertical", seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode "
                             f"argument {mode}")
        self.mode = mode

    def _augment(self, x):
        n = x.shape[0]
        for axis, on in ((2, "horizontal"), (1, "vertical")):
            if on in self.mode:
                flip = self._uniform([n, 1, 1, 1], 0.0, 1.0) < 0.5
                x = where(flip, reverse(x, [axis]), x)
        return x

    def get_config(self):
        config = super().get_config()
        config["mode"] = self.mode
        return config


class _TransformLayer(_RandomLayer):
    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.fill_mode = image_ops.check_fill_mode(fill_mode)
        self.interpolation = image_ops.check_interpolation(interpolation)
        self.fill_value = fill_value

    def _augment(self, x):
        n = x.shape[0]
        h, w = _hw(x)
        m = self._matrices(n, float(h), float(w))
        y = image_ops.transform(cast(x, dtypes.float32), convert_to_tensor(
            m.astype("float32")), self.interpolation, self.fill_mode, self.fill_value)
        return cast(y, x.dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"fill_mode": self.fill_mode, "interpolation": self.interpolation,
                       "fill_value": self.fill_value})
        return config


@public(_NS)
class RandomRotation(_TransformLayer):
    """Rotates each image by a random angle in ``factor * 2 pi`` (training only).

    Args:
      factor: ``f`` for ``[-f, f]`` or a ``(lower, upper)`` fraction of a full turn.
      fill_mode: ``reflect`` (default), ``wrap``, ``constant`` or ``nearest``.
      interpolation: ``bilinear`` or ``nearest``.
      seed: Random seed. fill_value: Fill for ``constant`` mode.
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.factor = factor
        self.lower, self.upper = _factor_pair(factor, "factor")

    def _matrices(self, n, h, w):
        a = self._uniform([n], self.lower * 2 * math.pi, self.upper * 2 * math.pi).numpy()
        c, s = np.cos(a), np.sin(a)
        xo = ((w - 1) - (c * (w - 1) - s * (h - 1))) / 2.0
        yo = ((h - 1) - (s * (w - 1) + c * (h - 1))) / 2.0
        z = np.zeros_like(a)
        return np.stack([c, -s, xo, s, c, yo, z, z], axis=1)

    def get_config(self):
        config = super().get_config()
        config["factor"] = self.factor
        return config


@public(_NS)
class RandomZoom(_TransformLayer):
    """Zooms each image by a random factor (training only).

    Args:
      height_factor: ``f`` or ``(lower, upper)``; the zoom is ``1 + U(lower, upper)``
        (positive: zoom out).
      width_factor: The same for width (default: keep the aspect ratio).
    """

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _factor_pair(height_factor, "height_factor")
        if abs(self.height_lower) > 1 or abs(self.height_upper) > 1:
            raise ValueError(f"`height_factor` must have values between [-1, 1], got "
                             f"{height_factor}")
        if width_factor is not None:
            self.width_lower, self.width_upper = _factor_pair(width_factor, "width_factor")

    def _matrices(self, n, h, w):
        zy = self._uniform([n], 1.0 + self.height_lower, 1.0 + self.height_upper).numpy()
        zx = zy if self.width_factor is None else self._uniform(
            [n], 1.0 + self.width_lower, 1.0 + self.width_upper).numpy()
        z = np.zeros_like(zy)
        xo = (w - 1.0) / 2.0 * (1.0 - zx)
        yo = (h - 1.0) / 2.0 * (1.0 - zy)
        return np.stack([zx, z, xo, z, zy, yo, z, z], axis=1)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor,
                       "width_factor": self.width_factor})
        return config


@public(_NS)
class RandomTranslation(_TransformLayer):
    """Shifts each image by a random fraction of its height and width (training only).

    Args:
      height_factor: A float or ``(lower, upper)``: the vertical shift as a fraction of the
        height.
      width_factor: A float or ``(lower, upper)``: the horizontal shift as a fraction of the
        width.
      fill_mode: ``'reflect'`` (default), ``'wrap'``, ``'constant'`` or ``'nearest'``.
      interpolation: ``'bilinear'`` (default) or ``'nearest'``.
      seed: None (default) or a Python int.
      fill_value: float, default 0.0: the fill for ``'constant'``.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).
    """

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _factor_pair(height_factor, "height_factor")
        self.width_lower, self.width_upper = _factor_pair(width_factor, "width_factor")

    def _matrices(self, n, h, w):
        dy = self._uniform([n], self.height_lower, self.height_upper).numpy() * h
        dx = self._uniform([n], self.width_lower, self.width_upper).numpy() * w
        one, z = np.ones_like(dx), np.zeros_like(dx)
        return np.stack([one, z, -dx, z, one, -dy, z, z], axis=1)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor,
                       "width_factor": self.width_factor})
        return config


@public(_NS)
class RandomContrast(_RandomLayer):
    """Scales each channel's deviation from its mean by one random factor in
    ``[1 - lower, 1 + upper]`` per call (training only).

    Args:
      factor: A non-negative float or ``(lower, upper)`` pair: the factor is drawn from ``[1
        - lower, 1 + upper]``.
      seed: None (default) or a Python int.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).
    """

    def __init__(self, factor, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        if isinstance(factor, (tuple, list)):
            lower, upper = float(factor[0]), float(factor[1])
        else:
            lower = upper = float(factor)
        if lower < 0.0 or upper < 0.0 or lower > 1.0:
            raise ValueError(f"Factor cannot have negative values or greater than 1.0, "
                             f"got {factor}")
        self.lower, self.upper = lower, upper

    def _augment(self, x):
        f = self._uniform([], 1.0 - self.lower, 1.0 + self.upper)
        return image_ops.adjust_contrast(x, cast(f, x.dtype))

    def get_config(self):
        config = super().get_config()
        config["factor"] = self.factor
        return config


@public(_NS)
class RandomCrop(_RandomLayer):
    """Crops a random ``height x width`` window in training; at inference crops the
    centre to the target aspect ratio and resizes to ``height x width``.

    Args:
      height: int: the crop height.
      width: int: the crop width.
      seed: None (default) or a Python int.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).
    """

    def __init__(self, height, width, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.height, self.width = int(height), int(width)

    def _augment(self, x):
        h, w = _hw(x)
        if h < self.height or w < self.width:
            raise InvalidArgumentError(None, None, "RandomCrop: the image is smaller than "
                                                   "the crop size.")
        r = self._uniform([2], 0.0, 1.0).numpy()
        oh = min(int(r[0] * (h - self.height + 1)), h - self.height)
        ow = min(int(r[1] * (w - self.width + 1)), w - self.width)
        return image_ops.crop_to_bounding_box(x, oh, ow, self.height, self.width)

    def _infer(self, x):
        x4, single = _to4(x)
        h, w = _hw(x4)
        if h / w > self.height / self.width:
            uh, uw = int(w * self.height / self.width), w
        else:
            uh, uw = h, int(h * self.width / self.height)
        c = image_ops.crop_to_bounding_box(x4, (h - uh) // 2, (w - uw) // 2, uh, uw)
        y = cast(image_ops.resize(c, [self.height, self.width]), x.dtype)
        return _from4(y, single)

    def compute_output_shape(self, input_shape):
        return _image_shape(input_shape, self.height, self.width)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config


class _RandomResize(_RandomLayer):
    _axis = 0

    def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        self.lower, self.upper = _factor_pair(factor, "factor")
        self.interpolation = interpolation

    def _augment(self, x):
        h, w = _hw(x)
        f = float(self._uniform([], 1.0 + self.lower, 1.0 + self.upper).numpy())
        size = [int(h * f), w] if self._axis == 0 else [h, int(w * f)]
        return cast(image_ops.resize(x, size, method=self.interpolation), x.dtype)

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        s[-3 + self._axis] = None
        return TensorShape(s)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "interpolation": self.interpolation})
        return config


@public(_NS)
class RandomHeight(_RandomResize):
    """Resizes the height by a random factor ``1 + U(lower, upper)`` in training.

    Args:
      factor: A float or a ``(lower, upper)`` pair: the height change as a fraction (a
        single ``f`` means ``(-f, f)``).
      interpolation: ``'bilinear'`` (default), ``'nearest'``, ``'bicubic'``, ``'area'``,
        ``'lanczos3'``, ``'lanczos5'``, ``'gaussian'`` or ``'mitchellcubic'``.
      seed: None (default) or a Python int.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).
    """
    _axis = 0


@public(_NS)
class RandomWidth(_RandomResize):
    """Resizes the width by a random factor ``1 + U(lower, upper)`` in training.

    Args:
      factor: A float or a ``(lower, upper)`` pair: the width change as a fraction (a single
        ``f`` means ``(-f, f)``).
      interpolation: ``'bilinear'`` (default), ``'nearest'``, ``'bicubic'``, ``'area'``,
        ``'lanczos3'``, ``'lanczos5'``, ``'gaussian'`` or ``'mitchellcubic'``.
      seed: None (default) or a Python int.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).
    """
    _axis = 1
