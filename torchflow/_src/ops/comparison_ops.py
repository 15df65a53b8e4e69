"""Comparisons, logical ops and bitwise ops (``tf.math.equal``, ``tf.math.logical_and``,
``tf.bitwise.*``): elementwise, broadcasting, bool results for comparisons."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError, dims
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import (
    COMPOSITE,
    Tensor,
    binary,
    dtype_error,
    tensor_arg,
    wrap,
)
from torchflow._src.util.api import public

_BOOL = dtypes.bool
_STRING = dtypes.string


def _compare_wide(op, fn, a, b, d, e):
    if d._name in mc.NARROW:
        try:
            return wrap(fn(mc.order_key(a, d), mc.order_key(b, d)), _BOOL)
        except Exception as e2:  # noqa: BLE001 - translated to a TF error
            raise mc.op_failure(op, e2, a, b) from None
    raise mc.op_failure(op, e, a, b) from None


def _string_compare(op, np_fn, a, b):
    try:
        r = np_fn(a, b)
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"Incompatible shapes: {dims(np.shape(a))} vs. {dims(np.shape(b))} [Op:{op}]"
        ) from None
    return wrap(torch.from_numpy(np.asarray(r, dtype=bool)), _BOOL)


def _broadcastable(a, b) -> bool:
    sa = a.shape if isinstance(a, (torch.Tensor, np.ndarray)) else ()
    sb = b.shape if isinstance(b, (torch.Tensor, np.ndarray)) else ()
    for x, y in zip(reversed(sa), reversed(sb)):
        if x != y and x != 1 and y != 1:
            return False
    return True


def _composite(fn, x, y):
    """``fn(x, y)`` computed by the handler of a composite operand (tf.RaggedTensor)."""
    h = COMPOSITE.get(type(x)) or COMPOSITE[type(y)]
    return h.elementwise(fn, x, y)


def equal_op(op, fn, np_fn, x, y, incompatible_shape_error=True):
    """``equal``/``not_equal``; shapes that do not broadcast give a scalar False/True
    when ``incompatible_shape_error`` is False (what ``==`` and ``!=`` use)."""
    a, b, d = binary(op, x, y)
    try:
        if d is _STRING:
            return _string_compare(op, np_fn, a, b)
        return wrap(fn(a, b), _BOOL)
    except Exception as e:
        if not incompatible_shape_error and not _broadcastable(a, b):
            dev = a.device if isinstance(a, torch.Tensor) else None
            return wrap(torch.tensor(op == "NotEqual", device=dev), _BOOL)
        if d is _STRING:
            raise
        return _compare_wide(op, fn, a, b, d, e)


@public("torchflow.math")
def equal(x, y, name=None) -> Tensor:
    """Returns the truth value of ``x == y`` elementwise, broadcasting (any dtype).

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python value that fits it.
      name: Unused (eager).

    Returns:
      A bool Tensor.

    Raises:
      InvalidArgumentError: If the dtypes differ or the shapes do not broadcast.

    >>> import torchflow as tf
    >>> tf.equal(tf.constant([1, 2]), 2).numpy()
    array([False,  True])
    """
    if type(x) in COMPOSITE or type(y) in COMPOSITE:  # tf.RaggedTensor operands
        return _composite(equal, x, y)
    a, b, d = binary("Equal", x, y)
    if d is _STRING:
        return _string_compare("Equal", np.equal, a, b)
    try:
        return wrap(torch.eq(a, b), _BOOL)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        return _compare_wide("Equal", torch.eq, a, b, d, e)


@public("torchflow.math")
def not_equal(x, y, name=None) -> Tensor:
    """Returns the truth value of ``x != y`` elementwise, broadcasting (any dtype).

    Args:
      x: A Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python value that fits it.
      name: Unused (eager).

    Returns:
      A bool Tensor.

    Raises:
      InvalidArgumentError: If the dtypes differ or the shapes do not broadcast.
    """
    if type(x) in COMPOSITE or type(y) in COMPOSITE:  # tf.RaggedTensor operands
        return _composite(not_equal, x, y)
    a, b, d = binary("NotEqual", x, y)
    if d is _STRING:
        return _string_compare("NotEqual", np.not_equal, a, b)
    try:
        return wrap(torch.ne(a, b), _BOOL)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        return _compare_wide("NotEqual", torch.ne, a, b, d, e)


def _order(op, fn, public_fn, x, y) -> Tensor:
    """The ordering comparisons' shared body: TF's real-number check, then ``fn``."""
    tx = type(x)
    if tx is Tensor and type(y) is Tensor:  # the common case, without binary()'s call
        d = x._dtype
        if y._dtype is d and d._name in mc.ALL_REAL:
            a, b = x._t, y._t
            try:
                return wrap(fn(a, b), _BOOL)
            except Exception as e:  # noqa: BLE001 - translated to a TF error
                return _compare_wide(op, fn, a, b, d, e)
    elif tx in COMPOSITE or type(y) in COMPOSITE:  # tf.RaggedTensor operands
        return _composite(public_fn, x, y)
    a, b, d = binary(op, x, y)
    if d._name not in mc.ALL_REAL:
        raise mc.bad_type(op, d, mc.ALL_REAL)
    try:
        return wrap(fn(a, b), _BOOL)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        return _compare_wide(op, fn, a, b, d, e)


@public("torchflow.math")
def less(x, y, name=None) -> Tensor:
    """Returns the truth value of ``x < y`` elementwise (TF's ``Less``).

    Args:
      x: A real Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A bool Tensor, broadcasting ``x`` and ``y``.

    Raises:
      InvalidArgumentError: If the dtypes differ, are not real numbers, or the
        shapes do not broadcast.
    """
    return _order("Less", torch.lt, less, x, y)


@public("torchflow.math")
def less_equal(x, y, name=None) -> Tensor:
    """Returns the truth value of ``x <= y`` elementwise (TF's ``LessEqual``).

    Args:
      x: A real Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A bool Tensor, broadcasting ``x`` and ``y``.

    Raises:
      InvalidArgumentError: If the dtypes differ, are not real numbers, or the
        shapes do not broadcast.
    """
    return _order("LessEqual", torch.le, less_equal, x, y)


@public("torchflow.math")
def greater(x, y, name=None) -> Tensor:
    """Returns the truth value of ``x > y`` elementwise (TF's ``Greater``).

    Args:
      x: A real Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A bool Tensor, broadcasting ``x`` and ``y``.

    Raises:
      InvalidArgumentError: If the dtypes differ, are not real numbers, or the
        shapes do not broadcast.
    """
    return _order("Greater", torch.gt, greater, x, y)


@public("torchflow.math")
def greater_equal(x, y, name=None) -> Tensor:
    """Returns the truth value of ``x >= y`` elementwise (TF's ``GreaterEqual``).

    Args:
      x: A real Tensor (or value convertible to one).
      y: A Tensor of the same dtype as ``x``, or a Python scalar that fits it.
      name: Unused (eager).

    Returns:
      A bool Tensor, broadcasting ``x`` and ``y``.

    Raises:
      InvalidArgumentError: If the dtypes differ, are not real numbers, or the
        shapes do not broadcast.
    """
    return _order("GreaterEqual", torch.ge, greater_equal, x, y)


def _bool_args(op, x, y):
    if type(x) is not Tensor:
        x = tensor_arg(x, _BOOL)
    if type(y) is not Tensor:
        y = tensor_arg(y, _BOOL)
    if x._dtype is not _BOOL:
        raise dtype_error(op, 0, _BOOL, x._dtype)
    if y._dtype is not _BOOL:
        raise dtype_error(op, 1, _BOOL, y._dtype)
    return x._t, y._t


def _logical(op, fn, public_fn, x, y) -> Tensor:
    """The binary logical ops' shared body: both operands bool, then ``fn``."""
    tx = type(x)
    if tx is Tensor and type(y) is Tensor and x._dtype is _BOOL and y._dtype is _BOOL:
        a, b = x._t, y._t
    elif tx in COMPOSITE or type(y) in COMPOSITE:  # tf.RaggedTensor operands
        return _composite(public_fn, x, y)
    else:
        a, b = _bool_args(op, x, y)
    try:
        return wrap(fn(a, b), _BOOL)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise mc.op_failure(op, e, a, b) from None


@public("torchflow.math")
def logical_and(x, y, name=None) -> Tensor:
    """Returns ``x AND y`` elementwise, broadcasting (TF's ``LogicalAnd``).

    Args:
      x: A bool Tensor.
      y: A bool Tensor.
      name: Unused (eager).

    Returns:
      A bool Tensor.

    Raises:
      InvalidArgumentError: If an input is not bool or the shapes do not broadcast.
    """
    return _logical("LogicalAnd", torch.logical_and, logical_and, x, y)


@public("torchflow.math")
def logical_or(x, y, name=None) -> Tensor:
    """Returns ``x OR y`` elementwise, broadcasting (TF's ``LogicalOr``).

    Args:
      x: A bool Tensor.
      y: A bool Tensor.
      name: Unused (eager).

    Returns:
      A bool Tensor.

    Raises:
      InvalidArgumentError: If an input is not bool or the shapes do not broadcast.
    """
    return _logical("LogicalOr", torch.logical_or, logical_or, x, y)


@public("torchflow.math")
def logical_xor(x, y, name=None) -> Tensor:
    """Returns ``x XOR y`` elementwise, broadcasting (TF's ``LogicalXor``).

    Args:
      x: A bool Tensor.
      y: A bool Tensor.
      name: Unused (eager).

    Returns:
      A bool Tensor.

    Raises:
      InvalidArgumentError: If an input is not bool or the shapes do not broadcast.
    """
    return _logical("LogicalXor", torch.logical_xor, logical_xor, x, y)


@public("torchflow.math")
def logical_not(x, name=None) -> Tensor:
    """Returns ``NOT x`` elementwise.

    Args:
      x: A bool Tensor.
      name: Unused (eager).

    Returns:
      A bool Tensor.

    Raises:
      InvalidArgumentError: If ``x`` is not bool.
    """
    if type(x) is not Tensor:
        if type(x) in COMPOSITE:  # tf.RaggedTensor
            return COMPOSITE[type(x)].unary(logical_not, x)
        x = tensor_arg(x, _BOOL)
    if x._dtype is not _BOOL:
        raise dtype_error("LogicalNot", 0, _BOOL, x._dtype)
    return wrap(torch.logical_not(x._t), _BOOL)


def _bitwise(op, fn, x, y) -> Tensor:
    """The binary bitwise ops' shared body: integer operands of one dtype, then ``fn``
    (int8/int16/uint types widened where torch has no kernel)."""
    if type(x) is Tensor and type(y) is Tensor and x._dtype is y._dtype:
        a, b, d = x._t, y._t, x._dtype
    else:
        a, b, d = binary(op, x, y)
    if d._name not in mc.INTS:
        raise mc.bad_type(op, d, mc.INTS)
    try:
        return wrap(fn(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        if d._name in mc.NARROW:
            return wrap(mc.narrow(fn(mc.widen(a), mc.widen(b)), d), d)
        raise mc.op_failure(op, e, a, b) from None


@public("torchflow.bitwise")
def bitwise_and(x, y, name=None) -> Tensor:
    """Returns the bitwise AND of ``x`` and ``y`` (TF's ``BitwiseAnd``), broadcasting.

    Args:
      x: An integer Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python int that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not integers.
    """
    return _bitwise("BitwiseAnd", torch.bitwise_and, x, y)


@public("torchflow.bitwise")
def bitwise_or(x, y, name=None) -> Tensor:
    """Returns the bitwise OR of ``x`` and ``y`` (TF's ``BitwiseOr``), broadcasting.

    Args:
      x: An integer Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python int that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not integers.
    """
    return _bitwise("BitwiseOr", torch.bitwise_or, x, y)


@public("torchflow.bitwise")
def bitwise_xor(x, y, name=None) -> Tensor:
    """Returns the bitwise XOR of ``x`` and ``y`` (TF's ``BitwiseXor``), broadcasting.

    Args:
      x: An integer Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python int that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not integers.
    """
    return _bitwise("BitwiseXor", torch.bitwise_xor, x, y)


@public("torchflow.bitwise")
def left_shift(x, y, name=None) -> Tensor:
    """Shifts ``x`` left by ``y`` bits (TF's ``LeftShift``), broadcasting.

    Args:
      x: An integer Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python int that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not integers.
    """
    return _bitwise("LeftShift", torch.bitwise_left_shift, x, y)


@public("torchflow.bitwise")
def right_shift(x, y, name=None) -> Tensor:
    """Shifts ``x`` right by ``y`` bits (arithmetic for signed types) (TF's ``RightShift``), broadcasting.

    Args:
      x: An integer Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python int that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not integers.
    """
    return _bitwise("RightShift", torch.bitwise_right_shift, x, y)


@public("torchflow.bitwise")
def invert(x, name=None) -> Tensor:
    """Flips all bits of an integer tensor (``~x``).

    Args:
      x: An integer Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If ``x`` is not an integer tensor.
    """
    x = tensor_arg(x)
    d = x._dtype
    if d._name not in mc.INTS:
        raise mc.bad_type("Invert", d, mc.INTS)
    t = x._t
    if d._name in mc.NARROW:
        return wrap(mc.narrow(torch.bitwise_not(t.to(torch.int64)), d), d)
    return wrap(torch.bitwise_not(t), d)
