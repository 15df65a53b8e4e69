"""TF's rules for reading a graph tensor's value into Python while a function traces.

Inside a ``tf.function`` (and a tf.data function, a Keras step traced by ``fit``) TF's
tensors are symbolic: ``t.numpy()`` is an ``AttributeError``, ``np.array(t)`` (and any
NumPy call given ``t``) a ``NotImplementedError``, and with AutoGraph off ``float(t)``,
``int(t)`` and ``range(t)`` a ``TypeError`` (AutoGraph turns those builtins into casts
and ``tf.range``, so with it on they keep working). Here a trace runs on real tensors,
so these are rules, applied by the ``Tensor`` methods while some thread traces:

- to *graph tensors* only: the inputs of the trace and the tensors its recorded calls
  made (also those of an enclosing trace). A tensor made before the trace and captured
  by the function, or made inside ``tf.init_scope()``, is an eager tensor in TF and
  keeps its value; ``tf.py_function`` / ``tf.numpy_function`` bodies, host nodes and
  ``run_functions_eagerly(True)`` do not trace at all;
- to user code only: torchflow's own code reads values at trace time where TF
  computes them in C++ (static shapes, constant folding, Keras bookkeeping), so a read
  whose caller (past NumPy's own Python frames) is a ``torchflow`` module is allowed.
  That caller check runs only when a graph tensor is read during a trace, so eager
  ``.numpy()`` pays one module-attribute test.

String tensors (NumPy arrays of bytes) are not followed by the recording and are left
alone. Messages are TF 2.4's: its graph tensor class is named ``Tensor`` (TF 2.21
says ``SymbolicTensor``), and the builtin conversions raise Python's own ``TypeError``.
"""

from __future__ import annotations

import operator
import sys

import torch

from torchflow._src.core import graph_trace
from torchflow._src.core import tensor as _tensor_mod

# What a builtin conversion says of an object without it, named as TF 2.4's class.
_Stand = type("Tensor", (), {"__slots__": ()})


def _python_message(convert) -> str:
    try:
        convert(_Stand())
    except TypeError as e:
        return str(e)
    raise AssertionError("a conversion the stand-in supports")  # pragma: no cover


_TYPE_ERRORS = {
    "float": _python_message(float),
    "int": _python_message(int),
    "complex": _python_message(complex),
    "index": _python_message(operator.index),
}
# The builtins AutoGraph converts (to tf.cast / tf.range): refused only without it.
_AUTOGRAPH_CONVERTED = frozenset({"float", "int", "index"})

# TF's op names for the torch calls that make a tensor from Python values.
_OP_NAMES = {"tensor": "Const", "as_tensor": "Const", "scalar_tensor": "Const",
             "full": "Fill", "zeros": "zeros", "ones": "ones", "arange": "range",
             "matmul": "MatMul", "mm": "MatMul", "to": "Cast"}


def _graph_recorder(t):
    """The recorder of this thread in whose graph ``t``'s tensor is, or None."""
    r = graph_trace.active()
    if r is None or not isinstance(t, torch.Tensor):
        return None
    key = id(t)
    inner = r
    while r is not None:
        if key in r.slots:
            return inner
        r = r._prev
    return None


def _internal(frame) -> bool:
    while frame is not None:
        mod = frame.f_globals.get("__name__", "")
        if mod == "numpy" or mod.startswith("numpy."):
            frame = frame.f_back
            continue
        return mod == "torchflow" or mod.startswith("torchflow.")
    return False


def _input_name(rec, t, frame):
    """The argument name of the traced function bound to ``t`` (found in its frame)."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == rec.name:
            params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
            for p in params:
                v = frame.f_locals.get(p)
                if getattr(v, "_t", None) is t:
                    return p
            return None
        frame = frame.f_back
    return None


def _tensor_name(rec, t, frame) -> str:
    """A TF-style endpoint name (``x:0``, ``Const:0``) for an error message."""
    slot = rec.slots.get(id(t), "")
    if slot.startswith("i"):
        return f"{_input_name(rec, t, frame) or 'input'}:0"
    prefix = f"{slot} = "
    for line in rec.lines:
        body = line.lstrip(" ")
        if body.startswith(graph_trace._CONST_MARK):
            body = body[len(graph_trace._CONST_MARK):]
        if body.startswith(prefix):
            fn = rec.ns.get(body[len(prefix):].split("(", 1)[0])
            name = getattr(fn, "__name__", "") or "Identity"
            return f"{_OP_NAMES.get(name, name)}:0"
    return "Identity:0"


def check_read(t, what: str) -> None:
    """Raises TF's error when user code reads graph tensor ``t`` into Python by
    ``what`` (``numpy``, ``array``, ``float``, ``int``, ``complex``, ``index``).
    Called by ``Tensor``'s methods (the caller's frame is two up) while a trace runs."""
    rec = _graph_recorder(t._t)
    if rec is None or (rec.autograph and what in _AUTOGRAPH_CONVERTED):
        return
    caller = sys._getframe(2)
    if _internal(caller):
        return
    if what == "numpy":
        raise AttributeError("'Tensor' object has no attribute 'numpy'")
    if what == "array":
        raise NotImplementedError(
            f"Cannot convert a symbolic Tensor ({_tensor_name(rec, t._t, caller)}) to a "
            f"numpy array. This error may indicate that you're trying to pass a Tensor to "
            f"a NumPy call, which is not supported")
    raise TypeError(_TYPE_ERRORS[what])


_tensor_mod._graph_reads = graph_trace
_tensor_mod._check_read = check_read
