"""Per-iterator runtime state shared by the iterator chain of one pipeline.

An ``IterContext`` is made by each ``tf.data`` iterator and handed down to every
``_make_iter``: it carries the options, the log of shuffle seeds drawn (so a
saved iterator can be replayed exactly), and the background workers started for
the chain, which ``close`` stops.
"""

from __future__ import annotations

import gc
import os
import random
import threading

from torchflow._src.core import context
from torchflow._src.ops import data_ops


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


_GC_DEFAULT_GEN0 = 700
_GC_PIPELINE_GEN0 = 20000
_gc_lock = threading.Lock()
_gc_users = [0, None]  # live iterators, threshold to restore


def gc_acquire() -> None:
    """Raises the young-generation GC threshold while tf.data iterators are live.

    A pipeline allocates a few small objects per element (tensor wrappers, tuples);
    with CPython's default threshold of 700 allocations, young-generation
    collections took ~40% of a from_tensor_slices pass here. The threshold goes back
    when the last iterator closes, and is left alone if the program changed it.
    """
    with _gc_lock:
        if _gc_users[0] == 0:
            t = gc.get_threshold()
            if t[0] == _GC_DEFAULT_GEN0:
                _gc_users[1] = t
                gc.set_threshold(_GC_PIPELINE_GEN0, t[1], t[2])
        _gc_users[0] += 1


def gc_release() -> None:
    with _gc_lock:
        _gc_users[0] -= 1
        if _gc_users[0] == 0 and _gc_users[1] is not None:
            if gc.get_threshold()[0] == _GC_PIPELINE_GEN0:
                gc.set_threshold(*_gc_users[1])
            _gc_users[1] = None


class IterContext:
    """State of one iterator chain (options, seeds, worker threads)."""

    def __init__(self, options, replay_seeds=None):
        self.options = options
        self.seed_log: list = []
        self._replay = list(replay_seeds or [])[::-1]
        self.workers: list = []
        self.closed = False
        threading_opts = options.experimental_threading
        self.pool_size = threading_opts.private_threadpool_size or cpu_count()
        det = options.experimental_deterministic
        self.deterministic = True if det is None else bool(det)
        gc_acquire()

    def draw_seed(self, fixed=None) -> int:
        """A seed for one shuffle iterator: ``fixed`` if given, else a fresh one."""
        if self._replay:
            seed = self._replay.pop()
        elif fixed is not None:
            seed = fixed
        else:
            seed = random.SystemRandom().getrandbits(63)
        self.seed_log.append(seed)
        return seed

    def register(self, worker) -> None:
        self.workers.append(worker)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        gc_release()
        for w in self.workers:
            w.close()
        for w in self.workers:
            w.join()


def op_seeds(seed):
    """TF's seed rule: the (global, op) seed pair, or None when both are unset."""
    g = context.GLOBAL.global_seed
    if g is None and seed is None:
        return None
    if seed is None:
        context.GLOBAL.op_seed_counter += 1
        seed = context.GLOBAL.op_seed_counter
    return (0 if g is None else int(g), int(seed))


def start_thread(target, name: str) -> threading.Thread:
    """Starts a daemon worker thread with torchflow's per-thread defaults."""
    def run():
        data_ops.init_worker_thread()
        target()

    t = threading.Thread(target=run, name=name, daemon=True)
    t.start()
    return t


def close_iter(it) -> None:
    close = getattr(it, "close", None)
    if close is not None:
        close()


def add_context(exc: BaseException, what: str) -> BaseException:
    """Adds where in the pipeline an error happened to ``exc`` (as a note)."""
    try:
        exc.add_note(what)
    except AttributeError:  # pragma: no cover - Python < 3.11
        pass
    return exc
