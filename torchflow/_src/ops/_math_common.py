"""Shared pieces of the ``tf.math`` op family: the binary-op helper, dtype sets, TF
errors, unsigned widening.

Every elementwise op of ``tf.math`` is a plain ``def`` that calls
:func:`binary_op` or :func:`unary_op` with its TF op name, its torch function and
the dtypes its TF kernel accepts; those two hold the fast path and the dtype
checks (JAX's ``_src/numpy/ufuncs.py`` over ``lax`` is the model).

Dtype checks compare ``DType._name`` against frozensets of names: a string hash
is cached, so the check costs a few tens of nanoseconds on the hot path.

Unsigned 16/32/64-bit tensors: torch stores them but has few kernels for them.
Ops compute on them by widening to int64 and narrowing the result back. ``uint64``
values above ``2**63 - 1`` keep their bits: modular ops (add, subtract, multiply,
bitwise, sum, cumsum) are exact, ordering ops (comparisons, maximum/minimum,
reduce_max/min, argmax/argmin, top_k, segment max/min) compare keys with the sign
bit flipped and are exact too; division, modulo and mean of such values are not.
"""

from __future__ import annotations

from typing import Callable

import torch

from torchflow._src.core import dtypes
from torchflow._src.core import tensor as _tensor_module
from torchflow._src.core.errors import InvalidArgumentError, NotFoundError, dims, translate
from torchflow._src.core.variables import Variable
from torchflow._src.ops._dispatch import (
    COMPOSITE,
    NARROW_UNSIGNED,
    Tensor,
    binary,
    number_operand,
    tensor_arg,
    tf_type_name,
    wrap,
)

FLOAT = ("bfloat16", "float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
SINT = ("int8", "int16", "int32", "int64")
UINT = ("uint8", "uint16", "uint32", "uint64")
INT = SINT + UINT
# Unsigned dtypes torch stores but has few kernels for (names: str hashes are cached).
NARROW = frozenset(d.name for d in NARROW_UNSIGNED)
REAL = FLOAT + INT
NUMERIC = REAL + COMPLEX


# A TypeSet's order (for messages) and flags, by the id of its frozenset (which the
# entry keeps alive, so the id is never reused).
_TYPESET_INFO: dict = {}
_TYPESETS: dict = {}


def TypeSet(*groups, ordered: bool = False, listed: frozenset | None = None
            ) -> frozenset:
    """Allowed dtype names for an op attr, keeping TF's order for messages.

    A plain ``frozenset`` of dtype names: the ops test ``d._name in allowed`` on
    their hot path, which costs ~19 ns for a frozenset and ~31 ns for any subclass
    of it (a subclass's ``in`` goes through a generic slot). The order and the
    flags live beside it (:func:`type_order`, :func:`type_ordered`,
    :func:`type_listed`); equal arguments give the same set.

    Args:
      *groups: Dtype names, or tuples or TypeSets of them, in TF's order.
      ordered: The op orders its inputs (maximum, minimum), so uint64 values are
        compared by order keys.
      listed: The dtypes TF's OpDef lists when wider than these (the rest have no
        kernel: TF raises ``NotFoundError`` for them).

    Returns:
      The frozenset of names.
    """
    names = tuple(n for g in groups for n in (
        (g,) if isinstance(g, str) else type_order(g) if isinstance(g, frozenset) else g))
    key = (names, ordered, None if listed is None else id(listed))
    s = _TYPESETS.get(key)
    if s is None:
        s = _TYPESETS[key] = frozenset(names)
        _TYPESET_INFO[id(s)] = (s, names, ordered, listed)
    return s


def _info(allowed: frozenset) -> tuple:
    info = _TYPESET_INFO.get(id(allowed))
    if info is None:  # a set made by set operations on TypeSets: no order of its own
        return allowed, tuple(sorted(allowed)), False, None
    return info


def type_order(allowed: frozenset) -> tuple:
    """The names of ``allowed`` in TF's order (for messages)."""
    return _info(allowed)[1]


def type_ordered(allowed: frozenset) -> bool:
    """Whether the op of ``allowed`` compares uint64 values by order keys."""
    return _info(allowed)[2]


def type_listed(allowed: frozenset) -> frozenset | None:
    """The wider dtype set TF's OpDef lists (the rest of it has no kernel), or None."""
    return _info(allowed)[3]


FLOATS = TypeSet(FLOAT)
FLOATS_COMPLEX = TypeSet(FLOAT, COMPLEX)
SIGNED_NUM = TypeSet(FLOAT, SINT, COMPLEX)
SIGNED_REAL = TypeSet(FLOAT, SINT)
ALL_NUM = TypeSet(FLOAT, UINT, SINT, COMPLEX)
ALL_REAL = TypeSet(FLOAT, INT)
INTS = TypeSet(SINT, UINT)

_NAN = float("nan")


def bad_type(op: str, d: dtypes.DType, allowed: frozenset, attr: str = "T"
             ) -> InvalidArgumentError:
    """TF's OpDef-level rejection of a dtype (``allowed``: a ``TypeSet``)."""
    names = ", ".join(tf_type_name(dtypes.as_dtype(n)) for n in type_order(allowed))
    return InvalidArgumentError(
        None,
        None,
        f"Value for attr '{attr}' of {tf_type_name(d)} is not in the list of allowed values: "
        f"{names}\n\t; NodeDef: {{{{node {op}}}}} [Op:{op}]",
    )


def no_kernel(op: str, d: dtypes.DType) -> NotFoundError:
    """TF's error when the OpDef allows a dtype but no kernel is registered for it."""
    return NotFoundError(
        None,
        None,
        f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_{d.name.upper()}] "
        f"[Op:{op}]",
    )


def shape_of(x) -> str:
    return dims(x.shape) if isinstance(x, torch.Tensor) else "[]"  # TF's "[2,3]"


def op_failure(op: str, e: BaseException, a=None, b=None) -> Exception:
    """Turns a torch failure inside a binary op into TF's error."""
    text = str(e)
    if "must match the size" in text or "broadcast" in text:
        return InvalidArgumentError(
            None, None, f"Incompatible shapes: {shape_of(a)} vs. {shape_of(b)} [Op:{op}]"
        )
    if "ZeroDivision" in text or "division by zero" in text:
        return InvalidArgumentError(None, None, f"Integer division by zero [Op:{op}]")
    return translate(op, e)


def widen(x):
    """int64 view of a narrow-unsigned torch tensor (Python scalars pass through)."""
    return x.to(torch.int64) if isinstance(x, torch.Tensor) else x


def narrow(t: torch.Tensor, d: dtypes.DType) -> torch.Tensor:
    """Casts an int64 result back to ``d``'s torch dtype (two's complement wrap)."""
    if d is dtypes.uint64:
        return t.view(torch.uint64) if t.dtype == torch.int64 else t.to(torch.uint64)
    return t.to(d._torch)


_SIGN = -(2**63)


def order_key(x, d: dtypes.DType):
    """An int64 value that orders like ``x`` does as ``d`` (uint64: flip the sign bit)."""
    if d._name != "uint64":
        return widen(x)
    if isinstance(x, torch.Tensor):
        return x.view(torch.int64) ^ _SIGN
    return x + _SIGN


def from_order_key(k: torch.Tensor, d: dtypes.DType) -> torch.Tensor:
    """Inverse of ``order_key`` for results that are values (max, min, top_k)."""
    if d._name != "uint64":
        return narrow(k, d)
    return (k ^ _SIGN).view(torch.uint64)


def is_narrow_unsigned(d: dtypes.DType) -> bool:
    return d._name in NARROW


def as_torch_scalar(b, like: torch.Tensor):
    """A Python scalar as a 0-d tensor like ``like`` (for torch functions that need tensors)."""
    if isinstance(b, torch.Tensor):
        return b
    return torch.tensor(b, dtype=like.dtype, device=like.device)


def retry_wide(op: str, fn, a, b, d: dtypes.DType, e: BaseException, ordered: bool):
    """Second chance for narrow unsigned dtypes torch has no kernel for, else TF's error.

    ``ordered`` ops (maximum, minimum) compare the order keys of uint64 values.
    """
    if ordered and d._name in NARROW:
        try:
            return wrap(from_order_key(fn(order_key(a, d), order_key(b, d)), d), d)
        except Exception as e2:  # noqa: BLE001 - translated to a TF error
            raise op_failure(op, e2, a, b) from None
    if d._name in NARROW:
        try:
            r = fn(widen(a), widen(b))
        except Exception as e2:  # noqa: BLE001 - translated to a TF error
            raise op_failure(op, e2, a, b) from None
        if r.dtype == torch.bool:
            return wrap(r, dtypes.bool)
        return wrap(narrow(r, d), d)
    raise op_failure(op, e, a, b) from None


def rdiv(a, b):
    """``b / a``: the torch function of the reflected ``/`` (``2.0 / x``)."""
    return torch.div(as_torch_scalar(b, a), a)


def rpow(a, b):
    """``b ** a``: the torch function of the reflected ``**`` (``2.0 ** x``)."""
    return torch.pow(as_torch_scalar(b, a), a)


# torch functions for which a Python number may be passed as a cached 0-d tensor of the
# other operand's dtype (``scalar_operand``) with the same result: plain arithmetic.
# Not maximum/minimum (clamp_min/clamp_max for numbers: TF's gradient at ties).
_SCALAR_OPERAND_FNS = frozenset((torch.add, torch.sub, torch.rsub, torch.mul, torch.div,
                                 torch.pow, rdiv, rpow))
_new = object.__new__
_BOOL = dtypes.bool


# The composite (tf.RaggedTensor) branches live outside binary_op/unary_op: a lambda
# there would make their arguments closure cells, which every call pays for.
def _composite_binary(op, fn, allowed, x, y, other):
    h = COMPOSITE.get(type(x)) or COMPOSITE[type(y)]
    return h.elementwise(lambda a, b: binary_op(op, fn, allowed, a, b, other), x, y)


def _composite_unary(op, fn, allowed, x, out):
    h = COMPOSITE[type(x)]
    if hasattr(h, "unary_op"):  # tf.SparseTensor: only TF's zero-preserving ops, by name
        return h.unary_op(op, lambda a: unary_op(op, fn, allowed, a, out), x)
    return h.unary(lambda a: unary_op(op, fn, allowed, a, out), x)


def binary_op(op: str, fn: Callable, allowed: frozenset, x, y,  # noqa: C901 - one flat dispatch on the hot path
              other: Callable | None = None) -> Tensor:
    """Runs the torch function ``fn`` as TF's binary op ``op`` on ``x`` and ``y``.

    The one path every elementwise binary op takes, ``tf.math``'s functions and
    ``Tensor``'s operators alike. The fast path: two Tensors of one dtype in
    ``allowed`` go straight to ``fn`` (no conversion, one set lookup), as does a
    Tensor with a Python ``float``/``int`` that converts to its dtype plainly (a
    float or int for a floating or complex dtype, an int in range for an integer
    one) when ``fn`` is plain arithmetic (the number as a cached 0-d tensor, see
    ``_dispatch.number_operand``); a Variable is read once first. Anything else
    goes through ``_dispatch.binary`` (Python numbers and NumPy values take the
    tensor's dtype; TF's no-promotion rule) and TF's dtype check. A torch failure
    is retried in int64 for narrow unsigned dtypes and otherwise becomes TF's
    error.

    Args:
      op: TF's op name, used in error messages (``"AddV2"``).
      fn: ``fn(a, b)`` on torch tensors (``b`` may be a Python number).
      allowed: The dtypes the op computes (see ``TypeSet`` for ``ordered`` and
        ``listed``).
      x: The first input.
      y: The second input.
      other: ``other(a, b, dtype)`` computes the op for a dtype outside
        ``allowed`` (string concatenation, integer true division) or raises.

    Returns:
      The result Tensor (of the inputs' dtype unless ``fn`` or ``other`` decides).

    Raises:
      InvalidArgumentError: Different dtypes, a dtype the op does not accept, or
        shapes that do not broadcast.
      NotFoundError: A dtype TF's OpDef lists but has no kernel for.
      TypeError: A Python value that does not fit the tensor's dtype.
    """
    # Positional parameters only: keyword-only ones cost ~30 ns a call here. The result
    # is made as tensor.wrap makes it, inline: one call fewer on the hot path.
    if type(x) is Tensor:
        d = x._dtype
        ty = type(y)
        if ty is not Tensor and ty is not float and ty is not int and isinstance(y, Variable):
            y = y._tf_value(None)  # read once (an AutoCastVariable casts here)
            ty = type(y)
        if ty is Tensor:
            if y._dtype is d:
                if d._name in allowed:
                    try:
                        t = fn(x._t, y._t)
                    except Exception:  # noqa: BLE001 - the general path below raises TF's error
                        pass
                    else:
                        r = _new(Tensor)
                        r._t = t
                        r._dtype = d
                        if _tensor_module._result_hook is not None:
                            _tensor_module._result_hook(r)
                        return r
                elif other is not None:  # what the general path would do (string +)
                    return other(x._t, y._t, d)
        elif ty is float or ty is int:
            if fn in _SCALAR_OPERAND_FNS and d._name in allowed:
                s = number_operand(y, x._t, d)
                if s is not None:
                    try:
                        t = fn(x._t, s)
                    except Exception:  # noqa: BLE001 - the general path below raises TF's error
                        pass
                    else:
                        r = _new(Tensor)
                        r._t = t
                        r._dtype = d
                        if _tensor_module._result_hook is not None:
                            _tensor_module._result_hook(r)
                        return r
    if type(x) in COMPOSITE or type(y) in COMPOSITE:  # tf.RaggedTensor operands
        return _composite_binary(op, fn, allowed, x, y, other)
    a, b, d = binary(op, x, y)
    if d._name not in allowed:
        if other is not None:
            return other(a, b, d)
        listed = type_listed(allowed)
        if listed is not None and d._name in listed:
            raise no_kernel(op, d)
        raise bad_type(op, d, allowed if listed is None else listed)
    try:
        return wrap(fn(a, b), d)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        return retry_wide(op, fn, a, b, d, e, type_ordered(allowed))


def compare_op(fn: Callable, allowed: frozenset, x, y, general: Callable) -> Tensor:
    """``fn(x, y)`` as a TF comparison (a bool Tensor), on ``binary_op``'s fast path.

    Two Tensors of one dtype in ``allowed``, or a Tensor with a Python
    ``float``/``int`` that converts to its dtype plainly (``number_operand``), go
    straight to the torch comparison ``fn``; everything else, a torch failure
    included (shapes that do not broadcast, dtypes without a kernel), is
    ``general(x, y)``: the op's full function, which converts, checks and raises
    TF's errors.

    Args:
      fn: The torch comparison (``torch.gt``).
      allowed: The dtypes the fast path may take.
      x: The first input.
      y: The second input.
      general: ``general(x, y)`` computes the op in every case.

    Returns:
      The bool result Tensor.
    """
    if type(x) is Tensor:
        d = x._dtype
        ty = type(y)
        s = None
        if ty is Tensor:
            if y._dtype is d and d._name in allowed:
                s = y._t
        elif (ty is float or ty is int) and d._name in allowed:
            s = number_operand(y, x._t, d)
        if s is not None:
            try:
                t = fn(x._t, s)
            except Exception:  # noqa: BLE001 - the general path raises TF's error
                pass
            else:
                r = _new(Tensor)  # tensor.wrap, inline (see binary_op)
                r._t = t
                r._dtype = _BOOL
                if _tensor_module._result_hook is not None:
                    _tensor_module._result_hook(r)
                return r
    return general(x, y)


def unary_op(op: str, fn: Callable, allowed: frozenset, x, out: dtypes.DType | None = None
             ) -> Tensor:
    """Runs the torch function ``fn`` as TF's unary op ``op`` on ``x``.

    The one path every elementwise unary ``tf.math`` op takes: converts ``x``
    (a Tensor passes as is), checks its dtype against ``allowed`` and turns a
    torch failure into TF's error.

    Args:
      op: TF's op name, used in error messages (``"Exp"``).
      fn: ``fn(t)`` on the torch tensor.
      allowed: The dtypes the op accepts.
      x: The input.
      out: The result dtype when it is not ``x``'s (``bool`` for ``is_nan``).

    Returns:
      The result Tensor.

    Raises:
      InvalidArgumentError: A dtype the op does not accept.
    """
    if type(x) is not Tensor:
        if type(x) in COMPOSITE:  # tf.RaggedTensor
            return _composite_unary(op, fn, allowed, x, out)
        x = tensor_arg(x)
    d = x._dtype
    if d._name not in allowed:
        raise bad_type(op, d, allowed)
    try:
        t = fn(x._t)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None
    r = _new(Tensor)  # tensor.wrap, inline (see binary_op)
    r._t = t
    r._dtype = d if out is None else out
    if _tensor_module._result_hook is not None:
        _tensor_module._result_hook(r)
    return r
