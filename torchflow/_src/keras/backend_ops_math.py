"""``tf.keras.backend``'s math: reductions, elementwise functions, comparisons, activations.

Reductions take ``axis=None, keepdims=False`` (all axes) as Keras does.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras import backend
from torchflow._src.ops import (
    comparison_ops,
    creation_ops,
    math_ops,
    nn_ops,
    reduction_ops,
    scan_ops,
    trig_ops,
    unary_math_ops,
)
from torchflow._src.ops.clip_ops import clip_by_value
from torchflow._src.ops.gather_ops import where
from torchflow._src.util.api import public

_NS = "torchflow.keras.backend"


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


@public(_NS)
def sum(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Sum of ``x`` over ``axis`` (all axes when None).

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    return reduction_ops.reduce_sum(x, _axis(axis), keepdims)


@public(_NS)
def mean(x, axis=None, keepdims=False):
    """Mean of ``x`` over ``axis``; booleans count as floats.

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    x = convert_to_tensor(x)
    if x.dtype == dtypes.bool:
        x = creation_ops.cast(x, backend.floatx())
    return reduction_ops.reduce_mean(x, _axis(axis), keepdims)


@public(_NS)
def max(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Maximum of ``x`` over ``axis``.

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    return reduction_ops.reduce_max(x, _axis(axis), keepdims)


@public(_NS)
def min(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Minimum of ``x`` over ``axis`` (all axes when None).

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    return reduction_ops.reduce_min(x, _axis(axis), keepdims)


@public(_NS)
def prod(x, axis=None, keepdims=False):
    """Product of ``x`` over ``axis`` (all axes when None).

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    return reduction_ops.reduce_prod(x, _axis(axis), keepdims)


@public(_NS)
def var(x, axis=None, keepdims=False):
    """Variance of ``x`` over ``axis`` (all axes when None). Booleans count as floats (``floatx()``).

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    x = convert_to_tensor(x)
    if x.dtype == dtypes.bool:
        x = creation_ops.cast(x, backend.floatx())
    return reduction_ops.reduce_variance(x, _axis(axis), keepdims)


@public(_NS)
def std(x, axis=None, keepdims=False):
    """Standard deviation of ``x`` over ``axis`` (all axes when None). Booleans count as floats (``floatx()``).

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    x = convert_to_tensor(x)
    if x.dtype == dtypes.bool:
        x = creation_ops.cast(x, backend.floatx())
    return reduction_ops.reduce_std(x, _axis(axis), keepdims)


@public(_NS)
def any(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Logical OR of ``x`` over ``axis`` (all axes when None). ``x`` is cast to bool first.

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A bool tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    return reduction_ops.reduce_any(creation_ops.cast(x, "bool"), _axis(axis), keepdims)


@public(_NS)
def all(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Logical AND of ``x`` over ``axis`` (all axes when None). ``x`` is cast to bool first.

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes reduced.
      keepdims: bool, default False: keep reduced axes with length 1.

    Returns:
      A bool tensor with ``axis`` reduced (kept as length 1 when ``keepdims``).
    """
    return reduction_ops.reduce_all(creation_ops.cast(x, "bool"), _axis(axis), keepdims)


@public(_NS)
def argmax(x, axis=-1):
    """Index of the maximum value along ``axis``.

    Args:
      x: A tensor or variable.
      axis: int, default -1: the axis searched.

    Returns:
      An int64 tensor with ``axis`` removed.
    """
    return reduction_ops.argmax(x, axis)


@public(_NS)
def argmin(x, axis=-1):
    """Index of the minimum value along ``axis``.

    Args:
      x: A tensor or variable.
      axis: int, default -1: the axis searched.

    Returns:
      An int64 tensor with ``axis`` removed.
    """
    return reduction_ops.argmin(x, axis)


@public(_NS)
def pow(x, a):  # noqa: A001 (Keras' name)
    """``x ** a`` elementwise.

    Args:
      x: A tensor or variable.
      a: A number or tensor: the exponent.

    Returns:
      A tensor.
    """
    return math_ops.pow(x, a)


@public(_NS)
def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit, with an optional negative slope, cap and threshold.

    ``max(x, 0)`` with the defaults; otherwise ``x`` for ``threshold < x < max_value``,
    ``max_value`` above, and ``alpha * (x - threshold)`` below ``threshold``.

    Args:
      x: A tensor or variable.
      alpha: float, default 0.0: the slope below the threshold.
      max_value: None (default, no cap) or a float: the saturation value.
      threshold: float, default 0.0: the threshold of activation.

    Returns:
      A tensor of ``x``'s shape.
    """
    x = convert_to_tensor(x)
    if alpha == 0 and max_value is None and threshold == 0:
        return nn_ops.relu(x)
    negative = None
    if alpha != 0:
        negative = nn_ops.relu(-x + threshold) if threshold != 0 else nn_ops.relu(-x)
    if threshold != 0:
        x = x * creation_ops.cast(comparison_ops.greater(x, threshold), x.dtype)
    else:
        x = nn_ops.relu(x)
    if max_value is not None:
        x = clip_by_value(x, 0.0, max_value)
    if negative is not None:
        x = x - alpha * negative
    return x


@public(_NS)
def softmax(x, axis=-1):
    """Softmax of ``x`` along ``axis``.

    Args:
      x: A tensor or variable.
      axis: int, default -1: the axis normalized.

    Returns:
      A tensor of ``x``'s shape.
    """
    return nn_ops.softmax(x, axis=axis)


@public(_NS)
def elu(x, alpha=1.0):
    """Exponential linear unit: ``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Args:
      x: A tensor or variable.
      alpha: float, default 1.0: the scale of the negative part.

    Returns:
      A tensor of ``x``'s shape.
    """
    res = nn_ops.elu(x)
    if alpha == 1:
        return res
    return where(comparison_ops.greater(x, 0), res, alpha * res)


@public(_NS)
def softplus(x):
    """Softplus, ``log(exp(x) + 1)``, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return nn_ops.softplus(x)


@public(_NS)
def softsign(x):
    """Softsign, ``x / (abs(x) + 1)``, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return nn_ops.softsign(x)


@public(_NS)
def hard_sigmoid(x):
    """Piecewise-linear sigmoid, ``clip(0.2 * x + 0.5, 0, 1)``, elementwise.

    Faster than ``sigmoid``: 0 below -2.5, 1 above 2.5, linear between.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    x = convert_to_tensor(x)
    return clip_by_value(x * 0.2 + 0.5, 0.0, 1.0)


@public(_NS)
def l2_normalize(x, axis=None):
    """``x`` divided by its L2 norm along ``axis``.

    Args:
      x: A tensor or variable.
      axis: None (all axes) or an int / list of ints: the axes the norm runs over.

    Returns:
      A tensor of ``x``'s shape.
    """
    return reduction_ops.l2_normalize(x, axis=axis)


@public(_NS)
def cumsum(x, axis=0):
    """Cumulative sum of ``x`` along ``axis``.

    Args:
      x: A tensor or variable.
      axis: int, default 0: the axis scanned.

    Returns:
      A tensor of ``x``'s shape.
    """
    return scan_ops.cumsum(x, axis=axis)


@public(_NS)
def cumprod(x, axis=0):
    """Cumulative product of ``x`` along ``axis``.

    Args:
      x: A tensor or variable.
      axis: int, default 0: the axis scanned.

    Returns:
      A tensor of ``x``'s shape.
    """
    return scan_ops.cumprod(x, axis=axis)


@public(_NS)
def sigmoid(x):
    """Sigmoid, ``1 / (1 + exp(-x))``, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return unary_math_ops.sigmoid(x)


@public(_NS)
def tanh(x):
    """Hyperbolic tangent, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return unary_math_ops.tanh(x)


@public(_NS)
def sign(x):
    """Sign of ``x`` (-1, 0 or 1), elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return unary_math_ops.sign(x)


@public(_NS)
def round(x):  # noqa: A001 (Keras' name)
    """``x`` rounded to the nearest integer, elementwise; halves round to even.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return unary_math_ops.round(x)


@public(_NS)
def square(x):
    """``x * x``, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return unary_math_ops.square(x)


@public(_NS)
def abs(x):  # noqa: A001 (Keras' name)
    """Absolute value, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return unary_math_ops.abs(x)


@public(_NS)
def exp(x):
    """``e ** x``, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return unary_math_ops.exp(x)


@public(_NS)
def log(x):
    """Natural logarithm, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return unary_math_ops.log(x)


@public(_NS)
def cos(x):
    """Cosine, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return trig_ops.cos(x)


@public(_NS)
def sin(x):
    """Sine, elementwise.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    return trig_ops.sin(x)


@public(_NS)
def sqrt(x):
    """Square root, elementwise; negative inputs are clipped to 0 first.

    Args:
      x: A tensor or variable.

    Returns:
      A tensor of ``x``'s shape.
    """
    x = convert_to_tensor(x)
    return unary_math_ops.sqrt(clip_by_value(x, 0.0, np.inf))


@public(_NS)
def equal(x, y):
    """Elementwise truth value of ``x == y``, broadcasting the two.

    Args:
      x: A tensor or variable.
      y: A tensor, variable or number.

    Returns:
      A bool tensor.
    """
    return comparison_ops.equal(x, y)


@public(_NS)
def not_equal(x, y):
    """Elementwise truth value of ``x != y``, broadcasting the two.

    Args:
      x: A tensor or variable.
      y: A tensor, variable or number.

    Returns:
      A bool tensor.
    """
    return comparison_ops.not_equal(x, y)


@public(_NS)
def greater(x, y):
    """Elementwise truth value of ``x > y``, broadcasting the two.

    Args:
      x: A tensor or variable.
      y: A tensor, variable or number.

    Returns:
      A bool tensor.
    """
    return comparison_ops.greater(x, y)


@public(_NS)
def greater_equal(x, y):
    """Elementwise truth value of ``x >= y``, broadcasting the two.

    Args:
      x: A tensor or variable.
      y: A tensor, variable or number.

    Returns:
      A bool tensor.
    """
    return comparison_ops.greater_equal(x, y)


@public(_NS)
def less(x, y):
    """Elementwise truth value of ``x < y``, broadcasting the two.

    Args:
      x: A tensor or variable.
      y: A tensor, variable or number.

    Returns:
      A bool tensor.
    """
    return comparison_ops.less(x, y)


@public(_NS)
def less_equal(x, y):
    """Elementwise truth value of ``x <= y``, broadcasting the two.

    Args:
      x: A tensor or variable.
      y: A tensor, variable or number.

    Returns:
      A bool tensor.
    """
    return comparison_ops.less_equal(x, y)


@public(_NS)
def maximum(x, y):
    """Elementwise maximum of ``x`` and ``y``, broadcasting the two.

    Args:
      x: A tensor or variable.
      y: A tensor, variable or number.

    Returns:
      A tensor of the broadcast shape.
    """
    return math_ops.maximum(x, y)


@public(_NS)
def minimum(x, y):
    """Elementwise minimum of ``x`` and ``y``, broadcasting the two.

    Args:
      x: A tensor or variable.
      y: A tensor, variable or number.

    Returns:
      A tensor of the broadcast shape.
    """
    return math_ops.minimum(x, y)
