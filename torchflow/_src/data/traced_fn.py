"""User functions of ``tf.data`` transformations, traced as TF traces them.

TF traces a function passed to ``map``/``filter`` once, as a graph, and runs the
graph for every element: its Python (``print``, appends to a list) runs at
tracing only, ``tf.print`` and ``tf.py_function`` inside run for every element,
and ``tf.executing_eagerly()`` is False there. Here the function becomes a
``tf.function`` whose signature generalises shapes (``experimental_relax_shapes``),
so a pipeline of equally shaped elements traces once and replays; each new
element shape records again (its Python runs again then), and a trace that
cannot be replayed (string tensors, values read into Python) runs its Python for
every element, as before.
"""

from __future__ import annotations

import threading

from torchflow._src.core import function as _function


class _ElementFunction(_function.Function):
    """A map/filter function: its first call (the trace) runs in one thread at a
    time, so a parallel map traces once, as TF does; later calls run in parallel."""

    def __init__(self, fn):
        super().__init__(fn, reduce_retracing=True)
        self._first = threading.Lock()
        self._warm = False

    def __reduce__(self):
        # A pipeline sent to a tf.data service worker: the function, traced again there.
        return (_ElementFunction, (self._python_function,))

    def __call__(self, *args, **kwargs):
        if self._warm:
            return super().__call__(*args, **kwargs)
        with self._first:
            out = super().__call__(*args, **kwargs)
            self._warm = True
        return out


def traced(fn):
    """``fn`` as a traced element function (already-traced ``tf.function``s as they are)."""
    if isinstance(fn, _function.Function):
        return fn
    return _ElementFunction(fn)
