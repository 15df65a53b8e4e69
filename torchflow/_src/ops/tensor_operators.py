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

``+ - * / **`` (both ways) call ``_math_common.binary_op`` with their op's
arguments, so they take its one fast path (same-dtype tensors, a Python number
that converts to the tensor's dtype plainly, a Variable read once) with no call
in between; ``< <= > >= == !=`` take the same fast path through
``_math_common.compare_op`` and fall back to their ``tf.math`` function.
"""
# This module assigns Tensor's operator methods (install()); the checker sees only the
# class body, where they are not declared.
# pyright: reportAttributeAccessIssue=false

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops import comparison_ops as cmp
from torchflow._src.ops import math_ops as m
from torchflow._src.ops import unary_math_ops as um
from torchflow._src.ops._dispatch import wrap
from torchflow._src.ops.linalg_ops import matmul as linalg_matmul

_BOOL = dtypes.bool
_PLAIN = (int, float, bool, complex, str, bytes, list, tuple, type(None))
_STRING = dtypes.string
_binary_op = mc.binary_op
# ``==``'s fast path: every dtype torch compares (string tensors hold NumPy arrays).
_EQ_TYPES = mc.TypeSet(mc.NUMERIC, "bool")


def _forward(fn, rname):
    """``self OP other`` through ``fn`` (the operators without a class below)."""
    def op(self, other):
        try:
            return fn(self, other)
        except (TypeError, ValueError):
            return _reflect(self, other, rname)

    return op


def _reflect(self, other, rname):
    """``type(other).__rOP__(other, self)`` when ``self OP other`` failed to convert
    ``other``, a tensor-like of another library (a KerasTensor). Called from the
    operators' ``except`` blocks: a bare ``raise`` re-raises the error being handled."""
    if type(other) in _PLAIN or isinstance(other, Tensor):
        raise
    r = getattr(type(other), rname, None)
    if r is None:
        raise
    out = r(other, self)
    if out is NotImplemented:
        raise
    return out


class _Op:
    """``x OP y`` for the arithmetic operators: the call their ``tf.math`` op
    makes (same op name, torch function, dtypes), straight to ``_math_common.binary_op``,
    which holds the one fast path. Named after their ops: tf.debugging's numerics
    check and device-placement log name an op by its function (``result_hooks``).
    The op's arguments are bound as defaults (local reads, not module lookups: the
    operators are the hottest calls there are)."""

    @staticmethod
    def add(x, y, _op=_binary_op, _fn=torch.add, _types=m._ADD_TYPES,
            _other=m._string_add):
        try:
            return _op("AddV2", _fn, _types, x, y, _other)
        except (TypeError, ValueError):
            return _reflect(x, y, "__radd__")

    @staticmethod
    def sub(x, y, _op=_binary_op, _fn=torch.sub, _types=mc.ALL_NUM):
        try:
            return _op("Sub", _fn, _types, x, y)
        except (TypeError, ValueError):
            return _reflect(x, y, "__rsub__")

    @staticmethod
    def mul(x, y, _op=_binary_op, _fn=torch.mul, _types=mc.ALL_NUM):
        try:
            if x._dtype is _BOOL:  # see _mul
                return cmp.logical_and(x, y)
            return _op("Mul", _fn, _types, x, y)
        except (TypeError, ValueError):
            return _reflect(x, y, "__rmul__")

    @staticmethod
    def truediv(x, y, _op=_binary_op, _fn=torch.div, _types=mc.FLOATS_COMPLEX,
                _other=m._int_truediv):
        try:
            return _op("RealDiv", _fn, _types, x, y, _other)
        except (TypeError, ValueError):
            return _reflect(x, y, "__rtruediv__")

    @staticmethod
    def pow(x, y, _op=_binary_op, _fn=torch.pow, _types=mc.FLOATS_COMPLEX):
        try:
            if x._dtype._kind in "fc":  # tf.math.pow's _pow is torch.pow for these
                return _op("Pow", _fn, _types, x, y)
            return m.pow(x, y)
        except (TypeError, ValueError):
            return _reflect(x, y, "__rpow__")


    # Comparisons: _math_common.compare_op's fast path, else the tf.math function.
    @staticmethod
    def less(x, y, _op=mc.compare_op, _fn=torch.lt, _types=mc.ALL_REAL, _general=cmp.less):
        return _op(_fn, _types, x, y, _general)

    @staticmethod
    def less_equal(x, y, _op=mc.compare_op, _fn=torch.le, _types=mc.ALL_REAL,
                   _general=cmp.less_equal):
        return _op(_fn, _types, x, y, _general)

    @staticmethod
    def greater(x, y, _op=mc.compare_op, _fn=torch.gt, _types=mc.ALL_REAL,
                _general=cmp.greater):
        return _op(_fn, _types, x, y, _general)

    @staticmethod
    def greater_equal(x, y, _op=mc.compare_op, _fn=torch.ge, _types=mc.ALL_REAL,
                      _general=cmp.greater_equal):
        return _op(_fn, _types, x, y, _general)

    @staticmethod
    def equal(x, y, _op=mc.compare_op, _fn=torch.eq, _types=_EQ_TYPES):
        if y is None:
            return False
        return _op(_fn, _types, x, y, _eq)

    @staticmethod
    def not_equal(x, y, _op=mc.compare_op, _fn=torch.ne, _types=_EQ_TYPES):
        if y is None:
            return True
        return _op(_fn, _types, x, y, _ne)


class _ROp:
    """``y OP x`` (``Tensor.__rOP__``; ``x`` is the Tensor). A Python number on the left
    would need a tensor made for it (~2 us): commutative ops swap their operands,
    ``s - t`` uses torch.rsub, and ``s / t``, ``s ** t`` (floating ``t``) the reflected
    torch functions ``_math_common.rdiv``/``rpow``, all through ``binary_op``'s fast
    path. Arguments bound as in ``_Op``."""

    @staticmethod
    def add(x, y, _op=_binary_op, _fn=torch.add, _types=m._ADD_TYPES,
            _other=m._string_add):
        ty = type(y)
        if (ty is float or ty is int or ty is bool) and x._dtype is not _STRING:
            return _op("AddV2", _fn, _types, x, y, _other)
        return m.add(y, x)

    @staticmethod
    def mul(x, y, _op=_binary_op, _fn=torch.mul, _types=mc.ALL_NUM):
        ty = type(y)
        if ty is float or ty is int or ty is bool:
            if x._dtype is _BOOL:  # see _mul
                return cmp.logical_and(x, y)
            return _op("Mul", _fn, _types, x, y)
        return _mul(y, x)

    @staticmethod
    def sub(x, y, _op=_binary_op, _fn=torch.rsub, _types=mc.ALL_NUM):
        ty = type(y)
        if ty is float or ty is int or ty is bool:
            return _op("Sub", _fn, _types, x, y)
        return m.subtract(y, x)

    @staticmethod
    def truediv(x, y, _op=_binary_op, _fn=mc.rdiv, _types=mc.FLOATS_COMPLEX):
        ty = type(y)
        if (ty is float or ty is int) and x._dtype._kind in "fc":
            return _op("RealDiv", _fn, _types, x, y)
        return m.truediv(y, x)

    @staticmethod
    def pow(x, y, _op=_binary_op, _fn=mc.rpow, _types=mc.FLOATS):
        ty = type(y)
        if (ty is float or ty is int) and x._dtype._kind == "f":
            return _op("Pow", _fn, _types, x, y)
        return m.pow(y, x)


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


# The operators other than + - * / ** (those are _Op's and _ROp's).
_BINARY = {
    "floordiv": m.floordiv,
    "mod": m.floormod,
    "matmul": matmul,
    "and": _and,
    "or": _or,
    "xor": _xor,
}


def install() -> None:
    """Installs the operators on ``Tensor`` (idempotent)."""
    for name, fn in _BINARY.items():
        setattr(Tensor, f"__{name}__", _forward(fn, f"__r{name}__"))
        setattr(Tensor, f"__r{name}__", _reflected(fn))
    Tensor.__add__, Tensor.__radd__ = _Op.add, _ROp.add
    Tensor.__sub__, Tensor.__rsub__ = _Op.sub, _ROp.sub
    Tensor.__mul__, Tensor.__rmul__ = _Op.mul, _ROp.mul
    Tensor.__truediv__ = Tensor.__div__ = _Op.truediv
    Tensor.__rtruediv__ = Tensor.__rdiv__ = _ROp.truediv
    Tensor.__pow__, Tensor.__rpow__ = _Op.pow, _ROp.pow
    Tensor.__lt__, Tensor.__le__ = _Op.less, _Op.less_equal
    Tensor.__gt__, Tensor.__ge__ = _Op.greater, _Op.greater_equal
    Tensor.__eq__, Tensor.__ne__ = _Op.equal, _Op.not_equal
    Tensor.__neg__ = _neg
    Tensor.__abs__ = um.abs
    Tensor.__invert__ = _invert


install()
