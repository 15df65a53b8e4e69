"""Python array API standard names that NumPy 2 has and TF 2.4's tnp lacks.

Most are aliases of tnp functions under the standard's spelling (``acos`` for
``arccos``, ``concat`` for ``concatenate``, ``pow`` for ``power``); the rest are
small compositions (``permute_dims``, ``matrix_transpose``, ``astype``, ``vecdot``,
``unique_values``).
"""

from __future__ import annotations

import numpy as np

from torchflow._src.numpy import np_array_ops as ao
from torchflow._src.numpy import np_math as m
from torchflow._src.numpy import np_math_unary as mu
from torchflow._src.numpy import np_reduce as r
from torchflow._src.numpy.np_arrays import asarray
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"

acos, acosh, asin, asinh = mu.arccos, mu.arccosh, mu.arcsin, mu.arcsinh
atan, atanh, atan2 = mu.arctan, mu.arctanh, m.arctan2
pow = m.power  # noqa: A001
concat = ao.concatenate
bitwise_invert = mu.bitwise_not


@public(_MOD)
def permute_dims(x, axes):
    """Permutes the axes of ``x`` (``transpose`` with required ``axes``)."""
    return ao.transpose(x, axes)


@public(_MOD)
def matrix_transpose(x):
    """Swaps the last two axes.

    Raises:
      ValueError: ``x`` has fewer than 2 dimensions.
    """
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError("matrix_transpose: x must have at least 2 dimensions")
    return ao.swapaxes(x, -1, -2)


@public(_MOD)
def astype(x, dtype, copy=True):
    """``x`` cast to ``dtype``."""
    return asarray(x, dtype)


@public(_MOD)
def vecdot(x1, x2, axis=-1):
    """Dot product along ``axis`` (conjugating ``x1``), broadcasting the rest."""
    a = asarray(x1)
    a = mu.conj(a) if a.dtype.is_complex else a
    return r.sum(m.multiply(a, x2), axis=axis)


@public(_MOD)
def unique_values(x):
    """Sorted unique values of the flattened ``x``.

    Differences from NumPy: runs on the host (result size is data dependent), so it
    does not record gradients.
    """
    x = asarray(x)
    return asarray(np.unique(x.numpy()), x.dtype)
