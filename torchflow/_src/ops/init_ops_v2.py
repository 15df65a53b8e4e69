"""TF 2.x's top-level initializers: ``tf.zeros_initializer``, ``tf.random_normal_initializer``...

These are TF's ``init_ops_v2`` classes (not the Keras ones): ``__call__(shape,
dtype=tf.float32)`` defaults to float32 rather than ``floatx()``. With ``seed=None``
each call draws fresh values from the stateful random ops (``tf.random.set_seed``
makes them reproducible); with a ``seed`` every call returns the same values
(stateless random ops seeded ``[seed, 0]``), as in TF 2.4.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant
from torchflow._src.ops import random_ops, stateless_random_ops
from torchflow._src.ops.creation_ops import ones, zeros
from torchflow._src.util.api import public


def _shape(shape) -> list[int]:
    return [int(s) for s in shape]


def _float_dtype(dtype) -> dtypes.DType:
    d = dtypes.as_dtype(dtype)
    if not d.is_floating:
        raise ValueError(f"Expected floating point type, got {d}.")
    return d


def _numeric_dtype(dtype) -> dtypes.DType:
    d = dtypes.as_dtype(dtype)
    if d == dtypes.string:
        raise ValueError(f"Expected numeric or boolean dtype, got {d}.")
    return d


class Initializer:
    """Base class of TF's initializers: ``initializer(shape, dtype)`` returns a tensor."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self) -> dict:
        """The constructor arguments as a JSON-serialisable dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """Builds an initializer from ``get_config()``'s dict."""
        config.pop("dtype", None)
        return cls(**config)


@public("torchflow")
class zeros_initializer(Initializer):
    """Initializer that generates tensors initialized to 0.

    >>> import torchflow as tf
    >>> tf.zeros_initializer()([2]).numpy()
    array([0., 0.], dtype=float32)

    Raises (on call):
      ValueError: For a string dtype.
    """

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        return zeros(_shape(shape), dtype=_numeric_dtype(dtype))


@public("torchflow")
class ones_initializer(Initializer):
    """Initializer that generates tensors initialized to 1.

    >>> import torchflow as tf
    >>> tf.ones_initializer()([2], dtype=tf.int32).numpy()
    array([1, 1], dtype=int32)
    """

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        return ones(_shape(shape), dtype=_numeric_dtype(dtype))


@public("torchflow")
class constant_initializer(Initializer):
    """Initializer that generates tensors with constant values.

    Args:
      value: A Python scalar, list or tuple of values, or a NumPy array. A list must
        hold exactly as many values as the requested shape has elements.
      support_partition: Accepted for TF's signature (partitioned variables).

    Raises:
      TypeError: If ``value`` is of another type.

    >>> import torchflow as tf
    >>> tf.constant_initializer([1, 2, 3, 4])([2, 2]).numpy()
    array([[1, 2],
           [3, 4]], dtype=int32)
    """

    def __init__(self, value=0, support_partition=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value)} (expected Python "
                            "scalar, list or tuple of values, or numpy.ndarray).")
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        dims = _shape(shape)
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        if not np.isscalar(self.value):
            n = int(np.size(self.value))
            want = int(np.prod(dims)) if dims else 1
            if n != want:
                raise TypeError("Eager execution of tf.constant with unsupported shape "
                                f"(value has {n} elements, shape is {tuple(dims)} with "
                                f"{want} elements).")
        return constant(self.value, dtype=dtype, shape=dims)

    def get_config(self) -> dict:
        return {"value": self.value}


@public("torchflow")
class random_normal_initializer(Initializer):
    """Initializer that generates tensors with a normal distribution.

    Args:
      mean: The mean of the values.
      stddev: Their standard deviation.
      seed: With an int, every call returns the same values.

    Raises (on call):
      ValueError: For a non-float dtype.

    >>> import torchflow as tf
    >>> tf.random_normal_initializer(stddev=0.1)([2, 3]).shape
    TensorShape([2, 3])
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        d = _float_dtype(dtype)
        if self.seed is None:
            return random_ops.normal(_shape(shape), self.mean, self.stddev, dtype=d)
        return stateless_random_ops.stateless_normal(_shape(shape), [int(self.seed), 0],
                                                     self.mean, self.stddev, dtype=d)

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@public("torchflow")
class random_uniform_initializer(Initializer):
    """Initializer that generates tensors with a uniform distribution in ``[minval, maxval)``.

    Args:
      minval: The lower bound.
      maxval: The upper bound (excluded).
      seed: With an int, every call returns the same values.

    Raises (on call):
      ValueError: For a dtype that is neither float nor integer.

    >>> import torchflow as tf
    >>> x = tf.random_uniform_initializer(0., 1.)([100])
    >>> bool(tf.reduce_all((x >= 0.) & (x < 1.)))
    True
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        d = dtypes.as_dtype(dtype)
        if not d.is_floating and not d.is_integer:
            raise ValueError(f"Expected float or integer dtype, got {d}.")
        if self.seed is None:
            return random_ops.uniform(_shape(shape), self.minval, self.maxval, dtype=d)
        return stateless_random_ops.stateless_uniform(_shape(shape), [int(self.seed), 0],
                                                      self.minval, self.maxval, dtype=d)

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}
