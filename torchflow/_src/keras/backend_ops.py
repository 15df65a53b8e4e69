"""``tf.keras.backend``'s tensor functions: Keras' names and defaults over torchflow ops.

Reductions take ``axis=None, keepdims=False``; dtypes default to ``floatx()``;
``variable``/``update*`` work on ``tf.Variable``s.
"""

from __future__ import annotations

import builtins

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant as _constant
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.custom_gradient import stop_gradient as _stop_gradient
from torchflow._src.core.tensor import executing_eagerly as _executing_eagerly
from torchflow._src.core.variables import Variable
from torchflow._src.keras import backend
from torchflow._src.keras.losses import loss_functions
from torchflow._src.ops import (
    array_ops,
    comparison_ops,
    creation_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    random_ops,
    reduction_ops,
    scan_ops,
    shape_ops,
    trig_ops,
    unary_math_ops,
)
from torchflow._src.ops.clip_ops import clip_by_value
from torchflow._src.ops.einsum_ops import tensordot
from torchflow._src.ops.gather_ops import gather as _gather
from torchflow._src.ops.gather_ops import where
from torchflow._src.ops.logging_ops import print as _print
from torchflow._src.util.api import public

_NS = "torchflow.keras.backend"


def _floatx(dtype):
    return dtype or backend.floatx()


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
    """Minimum of ``x`` over ``axis``."""
    return reduction_ops.reduce_min(x, _axis(axis), keepdims)


@public(_NS)
def prod(x, axis=None, keepdims=False):
    """Product of ``x`` over ``axis``."""
    return reduction_ops.reduce_prod(x, _axis(axis), keepdims)


@public(_NS)
def var(x, axis=None, keepdims=False):
    """Variance of ``x`` over ``axis``; booleans count as floats."""
    x = convert_to_tensor(x)
    if x.dtype == dtypes.bool:
        x = creation_ops.cast(x, backend.floatx())
    return reduction_ops.reduce_variance(x, _axis(axis), keepdims)


@public(_NS)
def std(x, axis=None, keepdims=False):
    """Standard deviation of ``x`` over ``axis``."""
    x = convert_to_tensor(x)
    if x.dtype == dtypes.bool:
        x = creation_ops.cast(x, backend.floatx())
    return reduction_ops.reduce_std(x, _axis(axis), keepdims)


@public(_NS)
def any(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Logical OR over ``axis`` of ``x`` cast to bool."""
    return reduction_ops.reduce_any(creation_ops.cast(x, "bool"), _axis(axis), keepdims)


@public(_NS)
def all(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Logical AND over ``axis`` of ``x`` cast to bool."""
    return reduction_ops.reduce_all(creation_ops.cast(x, "bool"), _axis(axis), keepdims)


@public(_NS)
def argmax(x, axis=-1):
    """Index of the maximum along ``axis``."""
    return reduction_ops.argmax(x, axis)


@public(_NS)
def argmin(x, axis=-1):
    """Index of the minimum along ``axis``."""
    return reduction_ops.argmin(x, axis)


@public(_NS)
def clip(x, min_value, max_value):
    """``x`` clipped to ``[min_value, max_value]`` (None: unbounded on that side).

    Args:
      x: A tensor or variable.
      min_value: None or a number: the lower bound.
      max_value: None or a number: the upper bound.
    """
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)) \
            and max_value < min_value:
        max_value = min_value
    if min_value is None:
        min_value = -np.inf
    if max_value is None:
        max_value = np.inf
    return clip_by_value(x, min_value, max_value)


@public(_NS)
def concatenate(tensors, axis=-1):
    """Concatenation of ``tensors`` along ``axis``.

    Args:
      tensors: A list of tensors.
      axis: int, default -1.
    """
    return array_ops.concat(list(tensors), axis)


@public(_NS)
def dot(x, y):
    """Matrix product; for N-D inputs, contracts the last axis of ``x`` with the
    second-to-last of ``y`` (Theano's ``dot``)."""
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if x.shape.rank is not None and (x.shape.rank > 2 or (y.shape.rank or 0) > 2):
        return tensordot(x, y, [[x.shape.rank - 1], [y.shape.rank - 2]])
    return linalg_ops.matmul(x, y)


@public(_NS)
def cast(x, dtype):
    """``x`` cast to ``dtype``.

    Args:
      x: A tensor or variable.
      dtype: The target dtype name or ``tf.DType``.

    Returns:
      A tensor of ``dtype``.
    """
    return creation_ops.cast(x, dtype)


@public(_NS)
def pow(x, a):  # noqa: A001 (Keras' name)
    """``x ** a`` elementwise."""
    return math_ops.pow(x, a)


@public(_NS)
def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with a negative ``alpha`` slope, a cap and a threshold."""
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
    """Softmax along ``axis``."""
    return nn_ops.softmax(x, axis=axis)


@public(_NS)
def elu(x, alpha=1.0):
    """Exponential linear unit with slope ``alpha`` for negatives."""
    res = nn_ops.elu(x)
    if alpha == 1:
        return res
    return where(comparison_ops.greater(x, 0), res, alpha * res)


@public(_NS)
def softplus(x):
    """``log(exp(x) + 1)``."""
    return nn_ops.softplus(x)


@public(_NS)
def softsign(x):
    """``x / (abs(x) + 1)``."""
    return nn_ops.softsign(x)


@public(_NS)
def hard_sigmoid(x):
    """Piecewise-linear sigmoid: ``clip(0.2 * x + 0.5, 0, 1)``."""
    x = convert_to_tensor(x)
    return clip_by_value(x * 0.2 + 0.5, 0.0, 1.0)


@public(_NS)
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample categorical cross-entropy between one-hot ``target`` and ``output``.

    Args:
      target: The labels, a tensor of ``output``'s shape (integer class ids for the sparse
        form).
      output: The predictions: probabilities, or logits with ``from_logits=True``.
      from_logits: bool, default False: whether ``output`` holds logits.
      axis: int, default -1: the class axis.

    Returns:
      A tensor with ``axis`` removed.
    """
    return loss_functions._backend_cce(convert_to_tensor(target), convert_to_tensor(output),
                                       from_logits, axis)


@public(_NS)
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample cross-entropy between integer ``target`` and ``output``.

    Args:
      target: The labels, a tensor of ``output``'s shape (integer class ids for the sparse
        form).
      output: The predictions: probabilities, or logits with ``from_logits=True``.
      from_logits: bool, default False: whether ``output`` holds logits.
      axis: int, default -1: the class axis.

    Returns:
      A tensor of ``target``'s shape.
    """
    return loss_functions._backend_scce(convert_to_tensor(target), convert_to_tensor(output),
                                        from_logits, axis)


@public(_NS)
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy.

    Args:
      target: The labels, a tensor of ``output``'s shape (integer class ids for the sparse
        form).
      output: The predictions: probabilities, or logits with ``from_logits=True``.
      from_logits: bool, default False: whether ``output`` holds logits.

    Returns:
      A tensor of ``output``'s shape.
    """
    return loss_functions._backend_bce(convert_to_tensor(target), convert_to_tensor(output),
                                       from_logits)


@public(_NS)
def l2_normalize(x, axis=None):
    """``x`` divided by its L2 norm along ``axis``."""
    return reduction_ops.l2_normalize(x, axis=axis)


@public(_NS)
def one_hot(indices, num_classes):
    """One-hot encoding of integer ``indices`` (a new last axis of ``num_classes``).

    Args:
      indices: An integer tensor of indices.
      num_classes: int: the size of the new last axis.

    Returns:
      A float32 tensor of shape ``indices.shape + (num_classes,)``.
    """
    return creation_ops.one_hot(indices, depth=num_classes, axis=-1)


@public(_NS)
def reshape(x, shape):
    """``x`` reshaped to ``shape``."""
    return array_ops.reshape(x, shape)


@public(_NS)
def permute_dimensions(x, pattern):
    """``x`` transposed by ``pattern``."""
    return array_ops.transpose(x, perm=list(pattern))


@public(_NS)
def transpose(x):
    """``x`` with its axes reversed."""
    return array_ops.transpose(x)


@public(_NS)
def repeat_elements(x, rep, axis):
    """Every slice of ``x`` along ``axis`` repeated ``rep`` times (like ``np.repeat``)."""
    return array_ops.repeat(x, rep, axis=axis)


@public(_NS)
def repeat(x, n):
    """A 2-D ``x`` of shape ``(samples, dim)`` repeated to ``(samples, n, dim)``."""
    return array_ops.tile(array_ops.expand_dims(x, 1), [1, n, 1])


@public(_NS)
def tile(x, n):
    """``x`` tiled ``n`` times (an int or a list per axis)."""
    if isinstance(n, int):
        n = [n]
    return array_ops.tile(x, n)


@public(_NS)
def flatten(x):
    """``x`` as a 1-D tensor."""
    return array_ops.reshape(x, [-1])


@public(_NS)
def batch_flatten(x):
    """``x`` reshaped to ``(batch, -1)``."""
    x = convert_to_tensor(x)
    if not _executing_eagerly():  # a trace's sizes are its call's: read them at run time
        inner = reduction_ops.reduce_prod(shape_ops.shape(x)[1:])
        return array_ops.reshape(x, array_ops.stack([-1, inner]))
    return array_ops.reshape(x, [-1, int(np.prod(x.shape.as_list()[1:]))])


@public(_NS)
def expand_dims(x, axis=-1):
    """``x`` with a new axis of size 1 at ``axis``."""
    return array_ops.expand_dims(x, axis)


@public(_NS)
def squeeze(x, axis):
    """``x`` without its size-1 axis ``axis``."""
    return array_ops.squeeze(x, [axis])


@public(_NS)
def stack(x, axis=0):
    """The tensors of the list ``x`` stacked along a new ``axis``."""
    return array_ops.stack(x, axis=axis)


@public(_NS)
def gather(reference, indices):
    """Rows ``indices`` of ``reference``."""
    return _gather(reference, indices)


@public(_NS)
def reverse(x, axes):
    """``x`` reversed along ``axes`` (an int or a list)."""
    if isinstance(axes, int):
        axes = [axes]
    return array_ops.reverse(x, axes)


@public(_NS)
def arange(start, stop=None, step=1, dtype="int32"):
    """``[start, stop)`` by ``step`` (``arange(n)`` is ``[0, n)``); empty for negative ``n``."""
    if stop is None and start < 0:
        start = 0
    result = creation_ops.range(start, limit=stop, delta=step)
    return creation_ops.cast(result, dtype) if dtype != "int32" else result


_builtin_all = builtins.all  # the module defines its own all()


def _maybe_variable(t, dtype, name):
    """A variable when the shape is fully known (TF 2.4's Keras does the same)."""
    if _builtin_all(d is not None and d > 0 for d in t.shape.as_list()):
        return Variable(t, dtype=dtype, name=name)
    return t


@public(_NS)
def zeros(shape, dtype=None, name=None):
    """A variable of zeros (``floatx()`` by default; a tensor if a dimension is 0 or unknown)."""
    return _maybe_variable(creation_ops.zeros(shape, dtype=_floatx(dtype)), _floatx(dtype), name)


@public(_NS)
def ones(shape, dtype=None, name=None):
    """A variable of ones (``floatx()`` by default; a tensor if a dimension is 0 or unknown)."""
    return _maybe_variable(creation_ops.ones(shape, dtype=_floatx(dtype)), _floatx(dtype), name)


@public(_NS)
def eye(size, dtype=None, name=None):
    """An identity-matrix variable of ``size`` rows (``floatx()`` by default)."""
    return Variable(creation_ops.eye(size, dtype=_floatx(dtype)), name=name)


@public(_NS)
def zeros_like(x, dtype=None, name=None):
    """Zeros of ``x``'s shape (and dtype unless given)."""
    return creation_ops.zeros_like(x, dtype=dtype)


@public(_NS)
def ones_like(x, dtype=None, name=None):
    """Ones of ``x``'s shape (and dtype unless given)."""
    return creation_ops.ones_like(x, dtype=dtype)


@public(_NS)
def variable(value, dtype=None, name=None, constraint=None):
    """A ``tf.Variable`` of ``value`` (``floatx()`` by default).

    Args:
      value: A Python/NumPy value or a tensor.
      dtype: None (default: ``floatx()``) or a dtype.
      name: str, default None: the variable's name.
      constraint: None (default) or a projection applied after optimizer updates.

    Returns:
      A ``tf.Variable``.
    """
    return Variable(creation_ops.cast(convert_to_tensor(value), _floatx(dtype)), name=name,
                    constraint=constraint)


@public(_NS)
def constant(value, dtype=None, shape=None, name=None):
    """A constant tensor (``floatx()`` by default)."""
    return _constant(value, dtype=_floatx(dtype), shape=shape)


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
    """Normal random values redrawn beyond two standard deviations (``floatx()``)."""
    return random_ops.truncated_normal(shape, mean, stddev, dtype=_floatx(dtype), seed=seed)


@public(_NS)
def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    """Bernoulli draws (1 with probability ``p``) as ``floatx()``."""
    u = random_ops.uniform(shape, dtype=_floatx(dtype), seed=seed)
    return where(comparison_ops.less_equal(u, p), creation_ops.ones(shape, _floatx(dtype)),
                 creation_ops.zeros(shape, _floatx(dtype)))


@public(_NS)
def random_binomial(shape, p=0.0, dtype=None, seed=None):
    """Deprecated spelling of ``random_bernoulli``."""
    return random_bernoulli(shape, p, dtype, seed)


@public(_NS)
def update(x, new_x):
    """``x.assign(new_x)``."""
    return x.assign(new_x)


@public(_NS)
def update_add(x, increment):
    """``x.assign_add(increment)``."""
    return x.assign_add(increment)


@public(_NS)
def update_sub(x, decrement):
    """``x.assign_sub(decrement)``."""
    return x.assign_sub(decrement)


@public(_NS)
def moving_average_update(x, value, momentum):
    """``x = x * momentum + value * (1 - momentum)``."""
    return x.assign(x * momentum + convert_to_tensor(value, x.dtype) * (1 - momentum))


@public(_NS)
def print_tensor(x, message="", summarize=3):
    """Prints ``message`` and ``x`` (``tf.print``), then returns ``x``."""
    _print(message, x, summarize=summarize)
    return x


@public(_NS)
def shape(x):
    """The dynamic shape of ``x`` as an int32 tensor."""
    return shape_ops.shape(x)


@public(_NS)
def eval(x):  # noqa: A001 (Keras' name)
    """The value of ``x`` as a NumPy array."""
    return backend.get_value(x)


@public(_NS)
def stop_gradient(variables):
    """``tf.stop_gradient`` of a tensor or of each tensor in a list."""
    if isinstance(variables, (list, tuple)):
        return [_stop_gradient(v) for v in variables]
    return _stop_gradient(variables)


@public(_NS)
def cumsum(x, axis=0):
    """Cumulative sum along ``axis``."""
    return scan_ops.cumsum(x, axis=axis)


@public(_NS)
def cumprod(x, axis=0):
    """Cumulative product along ``axis``."""
    return scan_ops.cumprod(x, axis=axis)


@public(_NS)
def bias_add(x, bias, data_format=None):
    """``x + bias`` broadcast along the channel axis of ``data_format``."""
    data_format = data_format or backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    x = convert_to_tensor(x)
    if data_format == "channels_first" and x.shape.rank > 2:
        b = convert_to_tensor(bias)
        shape = [1, -1] + [1] * (x.shape.rank - 2) if b.shape.rank == 1 else \
            [1] + b.shape.as_list()
        return x + array_ops.reshape(b, shape)
    return nn_ops.bias_add(x, bias)


@public(_NS)
def dropout(x, level, noise_shape=None, seed=None):
    """``x`` with a fraction ``level`` of entries zeroed (the rest scaled by 1/(1-level))."""
    return nn_ops.dropout(x, rate=level, noise_shape=noise_shape, seed=seed)


@public(_NS)
def switch(condition, then_expression, else_expression):
    """``then_expression`` where ``condition`` else ``else_expression`` (callables are called).

    Args:
      condition: A bool scalar or tensor.
      then_expression: The value (or callable) where ``condition`` is True.
      else_expression: The value (or callable) where it is False.
    """
    then_v = then_expression() if callable(then_expression) else then_expression
    else_v = else_expression() if callable(else_expression) else else_expression
    cond = convert_to_tensor(condition)
    if cond.shape.rank == 0:
        return then_v if bool(cond) else else_v
    return where(cond, then_v, else_v)


@public(_NS)
def in_train_phase(x, alt, training=None):
    """``x`` in the training phase, else ``alt`` (callables are called)."""
    if training is None:
        training = backend.learning_phase()
    if training == 1 or training is True:
        return x() if callable(x) else x
    if training == 0 or training is False:
        return alt() if callable(alt) else alt
    return switch(training, x, alt)


@public(_NS)
def in_test_phase(x, alt, training=None):
    """``x`` in the test phase, else ``alt``."""
    return in_train_phase(alt, x, training=training)


@public(_NS)
def sigmoid(x):
    """Elementwise sigmoid."""
    return unary_math_ops.sigmoid(x)


@public(_NS)
def tanh(x):
    """Elementwise tanh."""
    return unary_math_ops.tanh(x)


@public(_NS)
def sign(x):
    """Elementwise sign."""
    return unary_math_ops.sign(x)


@public(_NS)
def round(x):  # noqa: A001 (Keras' name)
    """Elementwise round half to even."""
    return unary_math_ops.round(x)


@public(_NS)
def square(x):
    """Elementwise square."""
    return unary_math_ops.square(x)


@public(_NS)
def abs(x):  # noqa: A001 (Keras' name)
    """Elementwise absolute value."""
    return unary_math_ops.abs(x)


@public(_NS)
def exp(x):
    """Elementwise exponential."""
    return unary_math_ops.exp(x)


@public(_NS)
def log(x):
    """Elementwise natural logarithm."""
    return unary_math_ops.log(x)


@public(_NS)
def cos(x):
    """Elementwise cosine."""
    return trig_ops.cos(x)


@public(_NS)
def sin(x):
    """Elementwise sine."""
    return trig_ops.sin(x)


@public(_NS)
def sqrt(x):
    """Elementwise square root, with negative inputs clipped to 0 first."""
    x = convert_to_tensor(x)
    return unary_math_ops.sqrt(clip_by_value(x, 0.0, np.inf))


@public(_NS)
def equal(x, y):
    """Elementwise ``x == y``."""
    return comparison_ops.equal(x, y)


@public(_NS)
def not_equal(x, y):
    """Elementwise ``x != y``."""
    return comparison_ops.not_equal(x, y)


@public(_NS)
def greater(x, y):
    """Elementwise ``x > y``."""
    return comparison_ops.greater(x, y)


@public(_NS)
def greater_equal(x, y):
    """Elementwise ``x >= y``."""
    return comparison_ops.greater_equal(x, y)


@public(_NS)
def less(x, y):
    """Elementwise ``x < y``."""
    return comparison_ops.less(x, y)


@public(_NS)
def less_equal(x, y):
    """Elementwise ``x <= y``."""
    return comparison_ops.less_equal(x, y)


@public(_NS)
def maximum(x, y):
    """Elementwise maximum."""
    return math_ops.maximum(x, y)


@public(_NS)
def minimum(x, y):
    """Elementwise minimum."""
    return math_ops.minimum(x, y)
