"""Scans along one axis: ``tf.math.cumsum``, ``cumprod``, ``cumulative_logsumexp``,
and the monotonicity checks ``is_non_decreasing`` / ``is_strictly_increasing``."""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
from torchflow._src.ops.reduction_ops import _axis_list
from torchflow._src.util.api import public

_SCAN_TYPES = mc.ALL_NUM


def _scan(op, x, axis, exclusive, reverse, fn, identity, allowed):
    x = tensor_arg(x)
    d = x._dtype
    if d._name not in allowed:
        raise mc.bad_type(op, d, allowed)
    a = _axis_list(op, axis)
    if len(a) != 1:
        raise InvalidArgumentError(None, None, f"ScanOp: axis must be a scalar [Op:{op}]")
    a = a[0]
    t = x._t
    nd = t.ndim
    if not -nd <= a < nd:
        raise InvalidArgumentError(
            None, None, f"ScanOp: Expected scan axis in the range [{-nd}, {nd}), but got {a} "
            f"[Op:{op}]"
        )
    a %= nd
    wide = d._name in mc.NARROW
    if wide:
        t = t.to(torch.int64)
    if reverse:
        t = torch.flip(t, (a,))
    if exclusive and t.shape[a] > 0:
        shape = list(t.shape)
        shape[a] = 1
        head = torch.full(shape, identity, dtype=t.dtype, device=t.device)
        t = torch.cat([head, t.narrow(a, 0, t.shape[a] - 1)], a)
    r = fn(t, a)
    if reverse:
        r = torch.flip(r, (a,))
    return wrap(mc.narrow(r, d) if wide else r, d)


_SCAN_DOC = """{summary}

    Args:
      x: A numeric tensor.
      axis: The axis to scan along (default 0); an int or scalar int tensor.
      exclusive: If True, element i of the result excludes element i of ``x``.
      reverse: If True, scans from the end.
      name: Unused (eager).

    Returns:
      A tensor of ``x``'s dtype and shape.

    Raises:
      InvalidArgumentError: If the axis is out of range or the dtype is not supported.
"""


@public("torchflow.math")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    return _scan("Cumsum", x, axis, exclusive, reverse,
                 lambda t, a: torch.cumsum(t, a, dtype=t.dtype), 0, _SCAN_TYPES)


@public("torchflow.math")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    return _scan("Cumprod", x, axis, exclusive, reverse,
                 lambda t, a: torch.cumprod(t, a, dtype=t.dtype), 1, _SCAN_TYPES)


@public("torchflow.math")
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    return _scan("CumulativeLogsumexp", x, axis, exclusive, reverse, torch.logcumsumexp,
                 float("-inf"), mc.FLOATS)


cumsum.__doc__ = _SCAN_DOC.format(summary="Computes the cumulative sum along ``axis``.") + """
    >>> import torchflow as tf
    >>> tf.math.cumsum(tf.constant([1, 2, 3]), exclusive=True).numpy()
    array([0, 1, 3], dtype=int32)
"""
cumprod.__doc__ = _SCAN_DOC.format(summary="Computes the cumulative product along ``axis``.")
cumulative_logsumexp.__doc__ = _SCAN_DOC.format(
    summary="Computes ``log(cumsum(exp(x)))`` along ``axis``, stably.")


def _monotone(x, strict, what):
    x = tensor_arg(x)
    d = x._dtype
    if d._kind == "c":
        raise mc.bad_type("Less", d, mc.ALL_REAL)
    if d._kind not in "fiu":
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    t = x._t.reshape(-1)
    if d._name in mc.NARROW:
        t = mc.order_key(t, d)
    if t.numel() < 2:
        return wrap(torch.tensor(True, device=t.device), dtypes.bool)
    diff = t[1:] > t[:-1] if strict else t[1:] >= t[:-1]
    return wrap(torch.all(diff), dtypes.bool)


@public("torchflow.math")
def is_non_decreasing(x, name=None) -> Tensor:
    """Returns True if ``x`` (flattened) is non-decreasing (True for < 2 elements).

    Args:
      x: A real numeric tensor.
      name: Unused (eager).

    Returns:
      A bool scalar tensor.

    Raises:
      TypeError: If ``x`` is not numeric.
    """
    return _monotone(x, False, "is_non_decreasing")


@public("torchflow.math")
def is_strictly_increasing(x, name=None) -> Tensor:
    """Returns True if ``x`` (flattened) is strictly increasing (True for < 2 elements).

    Args:
      x: A real numeric tensor.
      name: Unused (eager).

    Returns:
      A bool scalar tensor.

    Raises:
      TypeError: If ``x`` is not numeric.
    """
    return _monotone(x, True, "is_strictly_increasing")
