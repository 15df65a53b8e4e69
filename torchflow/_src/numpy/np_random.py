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
    """Seeds the global random generator (``tf.random.set_seed``)."""
    _r.set_seed(int(s))


@public(_MOD)
def randn(*args):
    """Standard normal samples of shape ``args`` (default float type)."""
    return _r.normal(_shape(args), dtype=_float())


@public(_MOD)
def standard_normal(size=None):
    """Standard normal samples of shape ``size``."""
    return _r.normal(_shape(size), dtype=_float())


@public(_MOD)
def uniform(low=0.0, high=1.0, size=None):
    """Uniform samples in ``[low, high)``."""
    return _r.uniform(_shape(size), minval=low, maxval=high, dtype=_float())


@public(_MOD)
def random(size=None):
    """Uniform samples in ``[0, 1)``."""
    return uniform(0.0, 1.0, size)


@public(_MOD)
def rand(*size):
    """Uniform samples in ``[0, 1)`` of shape ``size``."""
    return uniform(0.0, 1.0, size)


@public(_MOD)
def randint(low, high=None, size=None, dtype=np.int64):
    """Integers uniformly in ``[low, high)`` (``[0, low)`` when ``high`` is None).

    Raises:
      ValueError: ``low >= high``.
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
    """Poisson samples with rate ``lam`` (int64)."""
    return _r.poisson(_shape(size), lam, dtype=dtypes.int64)
