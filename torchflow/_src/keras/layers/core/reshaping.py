"""Shape-only layers: ``Flatten``, ``Reshape``, ``Permute``, ``RepeatVector``."""

from __future__ import annotations

import numpy as np

from torchflow._src.core.tensor import executing_eagerly
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.array_ops import expand_dims, reshape, stack, tile, transpose
from torchflow._src.ops.shape_ops import shape
from torchflow._src.util.api import public


def _dynamic_batch(inputs) -> bool:
    """Whether a traced call takes its sizes from ``tf.shape`` (as TF's layers do for
    unknown dims): a trace sees its call's sizes, not the signature's, so reading them
    as ints would pin the recording to them. Batch 0 keeps static sizes: a -1 cannot be
    inferred from an empty tensor (and size 0 records on its own)."""
    return not executing_eagerly() and inputs.shape[0] != 0


@public("torchflow.keras.layers")
class Flatten(Layer):
    """Flattens all but the batch dimension (channels-first inputs are first moved to
    channels-last order, as tf.keras does).

    Args:
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``tf.keras.backend.image_data_format()``.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

    >>> import torchflow as tf
    >>> tf.keras.layers.Flatten()(tf.ones([2, 3, 4])).shape
    TensorShape([2, 12])
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = U.normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        rank = inputs.shape.rank
        if self.data_format == "channels_first" and rank > 2:
            inputs = transpose(inputs, [0] + list(range(2, rank)) + [1])
        if rank == 1:
            return expand_dims(inputs, 1)
        if _dynamic_batch(inputs):
            return reshape(inputs, stack([shape(inputs)[0], -1]))
        inner = inputs.shape.as_list()[1:]
        n = int(np.prod(inner)) if None not in inner else 0
        if n > 0:  # the batch size stays out of the graph (a SavedModel takes any batch)
            return reshape(inputs, [-1, n])
        return reshape(inputs, [inputs.shape[0], -1])

    def compute_output_shape(self, input_shape):
        s = TensorShape(input_shape).as_list()
        rest = s[1:]
        n = None if any(d is None for d in rest) else int(np.prod(rest)) if rest else 1
        return TensorShape([s[0], n])

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


@public("torchflow.keras.layers")
class Reshape(Layer):
    """Reshapes the non-batch dimensions to ``target_shape`` (one entry may be -1).

    Args:
      target_shape: A tuple of ints: the output shape without the batch dimension; one entry
        may be -1.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        target = list(self.target_shape)
        if _dynamic_batch(inputs):
            return reshape(inputs, stack([shape(inputs)[0]] + target))
        inner = inputs.shape.as_list()[1:]
        known = int(np.prod([t for t in target if t != -1]))
        if target.count(-1) == 1 and None not in inner and known > 0 and \
                int(np.prod(inner)) % known == 0:  # the -1 is static: keep the batch out
            target[target.index(-1)] = int(np.prod(inner)) // known
        if -1 not in target and None not in inner and \
                int(np.prod(target)) == int(np.prod(inner)) > 0:
            return reshape(inputs, [-1] + target)  # as Flatten: no batch size in the graph
        return reshape(inputs, [inputs.shape[0]] + target)

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = self.target_shape
        return config


@public("torchflow.keras.layers")
class Permute(Layer):
    """Permutes the non-batch dimensions; ``dims`` is 1-indexed (``(2, 1)`` swaps them).

    Args:
      dims: A tuple of ints: the permutation of the non-batch dimensions, 1-indexed.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

    Raises:
      ValueError: If ``dims`` is not a permutation of ``1..len(dims)``.
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set "
                             f"of indices in `dims` must be consecutive and start from 1. "
                             f"Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return transpose(inputs, [0] + list(self.dims))

    def get_config(self):
        config = super().get_config()
        config["dims"] = self.dims
        return config


@public("torchflow.keras.layers")
class RepeatVector(Layer):
    """Repeats a ``(batch, features)`` input ``n`` times: ``(batch, n, features)``.

    Args:
      n: Positive int: how many times to repeat.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return tile(expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self):
        config = super().get_config()
        config["n"] = self.n
        return config
