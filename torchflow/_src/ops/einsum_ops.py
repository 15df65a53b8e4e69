"""Tensor contractions: einsum and tensordot."""

from __future__ import annotations

import torch

from torchflow._src.core.errors import translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import int_list, int_value, tensor_list
from torchflow._src.util.api import public


@public("torchflow")
def einsum(equation, *inputs, **kwargs) -> Tensor:
    """Tensor contraction in Einstein notation, e.g. ``"ij,jk->ik"``.

    Raises:
      InvalidArgumentError: For mismatched dtypes or an invalid equation.

    >>> import torchflow as tf
    >>> tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4])).shape
    TensorShape([2, 4])
    """
    kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for einsum: {', '.join(kwargs)}")
    if not inputs:
        raise ValueError("einsum: at least one input is required")
    xs = tensor_list(inputs, "Einsum")
    d = xs[0]._dtype
    try:
        ts = [x._t for x in xs]
        if d.is_integer and ts[0].device.type == "cuda":
            # CUDA has no integer matmul; compute exactly in float64 where it fits.
            out = torch.einsum(equation.replace(" ", ""), *[t.double() for t in ts]).round()
            return wrap(out.to(d._torch), d)
        return wrap(torch.einsum(equation.replace(" ", ""), *ts), d)
    except Exception as e:  # noqa: BLE001
        raise translate("Einsum", e) from None


@public("torchflow")
def tensordot(a, b, axes, name=None) -> Tensor:
    """Contracts ``a`` and ``b`` over the given axes.

    Args:
      a: A Tensor.
      b: A Tensor of the same dtype.
      axes: An int N (last N axes of ``a`` with first N of ``b``), or a pair
        of axis lists.
      name: Unused (eager).

    Returns:
      The contracted Tensor.

    Raises:
      ValueError: For axes that do not fit.
      InvalidArgumentError: For mismatched dtypes or dimensions.
    """
    x, y = tensor_list([a, b], "MatMul")
    d = x._dtype
    if isinstance(axes, (list, tuple)) and len(axes) == 2 and not all(
            isinstance(v, int) for v in axes):
        ax = (int_list(axes[0], "axes"), int_list(axes[1], "axes"))
        if len(ax[0]) != len(ax[1]):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(ax[0])} "
                             f"!= {len(ax[1])}.")
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        ax = ([axes[0]], [axes[1]])
    else:
        n = int_value(axes, "axes")
        if n < 0 or n > x._t.ndim or n > y._t.ndim:
            raise ValueError(f"`axes` must be at most the rank of `a` and `b`, got {n}")
        ax = n
    try:
        xt, yt = x._t, y._t
        if d.is_integer and xt.device.type == "cuda":
            return wrap(torch.tensordot(xt.double(), yt.double(), ax).round().to(d._torch), d)  # pyright: ignore[reportArgumentType] - torch's stub types dims as int; pairs of lists work
        return wrap(torch.tensordot(xt, yt, ax), d)  # pyright: ignore[reportArgumentType] - torch's stub types dims as int; pairs of lists work
    except Exception as e:  # noqa: BLE001
        raise translate("MatMul", e) from None


__all__ = ["einsum", "tensordot"]
