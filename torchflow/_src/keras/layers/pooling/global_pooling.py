"""``GlobalMaxPooling1D/2D/3D`` and ``GlobalAveragePooling1D/2D/3D``."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.array_ops import expand_dims
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.reduction_ops import reduce_max, reduce_mean, reduce_sum
from torchflow._src.util.api import public


class GlobalPooling(Layer):
    """Reduces all spatial axes (the base of the global pooling layers)."""

    _rank = 1
    _fn = staticmethod(reduce_max)

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        if data_format is None and self._rank == 1:
            data_format = "channels_last"
        self.data_format = U.normalize_data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self._rank + 2)
        self._cl = self.data_format == "channels_last"
        self._axes = list(range(1, self._rank + 1)) if self._cl else \
            list(range(2, self._rank + 2))

    def call(self, inputs):
        return self._fn(inputs, axis=self._axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        if self.keepdims:
            return TensorShape([1 if i in self._axes else d for i, d in enumerate(s)])
        return TensorShape([d for i, d in enumerate(s) if i not in self._axes])

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


def _doc(what, rank):
    return (f"Global {what} pooling over the {rank}-D spatial axes.\n\n    Args:\n"
            f"      data_format: ``\"channels_last\"`` (default) or ``\"channels_first\"``.\n"
            f"      keepdims: Keep the reduced axes with size 1.\n")


@public("torchflow.keras.layers")
class GlobalMaxPooling1D(GlobalPooling):
    __doc__ = _doc("max", 1)
    _rank = 1
    _fn = staticmethod(reduce_max)


@public("torchflow.keras.layers")
class GlobalMaxPooling2D(GlobalPooling):
    __doc__ = _doc("max", 2)
    _rank = 2
    _fn = staticmethod(reduce_max)


@public("torchflow.keras.layers")
class GlobalMaxPooling3D(GlobalPooling):
    __doc__ = _doc("max", 3)
    _rank = 3
    _fn = staticmethod(reduce_max)


@public("torchflow.keras.layers")
class GlobalAveragePooling1D(GlobalPooling):
    __doc__ = _doc("average", 1) + ("\n    A mask ``(batch, steps)`` excludes masked steps "
                                    "from the mean.\n")
    _rank = 1
    _fn = staticmethod(reduce_mean)

    def __init__(self, data_format="channels_last", **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return reduce_mean(inputs, axis=self._axes, keepdims=self.keepdims)
        m = cast(mask, inputs.dtype)
        m = expand_dims(m, 2 if self._cl else 1)
        num = reduce_sum(inputs * m, axis=self._axes, keepdims=self.keepdims)
        den = reduce_sum(m, axis=self._axes, keepdims=self.keepdims)
        return num / den

    def compute_mask(self, inputs, mask=None):
        return None


@public("torchflow.keras.layers")
class GlobalAveragePooling2D(GlobalPooling):
    __doc__ = _doc("average", 2)
    _rank = 2
    _fn = staticmethod(reduce_mean)


@public("torchflow.keras.layers")
class GlobalAveragePooling3D(GlobalPooling):
    __doc__ = _doc("average", 3)
    _rank = 3
    _fn = staticmethod(reduce_mean)


GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
