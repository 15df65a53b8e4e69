"""``ZeroPadding1D/2D/3D`` and ``Cropping1D/2D/3D`` along the spatial axes."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.array_ops import pad
from torchflow._src.util.api import public


def _pairs(value, rank, name):
    """``((before, after),) * rank`` from an int, ``rank`` ints or ``rank`` pairs."""
    if isinstance(value, int):
        return ((value, value),) * rank
    value = tuple(value)
    if rank == 1:
        if len(value) != 2:
            raise ValueError(f"`{name}` should have two elements. Received: {value}.")
        return (U.normalize_tuple(value, 2, name),)
    if len(value) != rank:
        raise ValueError(f"`{name}` should have {rank} elements. Received: {value}.")
    return tuple(U.normalize_tuple(v, 2, f"{name}[{i}]") for i, v in enumerate(value))


class _Spatial(Layer):
    _rank = 1
    _arg = "padding"

    def __init__(self, value, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._pairs = _pairs(value, self._rank, self._arg)
        self.data_format = U.normalize_data_format(data_format) if self._rank > 1 else None
        self._cl = self.data_format != "channels_first"
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _axes(self):
        return list(range(1, self._rank + 1)) if self._cl else list(range(2, self._rank + 2))

    def get_config(self):
        config = super().get_config()
        config[self._arg] = self._pairs[0] if self._rank == 1 else self._pairs
        if self._rank > 1:
            config["data_format"] = self.data_format
        return config


class _ZeroPadding(_Spatial):
    def call(self, inputs):
        p = [[0, 0]] * (self._rank + 2)
        for ax, pr in zip(self._axes(), self._pairs):
            p[ax] = list(pr)
        return pad(inputs, p)

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        for ax, (a, b) in zip(self._axes(), self._pairs):
            s[ax] = None if s[ax] is None else s[ax] + a + b
        return TensorShape(s)

    @property
    def padding(self):
        return self._pairs[0] if self._rank == 1 else self._pairs


class _Cropping(_Spatial):
    _arg = "cropping"

    def call(self, inputs):
        idx = [slice(None)] * (self._rank + 2)
        for ax, (a, b) in zip(self._axes(), self._pairs):
            idx[ax] = slice(a, -b if b else None)  # not size - b: holds at every size
        return inputs[tuple(idx)]

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        for ax, (a, b) in zip(self._axes(), self._pairs):
            s[ax] = None if s[ax] is None else s[ax] - a - b
        return TensorShape(s)

    @property
    def cropping(self):
        return self._pairs[0] if self._rank == 1 else self._pairs


@public("torchflow.keras.layers")
class ZeroPadding1D(_ZeroPadding):
    """Pads the time axis with zeros: ``padding`` is an int or ``(left, right)``.

    Args:
      padding: An int or ``(left, right)``, default 1: zeros added to each end of the time
        axis.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 1

    def __init__(self, padding=1, **kwargs):
        super().__init__(padding, **kwargs)


@public("torchflow.keras.layers")
class ZeroPadding2D(_ZeroPadding):
    """Pads rows and columns with zeros.

    Args:
      padding: An int, ``(rows, cols)`` or ``((top, bottom), (left, right))``.
      data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    _rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


@public("torchflow.keras.layers")
class ZeroPadding3D(_ZeroPadding):
    """Pads the three spatial axes with zeros (an int, 3 ints or 3 pairs).

    Args:
      padding: An int, 3 ints or 3 ``(start, end)`` pairs, default 1 each.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 3

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


@public("torchflow.keras.layers")
class Cropping1D(_Cropping):
    """Crops the time axis: ``cropping`` is an int or ``(start, end)``.

    Args:
      cropping: An int or ``(start, end)``, default ``(1, 1)``: steps cut from each end.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, **kwargs)


@public("torchflow.keras.layers")
class Cropping2D(_Cropping):
    """Crops rows and columns: an int, ``(rows, cols)`` or ``((top, bottom), (left, right))``.

    Args:
      cropping: An int, ``(rows, cols)`` or ``((top, bottom), (left, right))``, default 0.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


@public("torchflow.keras.layers")
class Cropping3D(_Cropping):
    """Crops the three spatial axes (an int, 3 ints or 3 pairs).

    Args:
      cropping: An int, 3 ints or 3 ``(start, end)`` pairs, default 1 each.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    _rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)
