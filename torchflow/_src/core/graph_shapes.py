"""Sizes as run-time values in recordings: ``tf.shape`` of an input-dependent tensor.

TF traces a signature with an unknown dimension once: ``tf.shape(x)`` is a node that
reads the size when the graph runs. Here a trace runs on real tensors, so the
recorder (``graph_trace``) keeps the same distinction itself:

- ``tf.shape`` / ``tf.size`` of a tensor the recording computes become *shape nodes*
  that read the size of that tensor on every replay. Their results, and what ops make
  of only them and constants, are *shape-only* tensors: values that depend on the
  inputs' sizes, never on the inputs' values (unless the shape is that of a tensor
  whose size depends on values, ``tf.boolean_mask``, ``tf.unique``: then the size is
  a value like any other).
- Reading a shape-only tensor into Python does not make the trace eager (as a value
  read does). ``.item()``/``.tolist()`` of an integer one give ``SymInt`` s: ints that
  remember the replay expression they came from, so that the ops they are given to
  (``reshape``, ``zeros``, ``range``, ``fill``, ``sequence_mask``) replay with the
  current size. Where Python decides on such an int (a comparison, ``bool``) the
  recording holds a *guard*: the replay checks the decision still holds and, where it
  does not, the body traces again for these sizes (``StaleRecording``). Where it turns
  into a plain value (``int()``, ``str()``, NumPy) the guard pins the value itself,
  and other reads of a shape-only tensor (``.numpy()``, ``int(t)``) pin the tensor's
  value: such recordings hold for their own sizes only, as before.

A recording whose guard follows a side effect (a variable write, ``tf.print``) is not
used for other sizes: a guard failing there would run the effect twice.
"""

from __future__ import annotations

import numbers
import operator
import re
import threading
import weakref

import torch

_get_ident = threading.get_ident


class StaleRecording(Exception):
    """Internal: a replay's guard failed (the recording was made at other sizes)."""


def stale():
    raise StaleRecording()


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and bool(torch.equal(a, b))


def tensor_shape(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """What a shape node computes: the shape of ``t`` as a 1-D tensor."""
    return torch.tensor(tuple(t.shape), dtype=dtype, device=t.device)


def tensor_size(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """What a size node computes: the element count of ``t`` as a scalar tensor."""
    return torch.tensor(t.numel(), dtype=dtype, device=t.device)


# torch calls whose results have sizes that depend on the values of their inputs.
VALUE_SHAPED = frozenset({
    "nonzero", "masked_select", "unique", "unique_consecutive", "_unique", "_unique2",
    "argwhere", "repeat_interleave", "bincount", "nonzero_static", "tensor_split",
})


def value_shaped_index(args) -> bool:
    """Whether ``__getitem__`` arguments index with a bool tensor (a mask)."""
    idx = args[1] if len(args) > 1 else None
    items = idx if isinstance(idx, tuple) else (idx,)
    return any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in items)


def _operand(rec, x):
    """The replay expression of a comparison/arithmetic operand, or None."""
    if type(x) is SymInt:
        return x._expr if x._owner() is rec else None
    if type(x) is bool or type(x) is int:
        return repr(x)
    if isinstance(x, numbers.Integral):
        return repr(_plain(x))
    if isinstance(x, float) or isinstance(x, numbers.Real):
        v = float(x)
        return repr(v) if v == v and abs(v) != float("inf") else None
    return None


def add_guard(rec, cond: str) -> None:
    """Records a check that ``cond`` (an expression of the replay) is true."""
    rec.ns["_stale"] = stale
    rec.lines.append(f"if not ({cond}): _stale()")
    if rec.effects:
        rec.size_bound = True


def pin_tensor(rec, slot: str, t: torch.Tensor) -> None:
    """Records a check that the shape-only tensor ``slot`` has ``t``'s value again."""
    rec.ns["_same"] = _same
    add_guard(rec, f"_same({slot}, {rec._obj(t.detach().clone())})")


def _plain(x) -> int:
    return int.__int__(x) if isinstance(x, int) else int(x)


class SymInt(int):
    """An int read from a shape-only tensor while a function traces: it stands for
    the replay expression it came from (see the module docstring)."""

    _expr: str
    _rec: "weakref.ref"
    _lines: list

    def __new__(cls, value: int, expr: str, rec):
        self = int.__new__(cls, value)
        self._expr = expr
        self._rec = weakref.ref(rec)
        self._lines = rec.lines
        return self

    def _owner(self):
        """The recorder recording now that this int's expression is valid in, or
        None (after the trace, paused, another thread, another recorder, or code
        recorded apart: a branch of ``tf.cond`` made it and code after it uses it)."""
        r = self._rec()
        if r is None or r.done or r.paused or _get_ident() not in r.threads:
            return None
        if r.lines is not self._lines:
            r.size_bound = True  # the value is a literal of this recording now
            return None
        return r

    def expr_for(self, rec) -> str:
        """The replay expression of this int in ``rec``'s recording (its literal
        value where the expression is not valid there)."""
        return self._expr if self._owner() is rec else repr(_plain(self))

    # --- decisions: guarded ---------------------------------------------------
    def _decide(self, op, sym: str, other):
        res = op(_plain(self), _plain(other) if type(other) is SymInt else other)
        r = self._owner()
        if r is not None and res is not NotImplemented:
            oe = _operand(r, other)
            if oe is None:
                self._pin(r)
            else:
                add_guard(r, f"({self._expr} {sym} {oe}) is {bool(res)!r}")
        return res

    def __eq__(self, other):
        return self._decide(operator.eq, "==", other)

    def __ne__(self, other):
        return self._decide(operator.ne, "!=", other)

    def __lt__(self, other):
        return self._decide(operator.lt, "<", other)

    def __le__(self, other):
        return self._decide(operator.le, "<=", other)

    def __gt__(self, other):
        return self._decide(operator.gt, ">", other)

    def __ge__(self, other):
        return self._decide(operator.ge, ">=", other)

    __hash__ = int.__hash__

    def __bool__(self):
        r = self._owner()
        res = _plain(self) != 0
        if r is not None:
            add_guard(r, f"bool({self._expr}) is {res!r}")
        return res

    # --- arithmetic with ints: symbolic ---------------------------------------
    def _arith(self, op, fmt: str, other):
        if not isinstance(other, numbers.Integral) or type(other) is bool:
            return self._escape(op(_plain(self), other))
        res = op(_plain(self), _plain(other))
        r = self._owner()
        if r is None:
            return res
        oe = _operand(r, other)
        if oe is None:
            self._pin(r)
            return res
        return SymInt(res, fmt.format(a=self._expr, b=oe), r)

    def __add__(self, other):
        return self._arith(operator.add, "({a} + {b})", other)

    def __radd__(self, other):
        return self._arith(operator.add, "({b} + {a})", other)

    def __sub__(self, other):
        return self._arith(operator.sub, "({a} - {b})", other)

    def __rsub__(self, other):
        return self._arith(lambda a, b: b - a, "({b} - {a})", other)

    def __mul__(self, other):
        return self._arith(operator.mul, "({a} * {b})", other)

    def __rmul__(self, other):
        return self._arith(operator.mul, "({b} * {a})", other)

    def __floordiv__(self, other):
        return self._arith(operator.floordiv, "({a} // {b})", other)

    def __rfloordiv__(self, other):
        return self._arith(lambda a, b: b // a, "({b} // {a})", other)

    def __mod__(self, other):
        return self._arith(operator.mod, "({a} % {b})", other)

    def __rmod__(self, other):
        return self._arith(lambda a, b: b % a, "({b} % {a})", other)

    def __neg__(self):
        r = self._owner()
        v = -_plain(self)
        return SymInt(v, f"(-{self._expr})", r) if r is not None else v

    def __pos__(self):
        return self

    # --- conversions to plain values: pinned ----------------------------------
    def _pin(self, r) -> None:
        add_guard(r, f"{self._expr} == {_plain(self)!r}")

    def _escape(self, value):
        r = self._owner()
        if r is not None:
            self._pin(r)
        return value

    def __int__(self):
        return self._escape(int.__int__(self))

    def __index__(self):
        return self._escape(int.__index__(self))

    def __float__(self):
        return self._escape(int.__float__(self))

    def __truediv__(self, other):
        return self._escape(_plain(self) / other)

    def __rtruediv__(self, other):
        return self._escape(other / _plain(self))

    def __pow__(self, other, mod=None):
        return self._escape(pow(_plain(self), other, mod))

    def __abs__(self):
        return self._escape(abs(_plain(self)))

    def __str__(self):
        return self._escape(int.__repr__(self))

    __repr__ = __str__

    def __format__(self, spec):
        return self._escape(int.__format__(self, spec))

    def __reduce__(self):
        return (int, (int.__int__(self),))


def read(rec, func, name: str, args, kwargs, slot: str):
    """A Python read of shape-only tensor ``args[0]`` (recorded as ``slot``)."""
    t = args[0]
    out = func(*args, **kwargs)
    if name in ("item", "tolist") and not kwargs and len(args) == 1 and t.ndim <= 1 and \
            not t.is_floating_point() and not t.is_complex() and t.dtype != torch.bool:
        tmp = rec._fresh("t")
        rec.lines.append(f"{tmp} = {slot}.{name}()")
        if isinstance(out, list):
            return [SymInt(v, f"{tmp}[{k}]", rec) for k, v in enumerate(out)]
        return SymInt(out, tmp, rec)
    pin_tensor(rec, slot, t)
    return out


# --- following sizes through a recording --------------------------------------
def only_shapes(rec, x) -> bool:
    """Whether every input-dependent tensor in ``x`` is shape-only."""
    if isinstance(x, torch.Tensor):
        return id(x) in rec.shape_only or not rec._is_dynamic(x)
    tp = type(x)
    if tp in (tuple, list):
        return all(only_shapes(rec, e) for e in x)
    if tp is dict:
        return all(only_shapes(rec, e) for e in x.values())
    return True


def note_shapes(rec, name, args, kwargs, out, inplace: bool, random_ops) -> None:
    """Follows shape-only and value-sized tensors through one recorded call."""
    if isinstance(out, torch.Tensor):
        outs = [out]
    elif isinstance(out, (tuple, list)):
        outs = [e for e in out if isinstance(e, torch.Tensor)]
    else:
        outs = []
    if inplace and args and isinstance(args[0], torch.Tensor):
        outs.append(args[0])
    if not outs:
        return
    vshape = rec.vshape
    if name in VALUE_SHAPED or (
            name == "__getitem__" and value_shaped_index(args)) or (
            vshape and (_touches(vshape, args) or _touches(vshape, kwargs))):
        vshape.update(id(t) for t in outs)
    if rec.shape_only and name not in random_ops and "generator" not in kwargs and \
            only_shapes(rec, args) and only_shapes(rec, kwargs):
        rec.shape_only.update(id(t) for t in outs)
    elif inplace and args and isinstance(args[0], torch.Tensor):
        rec.shape_only.discard(id(args[0]))


def _touches(ids: set, x) -> bool:
    if isinstance(x, torch.Tensor):
        return id(x) in ids
    if type(x) in (tuple, list):
        return any(_touches(ids, e) for e in x)
    if type(x) is dict:
        return any(_touches(ids, e) for e in x.values())
    return False


def shape_node(rec, fn, src: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Records ``fn(src, dtype)`` (``tensor_shape``/``tensor_size``),
    which reads the size of ``src`` on every replay; returns its value now."""
    rec.paused += 1
    try:
        out = fn(src, dtype)
    finally:
        rec.paused -= 1
    rec._grad_line()
    call = rec._call_expr(rec._obj(fn), (src, dtype), {})
    rec.ops.append(("Shape", call))
    rec.lines.append(f"{rec._slot(out, True)} = {call}")
    if id(src) in rec.vshape:
        rec.vshape.add(id(out))  # a size that depends on values: a value
    else:
        rec.shape_only.add(id(out))
    return out


# --- comparing recordings made at two sizes -----------------------------------
def drop_idle_grad_toggles(lines: list) -> list:
    """``lines`` without adjacent ``_sg(a)``, ``_sg(not a)`` pairs (left where the
    constant made between them was folded): a no-op, which would make the first
    recording differ from later ones of the same code."""
    out: list = []
    for line in lines:
        if out and line.lstrip(" ").startswith("_sg(") and out[-1].lstrip(" ").startswith(
                "_sg(") and len(line) - len(line.lstrip(" ")) == \
                len(out[-1]) - len(out[-1].lstrip(" ")) and line != out[-1]:
            out.pop()
            continue
        out.append(line)
    return out


_NAME = re.compile(r"\b[a-zA-Z]\d+\b")
_RELEASE = re.compile(r"(n\d+ = )+None")


def canonical(source: str, ns: dict):
    """``source`` with its generated names numbered in order of appearance, and ``ns``
    keyed by those names: two recordings that made the same calls in another order
    (the branch of a ``tf.cond`` taken at trace time is traced first) compare equal."""
    names: dict = {}

    def rename(m):
        n = names.get(m.group(0))
        if n is None:
            n = names[m.group(0)] = f"n{len(names)}"
        return n

    lines = []
    for line in _NAME.sub(rename, source).splitlines():
        body = line.lstrip(" ")
        if body.endswith(" = None") and _RELEASE.fullmatch(body):  # _release_dead's
            parts = body.split(" = ")
            line = line[:len(line) - len(body)] + " = ".join(sorted(parts[:-1]) + ["None"])
        lines.append(line)
    # Names of the namespace that the code no longer uses (a folded constant's maker).
    used = {names[k]: v for k, v in ns.items() if k in names}
    used.update((k, v) for k, v in ns.items() if not _NAME.fullmatch(k))
    return "\n".join(lines), used
