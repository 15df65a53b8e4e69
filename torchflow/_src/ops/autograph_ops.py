"""The AutoGraph runtime: what code converted by ``core/autograph_convert.py`` calls.

As in TF's AutoGraph, a statement whose condition (or iterable) is a Python value runs
as Python, unchanged; one on a ``tf.Tensor`` becomes ``tf.cond`` / ``tf.while_loop``.
The converted statement passes its state as ``getters`` (one ``lambda: name`` per
variable the statement assigns; a variable not yet bound reads as ``Undefined``) and
gets the new values back.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from torchflow._src.core import autograph_convert
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import (
    autograph_dataset_loop,
    comparison_ops,
    control_flow_ops,
    creation_ops,
    gather_ops,
    indexing,
    shape_ops,
)
from torchflow._src.util.api import public


class Undefined:
    """The value of a variable that is not bound yet (TF's ``ag__.Undefined``)."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str) -> None:
        self.symbol_name = symbol_name

    def __repr__(self) -> str:
        return self.symbol_name


def ld(value: Any) -> Any:
    """A converted function's read of a variable: raises for one left unbound."""
    if isinstance(value, Undefined):
        raise UnboundLocalError(f"local variable '{value.symbol_name}' referenced before "
                                "assignment")
    return value


class UndefinedReturnValue:
    """The return value of a converted function before a ``return`` ran."""

    __slots__ = ()


def retval(value: Any) -> Any:
    """What a converted function returns: None if no ``return`` ran."""
    return None if isinstance(value, UndefinedReturnValue) else value


def _is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, Variable))


def _load(getters, names) -> list:
    out = []
    for g, n in zip(getters, names):
        try:
            out.append(g())
        except NameError:  # UnboundLocalError and free variables not yet bound
            out.append(Undefined(n))
    return out


def not_(x: Any) -> Any:
    """``not x``; ``tf.logical_not`` for a tensor."""
    if _is_tensor(x):
        return comparison_ops.logical_not(x)
    return not x


def and_(a: Callable, b: Callable) -> Any:
    """``a() and b()``; ``tf.logical_and`` when ``a()`` is a tensor."""
    x = a()
    if _is_tensor(x):
        return comparison_ops.logical_and(x, b())
    return x and b()


def or_(a: Callable, b: Callable) -> Any:
    """``a() or b()``; ``tf.logical_or`` when ``a()`` is a tensor."""
    x = a()
    if _is_tensor(x):
        return comparison_ops.logical_or(x, b())
    return x or b()


def if_stmt(cond: Any, body: Callable, orelse: Callable, getters, names, binds) -> tuple:
    """``if cond: body else: orelse``; ``tf.cond`` on a tensor ``cond``.

    For a tensor ``cond``, a variable unbound before the statement and bound in only
    one branch is local to that branch (TF's rule): it is not an output of the
    ``tf.cond`` and stays unbound after the statement.

    Raises:
      ValueError: For a tensor ``cond``, if one branch returns from the function and
        the other does not (TF's rule).
    """
    state = _load(getters, names)
    if not _is_tensor(cond):
        return tuple(body(*state) if cond else orelse(*state))
    for v, (in_body, in_else) in zip(state, binds):
        if isinstance(v, UndefinedReturnValue) and in_body != in_else:
            which = "else" if in_body else "main"
            raise ValueError(f"the {which} branch must also have a return statement.")
    keep = [i for i, (v, (in_body, in_else)) in enumerate(zip(state, binds))
            if not (isinstance(v, Undefined) and in_body != in_else)]

    def branch(fn):
        def run():
            out = fn(*state)
            return tuple(out[i] for i in keep) if keep else None
        return run

    out: Any = control_flow_ops.cond(cond, branch(body), branch(orelse))
    result = list(state)
    for i, v in zip(keep, out if keep else ()):
        result[i] = v
    return tuple(result)


def _split(state: list) -> tuple[list, list]:
    """Indices of the defined loop variables and of the undefined ones (loop-local:
    TF does not carry them)."""
    defined = [i for i, v in enumerate(state) if not isinstance(v, Undefined)]
    local = [i for i, v in enumerate(state) if isinstance(v, Undefined)]
    return defined, local


def _tensor_loop(test: Callable, body: Callable, state: list, prefix: tuple = ()) -> list:
    """``tf.while_loop`` over the defined variables of ``state`` (after ``prefix``
    loop variables such as an index)."""
    defined, local = _split(state)
    k = len(prefix)

    def full(vals):
        out = list(state)
        for i, v in zip(defined, vals):
            out[i] = v
        for i in local:
            out[i] = state[i]
        return out

    def loop_test(*vals):
        return test(*vals[:k], *full(vals[k:]))

    def loop_body(*vals):
        new = body(*vals[:k], *full(vals[k:]))
        return (*new[:k], *(new[k:][i] for i in defined))

    # Python numbers and bools the loop carries become tensors, as TF's loop converts
    # its variables (a lowered ``break``'s flag among them).
    state = [to_tensor(v) if type(v) in (bool, int, float) else v for v in state]
    init = (*prefix, *(state[i] for i in defined))
    if not init:
        raise ValueError("a loop on a tensor condition needs at least one loop variable "
                         "defined before the loop")
    out = control_flow_ops.while_loop(loop_test, loop_body, init)
    return full(list(out)[k:])


def while_stmt(test: Callable, body: Callable, getters, names) -> tuple:
    """``while test(): body()``; ``tf.while_loop`` when the first test is a tensor."""
    state = _load(getters, names)
    first = test(*state)
    if not _is_tensor(first):
        while first:
            state = list(body(*state))
            first = test(*state)
        return tuple(state)
    return tuple(_tensor_loop(test, lambda *s: tuple(body(*s)), state))


def for_stmt(iterable: Any, extra_test: Callable | None, body: Callable, getters,
             names) -> tuple:
    """``for x in iterable: body(x)`` (stopping once ``extra_test()`` is false, as a
    lowered ``break``); over a tensor, a ``tf.while_loop`` over its first dimension.

    A ``tf.data.Dataset`` or iterator in a traced function is one recorded loop
    (``autograph_dataset_loop``); other Python iterables run as a Python loop.
    """
    state = _load(getters, names)
    if isinstance(iterable, LazyRange):
        if not iterable.is_tf_range() or not any(_is_tensor(a) for a in iterable.bounds()):
            iterable = iterable.build()
        else:
            return _range_loop(iterable, extra_test, body, state)
    if not _is_tensor(iterable):
        if autograph_dataset_loop.is_source(iterable) and \
                autograph_dataset_loop.recordable(iterable):
            return tuple(autograph_dataset_loop.loop(iterable, extra_test, body, state,
                                                     _tensor_loop))
        it = iter(iterable)
        while extra_test is None or extra_test(*state):
            try:
                item = next(it)
            except StopIteration:
                break
            state = list(body(item, *state))
        return tuple(state)
    if iterable.shape.rank == 0:
        raise ValueError("len requires a non-scalar tensor, got one of shape []")
    n = indexing.getitem(shape_ops.shape(iterable), 0)

    def test(i, *s):
        c = i < n
        if extra_test is None:
            return c
        return comparison_ops.logical_and(c, extra_test(*s))

    def step(i, *s):
        # A gather at the loop index (not x[i], which reads i into Python): the
        # recorded loop indexes with the index tensor on every iteration.
        return (i + 1, *body(gather_ops.gather(iterable, i), *s))

    zero = creation_ops.zeros_like(n)
    return tuple(_tensor_loop(test, step, state, prefix=(zero,)))


class LazyRange:
    """``tf.range(...)`` in a converted ``for`` header, not built yet."""

    __slots__ = ("fn", "args", "kwargs")

    def __init__(self, fn, args, kwargs):
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def build(self):
        return self.fn(*self.args, **self.kwargs)

    def is_tf_range(self) -> bool:
        return self.fn is creation_ops.range and set(self.kwargs) <= {"dtype", "name"}

    def bounds(self) -> tuple:
        a = self.args
        if len(a) == 1:
            return (0, a[0], 1)
        if len(a) == 2:
            return (a[0], a[1], 1)
        return (a[0], a[1], a[2])


def lazy_range(fn, *args, **kwargs):
    """The converter's stand-in for an ``x.range(...)`` call heading a ``for`` loop
    (built as usual unless it is ``tf.range`` with a tensor bound)."""
    return LazyRange(fn, args, kwargs)


def _range_loop(r: LazyRange, extra_test, body, state):
    start, limit, delta = r.bounds()
    i0 = _as_loop_tensor(start, limit, delta, r.kwargs.get("dtype"))
    lim = _cast_like(limit, i0)
    dl = _cast_like(delta, i0)

    if not _is_tensor(delta) and delta != 0:
        # A Python step: its sign is known, so one comparison a step (the replay of a
        # traced loop runs it on every iteration).
        compare = comparison_ops.less if delta > 0 else comparison_ops.greater

        def test(i, *s):
            c = compare(i, lim)
            return c if extra_test is None else comparison_ops.logical_and(c, extra_test(*s))
    else:
        def test(i, *s):
            return _signed_test(i, dl, lim, extra_test, s)

    def step(i, *s):
        return (i + dl, *body(i, *s))

    return tuple(_tensor_loop(test, step, state, prefix=(i0,)))


def _signed_test(i, dl, lim, extra_test, s):
    """``tf.range``'s loop test for a tensor step, of either sign."""
    zero = _cast_like(0, dl)
    up = comparison_ops.logical_and(comparison_ops.greater(dl, zero),
                                    comparison_ops.less(i, lim))
    down = comparison_ops.logical_and(comparison_ops.less(dl, zero),
                                      comparison_ops.greater(i, lim))
    c = comparison_ops.logical_or(up, down)
    if extra_test is None:
        return c
    return comparison_ops.logical_and(c, extra_test(*s))


def _as_loop_tensor(start, limit, delta, dtype):
    # tf.range's dtype: the given one, else the tensor arguments' (or int32/float32).
    if dtype is not None:
        return creation_ops.cast(start, dtype)
    ts = [a for a in (start, limit, delta) if _is_tensor(a)]
    floats = [a for a in (start, limit, delta) if isinstance(a, float)]
    base = ts[0].dtype if ts else ("float32" if floats else "int32")
    return _cast_like(start, to_tensor(0, base))


def _cast_like(x, like):
    if _is_tensor(x):
        return x if x.dtype == like.dtype else creation_ops.cast(x, like.dtype)
    return to_tensor(x, like.dtype)


@public("torchflow.autograph.experimental")
def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None,
                     shape_invariants=None):
    """Loop hints for AutoGraph, called inside a loop body; no effect in torchflow.

    Args:
      parallel_iterations: The number of iterations allowed to run in parallel.
      swap_memory: Whether to swap GPU memory to the host.
      maximum_iterations: The largest number of iterations the loop may run.
      shape_invariants: ``(variable, shape)`` pairs of allowed shape changes.

    Differences from TensorFlow 2.4: the hints are accepted and ignored (loops run
    on torch without these limits).
    """
    return None


autograph_convert.set_runtime(sys.modules[__name__])
