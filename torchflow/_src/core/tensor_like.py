"""``tf.types.experimental.TensorLike``: the values ops accept where a Tensor goes."""

from __future__ import annotations

from typing import Union

import numpy as np

from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable

TensorLike = Union[Tensor, Variable, int, float, bool, str, bytes, complex, tuple, list,
                   np.ndarray, np.generic]
TensorLike.__doc__ = """Anything convertible to a Tensor, for type annotations.

Tensors, Variables, Python scalars, strings and bytes, nested tuples and lists
of them, NumPy arrays and scalars (a ``typing.Union``; not a class to check
``isinstance`` against).

Args:
  None: it is a type for annotations (``def f(x: TensorLike)``), not called.
"""
TensorLike.__module__ = "torchflow.types.experimental"
