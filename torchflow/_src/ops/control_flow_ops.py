"""``tf.cond``, ``tf.case``, ``tf.switch_case``, ``tf.while_loop``.

Eagerly, control flow is Python control flow on tensor values; these functions keep
TF's argument checking, structure rules and errors. Gradients flow through the
branch or iterations that ran, as in TF. While a ``tf.function`` traces, a ``cond``
or ``while_loop`` on a tensor that depends on its inputs becomes control flow in
the recording (``core/graph_control.py``): both branches are traced, as in TF.
"""

from __future__ import annotations

from typing import Any

from torchflow._src.core import graph_control, graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor, executing_eagerly, wrap
from torchflow._src.core.variables import Variable
from torchflow._src.util import nest
from torchflow._src.util.api import public

_Tuple = tuple  # `tuple` is tf.tuple below


def _truth(pred) -> bool:
    if isinstance(pred, (Tensor, Variable)):
        return bool(pred)
    if isinstance(pred, bool):
        return pred
    t = to_tensor(pred)
    return bool(t)


@public("torchflow")
def cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns ``true_fn()`` if ``pred`` is true, else ``false_fn()``.

    Args:
      pred: A scalar boolean Tensor or Python bool.
      true_fn: Callable run when ``pred`` is true.
      false_fn: Callable run when ``pred`` is false.
      name: Unused.

    Returns:
      The result of the branch that ran.

    Raises:
      TypeError: If a branch is not callable.
      ValueError: If ``pred`` has more than one element.

    >>> import torchflow as tf
    >>> tf.cond(tf.constant(True), lambda: 1, lambda: 2)
    1
    """
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    rec = graph_control.wants_graph(pred)
    if rec is not None and pred.shape.num_elements() == 1:
        return graph_control.record_cond(rec, pred, true_fn, false_fn)
    return true_fn() if _truth(pred) else false_fn()


@public("torchflow")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """Runs the function paired with the first true predicate.

    Args:
      pred_fn_pairs: A list of ``(pred, fn)`` pairs (or a dict).
      default: Callable run when no predicate is true (None: the last pair's
        function is the default, as in TF).
      exclusive: If True, at most one predicate may be true.
      strict: Accepted for compatibility.
      name: Unused.

    Returns:
      The result of the function that ran.

    Raises:
      TypeError: If ``pred_fn_pairs`` is malformed or a function is not callable.
      InvalidArgumentError: If no predicate is true and there is no default.
    """
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, (list, _Tuple)):
        pairs = list(pred_fn_pairs)
    else:
        raise TypeError("pred_fn_pairs must be a list or tuple of (pred, fn) pairs.")
    for p in pairs:
        if not isinstance(p, _Tuple) or len(p) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple. Received {p!r}.")
        if not callable(p[1]):
            raise TypeError(f"fn for pred {p[0]!r} must be callable.")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    # TF's eager case does not enforce `exclusive` (the first true branch runs).
    values = [_truth(p) for p, _ in pairs]
    for v, (_, fn) in zip(values, pairs):
        if v:
            return fn()
    if default is not None:
        return default()
    if pairs:
        raise InvalidArgumentError(
            None, None, "Input error: None of conditions evaluated as True: "
            + ", ".join(str(v) for v in values))
    raise ValueError("pred_fn_pairs must not be empty when default is None.")


@public("torchflow")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs ``branch_fns[branch_index]`` (``default``, or the last branch, when out
    of range).

    Args:
      branch_index: An int32 scalar Tensor or Python int.
      branch_fns: A list of callables, a dict ``{int: callable}`` or a list of
        ``(int, callable)`` pairs.
      default: Callable for out-of-range indices.
      name: Unused.

    Returns:
      The result of the branch that ran.

    Raises:
      TypeError: If the branches are malformed.
    """
    if isinstance(branch_fns, dict):
        items = sorted(branch_fns.items())
    elif isinstance(branch_fns, (list, _Tuple)) and branch_fns and isinstance(
            branch_fns[0], _Tuple):
        items = sorted(branch_fns)
    elif isinstance(branch_fns, (list, _Tuple)):
        items = list(enumerate(branch_fns))
    else:
        raise TypeError("branch_fns must be a list, tuple, or dict")
    if not items:
        raise ValueError("Must provide at least one item in branch_fns")
    keys = [k for k, _ in items]
    if keys != list(range(len(items))):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(items)}) but found {keys}.")
    fns = [f for _, f in items]
    for f in fns:
        if not callable(f):
            raise TypeError(f"fn for branch {f!r} must be callable.")
    if isinstance(branch_index, (Tensor, Variable)):
        if not branch_index.dtype.is_integer:
            raise TypeError(f"branch_index must be an integer Tensor, got "
                            f"{branch_index.dtype!r}")
        idx = int(branch_index)
    else:
        idx = int(branch_index)
    if 0 <= idx < len(fns):
        return fns[idx]()
    return default() if default is not None else fns[-1]()


@public("torchflow")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeats ``body`` while ``cond`` is true.

    Args:
      cond: Callable taking the loop variables, returning a boolean scalar.
      body: Callable taking the loop variables, returning new values in the
        same (nested) structure.
      loop_vars: A (nested) tuple/list/dict of Tensors or values.
      shape_invariants: Accepted (shapes may change between iterations).
      parallel_iterations: Accepted for compatibility.
      back_prop: If False, no gradient flows through the loop.
      swap_memory: Accepted for compatibility.
      maximum_iterations: Optional bound on the number of iterations.
      name: Unused.

    Returns:
      The loop variables after the last iteration, in their structure.

    Raises:
      TypeError: If ``cond`` or ``body`` is not callable.
      ValueError: If ``loop_vars`` is empty or ``body`` changes the structure.

    >>> import torchflow as tf
    >>> int(tf.while_loop(lambda i: i < 10, lambda i: (i + 1,), (tf.constant(0),))[0])
    10
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if loop_vars is None or (not isinstance(loop_vars, (Tensor, Variable)) and not loop_vars):
        raise ValueError("'loop_vars' must be provided.")
    single = not isinstance(loop_vars, (list, _Tuple)) or _is_namedtuple(loop_vars)
    current: Any = (loop_vars,) if single else loop_vars  # the loop variables' structure
    graph = not executing_eagerly()
    if graph:  # TF's graph loop (while_v2): Python numbers become tensors
        current = nest.map_structure(_loop_value, current)
    limit = None  # a maximum_iterations computed in a trace: read again on every call
    if maximum_iterations is not None:
        if type(maximum_iterations) is Tensor and \
                graph_control.wants_graph(maximum_iterations) is not None:
            limit = maximum_iterations
        with graph_trace.paused():
            max_iter = graph_control.max_iterations(maximum_iterations)
    else:
        max_iter = None

    def step(current: Any) -> Any:
        new = body(*current)
        if single:
            new = (new,)
        elif len(current) == 1 and isinstance(new, (Tensor, Variable)):
            new = [new] if isinstance(current, list) else (new,)  # as TF packs one value
        elif not isinstance(new, (list, _Tuple, dict, Tensor, Variable)) and not hasattr(
                new, "__iter__"):
            raise TypeError(f"'{type(new).__name__}' object is not iterable")
        _check_structure(current, new)
        if not back_prop:
            new = nest.map_structure(_stop, new)
        return new

    def finish(current: Any, n: int, cap: int | None = None) -> Any:
        while (max_iter is None or n < max_iter) and (cap is None or n < cap) and \
                _truth(cond(*current)):
            current = step(current)
            n += 1
        return current

    rec = graph_control.wants_graph_loop(current)
    final = None
    if rec is not None:
        final = graph_control.record_while(rec, cond, body, current, max_iter, step, finish,
                                           limit)
    if final is None:
        final = finish(current, 0)
    if graph and not single:  # (a graph loop's results have loop_vars' structure)
        final = nest.pack_sequence_as(current, nest.flatten(final))
    return final[0] if single else final


def _loop_value(x):
    if type(x) in (bool, int, float) or type(x).__module__ == "numpy":
        return to_tensor(x)
    return x


def _stop(x):
    if isinstance(x, Tensor) and getattr(x._t, "requires_grad", False):
        return wrap(x._t.detach(), x._dtype)
    return x


def _is_namedtuple(x) -> bool:
    return isinstance(x, _Tuple) and hasattr(type(x), "_fields")


def _check_structure(a, b) -> None:
    try:
        nest.assert_same_structure(a, b, check_types=False)
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"The two structures don't have the same nested structure.\n\nFirst structure: "
            f"{_describe(a)}\n\nSecond structure: {_describe(b)}\n\nMore specifically: {e}"
        ) from None


def _describe(s) -> str:
    return f"type={type(s).__name__} str={s!r}"


@public("torchflow")
def group(*inputs, **kwargs):
    """Groups ops into one that runs them all; returns None.

    torchflow runs every op when it is called (in ``tf.function`` too), so the
    grouped ops have already run and there is nothing to wait on.

    Args:
      *inputs: Ops or tensors (ignored, already computed).
      **kwargs: ``name`` (ignored).
    """
    return None


@public("torchflow")
def no_op(name=None):
    """Does nothing; returns None (TF returns an op that does nothing).

    Args:
      name: A name for the operation (optional).
    """
    return None


@public("torchflow")
def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's public name
    """Groups tensors together (eager: returns them as a list, all already computed).

    Args:
      tensors: A list of Tensors.
      name: Unused.
      control_inputs: Accepted (eager ops already ran).

    Returns:
      A list with the same tensors.
    """
    return list(tensors)
