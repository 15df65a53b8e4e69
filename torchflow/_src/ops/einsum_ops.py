"""Tensor contractions: einsum and tensordot."""

from __future__ import annotations

import re

import numpy as np
import torch

from torchflow._src.core.errors import InvalidArgumentError, dims, translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import int_list, int_value, tensor_list
from torchflow._src.util.api import public


@public("torchflow")
def einsum(equation, *inputs, **kwargs) -> Tensor:
    """Tensor contraction in Einstein notation, e.g. ``"ij,jk->ik"``.

    Args:
      equation: str: comma-separated input subscripts, optionally ``->`` and the output
        subscripts; ``...`` stands for broadcast dimensions.
      *inputs: The tensors, one per input subscript, of one dtype.
      **kwargs: ``name`` (unused, eager) and ``optimize`` (accepted, ignored).

    Returns:
      A tensor of the inputs' dtype with the output subscripts' shape.

    Raises:
      ValueError: An equation of the wrong format, or for another number of inputs,
        or with an output label repeated or absent from the inputs.
      InvalidArgumentError: Mismatched dtypes, or inputs whose ranks or dimensions do
        not fit the equation.

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
    _check_equation(equation.replace(" ", ""), [tuple(x._t.shape) for x in xs])
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


_TERM = re.compile(r"[a-zA-Z]*(\.\.\.)?[a-zA-Z]*")


def _check_equation(eq: str, shapes: list) -> None:
    """TF's errors for a bad equation (ValueError, as its parser) or operands that do not
    fit it (InvalidArgumentError, as the Einsum kernel); torch would broadcast size-1
    labels and word the rest its own way."""
    lhs, _, out = eq.partition("->")
    terms = lhs.split(",")
    if "->" in out or not all(_TERM.fullmatch(t) for t in terms + [out]):
        raise ValueError(f"Subscripts have incorrect format: {eq}")
    if len(terms) != len(shapes):
        raise ValueError(f'Got {len(shapes)} inputs for equation "{eq}", expecting '
                         f"{len(terms)}")
    labels = out.replace(".", "")
    if len(set(labels)) != len(labels):
        raise ValueError(f"Output subscripts contain a label appearing more than once: {eq}")
    for c in labels:
        if c not in lhs:
            raise ValueError(f"Output subscripts contain the label {c} not present in the "
                             f"input subscripts.")
    seen, batch = {}, []
    for i, (t, shape) in enumerate(zip(terms, shapes)):
        head, dots, tail = t.partition("...")
        k = len(head) + len(tail)
        if len(shape) != k if not dots else len(shape) < k:
            raise InvalidArgumentError(None, None, f"Expected input {i} to have rank "
                                                   f"{'at least ' if dots else ''}{k} but got: "
                                                   f"{len(shape)} [Op:Einsum]")
        if dots:
            batch.append(shape[len(head):len(shape) - len(tail)])
            try:
                np.broadcast_shapes(*batch)
            except ValueError:
                raise InvalidArgumentError(
                    None, None, f"In[0] and In[1] must have compatible batch dimensions: "
                                f"{dims(batch[0])} vs. {dims(batch[-1])} [Op:Einsum]") from None
        axes = list(enumerate(head)) + [(len(shape) - len(tail) + j, c)
                                        for j, c in enumerate(tail)]
        for axis, c in axes:
            want = seen.setdefault(c, shape[axis])
            if shape[axis] != want:
                raise InvalidArgumentError(
                    None, None, f"Expected dimension {want} at axis {axis} of the input shaped "
                                f"{dims(shape)} but got dimension {shape[axis]} [Op:Einsum]")


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
