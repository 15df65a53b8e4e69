"""``tf.map_fn``, ``tf.scan``, ``tf.foldl``, ``tf.foldr``, ``tf.vectorized_map``.

``map_fn``/``scan``/``fold*`` loop in Python over the first dimension (as TF's
eager kernels do) and stack with torch. ``vectorized_map`` runs ``fn`` once
under ``torch.func.vmap`` and falls back to the loop when an op inside ``fn``
cannot be batched (random ops, ops that read values on the host, ...).
"""

from __future__ import annotations

import logging

import numpy as np
import torch

from torchflow._src.core import dtypes, function_spec, graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import (
    InvalidArgumentError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnimplementedError,
    UnknownError,
)
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.core.variables import Variable
from torchflow._src.ops._dispatch import COMPOSITE
from torchflow._src.util import nest
from torchflow._src.util.api import public

_log = logging.getLogger("tensorflow")


def _as_tensor(x) -> Tensor:
    return x if type(x) is Tensor else to_tensor(x)


def _unstack(t: Tensor) -> list:
    if t._t.ndim == 0:
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    if t._dtype is dtypes.string:  # rows of a NumPy object array stay arrays (0-d ones too)
        return [wrap(t._t[i:i + 1].reshape(t._t.shape[1:]), t._dtype)
                for i in range(t._t.shape[0])]
    return [wrap(t._t[i], t._dtype) for i in range(t._t.shape[0])]


def _stack(items: list, dtype: dtypes.DType, elem_shape=None) -> Tensor:
    if not items:
        shape = (0,) + tuple(d or 0 for d in (elem_shape or ()))
        if dtype is dtypes.string:
            return wrap(np.empty(shape, dtype=object), dtype)
        return wrap(torch.zeros(shape, dtype=dtype._torch), dtype)
    ts = [i._t for i in items]
    if dtype is dtypes.string:
        return wrap(np.stack(ts), dtype)
    shapes = {tuple(t.shape) for t in ts}
    if len(shapes) > 1:
        raise InvalidArgumentError(
            None, None, f"TensorArray has inconsistent shapes. Index 0 has shape "
            f"{list(ts[0].shape)} but another element has shape "
            f"{[list(s) for s in shapes if s != tuple(ts[0].shape)][0]} [Op:TensorListStack]")
    return wrap(torch.stack(ts), dtype)


def _signature_dtypes(sig, template):
    """Flat list of dtypes (or None) from fn_output_signature/dtype."""
    if sig is None:
        return None
    flat = nest.flatten(sig) if nest.is_nested(sig) else [sig]
    out = []
    for s in flat:
        if isinstance(s, TensorSpec):
            out.append((s.dtype, s.shape))
        elif s is None:
            out.append((None, None))
        else:
            out.append((dtypes.as_dtype(s), None))
    return out


def _check_len(flat_elems) -> int:
    n = None
    for t in flat_elems:
        if t._t.ndim == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        m = t._t.shape[0]
        if n is None:
            n = m
        elif m != n:
            raise ValueError(f"Dimensions {n} and {m} are not compatible")
    return n or 0


@public("torchflow")
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """Applies ``fn`` to each element of ``elems`` unstacked on dimension 0.

    Args:
      fn: Callable taking one element (with the structure of ``elems``).
      elems: A Tensor or (nested) structure of Tensors with equal first dims.
      dtype: Deprecated name of ``fn_output_signature``.
      parallel_iterations: Accepted for compatibility.
      back_prop: If False, no gradient flows back through ``fn``.
      swap_memory: Accepted for compatibility.
      infer_shape: Accepted for compatibility.
      name: Unused.
      fn_output_signature: The output dtype(s)/TensorSpec(s) of ``fn``, when
        they differ from those of ``elems``.

    Returns:
      The stacked outputs, in ``fn``'s output structure.

    Raises:
      InvalidArgumentError: If ``fn`` returns a dtype other than expected.
      ValueError: If the elements' first dimensions differ.

    >>> import torchflow as tf
    >>> tf.map_fn(lambda x: x * 2, tf.constant([1, 2, 3])).numpy()
    array([2, 4, 6], dtype=int32)
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable. Received: {fn!r}")
    sig = fn_output_signature if fn_output_signature is not None else dtype
    if type(elems) in COMPOSITE:  # the rows of a tf.RaggedTensor
        return COMPOSITE[type(elems)].map_fn(fn, elems, sig,
                                             lambda rows: _stack(rows, rows[0]._dtype))
    return _map(fn, elems, sig, back_prop, check_dtypes=True)


def _map(fn, elems, sig, back_prop, check_dtypes):
    flat_elems = [_as_tensor(e) for e in nest.flatten(elems)]
    n = _check_len(flat_elems)
    sig_dtypes = _signature_dtypes(sig, elems)
    if sig_dtypes is None:
        sig_dtypes = [(e._dtype, None) for e in flat_elems]
    cols = [_unstack(t) for t in flat_elems]
    outputs = []
    structure = sig if sig is not None else elems
    for i in range(n):
        x = nest.pack_sequence_as(elems, [c[i] for c in cols])
        y = fn(x)
        structure = y
        flat_y = nest.flatten(y)
        conv = []
        for j, v in enumerate(flat_y):
            want = sig_dtypes[j][0] if j < len(sig_dtypes) else None
            t = v if isinstance(v, Tensor) else (
                v.value() if isinstance(v, Variable) else to_tensor(v, want))
            if check_dtypes and want is not None and t._dtype is not want:
                raise InvalidArgumentError(
                    None, None, f"TensorArray dtype is {want.name} but Op is trying to write "
                    f"dtype {t._dtype.name} ")
            if not back_prop and isinstance(t._t, torch.Tensor) and t._t.requires_grad:
                t = wrap(t._t.detach(), t._dtype)
            conv.append(t)
        outputs.append(conv)
    if not outputs:
        flat_sig = sig_dtypes
        stacked = [_stack([], d or flat_elems[0]._dtype,
                          s.as_list() if s is not None and s.rank is not None else [])
                   for d, s in flat_sig]
        return nest.pack_sequence_as(structure, stacked)
    stacked = [_stack([o[j] for o in outputs], outputs[0][j]._dtype)
               for j in range(len(outputs[0]))]
    return nest.pack_sequence_as(structure, stacked)


def _scan_impl(fn, elems, initializer, reverse: bool, keep_all: bool, op: str):
    if not callable(fn):
        raise TypeError(f"fn must be callable. Received: {fn!r}")
    flat_elems = [_as_tensor(e) for e in nest.flatten(elems)]
    n = _check_len(flat_elems)
    cols = [_unstack(t) for t in flat_elems]
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    if initializer is None:
        if n == 0:
            raise ValueError(f"{op}: elems must have at least one element when no initializer "
                             f"is given")
        first = order[0]
        acc = nest.pack_sequence_as(elems, [c[first] for c in cols])
        order = order[1:]
        history = [acc]
    else:
        acc = nest.map_structure(lambda v: v if isinstance(v, Tensor) else to_tensor(v),
                                 initializer)
        history = []
    for i in order:
        x = nest.pack_sequence_as(elems, [c[i] for c in cols])
        acc = fn(acc, x)
        acc = nest.map_structure(lambda v: v if isinstance(v, Tensor) else to_tensor(v), acc)
        history.append(acc)
    if not keep_all:
        return acc
    if reverse:
        history = history[::-1]
    if not history:
        return nest.map_structure(lambda t: _stack([], t._dtype, list(t._t.shape)), acc)
    flat_hist = [nest.flatten(h) for h in history]
    stacked = [_stack([h[j] for h in flat_hist], flat_hist[0][j]._dtype)
               for j in range(len(flat_hist[0]))]
    return nest.pack_sequence_as(history[0], stacked)


@public("torchflow")
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """Scans ``fn(acc, x)`` over ``elems`` on dimension 0, stacking every ``acc``.

    Without ``initializer`` the first element is the initial accumulator (and
    the first output).

    Args:
      fn: A callable ``fn(acc, x)`` returning the next accumulator.
      elems: A tensor (or nested structure of tensors) unpacked along dimension 0.
      initializer: None (default) or the initial accumulator.
      parallel_iterations: int, default 10; accepted for compatibility (iterations run in
        order).
      back_prop: bool, default True; accepted for compatibility (gradients always flow).
      swap_memory: bool, default False; accepted for compatibility.
      infer_shape: bool, default True; unused.
      reverse: bool, default False: scan from the last element.
      name: Unused (eager).

    Returns:
      The accumulators stacked along a new dimension 0, structured like ``initializer``.

    >>> import torchflow as tf
    >>> tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3])).numpy()
    array([1, 3, 6], dtype=int32)
    """
    return _scan_impl(fn, elems, initializer, reverse, True, "scan")


@public("torchflow")
def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """Folds ``fn(acc, x)`` over ``elems`` from the first element to the last.

    Args:
      fn: A callable ``fn(acc, x)`` returning the next accumulator (same structure as
        ``initializer``).
      elems: A tensor (or nested structure of tensors) unpacked along dimension 0.
      initializer: None (default: ``elems[0]``, folding the rest) or the initial
        accumulator.
      parallel_iterations: int, default 10; accepted for compatibility (iterations run in
        order).
      back_prop: bool, default True; accepted for compatibility (gradients always flow).
      swap_memory: bool, default False; accepted for compatibility.
      name: Unused (eager).

    Returns:
      The final accumulator, structured like ``initializer``.

    >>> import torchflow as tf
    >>> int(tf.foldl(lambda a, x: a - x, tf.constant([1, 2, 3])))
    -4
    """
    return _scan_impl(fn, elems, initializer, False, False, "foldl")


@public("torchflow")
def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """Folds ``fn(acc, x)`` over ``elems`` from the last element to the first.

    Args:
      fn: A callable ``fn(acc, x)`` returning the next accumulator (same structure as
        ``initializer``).
      elems: A tensor (or nested structure of tensors) unpacked along dimension 0.
      initializer: None (default: ``elems[-1]``, folding the rest) or the initial
        accumulator.
      parallel_iterations: int, default 10; accepted for compatibility (iterations run in
        order).
      back_prop: bool, default True; accepted for compatibility (gradients always flow).
      swap_memory: bool, default False; accepted for compatibility.
      name: Unused (eager).

    Returns:
      The final accumulator, structured like ``initializer``.
    """
    return _scan_impl(fn, elems, initializer, True, False, "foldr")


@public("torchflow")
def vectorized_map(fn, elems, fallback_to_while_loop=True):
    """Maps ``fn`` over dimension 0 of ``elems``, vectorised with ``torch.func.vmap``.

    Args:
      fn: Callable taking one element (with the structure of ``elems``).
      elems: A Tensor or (nested) structure of Tensors with equal first dims.
      fallback_to_while_loop: If True, run a loop when ``fn`` cannot be
        vectorised; otherwise raise.

    Returns:
      The stacked outputs, in ``fn``'s output structure.

    Raises:
      ValueError: If ``fn`` cannot be vectorised and fallback is disabled.
    """
    flat = [_as_tensor(e) for e in nest.flatten(elems)]
    _check_len(flat)
    if all(isinstance(t._t, torch.Tensor) for t in flat):
        structure: list = []
        in_dtypes = [t._dtype for t in flat]

        def flat_fn(*ts):
            x = nest.pack_sequence_as(elems, [wrap(t, d) for t, d in zip(ts, in_dtypes)])
            y = fn(x)
            leaves = [v if isinstance(v, Tensor) else to_tensor(v) for v in nest.flatten(y)]
            structure[:] = [y, [v._dtype for v in leaves]]
            return tuple(v._t for v in leaves)

        try:
            res = torch.func.vmap(flat_fn)(*[t._t for t in flat])
        except Exception as e:  # noqa: BLE001 - unbatchable fn: loop instead
            if not fallback_to_while_loop:
                raise ValueError(f"vectorized_map: fn could not be vectorised: {e}") from None
            _log.debug("vectorized_map falling back to a loop: %s", e)
        else:
            y, out_dtypes = structure
            return nest.pack_sequence_as(
                y, [wrap(r, d) for r, d in zip(res, out_dtypes)])
    elif not fallback_to_while_loop:
        raise ValueError("vectorized_map: string elements cannot be vectorised")
    return _map(fn, elems, None, True, check_dtypes=False)


def _call_with_outputs(op, func, args, Tout, as_numpy: bool):
    if not callable(func):
        raise TypeError(f"{op}: func must be callable. Received: {func!r}")
    conv = []
    for a in args:
        t = a.value() if isinstance(a, Variable) else (a if isinstance(a, Tensor)
                                                       else to_tensor(a))
        conv.append(t.numpy() if as_numpy else t)
    if as_numpy:  # eager tf.numpy_function calls func directly: its errors pass through
        out = func(*conv)
    else:
        try:
            out = func(*conv)
        except Exception as e:
            raise _py_func_error(op, e) from e
    if Tout is None:
        return None
    single = not isinstance(Tout, (list, tuple))
    touts = [Tout] if single else list(Tout)
    if out is None and not single:
        outs = []  # None is no output (Tout=[]: the list of no tensors TF returns)
    else:
        outs = [out] if single else (list(out) if isinstance(out, (list, tuple)) else [out])
    if len(outs) != len(touts):
        raise InvalidArgumentError(None, None, f"{op}: func returned {len(outs)} values "
                                   f"but Tout has {len(touts)} entries")
    res = []
    for o, d in zip(outs, touts):
        d = dtypes.as_dtype(d)
        t = o if isinstance(o, Tensor) else to_tensor(np.asarray(o) if as_numpy else o, d)
        if t._dtype is not d:
            raise InvalidArgumentError(
                None, None, f"{op}: func returned a {t._dtype.name} tensor where Tout says "
                f"{d.name}")
        res.append(t)
    return res[0] if single else res


def _py_func_error(op, e: Exception):
    """The TF error an exception raised by a ``py_function``'s body becomes, as TF's
    EagerPyFunc kernel maps them: ValueError/TypeError -> InvalidArgumentError,
    StopIteration -> OutOfRangeError, MemoryError -> ResourceExhaustedError,
    NotImplementedError -> UnimplementedError, anything else (TF errors included)
    -> UnknownError; the message starts with the Python exception."""
    if isinstance(e, (ValueError, TypeError)):
        cls = InvalidArgumentError
    elif isinstance(e, StopIteration):
        cls = OutOfRangeError
    elif isinstance(e, MemoryError):
        cls = ResourceExhaustedError
    elif isinstance(e, NotImplementedError):
        cls = UnimplementedError
    else:
        cls = UnknownError
    return cls(None, None, f"{type(e).__name__}: {e} [Op:{op}]")


@public("torchflow")
@graph_trace.host_op(dry=function_spec.py_function_stand_in)
def py_function(func, inp, Tout, name=None):
    """Calls ``func`` on Tensors ``inp`` eagerly; gradients flow through the
    torchflow ops ``func`` uses.

    Args:
      func: A Python callable taking Tensors.
      inp: A list of inputs.
      Tout: A dtype or list of dtypes of the outputs (None: no output).
      name: Unused.

    Returns:
      A Tensor or list of Tensors of ``Tout``'s dtypes.

    Raises:
      InvalidArgumentError: If an output's dtype differs from ``Tout``, or ``func``
        raises ValueError or TypeError.
      OutOfRangeError, ResourceExhaustedError, UnimplementedError, UnknownError: If
        ``func`` raises StopIteration, MemoryError, NotImplementedError or anything
        else, as TF maps them.
    """
    return _call_with_outputs("EagerPyFunc", func, list(inp), Tout, as_numpy=False)


@public("torchflow")
@graph_trace.host_op(dry=function_spec.py_function_stand_in)
def numpy_function(func, inp, Tout, name=None):
    """Calls ``func`` on NumPy arrays (not differentiable), as ``tf.numpy_function``.

    In a ``tf.function`` or a ``tf.data`` function the Python of ``func`` runs at
    each call, not only when tracing. No gradient flows through it.

    Args:
      func: A Python function taking NumPy arrays (one per ``inp`` item) and
        returning a NumPy array, a list of them or None.
      inp: A list of ``tf.Tensor`` (or values convertible to one).
      Tout: A ``tf.DType`` or list of them: the dtypes of ``func``'s results
        (an empty list when it returns None).
      name: Optional name of the op.

    Returns:
      A Tensor or list of Tensors of ``Tout``'s dtypes.
    """
    return _call_with_outputs("PyFunc", func, list(inp), Tout, as_numpy=True)
