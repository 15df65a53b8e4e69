"""``tf.keras.constraints``: projections applied to weights after updates."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.engine.serialization import deserialize_object, get_object
from torchflow._src.ops.clip_ops import clip_by_value
from torchflow._src.ops.comparison_ops import greater_equal
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.gather_ops import gather_nd
from torchflow._src.ops.math_ops import add, divide, multiply
from torchflow._src.ops.reduction_ops import reduce_sum
from torchflow._src.ops.unary_math_ops import sqrt, square
from torchflow._src.util.api import public

_NS = "torchflow.keras.constraints"


def _norm(w, axis):
    return sqrt(reduce_sum(square(w), axis=axis, keepdims=True))


@public(_NS)
class Constraint:
    """Base class: ``__call__(w)`` returns the projected weight.

    Returns:
      Subclasses implement ``__call__(w)`` and ``get_config()``.
    """

    def __call__(self, w):
        return w

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@public(_NS)
class MaxNorm(Constraint):
    """Caps the norm of the weights along ``axis`` at ``max_value``.

    Args:
      max_value: float, default 2: the largest allowed norm.
      axis: int or list of ints, default 0: the axes the norm is taken over (0 for a
        ``Dense`` kernel's input axis).

    Returns:
      A constraint; ``c(w)`` returns ``w`` projected (same shape and dtype).
    """

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = _norm(w, self.axis)
        desired = clip_by_value(norms, 0.0, float(self.max_value))
        return multiply(w, divide(desired, add(norms, backend.epsilon())))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


@public(_NS)
class NonNeg(Constraint):
    """Sets negative weights to zero.

    Returns:
      A constraint; ``c(w)`` returns ``w`` projected (same shape and dtype).
    """

    def __call__(self, w):
        return multiply(w, cast(greater_equal(w, 0.0), w.dtype))


@public(_NS)
class UnitNorm(Constraint):
    """Scales the weights to unit norm along ``axis``.

    Args:
      axis: int or list of ints, default 0: the axes the norm is taken over (0 for a
        ``Dense`` kernel's input axis).

    Returns:
      A constraint; ``c(w)`` returns ``w`` projected (same shape and dtype).
    """

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return divide(w, add(backend.epsilon(), _norm(w, self.axis)))

    def get_config(self):
        return {"axis": self.axis}


@public(_NS)
class MinMaxNorm(Constraint):
    """Keeps the norm along ``axis`` within ``[min_value, max_value]`` (blended by ``rate``).

    Args:
      min_value: float, default 0.0: the smallest norm.
      max_value: float, default 1.0: the largest norm.
      rate: float in ``[0, 1]``, default 1.0: how far each step moves towards the allowed
        range (1 clips exactly).
      axis: int or list of ints, default 0: the axes the norm is taken over (0 for a
        ``Dense`` kernel's input axis).

    Returns:
      A constraint; ``c(w)`` returns ``w`` projected (same shape and dtype).
    """

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = _norm(w, self.axis)
        desired = add(multiply(clip_by_value(norms, float(self.min_value),
                                             float(self.max_value)), self.rate),
                      multiply(norms, 1 - self.rate))
        return multiply(w, divide(desired, add(norms, backend.epsilon())))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


def _radial_source(n: int) -> list:
    """For each position of an ``n x n`` kernel, the diagonal entry TF 2.4's
    ``RadialConstraint`` copies there: the ring at distance ``d`` from the centre
    takes ``kernel[s - 1 + d]`` (odd ``n``, ``s = n // 2``) or, around the 2x2 core
    ``kernel[s - 1]``, ``kernel[s + d]`` (even ``n``)."""
    s = n // 2

    def dist(i):
        if n % 2:
            return abs(i - s)
        return 0 if i in (s - 1, s) else (s - 1 - i if i < s - 1 else i - s)

    def src(d):
        return s - 1 + d if n % 2 else (s - 1 if d == 0 else s + d)

    return [[[src(max(dist(i), dist(j)))] * 2 for j in range(n)] for i in range(n)]


@public(_NS)
class RadialConstraint(Constraint):
    """Makes each ``Conv2D`` kernel slice constant on square rings around its centre.

    Each ring takes the value of one diagonal entry of the kernel, as TF 2.4's
    ``RadialConstraint`` does.

    Raises:
      ValueError: If the weight is not rank 4 (``[height, width, channels, filters]``).
    """

    def __call__(self, w):
        shape = tuple(w.shape)
        if len(shape) != 4:
            raise ValueError(f"The weight tensor must be of rank 4, but is of shape: "
                             f"{w.shape}")
        if shape[0] < 2:  # TF's kernel[start - 1:start] slice is empty here
            raise ValueError(f"RadialConstraint needs a kernel of height >= 2, got "
                             f"{w.shape}")
        return gather_nd(w, _radial_source(int(shape[0])))


_CLASSES = {"Constraint": Constraint, "MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm,
            "MinMaxNorm": MinMaxNorm, "RadialConstraint": RadialConstraint,
            "radial_constraint": RadialConstraint, "max_norm": MaxNorm, "non_neg": NonNeg,
            "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm}


@public(_NS)
def serialize(constraint) -> dict:
    """The ``{'class_name', 'config'}`` dict of a constraint.

    Args:
      constraint: A Keras constraint instance.

    Returns:
      A dict.
    """
    return {"class_name": type(constraint).__name__, "config": constraint.get_config()}


@public(_NS)
def deserialize(config, custom_objects=None):
    """A constraint from ``serialize``'s output or a name.

    Args:
      config: A ``{'class_name', 'config'}`` dict as ``serialize`` returns (or a name).
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      A new constraint.

    Raises:
      ValueError: For an unknown name.
    """
    return deserialize_object(config, _CLASSES, custom_objects, "constraint")


@public(_NS)
def get(identifier):
    """A constraint from None, a name, a config dict or a callable.

    Args:
      identifier: A name, a config dict, a constraint instance or a callable.

    Returns:
      A constraint (instances and callables are returned as they are).

    Raises:
      ValueError: If ``identifier`` cannot be interpreted.
    """
    return get_object(identifier, deserialize, "constraint")
