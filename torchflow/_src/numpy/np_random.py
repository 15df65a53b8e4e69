"""``tnp.random``: NumPy-style random functions on torchflow's global RNG.

``seed(s)`` is ``tf.random.set_seed(s)``, as in TF 2.4, so sequences are
reproducible within torchflow (not bit-identical to NumPy's or TF's).
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.numpy import np_dtypes as _d
from torchflow._src.ops import random_ops as _r
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy.random"


def _shape(size):
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def _float():
    return _d.to_tf(_d.default_float_type())


@public(_MOD)
def seed(s):
    """TensorFlow variant of NumPy's ``random.seed``: seeds torchflow's global generator.

    The same as ``tf.random.set_seed(s)`` (as in TF 2.4): the draws that follow repeat
    from run to run, but are not NumPy's numbers.

    Args:
      s: An int seed.
    """
    _r.set_seed(int(s))


@public(_MOD)
def randn(*args):
    """TensorFlow variant of NumPy's ``random.randn``: standard normal samples.

    Args:
      *args: The dimensions of the result; none gives a scalar.

    Returns:
      A Tensor of the default float type (float64).
    """
    return _r.normal(_shape(args), dtype=_float())


@public(_MOD)
def standard_normal(size=None):
    """TensorFlow variant of NumPy's ``random.standard_normal``: standard normal samples.

    Args:
      size: None (a scalar), an int or a tuple of ints, the shape.

    Returns:
      A Tensor of the default float type (float64).
    """
    return _r.normal(_shape(size), dtype=_float())


@public(_MOD)
def uniform(low=0.0, high=1.0, size=None):
    """TensorFlow variant of NumPy's ``random.uniform``: samples uniform over ``[low, high)``.

    Args:
      low: The lower bound (inclusive).
      high: The upper bound (exclusive).
      size: None (a scalar), an int or a tuple of ints, the shape.

    Returns:
      A Tensor of the default float type (float64).
    """
    return _r.uniform(_shape(size), minval=low, maxval=high, dtype=_float())


@public(_MOD)
def random(size=None):
    """TensorFlow variant of NumPy's ``random.random``: samples uniform over ``[0, 1)``.

    Args:
      size: None (a scalar), an int or a tuple of ints, the shape.

    Returns:
      A Tensor of the default float type (float64).
    """
    return uniform(0.0, 1.0, size)


@public(_MOD)
def rand(*size):
    """TensorFlow variant of NumPy's ``random.rand``: samples uniform over ``[0, 1)``.

    Args:
      *size: The dimensions of the result; none gives a scalar.

    Returns:
      A Tensor of the default float type (float64).
    """
    return uniform(0.0, 1.0, size)


@public(_MOD)
def randint(low, high=None, size=None, dtype=np.int64):
    """TensorFlow variant of NumPy's ``random.randint``: integers uniform over ``[low, high)``.

    Args:
      low: The lower bound (inclusive); the upper bound when ``high`` is None (then the
        lower bound is 0).
      high: The upper bound (exclusive), or None.
      size: None (a scalar), an int or a tuple of ints, the shape.
      dtype: ``int32`` or ``int64`` (the default).

    Returns:
      A Tensor of ``dtype``.

    Raises:
      ValueError: ``low >= high``, or another ``dtype``.
    """
    if high is None:
        low, high = 0, low
    if low >= high:
        raise ValueError(f"low >= high: {low} >= {high}")
    d = _d.to_tf(np.dtype(dtype))
    if d not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"Only int32 and int64 are supported, got {d.name}")
    return _r.uniform(_shape(size), minval=int(low), maxval=int(high), dtype=d)


@public(_MOD)
def poisson(lam=1.0, size=None):
    """TensorFlow variant of NumPy's ``random.poisson``: Poisson samples.

    Args:
      lam: The rate (expected count), a float.
      size: None (a scalar), an int or a tuple of ints, the shape.

    Returns:
      An int64 Tensor.
    """
    return _r.poisson(_shape(size), lam, dtype=dtypes.int64)
