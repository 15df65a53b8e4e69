"""``distribute``, ``register_dataset``, ``from_dataset_id``: consuming from the service.

A consumer's iterator asks the dispatcher for its job (``GetOrCreateJob``; a
named job is shared with every consumer that names it while it runs), then
heartbeats to the dispatcher to learn the job's tasks and whether it has
finished, and has one fetcher thread per task pulling elements from that task's
worker (``GetElement``). At most ``max_outstanding_requests`` elements are
requested or waiting to be consumed at a time, which bounds the consumer's memory.
Elements of different tasks arrive in no particular order.

Consumers never hang: when no element arrives and the job does not finish for
``CONSUMER_DEADLINE_S`` seconds (or twice the time the dispatcher waits before it
drops a silent worker, if longer), ``next()`` raises ``tf.errors.UnavailableError``.
"""

from __future__ import annotations

import hashlib
import os
import queue
import sys
import sysconfig
import threading
import time
import uuid

import cloudpickle

from torchflow._src.core import dtypes, errors
from torchflow._src.core.rpc import dumps_code
from torchflow._src.data import dataset_graph
from torchflow._src.data._runtime import start_thread
from torchflow._src.data.dataset_ops import UNKNOWN, DatasetV2
from torchflow._src.data.service import _transport, _wire, splits
from torchflow._src.data.service._transport import GRAPH, PICKLE
from torchflow._src.data.service.dispatcher import DISTRIBUTED_EPOCH, PARALLEL_EPOCHS
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public

CONSUMER_DEADLINE_S = 60.0
DEFAULT_OUTSTANDING = 16
_HEARTBEAT_S = 0.1
_MOST_PER_CALL = 64
_END = object()
_PICKLE_LOCK = threading.Lock()


def _validate_mode(processing_mode) -> None:
    valid = [PARALLEL_EPOCHS, DISTRIBUTED_EPOCH]
    if processing_mode not in valid:
        raise ValueError(f"{processing_mode} is not a valid processing mode. Valid modes: "
                         f"{valid}")


def _validate_job_name(job_name) -> None:
    if job_name is None:
        return
    if not isinstance(job_name, str):
        raise ValueError(f"job_name must be a string, but job_name was of type "
                         f"{type(job_name)}. job_name={job_name}")
    if not job_name:
        raise ValueError("job_name must not be empty")


def _parse_service(service) -> str:
    """The ``host:port`` of ``"grpc://host:port"``, with TF 2.4's checks."""
    if not isinstance(service, str):
        raise ValueError(f"service must be a string, but service was of type "
                         f"{type(service)}. service={service}")
    if not service:
        raise ValueError("service must not be empty")
    parts = service.split("://")
    if len(parts) == 1:
        raise ValueError(f"service string {service} does not begin with a protocol. The "
                         f"service should be in the format <protocol>://<address>, e.g. "
                         f"grpc://localhost:5000")
    if len(parts) > 2:
        raise ValueError(f"malformed service string has multiple '://': {service}")
    if parts[0] != "grpc":
        raise errors.NotFoundError(None, None, f"No credentials factory has been registered "
                                   f"for protocol {parts[0]}")
    return parts[1]


def _user_modules(dataset) -> list:
    """The modules of the pipeline's functions that are the user's own code (not the
    standard library, an installed package or torchflow): pickled by value, so a worker
    does not need to import them (cloudpickle would pickle them by reference)."""
    installed = {os.path.realpath(p) for p in
                 (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                  sysconfig.get_paths()["platlib"])}
    names: set = set()
    for ds in splits.pipeline(dataset):
        for value in vars(ds).values():
            mod = getattr(value, "__module__", None) if callable(value) else None
            if mod and mod != "__main__" and not mod.startswith("torchflow"):
                names.add(mod.split(".")[0] if mod not in sys.modules else mod)
    out = []
    for name in sorted(names):
        m = sys.modules.get(name)
        f = getattr(m, "__file__", None)
        if m is None or f is None:
            continue
        f = os.path.realpath(f)
        if not any(f.startswith(p + os.sep) for p in installed):
            out.append(m)
    return out


def _dumps(dataset) -> bytes:
    mods = _user_modules(dataset)
    with _PICKLE_LOCK:
        for m in mods:
            cloudpickle.register_pickle_by_value(m)
        try:
            return dumps_code(dataset)
        finally:
            for m in mods:
                cloudpickle.unregister_pickle_by_value(m)


def encode_dataset(dataset):
    """``(kind, bytes)`` of ``dataset`` for a worker: ``("graph", GraphDef bytes)``, or
    ``("pickle", cloudpickle bytes)`` where the pipeline has no graph form.

    The graph is not rebuilt here to check it (that would run the pipeline's first
    elements a second time in this process): the writer only writes ops the reader
    rebuilds, and an op inside a function that the workers' interpreter lacks fails
    there with TF's ``NotFoundError``, which reaches the consumer.
    """
    try:
        return GRAPH, dataset_graph.serialize(dataset)
    except dataset_graph.UnserializableDatasetError:
        return PICKLE, _dumps(splits.portable(dataset))


@public("torchflow.data.experimental.service")
def register_dataset(service, dataset):
    """Registers ``dataset`` with the tf.data service at ``service``.

    The dataset travels to the dispatcher as its graph: a TF ``GraphDef`` of dataset
    ops, its ``map``/``filter`` functions as traced ``FunctionDef``\ s (data, which a
    worker interprets; no Python of the consumer runs there), as TF sends it. A
    pipeline with no graph form (``from_generator``, ``py_function``, a function
    reading a variable, a ``flat_map``/``interleave`` function whose inner pipeline is
    computed from the element, ragged or sparse elements; see ``dataset_graph`` and
    ``dataset_graph_fn``) travels as a cloudpickle of the pipeline instead, which is
    code. Either is signed with an HMAC under the cluster token, workers check the
    signature before they read it, and every call needs the token: only processes
    that hold the token (``TORCHFLOW_CLUSTER_TOKEN``) can make a worker run a
    pipeline, so give it only to processes you trust.

    Args:
      service: ``"grpc://host:port"`` of the dispatcher.
      dataset: A ``tf.data.Dataset``.

    Returns:
      A scalar int64 Tensor: the dataset id, for ``from_dataset_id``. Registering
      the same pipeline again returns the same id.

    Raises:
      ValueError: If ``service`` is malformed.
      tf.errors.UnavailableError: If the dispatcher cannot be reached.
    """
    address = _parse_service(service)
    if not isinstance(dataset, DatasetV2):
        raise TypeError(f"`dataset` must be a `tf.data.Dataset`, got {type(dataset).__name__}")
    spec = _wire.spec_to_json(dataset.element_spec)
    kind, data = encode_dataset(dataset)
    client = _transport.Client(address)
    try:
        r = client.call("RegisterDataset", {
            "data": data, "sig": _transport.sign(data), "fp": hashlib.sha256(data).hexdigest(),
            "spec": spec, "splits": splits.num_splits(dataset), "kind": kind},
            timeout=CONSUMER_DEADLINE_S)
    finally:
        client.close()
    return data_ops.scalar(int(r["dataset"]), dtypes.int64)


@public("torchflow.data.experimental.service")
def from_dataset_id(processing_mode, service, dataset_id, element_spec=None, job_name=None,
                    max_outstanding_requests=None):
    """A dataset that reads the registered dataset ``dataset_id`` from the service.

    Args:
      processing_mode: ``"parallel_epochs"`` (each worker produces the whole
        dataset) or ``"distributed_epoch"`` (the source is split between the
        workers; each source element is produced once per epoch, at most once when
        a worker fails).
      service: ``"grpc://host:port"`` of the dispatcher.
      dataset_id: The id ``register_dataset`` returned.
      element_spec: The nested ``tf.TensorSpec`` of the elements; None: the one
        recorded at registration.
      job_name: Consumers that give the same name share one job (they divide its
        elements); None: each iterator gets its own job.
      max_outstanding_requests: How many elements may be requested or waiting at
        once (default 16); bounds the consumer's memory.

    Returns:
      A ``tf.data.Dataset``.

    Raises:
      ValueError: For an invalid mode, service or job name.
    """
    _validate_mode(processing_mode)
    address = _parse_service(service)
    _validate_job_name(job_name)
    dataset_id = int(data_ops.to_python(data_ops.as_tensor(dataset_id)))
    if element_spec is None:
        client = _transport.Client(address)
        try:
            info = client.call("GetDatasetInfo", {"dataset": dataset_id},
                               timeout=CONSUMER_DEADLINE_S)
        finally:
            client.close()
        element_spec = _wire.spec_from_json(info["spec"])
    return _DataServiceDataset(address, dataset_id, processing_mode, job_name,
                               max_outstanding_requests, element_spec)


@public("torchflow.data.experimental.service")
def distribute(processing_mode, service, job_name=None, max_outstanding_requests=None):
    """A transformation (for ``Dataset.apply``) that runs the dataset on the service.

    >>> import torchflow as tf
    >>> d = tf.data.experimental.service.DispatchServer()
    >>> w = tf.data.experimental.service.WorkerServer(
    ...     tf.data.experimental.service.WorkerConfig(d._address))
    >>> ds = tf.data.Dataset.range(5).apply(
    ...     tf.data.experimental.service.distribute("parallel_epochs", d.target))
    >>> sorted(int(x) for x in ds)
    [0, 1, 2, 3, 4]
    >>> w._stop(); d._stop()

    Args:
      processing_mode: ``"parallel_epochs"`` or ``"distributed_epoch"`` (see
        ``from_dataset_id``).
      service: ``"grpc://host:port"`` of the dispatcher.
      job_name: Name of a job to share with other consumers (None: not shared).
      max_outstanding_requests: Elements requested or buffered at once (default 16).

    Returns:
      A function from a ``Dataset`` to the ``Dataset`` of its elements as the
      service produces them. The dataset is registered when the function is applied.

    Raises:
      ValueError: For an invalid mode, service or job name.
    """
    _validate_mode(processing_mode)
    _parse_service(service)
    _validate_job_name(job_name)

    def _apply(dataset):
        if processing_mode == DISTRIBUTED_EPOCH and splits.num_splits(dataset) is None:
            raise errors.UnimplementedError(
                None, None, "Cannot create a split provider for this dataset: "
                "distributed_epoch needs a pipeline with one source that is a range or "
                "from_tensor_slices (file readers over a list of file names included)")
        dataset_id = register_dataset(service, dataset)
        return from_dataset_id(processing_mode, service, dataset_id, dataset.element_spec,
                               job_name, max_outstanding_requests)
    return _apply


class _DataServiceDataset(DatasetV2):
    """The elements a job of the tf.data service produces."""

    def __init__(self, address, dataset_id, mode, job_name, max_outstanding, spec):
        self._address, self._dataset_id, self._mode = address, dataset_id, mode
        self._job_name = job_name
        if max_outstanding is None or int(max_outstanding) < 0:  # includes AUTOTUNE (-1)
            max_outstanding = DEFAULT_OUTSTANDING
        self._max_outstanding = max(1, int(max_outstanding))
        self._spec = spec

    def _make_iter(self, ctx):
        it = _ServiceIterator(self)
        ctx.register(it)
        return it

    def _cardinality(self):
        return UNKNOWN

    def _compute_spec(self):
        return self._spec

    def _spec_inferred(self) -> bool:
        return False


class _ServiceIterator:
    """A consumer of one job: a heartbeat thread and a fetcher thread per task."""

    def __init__(self, ds: _DataServiceDataset):
        self._ds = ds
        self._dispatcher = _transport.Client(ds._address)
        self._workers: dict = {}
        self._results: queue.Queue = queue.Queue()
        self._credits = ds._max_outstanding  # elements that may be requested or waiting
        self._credit_cv = threading.Condition()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._tasks: dict = {}   # task id -> "running" | "ended" | "removed"
        self._deadline_s = CONSUMER_DEADLINE_S
        self._done = False
        r = self._dispatcher.call("GetOrCreateJob", {  # retried: the request id dedups
            "dataset": ds._dataset_id, "mode": ds._mode, "name": ds._job_name,
            "request": uuid.uuid4().hex}, timeout=self._deadline_s)
        self._client = int(r["client"])
        self._last_progress = time.monotonic()
        self._hb = start_thread(self._heartbeat_loop, "tf.data service consumer")

    def __iter__(self):
        return self

    # --- threads -------------------------------------------------------------------
    def _heartbeat_loop(self) -> None:
        last_ok = time.monotonic()
        while not self._stop.is_set():
            try:
                r = self._dispatcher.call("ClientHeartbeat", {"client": self._client},
                                          timeout=5.0)
            except ValueError:  # grpc: the channel was closed by close()
                return
            except errors.OpError as e:
                if time.monotonic() - last_ok > self._deadline_s:
                    self._results.put(errors.UnavailableError(
                        None, None, f"The tf.data service dispatcher at {self._ds._address} "
                        f"did not answer for {self._deadline_s:.0f} s: {e.message}"))
                    return
                self._stop.wait(_HEARTBEAT_S)
                continue
            last_ok = time.monotonic()
            self._deadline_s = max(CONSUMER_DEADLINE_S, 2 * float(r["worker_timeout_s"]))
            listed = {int(t): a for t, a in r["tasks"]}
            with self._lock:
                for task_id, address in listed.items():
                    if task_id not in self._tasks:
                        self._tasks[task_id] = "running"
                        start_thread(lambda t=task_id, a=address: self._fetch(t, a),
                                     f"tf.data service fetcher {task_id}")
                for task_id, state in list(self._tasks.items()):
                    if task_id not in listed and state == "running":
                        self._tasks[task_id] = "removed"
                all_done = all(s != "running" for s in self._tasks.values())
            if r["finished"] and all_done:
                self._results.put(_END)
                return
            self._stop.wait(_HEARTBEAT_S)

    def _worker(self, address):
        with self._lock:
            c = self._workers.get(address)
            if c is None:
                c = self._workers[address] = _transport.Client(address)
            return c

    def _take_credits(self) -> int:
        with self._credit_cv:
            if self._credits <= 0:
                self._credit_cv.wait(0.2)
            n = min(self._credits, _MOST_PER_CALL)
            self._credits -= n
            return n

    def _give_credits(self, n: int) -> None:
        if n:
            with self._credit_cv:
                self._credits += n
                self._credit_cv.notify_all()

    def _fetch(self, task_id: int, address: str) -> None:
        worker = self._worker(address)
        seq, backoff = 0, 0.05
        spec = self._ds._spec
        while not self._stop.is_set() and self._tasks.get(task_id) == "running":
            n = self._take_credits()
            if not n:
                continue
            try:
                r = worker.call("GetElement", {"task": task_id, "client": self._client,
                                               "seq": seq, "wait_s": 0.5, "most": n},
                                timeout=5.0, idempotent=False)
            except ValueError:  # grpc: the channel was closed by close()
                return
            except (errors.UnavailableError, errors.DeadlineExceededError,
                    errors.NotFoundError, errors.CancelledError):
                self._give_credits(n)
                self._stop.wait(backoff)  # the same seq again: nothing lost or repeated
                backoff = min(1.0, backoff * 2)
                continue
            except errors.OpError as e:  # not transient: the consumer raises it now
                self._give_credits(n - 1)
                with self._lock:
                    if self._tasks.get(task_id) == "running":
                        self._tasks[task_id] = "ended"
                self._results.put(e)
                return
            backoff = 0.05
            if "stacked" in r:
                els = _wire.elements_from_stacked(spec, r["stacked"], int(r["n"]))
            else:
                els = [_wire.element_from_arrays(spec, a) for a in r["els"]]
            self._give_credits(n - len(els))
            if els or r["end"] or "error" in r:
                seq += 1
            for el in els:
                self._results.put(el)
            if "error" in r:
                cls = getattr(errors, r["error"], errors.UnknownError)
                if not isinstance(cls, type) or not issubclass(cls, errors.OpError):
                    cls = errors.UnknownError
                self._give_credits(-1)
                self._results.put(cls(None, None, r["message"]))
            if r["end"]:
                with self._lock:
                    if self._tasks.get(task_id) == "running":
                        self._tasks[task_id] = "ended"
                return

    # --- consumer side -------------------------------------------------------------------
    def __next__(self):
        if self._done:
            raise StopIteration
        while True:
            try:
                item = self._results.get(timeout=0.1)
            except queue.Empty:
                if time.monotonic() - self._last_progress > self._deadline_s:
                    self.close()
                    raise errors.UnavailableError(
                        None, None, f"No element from the tf.data service at "
                        f"{self._ds._address} for {self._deadline_s:.0f} s (no worker "
                        f"serving the job, or the dispatcher is gone)") from None
                continue
            self._last_progress = time.monotonic()
            if item is _END:
                self.close()
                raise StopIteration
            if isinstance(item, errors.OpError):
                if isinstance(item, errors.UnavailableError):
                    self.close()
                else:
                    self._give_credits(1)
                raise item
            self._give_credits(1)
            return item

    def close(self) -> None:
        if self._done:
            return
        self._done = True
        self._stop.set()
        try:
            self._dispatcher.call("ReleaseClient", {"client": self._client}, timeout=2.0)
        except errors.OpError:
            pass  # the dispatcher is gone; nothing to release there
        with self._lock:
            workers, self._workers = list(self._workers.values()), {}
        for w in workers:
            w.close()
        self._dispatcher.close()

    def join(self) -> None:
        return None
