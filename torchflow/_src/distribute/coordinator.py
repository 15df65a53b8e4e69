"""``tf.distribute.experimental.coordinator``: ``ClusterCoordinator``, ``RemoteValue``.

The coordinator keeps one queue of closures (a function and its arguments) and
one thread per worker task that takes the next closure, runs it on its worker
(``FnRun``) and resolves its ``RemoteValue``. Functions are pickled once
(cloudpickle, with the strategy) and sent to each worker once (``FnRegister``);
each run then names the function by id and carries only its arguments. A
``tf.function`` travels as its Python function and options; the worker makes the
same ``tf.function``, traces it once per signature and replays the recording on
later runs (its ps reads and writes, the optimizer's update and ``next`` of a
per-worker iterator are host nodes: they run on every call).

Differences from TensorFlow 2.4: TF traces a scheduled ``tf.function`` once, on the
coordinator, and sends the graph; here each worker traces it, so its Python side
effects run once per worker (per signature) instead of once.

Failures, as TF 2.4 documents them:

- a worker that fails while running a closure (the call fails: the process is gone,
  or its connection) gets the closure put back at the head of the queue, where
  another worker takes it; the worker's thread keeps probing the task and, when a
  process answers again (a new incarnation), re-sends its functions and re-creates
  its per-worker datasets and iterators, and takes closures again;
- an error raised by the user's function cancels the queued closures (their
  ``RemoteValue`` raises ``CancelledError``) and is raised once, by the next
  ``schedule``, ``join`` or ``done``; then scheduling goes on;
- a lost ps task (a function's remote read/update fails UNAVAILABLE, or the
  coordinator's own probe of the ps tasks fails twice, 0.5 s apart) is raised as
  ``UnavailableError`` by ``join``/``fetch``/``schedule`` within seconds.

Beyond TF 2.4, elastic workers: the probe also asks ps task 0 which workers have
announced themselves (every worker ``Server`` does when it starts), and a worker
not in the cluster the strategy was made with gets a thread of its own and takes
closures (its functions, per-worker datasets and iterators are sent to it first).
"""

from __future__ import annotations

import builtins
import collections
import itertools
import logging
import os
import sys
import threading
import time

import cloudpickle

from torchflow._src.core import errors, rpc
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.function import Function
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.distribute import ps_values
from torchflow._src.distribute.ps_values import ShardedVariable
from torchflow._src.util import nest
from torchflow._src.util.api import public

_log = logging.getLogger("tensorflow")
_CANCELLED = "The corresponding function is cancelled. Please reschedule the function."
_PROBE_INTERVAL = 0.5
FUNCTION_TIMEOUT = 3600.0  # one scheduled function's deadline on its worker


def _function_parts(fn):
    """What a worker needs to run ``fn``: its Python function, and for a
    ``tf.function`` the options it was made with (the worker makes the same
    ``tf.function`` and traces it there, once per signature, as TF's worker runs the
    function it was sent); None for a plain Python function (run as it is)."""
    if not isinstance(fn, Function):
        return fn, None
    options = {"input_signature": fn.input_signature,
               "autograph": getattr(fn, "_autograph", True),
               "jit_compile": getattr(fn, "_jit_compile", False),
               "reduce_retracing": getattr(fn, "_reduce_retracing", False)}
    return fn.python_function, options


def _pickle_by_value(fn) -> None:
    """User modules (not installed packages) travel by value, so a worker process
    that cannot import the module (a test file, a script) still gets the code."""
    mod = sys.modules.get(getattr(fn, "__module__", None) or "")
    if mod is None or mod.__name__ in ("__main__", "builtins") or \
            mod.__name__.split(".")[0] == "torchflow":
        return
    path = getattr(mod, "__file__", None) or ""
    if "site-packages" in path or "dist-packages" in path or not path:
        return
    try:
        cloudpickle.register_pickle_by_value(mod)
    except ValueError:
        pass


def _same_host(address: str) -> str:
    host, _, port = address.rpartition(":")
    return f"{'127.0.0.1' if host == 'localhost' else host}:{port}"


def _to_numpy(x):
    if isinstance(x, (Tensor, Variable, ShardedVariable)):
        return x.numpy()
    return x


def _rebuild_error(d: dict) -> Exception:
    if d.get("code") is not None:
        return errors.exception_type_from_error_code(int(d["code"]))(None, None, d["message"])
    cls = getattr(builtins, d.get("type", ""), None)
    if d.get("module") == "builtins" and isinstance(cls, type) and issubclass(cls, Exception):
        return cls(d["message"])
    return errors.UnknownError(None, None, f"{d.get('type')}: {d.get('message')}")


@public("torchflow.distribute.experimental.coordinator")
class RemoteValue:
    """The value a scheduled function will return (``ClusterCoordinator.schedule``).

    ``fetch()`` waits for it and returns it as NumPy values; ``get()`` as tensors.
    Both raise the error the function raised on its worker.

    Args:
      coordinator: The ``ClusterCoordinator`` that scheduled the function (made by
        ``schedule``, not by users).
    """

    def __init__(self, coordinator=None):
        self._done = threading.Event()
        self._value = None
        self._error = None
        self._coordinator = coordinator

    def _set_value(self, value) -> None:
        self._value = value
        self._done.set()

    def _set_error(self, error: BaseException) -> None:
        if not self._done.is_set():
            self._error = error
            self._done.set()

    def _wait(self):
        self._done.wait()
        if self._coordinator is not None:
            self._coordinator._observe_completed()
        if self._error is not None:
            raise self._error

    def fetch(self):
        """Waits for the function and returns its result, tensors as NumPy arrays.

        Raises:
          tf.errors.CancelledError: If the function was cancelled (an earlier
            function failed).
          tf.errors.UnavailableError: If a ps task was lost.
          Exception: The error the function raised.
        """
        self._wait()
        return nest.map_structure(_to_numpy, self._value)

    def get(self):
        """Waits for the function and returns its result as tensors (as ``fetch``
        raises)."""
        self._wait()
        return nest.map_structure(
            lambda x: convert_to_tensor(x) if hasattr(x, "dtype") and not isinstance(
                x, Tensor) else x, self._value)


class _Closure:
    __slots__ = ("fn_key", "args", "remote_value")

    def __init__(self, fn_key, args, remote_value):
        self.fn_key = fn_key
        self.args = args
        self.remote_value = remote_value


class _Worker:
    """One worker task and the thread that runs closures on it."""

    def __init__(self, coord, index: int, address: str):
        self.coord = coord
        self.index = index
        self.address = address
        self.channel = rpc.Channel(address)
        self.lock = threading.Lock()
        self.incarnation = None
        self.functions: set = set()
        self.datasets: set = set()
        self.iterators: set = set()
        self.thread = threading.Thread(target=self._loop, daemon=True,
                                       name=f"tf-coordinator-worker-{index}")
        self.thread.start()

    # --- the worker's state: functions, datasets, iterators ---
    def _check_incarnation(self) -> None:
        info = rpc.decode(self.channel.call("Info", timeout=5.0, idempotent=True))
        if info["incarnation"] != self.incarnation:
            self.functions.clear()
            self.datasets.clear()
            self.iterators.clear()
            self.incarnation = info["incarnation"]

    def sync(self, fn_key=None) -> None:
        """Sends what this worker lacks: datasets, iterators and ``fn_key``."""
        coord = self.coord
        with self.lock:
            if self.incarnation is None:
                self._check_incarnation()
            for ds_key, blob in list(coord._datasets.items()):
                if ds_key not in self.datasets:
                    self.channel.call("DatasetCreate", rpc.encode({"id": ds_key, "blob": blob}),
                                      timeout=rpc.DEFAULT_TIMEOUT)
                    self.datasets.add(ds_key)
            for it_key, ds_key in list(coord._iterators.items()):
                if it_key not in self.iterators:
                    self.channel.call("IteratorCreate", rpc.encode({"id": it_key, "ds": ds_key}),
                                      timeout=rpc.DEFAULT_TIMEOUT)
                    self.iterators.add(it_key)
            if fn_key is not None and fn_key not in self.functions:
                self.channel.call("FnRegister", rpc.encode(
                    {"id": fn_key, "blob": coord._functions[fn_key]}),
                    timeout=rpc.DEFAULT_TIMEOUT)
                self.functions.add(fn_key)

    # --- running closures ---
    def _loop(self) -> None:
        coord = self.coord
        while True:
            closure = coord._take()
            if closure is None:
                return
            lost = False
            try:
                lost = self._run(closure)
            finally:
                coord._finished()  # before probing: join() does not wait for a lost task
            if lost:
                self._wait_until_back()

    def _lost(self, closure) -> bool:
        self.incarnation = None
        self.coord._put_back(closure)
        return True

    def _wait_until_back(self) -> None:
        while not self.coord._stopped:
            time.sleep(_PROBE_INTERVAL)
            if self.channel.ping(timeout=1.0):
                return

    def _run(self, closure: _Closure) -> bool:
        """Runs ``closure`` on this worker; True when the worker was found lost."""
        coord = self.coord
        try:
            self.sync(closure.fn_key)
            out = rpc.decode(self.channel.call(
                "FnRun", rpc.encode({"id": closure.fn_key, "args": closure.args,
                                     "known": ps_values.observed()}),
                timeout=coord._function_timeout))
        except (errors.UnavailableError, errors.DeadlineExceededError, errors.AbortedError,
                errors.CancelledError):
            return self._lost(closure)  # the task (or its link) is gone: another worker runs it
        except errors.NotFoundError:
            self.incarnation = None  # restarted between calls: send everything again
            coord._put_back(closure)
            return False
        except errors.OpError as e:
            coord._failed(closure, e)
            return False
        versions = out.get("versions")
        if versions:
            with coord._cond:
                coord._completed_versions.append(versions)
        if "error" not in out:
            closure.remote_value._set_value(out["ok"])
            return False
        err = out["error"]
        if err.get("code") == errors.NOT_FOUND and "is not on this worker" in err["message"]:
            self.incarnation = None
            coord._put_back(closure)
            return False
        coord._failed(closure, _rebuild_error(err))
        return False


@public("torchflow.distribute.experimental.coordinator")
class ClusterCoordinator:
    """Schedules functions on the workers of a ``ParameterServerStrategy`` cluster.

    One coordinator per strategy (creating another returns the first).

    Args:
      strategy: A ``tf.distribute.experimental.ParameterServerStrategy``.

    Raises:
      ValueError: If ``strategy`` is not a ``ParameterServerStrategy``.
    """

    def __new__(cls, strategy):
        existing = getattr(getattr(strategy, "extended", None), "_coordinator", None)
        if isinstance(existing, ClusterCoordinator):
            return existing
        return super().__new__(cls)

    def __init__(self, strategy):
        if getattr(self, "_initialized", False):
            return
        if not getattr(strategy, "_is_parameter_server_strategy_v2", False):
            raise ValueError("Only `tf.distribute.experimental.ParameterServerStrategy` is "
                             "supported to work with `tf.distribute.experimental.coordinator."
                             "ClusterCoordinator` currently.")
        self._strategy = strategy
        strategy.extended._coordinator = self
        strategy.extended._used_with_coordinator = True
        self._cond = threading.Condition()
        self._queue: collections.deque = collections.deque()
        self._inflight = 0
        self._error = None
        self._stopped = False
        self._function_timeout = float(os.environ.get("TORCHFLOW_PS_FUNCTION_TIMEOUT",
                                                      FUNCTION_TIMEOUT))
        self._ids = itertools.count()
        self._fn_keys: dict = {}
        self._functions: dict = {}
        self._datasets: dict = {}
        self._iterators: dict = {}
        # What finished steps saw of each ps task, until the program observes them
        # (ps_values.observe: later steps then include those writes).
        self._completed_versions: list = []
        self._workers = [_Worker(self, i, a) for i, a in enumerate(strategy.extended._workers)]
        self._ps_channels = [rpc.Channel(a) for a in strategy.extended._ps]
        self._watcher = threading.Thread(target=self._watch_ps, daemon=True,
                                         name="tf-coordinator-ps-probe")
        self._watcher.start()
        self._initialized = True

    @property
    def strategy(self):
        """The ``Strategy`` this coordinator schedules for."""
        return self._strategy

    # --- the queue ---
    def _take(self):
        with self._cond:
            while not self._queue and not self._stopped:
                self._cond.wait()
            if self._stopped:
                return None
            self._inflight += 1
            return self._queue.popleft()

    def _finished(self) -> None:
        with self._cond:
            self._inflight -= 1
            self._cond.notify_all()

    def _put_back(self, closure) -> None:
        with self._cond:
            if self._error is not None:
                closure.remote_value._set_error(errors.CancelledError(None, None, _CANCELLED))
                return
            self._queue.appendleft(closure)
            self._cond.notify_all()

    def _failed(self, closure, error) -> None:
        closure.remote_value._set_error(error)
        # A lost ps fails the queued functions with it; a user error cancels them.
        queued = error if isinstance(error, errors.UnavailableError) else \
            errors.CancelledError(None, None, _CANCELLED)
        with self._cond:
            if self._error is None:
                self._error = error
            while self._queue:
                self._queue.popleft().remote_value._set_error(queued)
            self._cond.notify_all()

    def _observe_completed(self) -> None:
        """The program has seen functions finish (a fetch, ``join``, ``done``, an
        error raised): later functions read at least what the finished ones saw."""
        with self._cond:
            done, self._completed_versions = self._completed_versions, []
        for versions in done:
            ps_values.observe_all(versions)

    def _raise_error(self) -> None:
        with self._cond:
            error, self._error = self._error, None
        if error is not None:
            self._observe_completed()
            raise error

    def _watch_ps(self) -> None:
        misses = [0] * len(self._ps_channels)
        while not self._stopped:
            time.sleep(_PROBE_INTERVAL)
            for i, ch in enumerate(self._ps_channels):
                if self._stopped:
                    return
                misses[i] = 0 if ch.ping(timeout=1.0) else misses[i] + 1
                if misses[i] == 2:
                    err = errors.UnavailableError(
                        None, None, f"Parameter server /job:ps/replica:0/task:{i} "
                        f"({ch.target}) is unavailable.")
                    self._fail_all(err)
            if self._ps_channels and misses[0] == 0:
                self._add_joined_workers()

    def _add_joined_workers(self) -> None:
        """Starts a thread for each worker announced to ps task 0 and not known yet."""
        try:
            joined = rpc.decode(self._ps_channels[0].call(
                "Workers", timeout=2.0, idempotent=True)).get("addresses", [])
        except errors.OpError:
            return  # an older task, or a transient failure: next probe
        known = {_same_host(w.address) for w in self._workers}
        for address in joined:
            if isinstance(address, str) and _same_host(address) not in known and \
                    not self._stopped:
                _log.info("ClusterCoordinator: worker %s joined; it takes functions now",
                          address)
                self._workers.append(_Worker(self, len(self._workers), address))
                known.add(_same_host(address))

    def _fail_all(self, error) -> None:
        with self._cond:
            if self._error is None:
                self._error = error
            while self._queue:
                self._queue.popleft().remote_value._set_error(error)
            self._cond.notify_all()

    # --- public API ---
    def schedule(self, fn, args=None, kwargs=None):
        """Schedules ``fn(*args, **kwargs)`` to run on one of the workers.

        Args:
          fn: A ``tf.function`` (or Python function) to run.
          args: Positional arguments (per-worker iterators resolve to the worker's).
          kwargs: Keyword arguments.

        Returns:
          A ``RemoteValue`` of the function's result.

        Raises:
          Exception: The error of an earlier function, raised once.
        """
        self._raise_error()
        key = self._fn_keys.get(id(fn))
        if key is None or key[1] is not fn:
            target, options = _function_parts(fn)
            _pickle_by_value(target)
            fn_key = f"fn{next(self._ids)}"
            self._functions[fn_key] = rpc.dumps_code((target, self._strategy, options))
            key = self._fn_keys[id(fn)] = (fn_key, fn)
        blob = rpc.dumps_code((tuple(args or ()), dict(kwargs or {})))
        rv = RemoteValue(self)
        with self._cond:
            self._queue.append(_Closure(key[0], blob, rv))
            self._cond.notify_all()
        return rv

    def join(self):
        """Blocks until every scheduled function has run.

        Raises:
          Exception: The first error a function raised since the last raise (once),
            or ``UnavailableError`` for a lost ps task.
        """
        with self._cond:
            while (self._queue or self._inflight) and self._error is None:
                self._cond.wait(0.1)
        self._observe_completed()
        self._raise_error()

    def done(self) -> bool:
        """Whether every scheduled function has run (non-blocking).

        Raises:
          Exception: A pending error of a function (once).
        """
        self._raise_error()
        with self._cond:
            finished = not self._queue and not self._inflight
        self._observe_completed()  # (after the check: what it reports finished is seen)
        return finished

    def create_per_worker_dataset(self, dataset_fn):
        """Creates the dataset ``dataset_fn()`` returns on every worker.

        Args:
          dataset_fn: A function (or ``tf.function``) of no arguments returning a
            ``tf.data.Dataset`` (or what ``strategy.distribute_datasets_from_function``
            returns).

        Returns:
          A per-worker dataset: ``iter()`` of it gives a per-worker iterator to pass
          to ``schedule``; inside the function it is the worker's own iterator.
        """
        target = _function_parts(dataset_fn)[0]
        _pickle_by_value(target)
        ds_key = f"ds{next(self._ids)}"
        self._datasets[ds_key] = rpc.dumps_code((target, self._strategy))
        self._sync_all()
        return PerWorkerDataset(self, ds_key)

    def fetch(self, val):
        """Blocking: ``RemoteValue``s in the structure ``val`` are fetched, variables
        and tensors read, as NumPy values.

        Returns:
          The same structure of values.
        """
        def one(x):
            if isinstance(x, RemoteValue):
                return x.fetch()
            return _to_numpy(x)

        return nest.map_structure(one, val)

    def _sync_all(self) -> None:
        for w in self._workers:
            try:
                w.sync()
            except errors.OpError:
                w.incarnation = None  # down: it gets everything when it is back

    def _stop(self) -> None:
        """Stops the worker threads (tests; TF stops them when the program exits)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        for w in self._workers:
            w.thread.join(timeout=5)
        self._strategy.extended._coordinator = None


class PerWorkerDataset:
    """What ``create_per_worker_dataset`` returns; ``iter()`` makes per-worker iterators."""

    def __init__(self, coordinator, ds_key):
        self._coordinator = coordinator
        self._key = ds_key

    def __iter__(self):
        coord = self._coordinator
        it_key = f"it{next(coord._ids)}"
        coord._iterators[it_key] = self._key
        coord._sync_all()
        return PerWorkerIterator(it_key)


def _resolve_iterator(it_key):
    scope = ps_values.current_scope()
    if scope is not None and scope.service is not None:
        return scope.service.iterator_handle(it_key)
    return PerWorkerIterator(it_key)


@public("torchflow.distribute.experimental.coordinator")
class PerWorkerValues:
    """A value with one copy per worker (``create_per_worker_dataset``'s iterators);
    passed to ``schedule``, the function gets the copy of the worker it runs on.

    Args:
      values: The per-worker values, one per worker.
    """

    def __init__(self, values):
        self._values = tuple(values)


class PerWorkerIterator(PerWorkerValues):
    """A handle to each worker's iterator of a per-worker dataset; in a scheduled
    function it is the worker's own iterator."""

    def __init__(self, it_key):
        super().__init__(())
        self._key = it_key

    def __reduce__(self):
        return (_resolve_iterator, (self._key,))

    def __next__(self):
        raise TypeError("A per-worker iterator is read inside a function scheduled with "
                        "ClusterCoordinator.schedule, not on the coordinator.")
