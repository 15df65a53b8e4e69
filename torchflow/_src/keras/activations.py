"""``tf.keras.activations``: activation functions by name, with get/serialize."""

from __future__ import annotations

from torchflow._src.keras.engine.serialization import get_registered_object
from torchflow._src.ops import nn_ops
from torchflow._src.ops import unary_math_ops as um
from torchflow._src.ops.clip_ops import clip_by_value
from torchflow._src.ops.comparison_ops import greater
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.gather_ops import where
from torchflow._src.ops.math_ops import add, minimum, multiply, subtract
from torchflow._src.util.api import public

_NS = "torchflow.keras.activations"


@public(_NS)
def relu(x, alpha=0.0, max_value=None, threshold=0):
    """Rectified linear unit: ``max(x, 0)`` with optional slope, cap and threshold.

    Args:
      x: A float tensor.
      alpha: float, default 0.0: the slope below ``threshold``.
      max_value: None (default) or a float: the cap on the output.
      threshold: float, default 0: values below it are zeroed (or scaled by ``alpha``).

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    if alpha == 0 and max_value is None and threshold == 0:
        return nn_ops.relu(x)
    if threshold != 0:
        y = where(greater(x, threshold), x, multiply(subtract(x, threshold), alpha)
                  if alpha else multiply(x, 0.0))
    elif alpha != 0:
        y = nn_ops.leaky_relu(x, alpha=alpha) if max_value is None else \
            subtract(nn_ops.relu(x), multiply(nn_ops.relu(um.negative(x)), alpha))
    else:
        y = nn_ops.relu(x)
    if max_value is not None:
        y = minimum(y, cast(max_value, y.dtype) if hasattr(y, "dtype") else max_value)
    return y


@public(_NS)
def sigmoid(x):
    """``1 / (1 + exp(-x))``.

    Args:
      x: A float tensor.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return nn_ops.sigmoid(x)


@public(_NS)
def tanh(x):
    """Hyperbolic tangent.

    Args:
      x: A float tensor.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return nn_ops.tanh(x)


@public(_NS)
def softmax(x, axis=-1):
    """Softmax over ``axis``.

    Args:
      x: A float tensor of rank >= 2.
      axis: int, default -1: the dimension normalised over.

    Returns:
      A tensor of ``x``'s dtype and shape.

    Raises:
      ValueError: For a rank-1 (or scalar) input, as tf.keras does.
    """
    if x.shape.rank is not None and x.shape.rank <= 1:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
    return nn_ops.softmax(x, axis=axis)


@public(_NS)
def softplus(x):
    """``log(exp(x) + 1)``.

    Args:
      x: A float tensor.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return nn_ops.softplus(x)


@public(_NS)
def softsign(x):
    """``x / (abs(x) + 1)``.

    Args:
      x: A float tensor.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return nn_ops.softsign(x)


@public(_NS)
def elu(x, alpha=1.0):
    """Exponential linear unit with slope ``alpha`` for negatives.

    Args:
      x: A float tensor.
      alpha: float, default 1.0: the scale of the negative part.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    y = nn_ops.elu(x)
    if alpha == 1.0:
        return y
    return where(greater(x, 0), y, multiply(y, alpha))


@public(_NS)
def selu(x):
    """Scaled exponential linear unit.

    Args:
      x: A float tensor.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return nn_ops.selu(x)


@public(_NS)
def exponential(x):
    """``exp(x)``.

    Args:
      x: A float tensor.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return um.exp(x)


@public(_NS)
def hard_sigmoid(x):
    """``clip(0.2 * x + 0.5, 0, 1)``.

    Args:
      x: A float tensor.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return clip_by_value(add(multiply(x, 0.2), 0.5), 0.0, 1.0)


@public(_NS)
def linear(x):
    """The identity.

    Args:
      x: A tensor.

    Returns:
      ``x`` unchanged.
    """
    return x


@public(_NS)
def swish(x):
    """``x * sigmoid(x)``.

    Args:
      x: A float tensor.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return nn_ops.swish(x)


@public(_NS)
def gelu(x, approximate=False):
    """Gaussian error linear unit.

    Args:
      x: A float tensor.
      approximate: bool, default False: use the tanh approximation.

    Returns:
      A tensor of ``x``'s dtype and shape.
    """
    return nn_ops.gelu(x, approximate=approximate)


_BY_NAME = {f.__name__: f for f in (relu, sigmoid, tanh, softmax, softplus, softsign, elu, selu,
                                    exponential, hard_sigmoid, linear, swish, gelu)}
_BY_NAME["relu6"] = nn_ops.relu6
_BY_NAME["leaky_relu"] = nn_ops.leaky_relu


@public(_NS)
def serialize(activation) -> str:
    """The name of an activation function.

    Args:
      activation: A Keras activation function.

    Returns:
      A ``{'class_name': ..., 'config': ...}`` dict (a function's name for functions).

    Raises:
      ValueError: For a function that is not a known activation.
    """
    for name, fn in _BY_NAME.items():
        if fn is activation:
            return name
    name = getattr(activation, "__name__", None)
    if name:
        return name
    raise ValueError(f"Unknown activation function: {activation}")


@public(_NS)
def deserialize(name, custom_objects=None):
    """The activation function called ``name``.

    Args:
      name: The activation's name (a str).
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      The activation function.

    Raises:
      ValueError: For an unknown name.
    """
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    fn = _BY_NAME.get(name) or get_registered_object(name)
    if fn is None:
        raise ValueError(f"Unknown activation function: {name}. Please ensure this object is "
                         f"passed to the `custom_objects` argument.")
    return fn


@public(_NS)
def get(identifier):
    """An activation from a name, None (linear) or a callable.

    Args:
      identifier: A name, None (linear) or a callable.

    Returns:
      A callable activation.

    Raises:
      TypeError: If ``identifier`` cannot be interpreted.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        return deserialize(identifier)
    if isinstance(identifier, dict):
        return deserialize(identifier["config"] if "config" in identifier else identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier}")
