"""Merge layers (``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``,
``Minimum``, ``Concatenate``, ``Dot``) and their functional forms."""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.ops.array_ops import concat, expand_dims, stack
from torchflow._src.ops.creation_ops import cast, ones_like
from torchflow._src.ops.einsum_ops import einsum
from torchflow._src.ops.math_ops import maximum, minimum
from torchflow._src.ops.reduction_ops import l2_normalize, reduce_all
from torchflow._src.util.api import public

_NS = "torchflow.keras.layers"


class _Merge(Layer):
    """Elementwise merge of a list of tensors (broadcasting lower-rank inputs)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 2:
            raise ValueError(f"A merge layer should be called on a list of at least 2 "
                             f"inputs. Got {len(input_shape) if isinstance(input_shape, (list, tuple)) else 1} inputs.")

    def build(self, input_shape):
        self._check(input_shape)
        self.built = True

    def _merge_function(self, inputs):
        raise NotImplementedError

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError("A merge layer should be called on a list of inputs.")
        ranks = [x.shape.rank for x in inputs]
        if len(set(ranks)) > 1:
            top = max(ranks)
            inputs = list(inputs)
            for i, x in enumerate(inputs):
                for _ in range(top - x.shape.rank):
                    x = expand_dims(x, 1)
                inputs[i] = x
        return self._merge_function(list(inputs))

    def compute_mask(self, inputs, mask=None):
        if mask is None or all(m is None for m in mask):
            return None
        masks = [expand_dims(m, 0) for m in mask if m is not None]
        return reduce_all(concat(masks, 0), axis=0)


def _reduce(fn, inputs):
    out = inputs[0]
    for x in inputs[1:]:
        out = fn(out, x)
    return out


@public(_NS)
class Add(_Merge):
    """Elementwise sum of a list of same-shape tensors.

    Args:
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def _merge_function(self, inputs):
        return _reduce(lambda a, b: a + b, inputs)


@public(_NS)
class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs).

    Args:
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def _check(self, input_shape):
        super()._check(input_shape)
        if len(input_shape) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. "
                             f"Received: input_shape={input_shape}")

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")
        return inputs[0] - inputs[1]


@public(_NS)
class Multiply(_Merge):
    """Elementwise product of a list of tensors.

    Args:
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def _merge_function(self, inputs):
        return _reduce(lambda a, b: a * b, inputs)


@public(_NS)
class Average(_Merge):
    """Elementwise mean of a list of tensors.

    Args:
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def _merge_function(self, inputs):
        return _reduce(lambda a, b: a + b, inputs) / cast(len(inputs), inputs[0].dtype)


@public(_NS)
class Maximum(_Merge):
    """Elementwise maximum of a list of tensors.

    Args:
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def _merge_function(self, inputs):
        return _reduce(maximum, inputs)


@public(_NS)
class Minimum(_Merge):
    """Elementwise minimum of a list of tensors.

    Args:
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def _merge_function(self, inputs):
        return _reduce(minimum, inputs)


@public(_NS)
class Concatenate(_Merge):
    """Concatenates a list of tensors along ``axis`` (default -1).

    Args:
      axis: int, default -1: the concatenation axis.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape):
        self._check(input_shape)
        shapes = [TensorShape(s).as_list() for s in input_shape]
        if len({len(s) for s in shapes}) != 1:
            raise ValueError(f"A `Concatenate` layer requires inputs with matching shapes "
                             f"except for the concatenation axis. Received: input_shape="
                             f"{input_shape}")
        rank = len(shapes[0])
        ax = self.axis % rank
        for d in range(rank):
            if d == ax:
                continue
            sizes = {s[d] for s in shapes if s[d] is not None}
            if len(sizes) > 1:
                raise ValueError(f"A `Concatenate` layer requires inputs with matching shapes "
                                 f"except for the concatenation axis. Received: input_shape="
                                 f"{input_shape}")
        self.built = True

    def _merge_function(self, inputs):
        return concat(inputs, axis=self.axis)

    def compute_mask(self, inputs, mask=None):
        if mask is None or all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(cast(ones_like(x), "bool"))
            elif m.shape.rank < x.shape.rank:
                masks.append(expand_dims(m, -1))
            else:
                masks.append(m)
        return reduce_all(concat(masks, axis=self.axis), axis=-1)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


_LETTERS = "cdefghijklmnopqrstuvwxyz"


def _batch_dot(x, y, ax_x, ax_y):
    rx, ry = x.shape.rank, y.shape.rank
    xs = ["b"] + [_LETTERS[i] for i in range(rx - 1)]
    ys = ["b"] + [_LETTERS[rx - 1 + i] for i in range(ry - 1)]
    ys[ax_y] = xs[ax_x]
    out = [c for i, c in enumerate(xs) if i != ax_x] + [c for i, c in enumerate(ys)
                                                          if i not in (0, ax_y)]
    res = einsum(f"{''.join(xs)},{''.join(ys)}->{''.join(out)}", x, y)
    return expand_dims(res, 1) if len(out) == 1 else res


@public(_NS)
class Dot(_Merge):
    """Batched dot product of two tensors along ``axes`` (an int or a pair).

    Args:
      axes: The axis (or one axis per input) to contract; batch axis excluded.
      normalize: L2-normalise both inputs along ``axes`` first (cosine proximity).
    """

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)) or len(axes) != 2 or \
                    not all(isinstance(a, int) for a in axes):
                raise ValueError(f"Invalid format for argument `axes`: list of length 2 or int "
                                 f"expected. Received: axes={axes}")
            axes = list(axes)
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True

    def _check(self, input_shape):
        super()._check(input_shape)
        if len(input_shape) != 2:
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. "
                             f"Received: input_shape={input_shape}")

    def _axes_for(self, x, y):
        axes = [self.axes, self.axes] if isinstance(self.axes, int) else self.axes
        return [a % t.shape.rank if a < 0 else a for a, t in zip(axes, (x, y))]

    def _merge_function(self, inputs):
        x, y = inputs
        ax, ay = self._axes_for(x, y)
        if self.normalize:
            x = l2_normalize(x, axis=ax)
            y = l2_normalize(y, axis=ay)
        return _batch_dot(x, y, ax, ay)

    def call(self, inputs):
        if len(inputs) != 2:
            raise ValueError("A `Dot` layer should be called on exactly 2 inputs")
        return self._merge_function(list(inputs))

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


@public(_NS)
def add(inputs, **kwargs):
    """Functional form of ``Add``: ``Add(**kwargs)(inputs)``.

    Args:
      inputs: A list of tensors (two or more, same shape unless said otherwise).
      kwargs: Arguments for the layer's constructor (``name`` ...).

    Returns:
      The merged tensor (a ``KerasTensor`` for symbolic inputs).
    """
    return Add(**kwargs)(inputs)


@public(_NS)
def subtract(inputs, **kwargs):
    """Functional form of ``Subtract``.

    Args:
      inputs: A list of exactly two tensors of one shape.
      kwargs: Arguments for the layer's constructor (``name`` ...).

    Returns:
      The merged tensor (a ``KerasTensor`` for symbolic inputs).
    """
    return Subtract(**kwargs)(inputs)


@public(_NS)
def multiply(inputs, **kwargs):
    """Functional form of ``Multiply``.

    Args:
      inputs: A list of tensors (two or more, same shape unless said otherwise).
      kwargs: Arguments for the layer's constructor (``name`` ...).

    Returns:
      The merged tensor (a ``KerasTensor`` for symbolic inputs).
    """
    return Multiply(**kwargs)(inputs)


@public(_NS)
def average(inputs, **kwargs):
    """Functional form of ``Average``.

    Args:
      inputs: A list of tensors (two or more, same shape unless said otherwise).
      kwargs: Arguments for the layer's constructor (``name`` ...).

    Returns:
      The merged tensor (a ``KerasTensor`` for symbolic inputs).
    """
    return Average(**kwargs)(inputs)


@public(_NS)
def maximum_(inputs, **kwargs):
    """Functional form of ``Maximum``.

    Args:
      inputs: A list of tensors of one shape.
      **kwargs: Arguments for the layer's constructor (``name`` ...).

    Returns:
      The elementwise maximum (a ``KerasTensor`` for symbolic inputs).
    """
    return Maximum(**kwargs)(inputs)


@public(_NS)
def minimum_(inputs, **kwargs):
    """Functional form of ``Minimum``.

    Args:
      inputs: A list of tensors of one shape.
      **kwargs: Arguments for the layer's constructor (``name`` ...).

    Returns:
      The elementwise minimum (a ``KerasTensor`` for symbolic inputs).
    """
    return Minimum(**kwargs)(inputs)


@public(_NS)
def concatenate(inputs, axis=-1, **kwargs):
    """Functional form of ``Concatenate``.

    Args:
      inputs: A list of tensors equal in every dimension except ``axis``.
      axis: int, default -1: the concatenation axis.
      kwargs: Arguments for the layer's constructor (``name`` ...).

    Returns:
      The merged tensor (a ``KerasTensor`` for symbolic inputs).
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


@public(_NS)
def dot(inputs, axes, normalize=False, **kwargs):
    """Functional form of ``Dot``.

    Args:
      inputs: A list of two tensors.
      axes: An int or a pair of ints: the axes the dot product is taken over.
      normalize: bool, default False: L2-normalise along ``axes`` first (cosine proximity).
      kwargs: Arguments for the layer's constructor (``name`` ...).

    Returns:
      The merged tensor (a ``KerasTensor`` for symbolic inputs).
    """
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)


maximum_.__name__ = maximum_.__qualname__ = "maximum"
minimum_.__name__ = minimum_.__qualname__ = "minimum"
del stack
