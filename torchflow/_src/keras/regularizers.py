"""``tf.keras.regularizers``: L1, L2, L1L2 penalties."""

from __future__ import annotations

from torchflow._src.core.convert import constant
from torchflow._src.keras.engine.serialization import deserialize_object, get_object
from torchflow._src.ops.math_ops import add, multiply
from torchflow._src.ops.reduction_ops import reduce_sum
from torchflow._src.ops.unary_math_ops import abs as _abs
from torchflow._src.ops.unary_math_ops import square
from torchflow._src.util.api import public

_NS = "torchflow.keras.regularizers"


@public(_NS)
class Regularizer:
    """Base class: ``__call__(x)`` returns a scalar penalty.

    Returns:
      Subclasses implement ``__call__(x)`` and ``get_config()``.
    """

    def __call__(self, x):
        return 0.0

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@public(_NS)
class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``.

    Args:
      l1: float, default 0.0: the L1 factor.
      l2: float, default 0.0: the L2 factor.

    Returns:
      A regularizer; ``r(x)`` returns a float32 scalar penalty added to the layer's losses.
    """

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x):
        total = None
        if self.l1:
            total = multiply(reduce_sum(_abs(x)), self.l1)
        if self.l2:
            t = multiply(reduce_sum(square(x)), self.l2)
            total = t if total is None else add(total, t)
        if total is None:
            return constant(0.0, dtype=x.dtype)
        return total

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


@public(_NS)
class L1(L1L2):
    """``l1 * sum(|x|)`` (default l1=0.01).

    Args:
      l1: float, default 0.01: the L1 factor.
      **kwargs: ``l``: an alias of ``l1`` (as in TF).

    Returns:
      A regularizer; ``r(x)`` returns a float32 scalar penalty added to the layer's losses.
    """

    def __init__(self, l1=0.01, **kwargs):
        super().__init__(l1=kwargs.get("l", l1))

    def get_config(self):
        return {"l1": self.l1}


@public(_NS)
class L2(L1L2):
    """``l2 * sum(x**2)`` (default l2=0.01).

    Args:
      l2: float, default 0.01: the L2 factor.
      **kwargs: ``l``: an alias of ``l2`` (as in TF).

    Returns:
      A regularizer; ``r(x)`` returns a float32 scalar penalty added to the layer's losses.
    """

    def __init__(self, l2=0.01, **kwargs):
        super().__init__(l2=kwargs.get("l", l2))

    def get_config(self):
        return {"l2": self.l2}


@public(_NS)
def l1_l2(l1=0.01, l2=0.01):
    """An ``L1L2`` regularizer (defaults 0.01 each).

    Args:
      l1: float, default 0.01: the L1 factor.
      l2: float, default 0.01: the L2 factor.

    Returns:
      An ``L1L2`` regularizer.
    """
    return L1L2(l1=l1, l2=l2)


_CLASSES = {"Regularizer": Regularizer, "L1L2": L1L2, "L1": L1, "L2": L2,
            "l1": L1, "l2": L2, "l1_l2": l1_l2}


@public(_NS)
def serialize(regularizer) -> dict:
    """The ``{'class_name', 'config'}`` dict of a regularizer.

    Args:
      regularizer: A Keras regularizer instance.

    Returns:
      A dict.
    """
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


@public(_NS)
def deserialize(config, custom_objects=None):
    """A regularizer from ``serialize``'s output or a name.

    Args:
      config: A ``{'class_name', 'config'}`` dict as ``serialize`` returns (or a name).
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      A new regularizer.

    Raises:
      ValueError: For an unknown name.
    """
    return deserialize_object(config, _CLASSES, custom_objects, "regularizer")


@public(_NS)
def get(identifier):
    """A regularizer from None, a name, a config dict or a callable.

    Args:
      identifier: A name, a config dict, a regularizer instance or a callable.

    Returns:
      A regularizer (instances and callables are returned as they are).

    Raises:
      ValueError: If ``identifier`` cannot be interpreted.
    """
    return get_object(identifier, deserialize, "regularizer")
