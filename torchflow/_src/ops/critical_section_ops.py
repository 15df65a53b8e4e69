"""``tf.CriticalSection`` (exclusive execution of a function, for eager code that
runs on several threads, e.g. inside ``tf.data`` or ``py_function`` callbacks) and
``tf.nondifferentiable_batch_function``."""

from __future__ import annotations

import functools
import threading

from torchflow._src.core.errors import invalid_argument
from torchflow._src.core.tensor import Tensor
from torchflow._src.util.api import public


@public("torchflow")
class CriticalSection:
    """Runs functions one at a time: ``execute(fn)`` holds the section's lock while
    ``fn`` runs.

    Args:
      name: Optional name.
      shared_name: Accepted for TF compatibility (eager: sections are never
        shared by name).
      critical_section_def: Not supported (a graph ``CriticalSectionDef`` proto).
      import_scope: Not supported (graph import).

    Raises:
      ValueError: If ``critical_section_def`` is given together with other args.

    >>> import torchflow as tf
    >>> v = tf.Variable(0)
    >>> cs = tf.CriticalSection()
    >>> int(cs.execute(lambda: v.assign_add(1)))
    1
    """

    _count = 0

    def __init__(self, name=None, shared_name=None, critical_section_def=None,
                 import_scope=None):
        if critical_section_def is not None:
            if name is not None or shared_name is not None:
                raise ValueError("critical_section_def and shared_name are mutually "
                                 "exclusive.")
            raise NotImplementedError("CriticalSection: critical_section_def (graph import) "
                                      "is not supported in torchflow's eager runtime.")
        CriticalSection._count += 1
        self._name = name or f"CriticalSection_{CriticalSection._count}"
        self._shared_name = shared_name
        self._lock = threading.Lock()
        self._running = threading.local()

    @property
    def name(self) -> str:
        return self._name

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """Runs ``fn()`` while holding the section's lock and returns its result.

        Args:
          fn: A function of no arguments.
          exclusive_resource_access: Accepted for TF compatibility (TF uses it to
            check resource sharing between sections in graphs).
          name: Unused (eager).

        Returns:
          What ``fn`` returns.

        Raises:
          ValueError: If called from inside ``fn`` on the same section (TF's lock
            would deadlock).
        """
        if getattr(self._running, "active", False):
            raise ValueError("Attempting to lock a CriticalSection in which we are already "
                             "running. This is illegal and may cause deadlocks.")
        with self._lock:
            self._running.active = True
            try:
                return fn()
            finally:
                self._running.active = False


@public("torchflow")
def nondifferentiable_batch_function(num_batch_threads, max_batch_size, batch_timeout_micros,
                                     allowed_batch_sizes=None, max_enqueued_batches=10,
                                     autograph=True, enable_large_batch_splitting=True):
    """Decorator for a function whose concurrent calls TF may batch together.

    Every argument must be a Tensor. TF may run calls from several threads as one
    batch and split the outputs; the outputs each caller gets are those of the
    function on its own inputs, which is what torchflow computes (each call is a
    batch of one request: no cross-call batching).

    Args:
      num_batch_threads: Threads for processing batches.
      max_batch_size: Largest batch size.
      batch_timeout_micros: Longest wait for a batch to fill.
      allowed_batch_sizes: Batch sizes to pad to.
      max_enqueued_batches: Queue depth.
      autograph: Whether TF converts the function with AutoGraph.
      enable_large_batch_splitting: Whether large inputs are split.

    Returns:
      The decorator.

    Raises:
      ValueError: At call time, for an argument that is not a Tensor.
      InvalidArgumentError: At call time, for a scalar argument or arguments of
        different batch (0th-dimension) sizes.
    """

    def decorator(fn):
        @functools.wraps(fn)
        def decorated(*args):
            for a in args:
                if not isinstance(a, Tensor):
                    raise ValueError(f"All arguments to functions decorated with "
                                     f"`batch_function`  are supposed to be Tensors; found "
                                     f"{a!r}")
            if any(a.shape.rank == 0 for a in args):
                raise invalid_argument("BatchFunction", "Batching input tensors must have "
                                                        "at least one dimension.")
            if len({int(a.shape[0]) for a in args}) > 1:
                raise invalid_argument("BatchFunction", "Batching input tensors must have "
                                                        "equal 0th-dimension size.")
            return fn(*args)

        return decorated

    return decorator
