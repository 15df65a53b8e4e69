"""``tf.keras.layers.BatchNormalization`` (TF 2.x semantics).

Training mode normalises with the batch statistics and moves the moving
statistics towards them (not while Keras infers shapes symbolically);
inference mode, and any call on a layer with ``trainable=False``, uses the
moving statistics. 4-D/5-D inputs normalised over the channel axis take the
fused path (moving variance updated with the unbiased batch variance, as TF's
fused kernel does); other inputs use moments (biased variance), like tf.keras.
Statistics are computed in float32 for float16/bfloat16 inputs.
"""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.variables import VariableAggregation, VariableSynchronization
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.functional_utils import in_symbolic_pass
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.array_ops import reshape
from torchflow._src.ops.creation_ops import cast, ones, zeros
from torchflow._src.ops.normalization_ops import fused_batch_norm, moments
from torchflow._src.ops.unary_math_ops import rsqrt
from torchflow._src.util.api import public

_LOW = ("float16", "bfloat16")


def _norm_axes(axis, ndims):
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if a < -ndims or a >= ndims:
            raise ValueError(f"Invalid axis: {a}")
        out.append(a % ndims)
    if len(set(out)) != len(out):
        raise ValueError(f"Duplicate axis: {axis}")
    return sorted(out)


@public("torchflow.keras.layers")
class BatchNormalization(Layer):
    """Normalises activations with batch statistics (training) or moving ones (inference).

    Args:
      axis: The feature axis (or list of axes) (default -1).
      momentum: Moving-average momentum (default 0.99).
      epsilon: Added to the variance (default 1e-3).
      center, scale: Whether to add ``beta`` / multiply by ``gamma``.
      beta_initializer, gamma_initializer, moving_mean_initializer,
      moving_variance_initializer: Initializers.
      beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: Optional.
      renorm, renorm_clipping, renorm_momentum, fused, virtual_batch_size,
      adjustment: Accepted; batch renormalisation, virtual batches and adjustment
        are not implemented (``NotImplementedError`` if requested).

    Weights, in tf.keras' order: ``gamma``, ``beta``, ``moving_mean``, ``moving_variance``.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("BatchNormalization: renorm, virtual_batch_size and "
                                      "adjustment are not supported by torchflow.")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = U.get_init(beta_initializer)
        self.gamma_initializer = U.get_init(gamma_initializer)
        self.moving_mean_initializer = U.get_init(moving_mean_initializer)
        self.moving_variance_initializer = U.get_init(moving_variance_initializer)
        self.beta_regularizer = U.get_reg(beta_regularizer)
        self.gamma_regularizer = U.get_reg(gamma_regularizer)
        self.beta_constraint = U.get_con(beta_constraint)
        self.gamma_constraint = U.get_con(gamma_constraint)
        self.renorm = renorm
        self.fused = fused
        self.supports_masking = True

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        ndims = input_shape.rank
        if ndims is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        self._axes = _norm_axes(self.axis, ndims)
        self.axis = list(self._axes)  # tf.keras reports the normalised list after building
        for a in self._axes:
            if input_shape[a] is None:
                raise ValueError(f"Axis {a} of input tensor should have a defined dimension "
                                 f"but the layer received an input with shape {input_shape}.")
        self.input_spec = InputSpec(ndim=ndims, axes={a: input_shape[a] for a in self._axes})
        if len(self._axes) == 1:
            pshape = [input_shape[self._axes[0]]]
        else:
            pshape = [input_shape[i] if i in self._axes else 1 for i in range(ndims)]
        self._reduce = [i for i in range(ndims) if i not in self._axes]
        self._bshape = [input_shape[i] if i in self._axes else 1 for i in range(ndims)]
        can_fuse = ndims in (4, 5) and self._axes in ([1], [ndims - 1])
        if self.fused and not can_fuse:
            raise ValueError("Batch normalization layers with `fused=True` only support 4D or "
                             "5D input tensors normalised over the channel axis.")
        self._use_fused = can_fuse if self.fused is None else bool(self.fused)
        self._fused_df = ("NHWC" if ndims == 4 else "NDHWC") if self._axes == [ndims - 1] \
            else ("NCHW" if ndims == 4 else "NCDHW")
        pdt = "float32" if self.dtype in _LOW else self.dtype
        kw = {"dtype": pdt, "experimental_autocast": False}
        self.gamma = self.add_weight("gamma", shape=pshape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint, trainable=True,
                                     **kw) if self.scale else None
        self.beta = self.add_weight("beta", shape=pshape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint, trainable=True,
                                    **kw) if self.center else None
        # tf.distribute: each replica keeps its own statistics; a cross-replica read
        # (get_weights, checkpoints) averages them, as in TF.
        on_read = {"synchronization": VariableSynchronization.ON_READ,
                   "aggregation": VariableAggregation.MEAN}
        self.moving_mean = self.add_weight("moving_mean", shape=pshape,
                                           initializer=self.moving_mean_initializer,
                                           trainable=False, **on_read, **kw)
        self.moving_variance = self.add_weight("moving_variance", shape=pshape,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False, **on_read, **kw)
        self.built = True

    def _param(self, v, like):
        if v is None:
            return None
        v = v.read_value() if hasattr(v, "read_value") else v
        if v.dtype != like.dtype:
            v = cast(v, like.dtype)
        return reshape(v, self._bshape) if len(self._axes) == 1 and like.shape.rank > 1 \
            else v

    def _update(self, var, value):
        if in_symbolic_pass():
            return
        value = cast(value, var.dtype)
        var.assign(var * self.momentum + value * (1.0 - self.momentum))

    def call(self, inputs, training=None):
        training = bool(training) and self.trainable
        in_dtype = inputs.dtype
        x = cast(inputs, dtypes.float32) if in_dtype.name in _LOW else inputs
        if self._use_fused:
            return self._call_fused(x, training, in_dtype)
        if training:
            mean, var = moments(x, self._reduce, keepdims=True)
            self._update(self.moving_mean, reshape(mean, self.moving_mean.shape))
            self._update(self.moving_variance, reshape(var, self.moving_variance.shape))
        else:
            mean = self._param(self.moving_mean, x)
            var = self._param(self.moving_variance, x)
        inv = rsqrt(var + self.epsilon)
        gamma = self._param(self.gamma, x)
        if gamma is not None:
            inv = inv * gamma
        y = x * inv
        beta = self._param(self.beta, x)
        y = y + (beta - mean * inv if beta is not None else -mean * inv)
        return cast(y, in_dtype) if y.dtype != in_dtype else y

    def _call_fused(self, x, training, in_dtype):
        c = self.moving_mean.shape[0]
        dt = self.moving_mean.dtype
        gamma = self.gamma.read_value() if self.gamma is not None else _ones(c, dt)
        beta = self.beta.read_value() if self.beta is not None else _zeros(c, dt)
        if training:
            y, mean, var = fused_batch_norm(
                x, gamma, beta, self.moving_mean.read_value(),
                self.moving_variance.read_value(), epsilon=self.epsilon,
                data_format=self._fused_df, is_training=True,
                exponential_avg_factor=1.0 - self.momentum)
            if not in_symbolic_pass():
                self.moving_mean.assign(mean)
                self.moving_variance.assign(var)
        else:
            y, _, _ = fused_batch_norm(x, gamma, beta, self.moving_mean.read_value(),
                                       self.moving_variance.read_value(),
                                       epsilon=self.epsilon, data_format=self._fused_df,
                                       is_training=False)
        return cast(y, in_dtype) if y.dtype != in_dtype else y

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
            "center": self.center, "scale": self.scale,
            "beta_initializer": U.ser_init(self.beta_initializer),
            "gamma_initializer": U.ser_init(self.gamma_initializer),
            "moving_mean_initializer": U.ser_init(self.moving_mean_initializer),
            "moving_variance_initializer": U.ser_init(self.moving_variance_initializer),
            "beta_regularizer": U.ser_reg(self.beta_regularizer),
            "gamma_regularizer": U.ser_reg(self.gamma_regularizer),
            "beta_constraint": U.ser_con(self.beta_constraint),
            "gamma_constraint": U.ser_con(self.gamma_constraint),
        })
        return config


def _ones(n, dt):
    return ones([n], dtype=dt)


def _zeros(n, dt):
    return zeros([n], dtype=dt)
