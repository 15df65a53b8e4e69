"""``MaxPooling1D/2D/3D`` and ``AveragePooling1D/2D/3D`` on ``tf.nn``'s pools."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops import pooling_ops
from torchflow._src.ops.creation_ops import cast
from torchflow._src.util.api import public

_DF = {(1, True): "NWC", (1, False): "NCW", (2, True): "NHWC", (2, False): "NCHW",
       (3, True): "NDHWC", (3, False): "NCDHW"}


class Pooling(Layer):
    """N-D pooling (the base of the Max/Average pooling layers)."""

    _kind = "max"

    def __init__(self, rank, pool_size, strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.rank = rank
        if data_format is None:
            data_format = "channels_last"
        if strides is None:
            strides = pool_size
        self.pool_size = U.normalize_tuple(pool_size, rank, "pool_size")
        self.strides = U.normalize_tuple(strides, rank, "strides")
        self.padding = U.normalize_padding(padding)
        self.data_format = U.normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=rank + 2)
        self._cl = self.data_format == "channels_last"
        self._tf_df = _DF[(rank, self._cl)]
        self._op = "MaxPool" if self._kind == "max" else "AvgPool"
        if rank == 3:
            self._op += "3D"

    def call(self, inputs):
        if self._op == "AvgPool3D" and inputs.dtype.name in ("float16", "bfloat16"):
            # torch has no CPU half avg_pool3d kernel: float32, then back.
            y = pooling_ops._pool("avg", self._op, 3, cast(inputs, "float32"), self.pool_size,
                                  self.strides, self.padding.upper(), self._tf_df)
            return cast(y, inputs.dtype)
        return pooling_ops._pool(self._kind, self._op, self.rank, inputs, self.pool_size,
                                 self.strides, self.padding.upper(), self._tf_df)

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        sp = s[1:-1] if self._cl else s[2:]
        out = [U.conv_output_length(d, k, self.padding, st) for d, k, st in
               zip(sp, self.pool_size, self.strides)]
        return TensorShape([s[0]] + out + [s[-1]] if self._cl else [s[0], s[1]] + out)

    def get_config(self):
        config = super().get_config()
        config.update({"pool_size": self.pool_size, "padding": self.padding,
                       "strides": self.strides, "data_format": self.data_format})
        return config


_DOC = """
    Args:
      pool_size: An int or tuple: the window size.
      strides: An int or tuple (default: ``pool_size``).
      padding: ``"valid"`` or ``"same"``.
      data_format: ``"channels_last"`` (default) or ``"channels_first"``.
"""


def _make(kind, rank, default_pool):
    class _P(Pooling):
        _kind = kind

        def __init__(self, pool_size=default_pool, strides=None, padding="valid",
                     data_format=None if rank > 1 else "channels_last", **kwargs):
            super().__init__(rank, pool_size, strides, padding, data_format, **kwargs)

    return _P


@public("torchflow.keras.layers")
class MaxPooling1D(_make("max", 1, 2)):
    __doc__ = "Max pooling over ``(batch, steps, features)``." + _DOC


@public("torchflow.keras.layers")
class MaxPooling2D(_make("max", 2, (2, 2))):
    __doc__ = """Max pooling over ``(batch, rows, cols, channels)``.

    >>> import torchflow as tf
    >>> tf.keras.layers.MaxPooling2D()(tf.ones([1, 4, 4, 1])).shape
    TensorShape([1, 2, 2, 1])
""" + _DOC


@public("torchflow.keras.layers")
class MaxPooling3D(_make("max", 3, (2, 2, 2))):
    __doc__ = "Max pooling over ``(batch, d1, d2, d3, channels)``." + _DOC


@public("torchflow.keras.layers")
class AveragePooling1D(_make("avg", 1, 2)):
    __doc__ = "Average pooling over ``(batch, steps, features)``." + _DOC


@public("torchflow.keras.layers")
class AveragePooling2D(_make("avg", 2, (2, 2))):
    __doc__ = "Average pooling over ``(batch, rows, cols, channels)``." + _DOC


@public("torchflow.keras.layers")
class AveragePooling3D(_make("avg", 3, (2, 2, 2))):
    __doc__ = "Average pooling over ``(batch, d1, d2, d3, channels)``." + _DOC


MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
MaxPool3D = MaxPooling3D
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
AvgPool3D = AveragePooling3D
