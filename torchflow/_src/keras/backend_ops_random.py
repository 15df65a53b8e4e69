"""``tf.keras.backend``'s random functions and dropout; dtypes default to ``floatx()``."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.ops import (
    comparison_ops,
    creation_ops,
    nn_ops,
    random_ops,
)
from torchflow._src.ops.gather_ops import where
from torchflow._src.util.api import public

_NS = "torchflow.keras.backend"


def _floatx(dtype):
    return dtype or backend.floatx()


@public(_NS)
def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal random values (``floatx()``).

    Args:
      shape: A tuple of ints: the output shape.
      mean: float, default 0.0.
      stddev: float, default 1.0.
      dtype: None (default: ``floatx()``) or a dtype name / ``tf.DType``.
      seed: None (default) or a Python int.

    Returns:
      A tensor of ``shape`` and ``dtype``.
    """
    return random_ops.normal(shape, mean, stddev, dtype=_floatx(dtype), seed=seed)


@public(_NS)
def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform random values in ``[minval, maxval)`` (``floatx()``).

    Args:
      shape: A tuple of ints: the output shape.
      minval: float, default 0.0: the lower bound (inclusive).
      maxval: float, default 1.0: the upper bound (exclusive).
      dtype: None (default: ``floatx()``) or a dtype name / ``tf.DType``.
      seed: None (default) or a Python int.

    Returns:
      A tensor of ``shape`` and ``dtype``.
    """
    return random_ops.uniform(shape, minval, maxval, dtype=_floatx(dtype), seed=seed)


@public(_NS)
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal random values, redrawn beyond two standard deviations from the mean.

    Args:
      shape: A tuple of ints: the output shape.
      mean: float, default 0.0.
      stddev: float, default 1.0: the standard deviation before truncation.
      dtype: None (default: ``floatx()``) or a dtype name / ``tf.DType``.
      seed: None (default) or a Python int.

    Returns:
      A tensor of ``shape`` and ``dtype``.
    """
    return random_ops.truncated_normal(shape, mean, stddev, dtype=_floatx(dtype), seed=seed)


@public(_NS)
def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    """Bernoulli draws: 1 with probability ``p``, else 0.

    Args:
      shape: A tuple of ints: the output shape.
      p: float, default 0.0: the probability of a 1.
      dtype: None (default: ``floatx()``) or a dtype name / ``tf.DType``.
      seed: None (default) or a Python int.

    Returns:
      A tensor of ``shape`` and ``dtype``.
    """
    u = random_ops.uniform(shape, dtype=_floatx(dtype), seed=seed)
    return where(comparison_ops.less_equal(u, p), creation_ops.ones(shape, _floatx(dtype)),
                 creation_ops.zeros(shape, _floatx(dtype)))


@public(_NS)
def random_binomial(shape, p=0.0, dtype=None, seed=None):
    """Deprecated spelling of ``random_bernoulli``: 1 with probability ``p``, else 0.

    Args:
      shape: A tuple of ints: the output shape.
      p: float, default 0.0: the probability of a 1.
      dtype: None (default: ``floatx()``) or a dtype name / ``tf.DType``.
      seed: None (default) or a Python int.

    Returns:
      A tensor of ``shape`` and ``dtype``.
    """
    return random_bernoulli(shape, p, dtype, seed)


@public(_NS)
def dropout(x, level, noise_shape=None, seed=None):
    """``x`` with a fraction ``level`` of entries set to 0 and the rest scaled by ``1 / (1 - level)``.

    Args:
      x: A tensor.
      level: float in ``[0, 1)``: the fraction of entries dropped.
      noise_shape: None (default: ``x``'s shape) or a shape broadcastable to it: which
        entries are dropped together.
      seed: None (default) or a Python int.

    Returns:
      A tensor of ``x``'s shape.
    """
    return nn_ops.dropout(x, rate=level, noise_shape=noise_shape, seed=seed)
