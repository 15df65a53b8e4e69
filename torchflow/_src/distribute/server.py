"""``tf.distribute.Server``: one task of a cluster, serving over gRPC.

Every task (``worker``, ``ps``, ``chief``, ``evaluator``) runs the same service
(``ps_service.TaskService``): ps tasks hold variables, workers run the functions
a ``ClusterCoordinator`` schedules. A task's address comes from the cluster; a
loopback host (``localhost``, ``127.0.0.1``) is bound as given, any other host on
all interfaces, which needs the cluster token (``TORCHFLOW_CLUSTER_TOKEN``).

In-process clusters (TF's parameter-server tutorial starts the servers of all
tasks in the coordinator's process) work as they are: a loopback server started
without a token makes one for the process, which the coordinator, its workers'
channels and any child process share. Tasks in separate processes must share
``TORCHFLOW_CLUSTER_TOKEN`` (``torchflow launch`` sets it).

Elastic workers: a worker task's server announces its address to ps task 0 when
it starts (retrying while ps task 0 is not up yet, for ``_ANNOUNCE_FOR`` seconds), and
a ``ClusterCoordinator`` polls ps task 0 for the workers announced, so a worker
started later — its ``TF_CONFIG`` the cluster plus itself — takes functions without
a restart of anything (TF 2.4 has no way to add a worker).
"""

from __future__ import annotations

import threading
import time

from torchflow._src.core import errors, rpc
from torchflow._src.distribute.cluster_spec import ClusterSpec
from torchflow._src.distribute.ps_service import TaskService
from torchflow._src.util.api import public

# Servers stay up while the process runs, referenced or not (as TF's do).
_LIVE: list = []
_LIVE_LOCK = threading.Lock()
_ANNOUNCE_FOR = 120.0  # seconds a worker keeps trying to reach ps task 0
_ANNOUNCE_EVERY = 0.5


def bind_address(address: str) -> str:
    """Where a task listening as ``address`` binds: loopback as is, else all interfaces."""
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"Task address {address!r} has no port")
    return address if rpc.is_loopback(address) else f"[::]:{port}"


@public("torchflow.distribute")
class Server:
    """An in-process server for one task of a cluster (``tf.distribute.Server``).

    Args:
      server_or_cluster_def: A ``tf.train.ClusterSpec`` or a dict of jobs to
        addresses describing the cluster.
      job_name: This task's job; may be omitted when the cluster has one job.
      task_index: This task's index in the job; may be omitted when the job has
        one task.
      protocol: ``"grpc"`` (the only protocol; None means it too).
      config: A ``tf.compat.v1.ConfigProto`` or None (accepted, not used).
      start: Whether to start serving now.

    Raises:
      ValueError: If ``job_name`` or ``task_index`` is needed and not given, or the
        task is not in the cluster.
      tf.errors.UnimplementedError: For a protocol other than ``"grpc"``.
      tf.errors.UnknownError: If the address cannot be bound.

    >>> import torchflow as tf
    >>> server = tf.distribute.Server.create_local_server()
    >>> server.target.startswith("grpc://localhost:")
    True
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                 config=None, start=True):
        spec = ClusterSpec(server_or_cluster_def)
        if job_name is None:
            if len(spec.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name`.")
            job_name = spec.jobs[0]
        if task_index is None:
            indices = spec.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError("Must specify an explicit `task_index`.")
            task_index = indices[0]
        protocol = "grpc" if protocol is None else protocol
        if protocol != "grpc":
            raise errors.UnimplementedError(
                None, None, f"Could not start server: protocol {protocol!r} is not supported "
                "(only 'grpc').")
        self._cluster_spec = spec
        self._job = job_name
        self._task = int(task_index)
        self._address = spec.task_address(job_name, self._task)
        self._config = config
        if rpc.is_loopback(self._address):
            rpc.ensure_cluster_token()
        self._rpc = rpc.Server(bind_address(self._address))
        self._service = TaskService(self._rpc, job_name, self._task)
        self._started = False
        if start:
            self.start()

    def start(self) -> None:
        """Starts serving (a no-op when already started)."""
        if self._started:
            return
        self._rpc.start()
        self._started = True
        with _LIVE_LOCK:
            _LIVE.append(self)
        ps = self._cluster_spec.as_dict().get("ps") if self._job == "worker" else None
        if ps:
            first = ps[min(ps)] if isinstance(ps, dict) else ps[0]
            threading.Thread(target=self._announce, args=(first,), daemon=True,
                             name="tf-server-announce").start()

    def _announce(self, ps0: str) -> None:
        """Tells ps task 0 this worker's address (elastic workers; see the module doc)."""
        host, _, port = self._address.rpartition(":")
        payload = rpc.encode({"address": f"{host}:{self._rpc.port or port}"})
        channel = rpc.Channel(ps0)
        end = time.monotonic() + _ANNOUNCE_FOR
        try:
            while time.monotonic() < end and self in _LIVE:
                try:
                    channel.call("WorkerJoin", payload, timeout=2.0, idempotent=True)
                    return
                except errors.OpError:
                    time.sleep(_ANNOUNCE_EVERY)
        finally:
            channel.close()

    def join(self) -> None:
        """Blocks until the server shuts down (for a ps task's main program)."""
        self.start()
        self._rpc.wait()

    @property
    def target(self) -> str:
        """The ``grpc://host:port`` address clients use for this task."""
        host, _, port = self._address.rpartition(":")
        return f"grpc://{host}:{self._rpc.port or port}"

    @property
    def server_def(self):
        raise NotImplementedError("tf.distribute.Server.server_def: torchflow has no "
                                  "ServerDef protocol buffer.")

    @staticmethod
    def create_local_server(config=None, start=True):
        """A server for a one-task cluster on ``localhost`` (a free port).

        Args:
          config: A ``tf.compat.v1.ConfigProto`` or None.
          start: Whether to start it now.

        Returns:
          A ``tf.distribute.Server``.
        """
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config,
                      start=start)

    def _stop(self) -> None:
        """Stops serving (tests; TF servers live as long as their process)."""
        self._rpc.stop()
        with _LIVE_LOCK:
            if self in _LIVE:
                _LIVE.remove(self)
