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


def _make_order(pub, op, fn, sym):
    allowed = mc.ALL_REAL

    def impl(x, y, name=None):
        if type(x) in COMPOSITE or type(y) in COMPOSITE:  # tf.RaggedTensor operands
            return _composite(impl, x, y)
        a, b, d = binary(op, x, y)
        if d._name not in allowed:
            raise mc.bad_type(op, d, allowed)
        try:
            return wrap(fn(a, b), _BOOL)
        except Exception as e:  # noqa: BLE001 - translated to a TF error
            return _compare_wide(op, fn, a, b, d, e)

    impl.__name__ = impl.__qualname__ = pub
    impl.__doc__ = f"""Returns the truth value of ``x {sym} y`` elementwise (TF's ``{op}``).

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
    return public("torchflow.math")(impl)


less = _make_order("less", "Less", torch.lt, "<")
less_equal = _make_order("less_equal", "LessEqual", torch.le, "<=")
greater = _make_order("greater", "Greater", torch.gt, ">")
greater_equal = _make_order("greater_equal", "GreaterEqual", torch.ge, ">=")


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


def _make_logical(pub, op, fn, summary):
    def impl(x, y, name=None):
        if type(x) in COMPOSITE or type(y) in COMPOSITE:  # tf.RaggedTensor operands
            return _composite(impl, x, y)
        a, b = _bool_args(op, x, y)
        try:
            return wrap(fn(a, b), _BOOL)
        except Exception as e:  # noqa: BLE001 - translated to a TF error
            raise mc.op_failure(op, e, a, b) from None

    impl.__name__ = impl.__qualname__ = pub
    impl.__doc__ = f"""{summary}, broadcasting.

    Args:
      x: A bool Tensor.
      y: A bool Tensor.
      name: Unused (eager).

    Returns:
      A bool Tensor.

    Raises:
      InvalidArgumentError: If an input is not bool or the shapes do not broadcast.
    """
    return public("torchflow.math")(impl)


logical_and = _make_logical("logical_and", "LogicalAnd", torch.logical_and,
                            "Returns ``x AND y`` elementwise")
logical_or = _make_logical("logical_or", "LogicalOr", torch.logical_or,
                           "Returns ``x OR y`` elementwise")
logical_xor = _make_logical("logical_xor", "LogicalXor", torch.logical_xor,
                            "Returns ``x XOR y`` elementwise")


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


def _make_bitwise(pub, op, fn, summary):
    allowed = mc.INTS

    def impl(x, y, name=None):
        a, b, d = binary(op, x, y)
        if d._name not in allowed:
            raise mc.bad_type(op, d, allowed)
        try:
            return wrap(fn(a, b), d)
        except Exception as e:  # noqa: BLE001 - translated to a TF error
            if d._name in mc.NARROW:
                return wrap(mc.narrow(fn(mc.widen(a), mc.widen(b)), d), d)
            raise mc.op_failure(op, e, a, b) from None

    impl.__name__ = impl.__qualname__ = pub
    impl.__doc__ = f"""{summary} (TF's ``{op}``), broadcasting.

    Args:
      x: An integer Tensor.
      y: A Tensor of the same dtype as ``x``, or a Python int that fits it.
      name: Unused (eager).

    Returns:
      A Tensor of ``x``'s dtype.

    Raises:
      InvalidArgumentError: If the dtypes differ or are not integers.
    """
    return public("torchflow.bitwise")(impl)


def _right_shift(a, b):
    return torch.bitwise_right_shift(a, b)


def _left_shift(a, b):
    return torch.bitwise_left_shift(a, b)


bitwise_and = _make_bitwise("bitwise_and", "BitwiseAnd", torch.bitwise_and,
                            "Returns the bitwise AND of ``x`` and ``y``")
bitwise_or = _make_bitwise("bitwise_or", "BitwiseOr", torch.bitwise_or,
                           "Returns the bitwise OR of ``x`` and ``y``")
bitwise_xor = _make_bitwise("bitwise_xor", "BitwiseXor", torch.bitwise_xor,
                            "Returns the bitwise XOR of ``x`` and ``y``")
left_shift = _make_bitwise("left_shift", "LeftShift", _left_shift,
                           "Shifts ``x`` left by ``y`` bits")
right_shift = _make_bitwise("right_shift", "RightShift", _right_shift,
                            "Shifts ``x`` right by ``y`` bits (arithmetic for signed types)")


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
