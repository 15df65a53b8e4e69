"""Elementwise math, comparisons, reductions and other ``tf.math`` ops."""

from __future__ import annotations

import torch

from torchflow._src.ops._dispatch import Tensor, binary, translate, wrap
from torchflow._src.util.api import public


@public("torchflow.math")
def add(x, y, name=None) -> Tensor:
    """Returns ``x + y`` elementwise, broadcasting (TF's ``AddV2``).

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or the shapes do not broadcast.

    >>> import torchflow as tf
    >>> tf.add(tf.constant([1, 2]), 3).numpy()
    array([4, 5], dtype=int32)
    """
    a, b, d = binary("AddV2", x, y)
    try:
        return wrap(torch.add(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("AddV2", e) from None
