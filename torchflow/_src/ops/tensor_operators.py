"""Python operators on ``tf.Tensor`` with TF 2.4 semantics (installed on import).

``+ - * / // % **`` follow ``tf.math.add/subtract/multiply/truediv/floordiv/
floormod/pow``; ``@`` is ``tf.linalg.matmul``; ``& | ^ ~`` are logical for bool
tensors and bitwise for integers; ``< <= > >=`` compare; ``==``/``!=`` are
elementwise (``tf.math.equal`` with ``incompatible_shape_error=False``: shapes
that do not broadcast give a scalar False/True) and comparing with ``None``
gives ``False``/``True``. A Python scalar on either side takes the tensor's
dtype. When the other operand cannot be converted and defines the reflected
operator (a tensor-like object of another library), that operator is tried,
as TF does.
"""
# This module assigns Tensor's operator methods (install()); the checker sees only the
# class body, where they are not declared.
# pyright: reportAttributeAccessIssue=false

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import comparison_ops as cmp
from torchflow._src.ops import math_ops as m
from torchflow._src.ops import unary_math_ops as um
from torchflow._src.ops._dispatch import scalar_operand, wrap
from torchflow._src.ops.linalg_ops import matmul as linalg_matmul

_BOOL = dtypes.bool
_PLAIN = (int, float, bool, complex, str, bytes, list, tuple, type(None))


def _forward(fn, rname):
    def op(self, other):
        try:
            return fn(self, other)
        except (TypeError, ValueError):
            if type(other) in _PLAIN or isinstance(other, Tensor):
                raise
            r = getattr(type(other), rname, None)
            if r is None:
                raise
            out = r(other, self)
            if out is NotImplemented:
                raise
            return out

    return op


_SCALARS = (int, float, bool)
_STRING = dtypes.string


# The full reflected ops. A Python scalar on the left would need a tensor made for it
# (~2 us); commutative ops swap their operands instead and ``s - t`` uses torch.rsub.
def _radd(self, other):
    if type(other) in _SCALARS and self._dtype is not _STRING:
        return m.add(self, other)
    return m.add(other, self)


def _rmul(self, other):
    if type(other) in _SCALARS:
        return _mul(self, other)
    return _mul(other, self)


def _rsub(self, other):
    if type(other) in _SCALARS:
        return m.rsub_scalar(self, other)
    return m.subtract(other, self)


def _fast_reflected(torch_fn, kinds, slow):
    """``other OP self`` with an inline path for a Python number and a tensor of
    ``kinds`` (the optimizer arithmetic ``0.9 * m``, ``1 - b ** t``); everything
    else takes the full reflected op (``slow``)."""

    def rop(self, other):
        to = type(other)
        if (to is float or to is int) and self._dtype._kind in kinds:
            return wrap(torch_fn(scalar_operand(other, self._t), self._t), self._dtype)
        return slow(self, other)

    return rop


def _neg(self):
    if self._dtype._kind == "f":
        return wrap(torch.neg(self._t), self._dtype)
    return um.negative(self)


def _reflected(fn):
    def rop(self, other):
        return fn(other, self)

    return rop


def matmul(a, b):
    """``a @ b`` through ``tf.linalg.matmul``."""
    return linalg_matmul(a, b)


def _mul(x, y):
    # Newer TF treats bool * bool as logical AND; TF 2.4 raised. Accepting it costs nothing.
    t = x if isinstance(x, Tensor) else y
    if isinstance(t, Tensor) and t._dtype is _BOOL:
        return cmp.logical_and(x, y)
    return m.multiply(x, y)


def _and(x, y):
    t = x if isinstance(x, Tensor) else y
    if isinstance(t, Tensor) and t._dtype is _BOOL:
        return cmp.logical_and(x, y)
    return cmp.bitwise_and(x, y)


def _or(x, y):
    t = x if isinstance(x, Tensor) else y
    if isinstance(t, Tensor) and t._dtype is _BOOL:
        return cmp.logical_or(x, y)
    return cmp.bitwise_or(x, y)


def _xor(x, y):
    t = x if isinstance(x, Tensor) else y
    if isinstance(t, Tensor) and t._dtype is _BOOL:
        return cmp.logical_xor(x, y)
    return cmp.bitwise_xor(x, y)


def _invert(x):
    if x._dtype is _BOOL:
        return cmp.logical_not(x)
    return cmp.invert(x)


def _eq(self, other):
    if other is None:
        return False
    return cmp.equal_op("Equal", torch.eq, _np_eq, self, other, incompatible_shape_error=False)


def _ne(self, other):
    if other is None:
        return True
    return cmp.equal_op("NotEqual", torch.ne, _np_ne, self, other, incompatible_shape_error=False)


def _np_eq(a, b):
    return np.equal(a, b)


def _np_ne(a, b):
    return np.not_equal(a, b)


def _fast(torch_fn, kinds, slow):
    """``self OP other`` with an inline path for the common cases (same-dtype tensors or
    variables, or a Python number with a floating tensor); everything else, errors
    included, takes the full op (``slow``)."""

    def op(self, other):
        d = self._dtype
        k = d._kind
        if k in kinds:
            to = type(other)
            if to is not Tensor and to is not float and to is not int:
                if not isinstance(other, Variable):
                    return slow(self, other)
                other = other._tf_value(None)  # read once (AutoCastVariable casts here)
                to = type(other)
            if to is Tensor:
                if other._dtype is d:
                    try:
                        return wrap(torch_fn(self._t, other._t), d)
                    except Exception:  # noqa: BLE001 - the full op raises TF's error
                        pass
            elif (to is float or to is int) and (k == "f" or k == "c"):
                return wrap(torch_fn(self._t, scalar_operand(other, self._t)), d)
        return slow(self, other)

    return op


_BINARY = {
    "add": m.add,
    "sub": m.subtract,
    "mul": _mul,
    "truediv": m.truediv,
    "div": m.truediv,
    "floordiv": m.floordiv,
    "mod": m.floormod,
    "pow": m.pow,
    "matmul": matmul,
    "and": _and,
    "or": _or,
    "xor": _xor,
}


_FAST = (("add", torch.add, "fiuc"), ("sub", torch.sub, "fiuc"), ("mul", torch.mul, "fiuc"),
         ("truediv", torch.div, "fc"), ("pow", torch.pow, "fc"))


def install() -> None:
    """Installs the operators on ``Tensor`` (idempotent)."""
    for name, fn in _BINARY.items():
        setattr(Tensor, f"__{name}__", _forward(fn, f"__r{name}__"))
        setattr(Tensor, f"__r{name}__", _reflected(fn))
    for name, torch_fn, kinds in _FAST:
        slow = _forward(_BINARY[name], f"__r{name}__")
        setattr(Tensor, f"__{name}__", _fast(torch_fn, kinds, slow))
    Tensor.__radd__ = _fast_reflected(torch.add, "fc", _radd)
    Tensor.__rmul__ = _fast_reflected(torch.mul, "fc", _rmul)
    Tensor.__rsub__ = _fast_reflected(torch.sub, "fc", _rsub)
    Tensor.__rtruediv__ = Tensor.__rdiv__ = _fast_reflected(torch.div, "fc",
                                                            _reflected(m.truediv))
    Tensor.__rpow__ = _fast_reflected(torch.pow, "f", _reflected(m.pow))
    Tensor.__lt__ = cmp.less
    Tensor.__le__ = cmp.less_equal
    Tensor.__gt__ = cmp.greater
    Tensor.__ge__ = cmp.greater_equal
    Tensor.__eq__ = _eq
    Tensor.__ne__ = _ne
    Tensor.__neg__ = _neg
    Tensor.__abs__ = um.abs
    Tensor.__invert__ = _invert



install()
