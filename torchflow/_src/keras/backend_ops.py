"""``tf.keras.backend``'s tensor functions: Keras' names and defaults over torchflow ops.

Reductions take ``axis=None, keepdims=False``; dtypes default to ``floatx()``;
``variable``/``update*`` work on ``tf.Variable``s.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core.convert import constant as _constant
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.custom_gradient import stop_gradient as _stop_gradient
from torchflow._src.core.tensor import executing_eagerly as _executing_eagerly
from torchflow._src.core.variables import Variable
from torchflow._src.keras import backend
from torchflow._src.keras.losses import loss_functions
from torchflow._src.ops import (
    array_ops,
    creation_ops,
    linalg_ops,
    nn_ops,
    reduction_ops,
    shape_ops,
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
    """Matrix product of ``x`` and ``y``.

    For inputs of rank above 2 it contracts the last axis of ``x`` with the
    second-to-last of ``y`` (Theano's ``dot``): ``(2, 3, 4) . (4, 5)`` is ``(2, 3, 5)``.

    Args:
      x: A tensor or variable.
      y: A tensor or variable.

    Returns:
      A tensor: the product.
    """
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
    """``x`` reshaped to ``shape``.

    Args:
      x: A tensor or variable.
      shape: A tuple of ints (one may be -1, inferred).

    Returns:
      A tensor.
    """
    return array_ops.reshape(x, shape)


@public(_NS)
def permute_dimensions(x, pattern):
    """``x`` with its axes permuted by ``pattern``.

    Args:
      x: A tensor or variable.
      pattern: A tuple of axis indices, as ``(0, 2, 1)``.

    Returns:
      A tensor.
    """
    return array_ops.transpose(x, perm=list(pattern))


@public(_NS)
def transpose(x):
    """``x`` with its axes reversed (a matrix transposed).

    Args:
      x: A tensor or variable.

    Returns:
      A tensor.
    """
    return array_ops.transpose(x)


@public(_NS)
def repeat_elements(x, rep, axis):
    """Every slice of ``x`` along ``axis`` repeated ``rep`` times, like ``np.repeat``.

    ``(s1, s2, s3)`` with ``axis=1`` becomes ``(s1, s2 * rep, s3)``.

    Args:
      x: A tensor or variable.
      rep: int: the number of repetitions.
      axis: int: the axis repeated along.

    Returns:
      A tensor.
    """
    return array_ops.repeat(x, rep, axis=axis)


@public(_NS)
def repeat(x, n):
    """A 2-D ``x`` of shape ``(samples, dim)`` repeated to ``(samples, n, dim)``.

    Args:
      x: A 2-D tensor or variable.
      n: int: the number of repetitions.

    Returns:
      A 3-D tensor.
    """
    return array_ops.tile(array_ops.expand_dims(x, 1), [1, n, 1])


@public(_NS)
def tile(x, n):
    """``x`` tiled ``n`` times.

    Args:
      x: A tensor or variable.
      n: An int (for a 1-D ``x``) or a list of ints, one per axis.

    Returns:
      A tensor.
    """
    if isinstance(n, int):
        n = [n]
    return array_ops.tile(x, n)


@public(_NS)
def flatten(x):
    """``x`` as a 1-D tensor.

    Args:
      x: A tensor or variable.

    Returns:
      A 1-D tensor of ``x``'s elements, in row-major order.
    """
    return array_ops.reshape(x, [-1])


@public(_NS)
def batch_flatten(x):
    """``x`` reshaped to ``(batch, -1)``: each sample flattened.

    Args:
      x: A tensor or variable whose first axis is the batch.

    Returns:
      A 2-D tensor.
    """
    x = convert_to_tensor(x)
    if not _executing_eagerly():  # a trace's sizes are its call's: read them at run time
        inner = reduction_ops.reduce_prod(shape_ops.shape(x)[1:])
        return array_ops.reshape(x, array_ops.stack([-1, inner]))
    return array_ops.reshape(x, [-1, int(np.prod(x.shape.as_list()[1:]))])


@public(_NS)
def expand_dims(x, axis=-1):
    """``x`` with a new axis of size 1 at ``axis``.

    Args:
      x: A tensor or variable.
      axis: int, default -1: where the new axis goes.

    Returns:
      A tensor one rank higher.
    """
    return array_ops.expand_dims(x, axis)


@public(_NS)
def squeeze(x, axis):
    """``x`` without its size-1 axis ``axis``.

    Args:
      x: A tensor or variable.
      axis: int: the axis removed; it must have size 1.

    Returns:
      A tensor one rank lower.
    """
    return array_ops.squeeze(x, [axis])


@public(_NS)
def stack(x, axis=0):
    """The tensors of the list ``x`` stacked along a new ``axis``.

    Args:
      x: A list of tensors of one shape.
      axis: int, default 0: the position of the new axis.

    Returns:
      A tensor one rank higher than the inputs.
    """
    return array_ops.stack(x, axis=axis)


@public(_NS)
def gather(reference, indices):
    """The rows ``indices`` of ``reference`` (``tf.gather`` along axis 0).

    Args:
      reference: A tensor or variable.
      indices: An integer tensor of row indices.

    Returns:
      A tensor of ``indices.shape + reference.shape[1:]``.
    """
    return _gather(reference, indices)


@public(_NS)
def reverse(x, axes):
    """``x`` reversed along ``axes``.

    Args:
      x: A tensor or variable.
      axes: An int or a list of ints: the axes reversed.

    Returns:
      A tensor of ``x``'s shape.
    """
    if isinstance(axes, int):
        axes = [axes]
    return array_ops.reverse(x, axes)


@public(_NS)
def arange(start, stop=None, step=1, dtype="int32"):
    """The integers ``[start, stop)`` by ``step``; ``arange(n)`` is ``[0, n)``.

    A negative ``start`` with no ``stop`` gives an empty tensor, as in Keras.

    Args:
      start: The first value, or the end when ``stop`` is None.
      stop: None (default) or the end (exclusive).
      step: The increment, default 1.
      dtype: str, default ``'int32'``: the result's dtype.

    Returns:
      A 1-D tensor.
    """
    if stop is None and start < 0:
        start = 0
    result = creation_ops.range(start, limit=stop, delta=step)
    return creation_ops.cast(result, dtype) if dtype != "int32" else result


def _maybe_variable(t, dtype, name):
    """A variable when the shape is fully known (TF 2.4's Keras does the same)."""
    if all(d is not None and d > 0 for d in t.shape.as_list()):
        return Variable(t, dtype=dtype, name=name)
    return t


@public(_NS)
def zeros(shape, dtype=None, name=None):
    """A variable of zeros.

    Args:
      shape: A tuple of ints: the shape.
      dtype: None (default: ``floatx()``) or a dtype.
      name: str, default None: the variable's name.

    Returns:
      A ``tf.Variable``; a tensor when a dimension is 0 or unknown (as TF 2.4's Keras
      does).
    """
    return _maybe_variable(creation_ops.zeros(shape, dtype=_floatx(dtype)), _floatx(dtype), name)


@public(_NS)
def ones(shape, dtype=None, name=None):
    """A variable of ones.

    Args:
      shape: A tuple of ints: the shape.
      dtype: None (default: ``floatx()``) or a dtype.
      name: str, default None: the variable's name.

    Returns:
      A ``tf.Variable``; a tensor when a dimension is 0 or unknown (as TF 2.4's Keras
      does).
    """
    return _maybe_variable(creation_ops.ones(shape, dtype=_floatx(dtype)), _floatx(dtype), name)


@public(_NS)
def eye(size, dtype=None, name=None):
    """An identity-matrix variable.

    Args:
      size: int: the number of rows and columns.
      dtype: None (default: ``floatx()``) or a dtype.
      name: str, default None: the variable's name.

    Returns:
      A ``tf.Variable`` of shape ``(size, size)``.
    """
    return Variable(creation_ops.eye(size, dtype=_floatx(dtype)), name=name)


@public(_NS)
def zeros_like(x, dtype=None, name=None):
    """Zeros of ``x``'s shape.

    Args:
      x: A tensor or variable.
      dtype: None (default: ``x``'s dtype) or a dtype.
      name: Accepted for Keras compatibility.

    Returns:
      A tensor (not a variable).
    """
    return creation_ops.zeros_like(x, dtype=dtype)


@public(_NS)
def ones_like(x, dtype=None, name=None):
    """Ones of ``x``'s shape.

    Args:
      x: A tensor or variable.
      dtype: None (default: ``x``'s dtype) or a dtype.
      name: Accepted for Keras compatibility.

    Returns:
      A tensor (not a variable).
    """
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
    """A constant tensor.

    Args:
      value: A Python/NumPy value: a scalar, or a list of values.
      dtype: None (default: ``floatx()``) or a dtype.
      shape: None (``value``'s shape) or a tuple of ints; a scalar ``value`` is
        broadcast to it.
      name: Accepted for Keras compatibility.

    Returns:
      A tensor.
    """
    return _constant(value, dtype=_floatx(dtype), shape=shape)


@public(_NS)
def update(x, new_x):
    """Sets the value of the variable ``x`` to ``new_x``.

    Args:
      x: A ``tf.Variable``.
      new_x: A tensor of ``x``'s shape.

    Returns:
      The variable ``x``, updated.
    """
    return x.assign(new_x)


@public(_NS)
def update_add(x, increment):
    """Adds ``increment`` to the variable ``x``.

    Args:
      x: A ``tf.Variable``.
      increment: A tensor of ``x``'s shape.

    Returns:
      The variable ``x``, updated.
    """
    return x.assign_add(increment)


@public(_NS)
def update_sub(x, decrement):
    """Subtracts ``decrement`` from the variable ``x``.

    Args:
      x: A ``tf.Variable``.
      decrement: A tensor of ``x``'s shape.

    Returns:
      The variable ``x``, updated.
    """
    return x.assign_sub(decrement)


@public(_NS)
def moving_average_update(x, value, momentum):
    """Moves the variable ``x`` towards ``value``: ``x = x * momentum + value * (1 - momentum)``.

    Args:
      x: A ``tf.Variable``.
      value: A tensor of ``x``'s shape.
      momentum: float: the moving average momentum.

    Returns:
      The variable ``x``, updated.
    """
    return x.assign(x * momentum + convert_to_tensor(value, x.dtype) * (1 - momentum))


@public(_NS)
def print_tensor(x, message="", summarize=3):
    """Prints ``message`` and the value of ``x`` (``tf.print``), then returns ``x``.

    Args:
      x: A tensor.
      message: str, default ``""``: printed before the value.
      summarize: int, default 3: the number of elements printed at each end of each
        dimension.

    Returns:
      ``x``, unchanged.
    """
    _print(message, x, summarize=summarize)
    return x


@public(_NS)
def shape(x):
    """The dynamic shape of ``x``.

    Args:
      x: A tensor or variable.

    Returns:
      A 1-D int32 tensor (``x.shape`` is the static shape).
    """
    return shape_ops.shape(x)


@public(_NS)
def eval(x):  # noqa: A001 (Keras' name)
    """The value of ``x`` as a NumPy array.

    Args:
      x: A tensor or variable.

    Returns:
      A NumPy array.
    """
    return backend.get_value(x)


@public(_NS)
def stop_gradient(variables):
    """``variables`` with the gradient stopped (``tf.stop_gradient``).

    Args:
      variables: A tensor, or a list of tensors.

    Returns:
      A tensor, or a list of tensors, with no gradient to the inputs.
    """
    if isinstance(variables, (list, tuple)):
        return [_stop_gradient(v) for v in variables]
    return _stop_gradient(variables)


@public(_NS)
def bias_add(x, bias, data_format=None):
    """``x + bias``, with ``bias`` broadcast along the channel axis.

    Args:
      x: A tensor or variable.
      bias: A 1-D tensor of the channel size (with ``"channels_first"`` also one of
        ``x``'s shape without the batch axis).
      data_format: None (default: ``image_data_format()``), ``"channels_last"`` or
        ``"channels_first"``.

    Returns:
      A tensor of ``x``'s shape.

    Raises:
      ValueError: an unknown ``data_format``.
    """
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
    """``x`` in the training phase, else ``alt``.

    Args:
      x: The value (or a callable returning it) in the training phase.
      alt: The value (or a callable returning it) otherwise.
      training: None (default: ``learning_phase()``), a Python bool or 0/1, or a bool
        tensor.

    Returns:
      ``x`` or ``alt``, picked by ``training`` (elementwise for a bool tensor).
    """
    if training is None:
        training = backend.learning_phase()
    if training == 1 or training is True:
        return x() if callable(x) else x
    if training == 0 or training is False:
        return alt() if callable(alt) else alt
    return switch(training, x, alt)


@public(_NS)
def in_test_phase(x, alt, training=None):
    """``x`` in the test (inference) phase, else ``alt``.

    Args:
      x: The value (or a callable returning it) in the test phase.
      alt: The value (or a callable returning it) in the training phase.
      training: None (default: ``learning_phase()``), a Python bool or 0/1, or a bool
        tensor.

    Returns:
      ``x`` or ``alt``, picked by ``training``.
    """
    return in_train_phase(alt, x, training=training)
