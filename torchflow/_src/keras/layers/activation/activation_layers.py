"""Activation functions as layers: ``ReLU``, ``LeakyReLU``, ``PReLU``, ``ELU``,
``ThresholdedReLU``, ``Softmax``."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops import nn_ops
from torchflow._src.ops.clip_ops import clip_by_value
from torchflow._src.ops.comparison_ops import greater
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.gather_ops import where
from torchflow._src.ops.reduction_ops import reduce_logsumexp
from torchflow._src.ops.unary_math_ops import exp
from torchflow._src.util.api import public


class _Elementwise(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def compute_output_shape(self, input_shape):
        return input_shape


@public("torchflow.keras.layers")
class ReLU(_Elementwise):
    """``max_value`` -capped ReLU: ``x`` above ``threshold``, else
    ``negative_slope * (x - threshold)``.

    Args:
      max_value: None (default: no cap) or a float >= 0: the largest output.
      negative_slope: float >= 0, default 0: the slope below ``threshold``.
      threshold: float, default 0: the value below which the negative slope applies.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

    Raises:
      ValueError: For a negative ``max_value`` or ``negative_slope``, or a None ``threshold``.

    >>> import torchflow as tf
    >>> tf.keras.layers.ReLU(max_value=1.0)(tf.constant([-1.0, 0.5, 2.0])).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """

    def __init__(self, max_value=None, negative_slope=0, threshold=0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: "
                             f"{max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. "
                             f"Received: {negative_slope}")
        if threshold is None:
            raise ValueError("threshold of a ReLU layer cannot be None. Received: None")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        slope, mx, th = self.negative_slope, self.max_value, self.threshold
        if slope == 0 and mx is None and th == 0:
            return nn_ops.relu(inputs)
        if slope != 0 and mx is None and th == 0:
            return nn_ops.leaky_relu(inputs, alpha=slope)
        neg = None
        if slope != 0:
            neg = nn_ops.relu(th - inputs) if th != 0 else nn_ops.relu(-inputs)
        if th != 0:
            x = inputs * cast(greater(inputs, cast(th, inputs.dtype)), inputs.dtype)
        else:
            x = nn_ops.relu(inputs)
        if mx is not None:
            x = clip_by_value(x, cast(0, x.dtype), cast(mx, x.dtype))
        if neg is not None:
            x = x - neg * slope
        return x

    def get_config(self):
        config = super().get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config


@public("torchflow.keras.layers")
class LeakyReLU(_Elementwise):
    """``x`` for ``x >= 0``, else ``alpha * x`` (``alpha`` default 0.3).

    Args:
      alpha: float >= 0, default 0.3: the slope for negative inputs.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError(f"The alpha value of a Leaky ReLU layer cannot be None, needs a "
                             f"float. Got {alpha}")
        self.alpha = alpha

    def call(self, inputs):
        return nn_ops.leaky_relu(inputs, alpha=self.alpha)

    def get_config(self):
        config = super().get_config()
        config["alpha"] = float(self.alpha)
        return config


@public("torchflow.keras.layers")
class PReLU(_Elementwise):
    """Leaky ReLU with a learned slope ``alpha`` per element (or shared along
    ``shared_axes``, 1-based axes of the input without the batch axis).

    Args:
      alpha_initializer, alpha_regularizer, alpha_constraint: For ``alpha``.
      shared_axes: An int or list of axes along which ``alpha`` is shared.
    """

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = U.get_init(alpha_initializer)
        self.alpha_regularizer = U.get_reg(alpha_regularizer)
        self.alpha_constraint = U.get_con(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape):
        input_shape = TensorShape(input_shape).as_list()
        shape = list(input_shape[1:])
        axes = {}
        if self.shared_axes is not None:
            for i in self.shared_axes:
                shape[i - 1] = 1
        for i in range(1, len(input_shape)):
            if shape[i - 1] != 1 and input_shape[i] is not None:
                axes[i] = input_shape[i]
        self.alpha = self.add_weight("alpha", shape=shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)
        self.built = True

    def call(self, inputs):
        return nn_ops.relu(inputs) - self.alpha * nn_ops.relu(-inputs)

    def get_config(self):
        config = super().get_config()
        config.update({"alpha_initializer": U.ser_init(self.alpha_initializer),
                       "alpha_regularizer": U.ser_reg(self.alpha_regularizer),
                       "alpha_constraint": U.ser_con(self.alpha_constraint),
                       "shared_axes": self.shared_axes})
        return config


@public("torchflow.keras.layers")
class ELU(_Elementwise):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Args:
      alpha: float, default 1.0: the scale of the negative part.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError(f"Alpha of an ELU layer cannot be None, requires a float. Got "
                             f"{alpha}")
        self.alpha = alpha

    def call(self, inputs):
        y = nn_ops.elu(inputs)
        if self.alpha == 1:
            return y
        return where(greater(inputs, cast(0, inputs.dtype)), inputs, y * self.alpha)

    def get_config(self):
        config = super().get_config()
        config["alpha"] = float(self.alpha)
        return config


@public("torchflow.keras.layers")
class ThresholdedReLU(_Elementwise):
    """``x`` for ``x > theta``, else 0.

    Args:
      theta: float >= 0, default 1.0: the threshold.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None or theta < 0:
            raise ValueError(f"Theta of a Thresholded ReLU layer cannot be None or negative, "
                             f"requires a float. Got {theta}")
        self.theta = theta

    def call(self, inputs):
        return inputs * cast(greater(inputs, cast(self.theta, inputs.dtype)), inputs.dtype)

    def get_config(self):
        config = super().get_config()
        config["theta"] = float(self.theta)
        return config


def _large_negative(dtype):
    return -65500.0 if dtype.name == "float16" else -1e9


@public("torchflow.keras.layers")
class Softmax(_Elementwise):
    """Softmax over ``axis`` (an int or list); a boolean ``mask`` (True = keep) pushes
    masked logits to a large negative value first.

    Args:
      axis: int or list of ints, default -1: the axes normalised over.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            inputs = inputs + (1.0 - cast(mask, inputs.dtype)) * _large_negative(inputs.dtype)
        if isinstance(self.axis, (list, tuple)):
            if len(self.axis) > 1:
                return exp(inputs - reduce_logsumexp(inputs, axis=list(self.axis),
                                                     keepdims=True))
            return nn_ops.softmax(inputs, axis=self.axis[0])
        return nn_ops.softmax(inputs, axis=self.axis)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config
