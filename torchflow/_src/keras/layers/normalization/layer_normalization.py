"""``tf.keras.layers.LayerNormalization``: per-example normalisation over ``axis``."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers import _utils as U
from torchflow._src.keras.layers.normalization.batch_normalization import _norm_axes
from torchflow._src.ops.array_ops import reshape
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.normalization_ops import moments
from torchflow._src.ops.unary_math_ops import rsqrt
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class LayerNormalization(Layer):
    """Normalises each example over ``axis`` to zero mean and unit variance, then scales
    by ``gamma`` and shifts by ``beta`` (shaped like the normalised axes).

    Args:
      axis: An int or list of ints (default -1).
      epsilon: Added to the variance (default 1e-3).
      center, scale: Whether to use ``beta`` / ``gamma``.
      beta_initializer, gamma_initializer, beta_regularizer, gamma_regularizer,
      beta_constraint, gamma_constraint: As usual.

    >>> import torchflow as tf
    >>> y = tf.keras.layers.LayerNormalization()(tf.constant([[1.0, 3.0]]))
    >>> [round(float(v), 4) for v in y[0]]  # (x - mean) / sqrt(variance + epsilon)
    [-0.9995, 0.9995]
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = U.get_init(beta_initializer)
        self.gamma_initializer = U.get_init(gamma_initializer)
        self.beta_regularizer = U.get_reg(beta_regularizer)
        self.gamma_regularizer = U.get_reg(gamma_regularizer)
        self.beta_constraint = U.get_con(beta_constraint)
        self.gamma_constraint = U.get_con(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        ndims = input_shape.rank
        self._axes = _norm_axes(self.axis, ndims)
        self.axis = list(self._axes)  # tf.keras reports the normalised list after building
        pshape = [input_shape[a] for a in self._axes]
        self._bshape = [input_shape[i] if i in self._axes else 1 for i in range(ndims)]
        self.gamma = self.add_weight("gamma", shape=pshape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint,
                                     trainable=True) if self.scale else None
        self.beta = self.add_weight("beta", shape=pshape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint,
                                    trainable=True) if self.center else None
        self.built = True

    def call(self, inputs):
        in_dtype = inputs.dtype
        x = cast(inputs, dtypes.float32) if in_dtype.name in ("float16", "bfloat16") \
            else inputs
        mean, var = moments(x, self._axes, keepdims=True)
        inv = rsqrt(var + self.epsilon)
        if self.gamma is not None:
            inv = inv * reshape(cast(self.gamma, x.dtype), self._bshape)
        y = (x - mean) * inv
        if self.beta is not None:
            y = y + reshape(cast(self.beta, x.dtype), self._bshape)
        return cast(y, in_dtype) if y.dtype != in_dtype else y

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "axis": self.axis, "epsilon": self.epsilon, "center": self.center,
            "scale": self.scale,
            "beta_initializer": U.ser_init(self.beta_initializer),
            "gamma_initializer": U.ser_init(self.gamma_initializer),
            "beta_regularizer": U.ser_reg(self.beta_regularizer),
            "gamma_regularizer": U.ser_reg(self.gamma_regularizer),
            "beta_constraint": U.ser_con(self.beta_constraint),
            "gamma_constraint": U.ser_con(self.gamma_constraint),
        })
        return config
