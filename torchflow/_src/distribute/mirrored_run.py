"""Running ``fn`` once per local replica, concurrently, with ``merge_call``.

Each replica runs in its own thread with its own ``ReplicaContext``, the
replica's device as the default device and the caller's name scope, variable
creators, summary and Keras state. As in TF 2.4's eager MirroredStrategy, the
replicas take turns: replica 0 runs until it calls ``merge_call`` (or returns),
then replica 1, and so on, so Python side effects happen in replica order and
user code needs no locks. (The threads exist so that a replica can pause inside
``merge_call``; on GPUs the kernels each replica launches still overlap, since
launches are asynchronous.) Once every replica has paused, the calling thread
runs ``merge_fn`` once, in cross-replica context, on the replicas' arguments
merged into ``PerReplica`` values, hands each replica its component of the result
and lets them continue. Every replica must call ``merge_call`` the same number
of times. An exception in one replica (or in ``merge_fn``) stops the others at
their next ``merge_call`` and is re-raised in the caller.

Variables created inside ``fn`` (a Keras layer built on its first call, an
optimizer's slots) are created by replica 0; the other replicas get replica 0's
variable of the same name, in creation order (TF's shared variable creator).
"""

from __future__ import annotations

import threading
import weakref

from torchflow._src.core import context, graph_trace
from torchflow._src.core.device import device
from torchflow._src.distribute import values

_state = context.thread_state()

# Per-thread state a replica inherits from the thread that calls strategy.run.
_INHERITED = ("name_scope", "variable_creator_stack", "function_depth", "summary_writer",
              "summary_step", "summary_record_if", "keras_autocast_dtype",
              "keras_call_context")


class _Abort(BaseException):
    """Unwinds a replica whose peers failed (never reaches user code's ``except Exception``)."""


class _Worker(threading.Thread):
    """A persistent thread that runs one replica's ``fn`` per ``strategy.run``.

    Kept by the strategy's extended object (``worker_pool``) so a step does not pay
    for starting threads; it ends when that object is garbage collected.
    """

    def __init__(self, index: int):
        super().__init__(name=f"tf.distribute replica {index}", daemon=True)
        self.should_run = threading.Event()
        self.has_paused = threading.Event()
        self.exit = False
        self.reset(None, None, None, None, (), {}, {})

    def reset(self, runner, ctx, device_name, fn, args, kwargs, inherited, recorder=None):
        self.runner, self.ctx, self.device_name = runner, ctx, device_name
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.inherited = inherited
        self.recorder = recorder  # the caller's, while it traces a tf.function
        self.created = 0  # variables this run created (tf.function's check counts them)
        self.done = False
        self.result = None
        self.error = None
        self.merge_fn = None
        self.merge_args = ()
        self.merge_kwargs = {}
        self.merge_result = None

    def run(self):
        while True:
            self.should_run.wait()
            self.should_run.clear()
            if self.exit:
                return
            self._run_task()

    def _run_task(self):
        try:
            if self.runner.stopped:
                return
            for name, value in self.inherited.items():
                setattr(_state, name, list(value) if isinstance(value, list) else value)
            _state.device_stack = []
            _state.variables_created = 0
            self.ctx._merge_hook = self.merge
            with graph_trace.borrowed(self.recorder), device(self.device_name), self.ctx:
                self.result = self.fn(*self.args, **self.kwargs)
        except _Abort:
            pass
        except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread
            self.error = e
        finally:
            self.ctx._merge_hook = None
            self.created = getattr(_state, "variables_created", 0)
            _state.__init__()  # nothing of this run (creators, scopes) stays in the thread
            self.fn = self.args = self.kwargs = self.inherited = self.recorder = None
            self.done = True
            self.has_paused.set()

    def merge(self, merge_fn, args, kwargs):
        self.merge_fn, self.merge_args, self.merge_kwargs = merge_fn, args, kwargs
        self.has_paused.set()
        self.should_run.wait()
        self.should_run.clear()
        if self.runner.stopped:
            raise _Abort()
        result, self.merge_result = self.merge_result, None
        return result


def _stop_workers(workers):
    for w in workers:
        w.exit = True
        w.should_run.set()


class WorkerPool:
    """The replica threads of one strategy, started on first use."""

    def __init__(self, owner, n: int):
        self.lock = threading.Lock()
        self.workers = [_Worker(i) for i in range(n)]
        for w in self.workers:
            w.start()
        weakref.finalize(owner, _stop_workers, self.workers)


class _Runner:
    def __init__(self):
        self.stopped = False


def call_for_each_replica(strategy, pool, contexts, device_names, fn, args, kwargs,
                          recorder=None):
    """Runs ``fn`` in one thread per entry of ``contexts`` (``ReplicaContext`` objects).

    Args:
      strategy: The strategy (the caller is in its cross-replica context).
      pool: The strategy's ``WorkerPool``.
      contexts: One ``ReplicaContext`` per local replica.
      device_names: The TF device name of each replica.
      fn, args, kwargs: What to run; ``PerReplica`` arguments give each replica
        its component.
      recorder: The caller's ``graph_trace.Recorder`` while it traces a
        ``tf.function``: the replicas' threads record into it.

    Returns:
      The replicas' results, regrouped (``PerReplica`` where they differ).
    """
    runner = _Runner()
    inherited = {name: getattr(_state, name) for name in _INHERITED}
    with pool.lock:
        threads = pool.workers[:len(contexts)]
        for i, (t, ctx, dev) in enumerate(zip(threads, contexts, device_names)):
            t.reset(runner, ctx, dev, fn, values.select_replica(i, args),
                    values.select_replica(i, kwargs), inherited, recorder)
        return _drive(strategy, contexts, threads, runner)


def _drive(strategy, contexts, threads, runner):
    store: dict = {}
    for ctx in contexts:
        ctx._shared_variables = store
        ctx._variable_access = {}
    try:
        while True:
            for t in threads:
                if t.done:
                    continue
                t.should_run.set()
                t.has_paused.wait()
                t.has_paused.clear()
                if t.error is not None:
                    raise t.error
            finished = [t.done for t in threads]
            if all(finished):
                break
            if any(finished):
                raise RuntimeError(
                    "`merge_call` was called in some replicas but not others: every "
                    "replica must call `merge_call` (directly, or through all_reduce, "
                    "optimizer.apply_gradients, ...) the same number of times.")
            merge_fn = threads[0].merge_fn
            margs = values.regroup([t.merge_args for t in threads])
            mkwargs = values.regroup([t.merge_kwargs for t in threads])
            result = merge_fn(strategy, *margs, **mkwargs)
            for i, t in enumerate(threads):
                t.merge_result = values.select_replica(i, result)
                t.merge_fn = None
    except BaseException:
        runner.stopped = True
        for t in threads:
            if not t.done:
                t.should_run.set()
                t.has_paused.wait()
                t.has_paused.clear()
        raise
    finally:
        for ctx in contexts:
            ctx._shared_variables = None
        results = [t.result for t in threads]
        # Counted as the caller's: a tf.function tracing this run sees the variables
        # its replicas created (TF traces again after such a trace).
        _state.variables_created = getattr(_state, "variables_created", 0) + sum(
            t.created for t in threads)
        for t in threads:  # drop every reference to this run (and to the strategy)
            t.reset(None, None, None, None, (), {}, {})
    return values.regroup(results)
