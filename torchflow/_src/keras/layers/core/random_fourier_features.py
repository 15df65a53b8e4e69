"""``tf.keras.layers.experimental.RandomFourierFeatures``: ``cos(x W / scale + b)``.

As TF 2.4: a fixed random ``unscaled_kernel [input_dim, output_dim]`` (standard normal for
the Gaussian kernel, standard Cauchy for the Laplacian one), a fixed ``bias`` uniform in
``[0, 2 pi)``, and one ``kernel_scale`` weight (non-negative; the only one that trains,
when the layer is trainable), in that order.
"""

from __future__ import annotations

import math

import numpy as np

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras import initializers
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.initializers.initializers_v2 import Constant, RandomNormal, RandomUniform
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.linalg_ops import matmul
from torchflow._src.ops.nn_ops import bias_add
from torchflow._src.ops.trig_ops import cos
from torchflow._src.util.api import public

_KERNELS = ["gaussian", "laplacian"]


def _kernel_initializer(initializer, shape):
    if isinstance(initializer, str):
        if initializer.lower() == "gaussian":
            return RandomNormal(stddev=1.0)
        return Constant(np.tan(np.pi * (np.random.uniform(size=shape) - 0.5)))  # Cauchy
    return initializer


@public("torchflow.keras.layers.experimental")
class RandomFourierFeatures(Layer):
    """Random Fourier features (Rahimi and Recht, 2007): ``cos(x @ kernel / scale + bias)``.

    Approximates a shift-invariant kernel: the inner product of two outputs is close to
    ``k(x, y) * output_dim / 2`` for the Gaussian (``exp(-|x - y|^2 / (2 scale^2))``) or
    Laplacian (``exp(-|x - y|_1 / scale)``) kernel.

    Args:
      output_dim: Positive int: the number of random features.
      kernel_initializer: ``'gaussian'`` (default), ``'laplacian'`` or an initializer for
        the unscaled kernel.
      scale: Positive float: the kernel's length scale (default ``sqrt(input_dim / 2)``
        for ``'gaussian'``, 1.0 for ``'laplacian'``).
      trainable: Whether ``kernel_scale`` trains (default False).
      name: Layer name.
      **kwargs: Base ``Layer`` arguments.

    Raises:
      ValueError: For ``output_dim <= 0``, an unknown kernel name, ``scale <= 0``, or
        (at build) an input that is not rank 2 with a known last dimension.

    >>> import torchflow as tf
    >>> rff = tf.keras.layers.experimental.RandomFourierFeatures(8)
    >>> rff(tf.ones([2, 3])).shape
    TensorShape([2, 8])
    """

    def __init__(self, output_dim, kernel_initializer="gaussian", scale=None, trainable=False,
                 name=None, **kwargs):
        if output_dim <= 0:
            raise ValueError(f"`output_dim` should be a positive integer. Given: {output_dim}.")
        if isinstance(kernel_initializer, str) and kernel_initializer.lower() not in _KERNELS:
            raise ValueError(f"Unsupported kernel type: '{kernel_initializer}'. Supported "
                             f"kernel types: {_KERNELS}.")
        if scale is not None and scale <= 0.0:
            raise ValueError(f"When provided, `scale` should be a positive float. Given: "
                             f"{scale}.")
        super().__init__(trainable=trainable, name=name, **kwargs)
        self.output_dim = output_dim
        self.kernel_initializer = kernel_initializer if isinstance(kernel_initializer, str) \
            else initializers.get(kernel_initializer)
        self.scale = scale

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.rank != 2:
            raise ValueError(f"The rank of the input tensor should be 2. Got "
                             f"{input_shape.rank} instead.")
        input_dim = input_shape[1]
        if input_dim is None:
            raise ValueError("The last dimension of the inputs to `RandomFourierFeatures` "
                             "should be defined. Found `None`.")
        self.input_spec = InputSpec(ndim=2, axes={1: input_dim})
        self.unscaled_kernel = self.add_weight(
            "unscaled_kernel", shape=[input_dim, self.output_dim], dtype="float32",
            initializer=_kernel_initializer(self.kernel_initializer,
                                            (input_dim, self.output_dim)),
            trainable=False)
        self.bias = self.add_weight("bias", shape=[self.output_dim], dtype="float32",
                                    initializer=RandomUniform(0.0, 2 * math.pi),
                                    trainable=False)
        scale = self.scale
        if scale is None:
            laplacian = isinstance(self.kernel_initializer, str) and \
                self.kernel_initializer.lower() == "laplacian"
            scale = 1.0 if laplacian else math.sqrt(input_dim / 2.0)
            self.scale = scale  # TF 2.4's config holds the resolved default
        self.kernel_scale = self.add_weight("kernel_scale", shape=[1], dtype="float32",
                                            initializer=Constant(scale), trainable=True,
                                            constraint="NonNeg")
        self.built = True

    def call(self, inputs):
        inputs = cast(inputs, "float32")
        kernel = (1.0 / self.kernel_scale) * self.unscaled_kernel
        return cos(bias_add(matmul(inputs, kernel), self.bias))

    def compute_output_shape(self, input_shape):
        input_shape = TensorShape(input_shape).with_rank(2)
        if input_shape[-1] is None:
            raise ValueError(f"The innermost dimension of input shape must be defined. Given: "
                             f"{input_shape}")
        return input_shape[:-1].concatenate([self.output_dim])

    def get_config(self):
        init = self.kernel_initializer
        if not isinstance(init, str):
            init = initializers.serialize(init)
        config = super().get_config()
        config.update({"output_dim": self.output_dim, "kernel_initializer": init,
                       "scale": self.scale})
        return config
