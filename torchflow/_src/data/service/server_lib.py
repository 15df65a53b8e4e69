"""``DispatcherConfig``, ``WorkerConfig``, ``DispatchServer`` and ``WorkerServer``.

TF 2.4's form: each server takes one config tuple (``DispatchServer(config=...,
start=True)``); the keyword form of TF 2.3 (``DispatchServer(port=5050)``) is a
``TypeError``, as in 2.4.
"""

from __future__ import annotations

import collections
import threading
import time

from torchflow._src.core import errors
from torchflow._src.data._runtime import start_thread
from torchflow._src.data.service import _transport
from torchflow._src.data.service.dispatcher import DispatcherState
from torchflow._src.data.service.worker import Worker
from torchflow._src.util.api import public

_DispatcherConfigBase = collections.namedtuple(
    "DispatcherConfig", ["port", "protocol", "work_dir", "fault_tolerant_mode",
                         "job_gc_check_interval_ms", "job_gc_timeout_ms"])
_WorkerConfigBase = collections.namedtuple(
    "WorkerConfig", ["dispatcher_address", "worker_address", "port", "protocol",
                     "heartbeat_interval_ms", "dispatcher_timeout_ms"])


@public("torchflow.data.experimental.service")
class DispatcherConfig(_DispatcherConfigBase):
    """Configuration of a tf.data service dispatcher.

    A namedtuple; its fields are the arguments below, by the same names.

    Args:
      port: int, the port to bind to; 0 (the default) picks a free one.
      protocol: str, the protocol of the server; only ``"grpc"`` (the default;
        None means it); the server raises ``tf.errors.NotFoundError`` for others.
      work_dir: A directory for the dispatcher's state (dataset definitions and,
        with ``fault_tolerant_mode``, its journal). None: state only in memory.
      fault_tolerant_mode: bool (default False): journal every state change into
        ``work_dir`` before it is applied, and recover the state from there on a
        restart (needs ``work_dir``).
      job_gc_check_interval_ms: int, how often to look for jobs to garbage collect
        (default 10 minutes).
      job_gc_timeout_ms: int, a consumer silent this long (its process died) is released,
        and a job without consumers ends (default 5 minutes).

    >>> import torchflow as tf
    >>> tf.data.experimental.service.DispatcherConfig().port
    0
    """

    __slots__ = ()

    def __new__(cls, port=0, protocol="grpc", work_dir=None, fault_tolerant_mode=False,
                job_gc_check_interval_ms=None, job_gc_timeout_ms=None):
        if protocol is None:
            protocol = "grpc"
        if job_gc_check_interval_ms is None:
            job_gc_check_interval_ms = 10 * 60 * 1000
        if job_gc_timeout_ms is None:
            job_gc_timeout_ms = 5 * 60 * 1000
        return super().__new__(cls, port, protocol, work_dir, fault_tolerant_mode,
                               job_gc_check_interval_ms, job_gc_timeout_ms)


@public("torchflow.data.experimental.service")
class WorkerConfig(_WorkerConfigBase):
    """Configuration of a tf.data service worker.

    A namedtuple; its fields are the arguments below, by the same names.

    Args:
      dispatcher_address: str, the dispatcher's ``host:port`` (no ``grpc://``).
      worker_address: str, the address consumers reach this worker at; ``%port%`` is
        replaced by the bound port (default ``"localhost:%port%"``).
      port: int, the port to bind to; 0 (the default) picks a free one.
      protocol: str, the protocol of the server; only ``"grpc"`` (the default;
        None means it); the server raises ``tf.errors.NotFoundError`` for others.
      heartbeat_interval_ms: int, how often the worker heartbeats to the dispatcher
        (default 30 s). A worker that misses 3 heartbeats (and at least 1 s) is
        dropped and its tasks are lost.
      dispatcher_timeout_ms: int, how long to retry requests to the dispatcher
        (default 1 hour).

    >>> import torchflow as tf
    >>> tf.data.experimental.service.WorkerConfig("localhost:5050").worker_address
    'localhost:%port%'
    """

    __slots__ = ()

    def __new__(cls, dispatcher_address, worker_address=None, port=0, protocol="grpc",
                heartbeat_interval_ms=None, dispatcher_timeout_ms=None):
        if worker_address is None:
            worker_address = "localhost:%port%"
        if protocol is None:
            protocol = "grpc"
        if heartbeat_interval_ms is None:
            heartbeat_interval_ms = 30 * 1000
        if dispatcher_timeout_ms is None:
            dispatcher_timeout_ms = 60 * 60 * 1000
        return super().__new__(cls, dispatcher_address, worker_address, port, protocol,
                               heartbeat_interval_ms, dispatcher_timeout_ms)


def _check_protocol(protocol) -> None:
    if protocol != "grpc":
        raise errors.NotFoundError(None, None, f"No credentials factory has been registered "
                                   f"for protocol {protocol}")


@public("torchflow.data.experimental.service")
class DispatchServer:
    """A tf.data service dispatcher: keeps the datasets, jobs and workers.

    Args:
      config: A ``tf.data.experimental.service.DispatcherConfig`` (default: all
        defaults).
      start: Start serving at once (default True); else call ``start()``.

    Raises:
      ValueError: If ``fault_tolerant_mode`` is set without a ``work_dir``.
      TypeError: For TF 2.3's keyword form (``DispatchServer(port=5050)``).

    Differences from TensorFlow 2.4: every call to the dispatcher and to the workers
    must carry the cluster token ``TORCHFLOW_CLUSTER_TOKEN`` (datasets travel as
    graphs, or as pickled Python code where they have no graph form, see
    ``register_dataset``). A server started without one makes
    a random one into this process's environment, which processes it starts inherit;
    give every other process of the service (workers, consumers) the same value.
    With ``work_dir`` and ``fault_tolerant_mode`` the dispatcher's whole state (jobs,
    consumers, tasks, splits handed out) is journaled and recovered on a restart.

    >>> import torchflow as tf
    >>> d = tf.data.experimental.service.DispatchServer()
    >>> d.target.startswith("grpc://localhost:")
    True
    >>> d._stop()
    """

    def __init__(self, config=None, start=True):
        config = config or DispatcherConfig()
        if config.fault_tolerant_mode and not config.work_dir:
            raise ValueError("Cannot enable fault tolerant mode without configuring a "
                             "work_dir")
        _check_protocol(config.protocol)
        self._config = config
        self._state = DispatcherState(config.work_dir, config.fault_tolerant_mode,
                                      job_gc_timeout_s=config.job_gc_timeout_ms / 1000.0)
        s = self._state
        self._server = _transport.Server(config.port, {
            "RegisterDataset": (self._register_dataset, True),
            "GetDatasetDef": (self._get_dataset_def, True),
            "GetDatasetInfo": (self._get_dataset_info, False),
            "GetOrCreateJob": (lambda r: dict(zip(("job", "client"), s.get_or_create_job(
                int(r["dataset"]), r["mode"], r.get("name"), r.get("request")))), False),
            "ClientHeartbeat": (lambda r: s.client_heartbeat(int(r["client"])), False),
            "ReleaseClient": (lambda r: s.release_client(int(r["client"])) or {}, False),
            "WorkerHeartbeat": (lambda r: s.worker_heartbeat(
                r["address"], r["incarnation"], float(r["interval_s"]),
                [int(t) for t in r["tasks"]]), False),
            "WorkerUpdate": (lambda r: s.worker_update(int(r["task"])) or {}, False),
            "GetSplit": (lambda r: {"split": s.get_split(int(r["job"]), int(r["task"]),
                                                         int(r["seq"]))}, False),
            "GetStatus": (lambda r: {"workers": s.num_workers()}, False),
        })
        self._stopped = threading.Event()
        self._thread = None
        if start:
            self.start()

    def _register_dataset(self, r: dict) -> dict:
        return {"dataset": self._state.register_dataset(
            r["fp"], bytes(r["data"]), r["spec"], r["splits"], r["sig"],
            str(r.get("kind", "pickle")))}

    def _get_dataset_def(self, r: dict) -> dict:
        info, data = self._state.dataset(int(r["dataset"]))
        return {"data": data, "sig": info["sig"], "kind": info["kind"]}

    def _get_dataset_info(self, r: dict) -> dict:
        info, _ = self._state.dataset(int(r["dataset"]))
        return {"spec": info["spec"], "splits": info["splits"]}

    def _check_loop(self) -> None:
        gc_every = max(0.2, self._config.job_gc_check_interval_ms / 1000.0)
        next_gc = time.monotonic() + gc_every
        while not self._stopped.wait(0.2):
            self._state.check_workers()
            if time.monotonic() >= next_gc:
                self._state.gc_clients()
                next_gc = time.monotonic() + gc_every

    def start(self) -> None:
        """Starts serving (a no-op when already started)."""
        if self._thread is None:
            self._server.start()
            self._thread = start_thread(self._check_loop, "tf.data service dispatcher")

    def join(self) -> None:
        """Blocks until the server stops (it runs until the process ends)."""
        self._server.wait()

    @property
    def target(self) -> str:
        """The address consumers use: ``"grpc://localhost:<port>"``."""
        return f"{self._config.protocol}://localhost:{self._server.port}"

    @property
    def _address(self) -> str:
        return f"localhost:{self._server.port}"

    def _num_workers(self) -> int:
        return self._state.num_workers()

    def _stop(self) -> None:
        """Stops serving (for tests; the state in ``work_dir`` stays)."""
        if not self._stopped.is_set():
            self._stopped.set()
            self._server.stop()
            self._state.close()

    def __del__(self):
        try:
            self._stop()
        except AttributeError:  # __init__ failed before the server existed
            pass


@public("torchflow.data.experimental.service")
class WorkerServer:
    """A tf.data service worker: runs dataset pipelines for the dispatcher's jobs.

    Args:
      config: A ``tf.data.experimental.service.WorkerConfig``.
      start: Start serving at once (default True); else call ``start()``.

    Raises:
      ValueError: If ``config.dispatcher_address`` is None.
      TypeError: For TF 2.3's keyword form (``WorkerServer(port=0, dispatcher_address=...)``).

    Differences from TensorFlow 2.4: the worker needs the dispatcher's cluster token
    (``TORCHFLOW_CLUSTER_TOKEN``) and checks the signature of each dataset definition
    before it reads it. It is dropped after 3 missed heartbeats (at least 1 s) and
    its share of a ``distributed_epoch`` goes to the other workers; when it comes back
    it gets tasks again.
    """

    def __init__(self, config, start=True):
        if config.dispatcher_address is None:
            raise ValueError("must specify a dispatcher_address")
        if isinstance(config.dispatcher_address, str) and "://" in config.dispatcher_address:
            config = config._replace(
                dispatcher_address=config.dispatcher_address.split("://", 1)[1])
        _check_protocol(config.protocol)
        self._config = config
        self._worker = Worker(config)
        self._stopped = False
        if start:
            self.start()

    def start(self) -> None:
        """Starts serving and registers with the dispatcher."""
        self._worker.start()

    def join(self) -> None:
        """Blocks until the server stops."""
        self._worker.join()

    @property
    def _address(self) -> str:
        return f"localhost:{self._worker.port}"

    def _stop(self) -> None:
        """Stops serving (for tests)."""
        if not self._stopped:
            self._stopped = True
            self._worker.stop()

    def __del__(self):
        try:
            self._stop()
        except AttributeError:
            pass
