"""``Normalization``: feature-wise ``(x - mean) / sqrt(variance)`` with ``adapt``."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.keras import backend
from torchflow._src.keras.layers.preprocessing.base import PreprocessingLayer
from torchflow._src.ops.array_ops import reshape
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.math_ops import maximum
from torchflow._src.ops.unary_math_ops import sqrt
from torchflow._src.util.api import public


@public("torchflow.keras.layers.experimental.preprocessing")
class Normalization(PreprocessingLayer):
    """Normalizes inputs to mean 0 and variance 1 along ``axis`` (TF 2.4).

    Args:
      axis: Integer or tuple of the axes that keep separate statistics
        (default -1, the feature axis); ``None`` for one global mean/variance.
      mean: Optional fixed mean (then ``variance`` too; no ``adapt`` needed).
      variance: Optional fixed variance.

    Weights (after build): ``mean``, ``variance`` (the kept axes' shape) and an
    int64 ``count``.

    >>> import numpy as np
    >>> import torchflow as tf
    >>> layer = tf.keras.layers.experimental.preprocessing.Normalization()
    >>> layer.adapt(np.array([[0.], [2.]], "float32"))
    >>> layer(np.array([[4.]], "float32")).numpy()
    array([[3.]], dtype=float32)
    """

    def __init__(self, axis=-1, mean=None, variance=None, dtype=None, **kwargs):
        super().__init__(dtype=dtype, **kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        self.axis = tuple(axis)
        if (mean is None) != (variance is None):
            raise ValueError("When setting values directly, both `mean` and `variance` "
                             "must be set.")
        self._init_mean, self._init_variance = mean, variance

    def build(self, input_shape):
        dims = input_shape.as_list() if hasattr(input_shape, "as_list") else list(input_shape)
        ndim = len(dims)
        keep = sorted(a % ndim for a in self.axis) if ndim else []
        for a in self.axis:
            if not -ndim <= a < ndim:
                raise ValueError(f"All `axis` values must be in the range [-{ndim}, {ndim}). "
                                 f"Received inputs with ndim={ndim}, while axis={self.axis}")
        self._keep = keep
        self._reduce = tuple(i for i in range(ndim) if i not in keep)
        shape = tuple(dims[i] for i in keep)
        if any(d is None for d in shape):
            raise ValueError(f"All `axis` values to be kept must have known shape. Got "
                             f"axis: {self.axis}, input shape: {dims}")
        self._bshape = [dims[i] if i in keep else 1 for i in range(ndim)]
        self.mean = self.add_weight("mean", shape, dtype=self.dtype, initializer="zeros",
                                    trainable=False)
        self.variance = self.add_weight("variance", shape, dtype=self.dtype,
                                        initializer="ones", trainable=False)
        self.count = self.add_weight("count", (), dtype=dtypes.int64, initializer="zeros",
                                     trainable=False)
        if self._init_mean is not None:
            self.mean.assign(np.broadcast_to(np.asarray(self._init_mean, "float64"), shape))
            self.variance.assign(np.broadcast_to(
                np.asarray(self._init_variance, "float64"), shape))
        super().build(input_shape)

    # adapt: count-weighted merge of per-batch mean/variance (Chan et al.)
    def _reset_state(self):
        self._n, self._m, self._v = 0, None, None

    def _update_state(self, batch):
        b = np.asarray(batch, np.float64)
        if b.ndim < len(self._bshape):
            b = b.reshape(b.shape + (1,) * (len(self._bshape) - b.ndim))
        n = int(np.prod([b.shape[i] for i in self._reduce])) if self._reduce else 1
        m = b.mean(axis=self._reduce) if self._reduce else b
        v = b.var(axis=self._reduce) if self._reduce else np.zeros_like(b)
        if self._m is None:
            self._n, self._m, self._v = n, m, v
            return
        tot = self._n + n
        delta = m - self._m
        mean = self._m + delta * n / tot
        self._v = (self._v * self._n + v * n + delta ** 2 * self._n * n / tot) / tot
        self._m, self._n = mean, tot

    def _finalize_state(self):
        if self._m is None:
            return
        self.mean.assign(self._m.reshape(self.mean.shape.as_list()))
        self.variance.assign(self._v.reshape(self.variance.shape.as_list()))
        self.count.assign(self._n)

    def call(self, inputs):
        inputs = cast(inputs, self.compute_dtype)
        mean = cast(self.mean, self.compute_dtype)
        var = cast(self.variance, self.compute_dtype)
        shape = self._bshape[:inputs.shape.rank] if self._keep else []
        if shape:
            mean, var = reshape(mean, shape), reshape(var, shape)
        return (inputs - mean) / maximum(sqrt(var), backend.epsilon())

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis if len(self.axis) != 1 else self.axis[0]
        if self._init_mean is not None:
            config["mean"] = np.asarray(self._init_mean).tolist()
            config["variance"] = np.asarray(self._init_variance).tolist()
        return config
