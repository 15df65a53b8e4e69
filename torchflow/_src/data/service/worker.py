"""A tf.data service worker: runs the tasks the dispatcher assigns and serves elements.

The worker heartbeats to the dispatcher (``WorkerHeartbeat``) every
``heartbeat_interval_ms``, with the ids of the tasks it runs; the answer lists
tasks to start and tasks to delete. A consumer that asks for a task the worker
has not heard of yet makes it heartbeat at once, so new jobs start without
waiting for the next interval.

A task builds its pipeline from the dataset definition (fetched once per dataset
with ``GetDatasetDef``, its signature checked before it is read: a graph is rebuilt,
a pickle unpickled) and runs it
on a producer thread into a bounded buffer; ``GetElement`` hands out the next
buffered element, so the consumers of a shared job divide the elements between
them. In ``distributed_epoch`` the pipeline's source reads the index ranges that
``GetSplit`` hands out. When the pipeline ends, the task tells the dispatcher
(``WorkerUpdate``) and answers ``end_of_sequence`` from then on.

Each ``GetElement`` carries the consumer's sequence number for that task; a
repeated number (a retry after a lost answer) gets the same answer again, so a
transient failure neither loses nor duplicates an element.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
import uuid

from torchflow._src.core import errors
from torchflow._src.data import _structure
from torchflow._src.data._runtime import start_thread
from torchflow._src.data.service import _transport, _wire, splits
from torchflow._src.data.service.dispatcher import DISTRIBUTED_EPOCH
from torchflow._src.ops import data_ops

_log = logging.getLogger("torchflow.data.service")
BUFFER_ELEMENTS = 64
BUFFER_BYTES = 64 << 20


def _nbytes(item) -> int:
    if not isinstance(item, list):
        return 0
    n = 0
    for t in item:
        size = 1
        for d in data_ops.shape_of(t):
            size *= d
        n += size * max(1, getattr(t.dtype, "size", 8))
    return n


class _Buffer:
    """A FIFO of produced elements bounded by count and bytes (at least one fits)."""

    def __init__(self):
        self._items: collections.deque = collections.deque()
        self._bytes = 0
        self._cv = threading.Condition()

    def put(self, item, timeout: float) -> bool:
        size = _nbytes(item)
        with self._cv:
            if self._items and (len(self._items) >= BUFFER_ELEMENTS or
                                self._bytes + size > BUFFER_BYTES):
                self._cv.wait(timeout)
                if self._items and (len(self._items) >= BUFFER_ELEMENTS or
                                    self._bytes + size > BUFFER_BYTES):
                    return False
            self._items.append((item, size))
            self._bytes += size
            self._cv.notify_all()
            return True

    def get(self, timeout: float):
        """The oldest item; ``_EMPTY`` if none came within ``timeout`` (0: no wait)."""
        with self._cv:
            if not self._items and timeout > 0:
                self._cv.wait(timeout)
            if not self._items:
                return _EMPTY
            item, size = self._items.popleft()
            self._bytes -= size
            self._cv.notify_all()
            return item
_END = object()
_EMPTY = object()


class _Task:
    """One task: a pipeline on a producer thread and the buffer it fills."""

    def __init__(self, worker, task_def: dict, dataset):
        self.id = int(task_def["task"])
        self._worker = worker
        self._job = int(task_def["job"])
        self._buffer = _Buffer()
        self._stop = threading.Event()
        self._ended = False
        self._lock = threading.Lock()
        self._replies: dict = {}  # client id -> (seq, reply)
        self._split_seq = 0
        self._error_next = None
        if task_def["mode"] == DISTRIBUTED_EPOCH:
            dataset = splits.split_by(dataset, self._next_split)
        self._dataset = dataset
        self._thread = start_thread(self._produce, f"tf.data service task {self.id}")

    def _next_split(self):
        """The next range from the dispatcher, retried for ``dispatcher_timeout_ms``
        (then the task's consumers get the UnavailableError)."""
        self._split_seq += 1
        end = time.monotonic() + self._worker.config.dispatcher_timeout_ms / 1000.0
        while not self._stop.is_set():
            left = end - time.monotonic()
            try:
                r = self._worker.dispatcher.call(
                    "GetSplit", {"job": self._job, "task": self.id, "seq": self._split_seq},
                    timeout=max(0.1, min(10.0, left)))
                return r["split"]
            except ValueError:  # grpc: the worker stopped and closed the channel
                return None
            except errors.UnavailableError:
                if time.monotonic() >= end:
                    raise
        return None

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            if self._buffer.put(item, timeout=0.2):
                return True
        return False

    def _produce(self) -> None:
        try:
            it = iter(self._dataset)
        except errors.OpError as e:
            self._put(e)
            self._put(_END)
            return
        while not self._stop.is_set():
            try:
                item = _structure.flatten(next(it))
            except StopIteration:
                break
            except errors.OpError as e:
                item = e
            except Exception as e:  # noqa: BLE001 - a user function's error reaches the consumer
                item = errors.UnknownError(None, None, f"{type(e).__name__}: {e}")
            if not self._put(item):
                return
        self._put(_END)

    def get(self, client: int, seq: int, wait_s: float, most: int) -> dict:
        with self._lock:
            last = self._replies.get(client)
            if last is not None and last[0] == seq:
                return last[1]
            reply = self._next(wait_s, most)
            if reply["els"] or reply.get("n") or reply["end"]:
                self._replies[client] = (seq, reply)
            return reply

    def _next(self, wait_s: float, most: int) -> dict:
        """Up to ``most`` buffered elements (waiting ``wait_s`` for the first)."""
        if self._error_next is not None:
            e, self._error_next = self._error_next, None
            return {"els": [], "end": False, "error": type(e).__name__, "message": e.message}
        els: list = []
        while not self._ended and len(els) < most:
            item = self._buffer.get(wait_s if not els else 0)
            if item is _EMPTY:
                break
            if item is _END:
                self._ended = True
                self._worker.task_ended(self.id)
                break
            if isinstance(item, errors.OpError):
                if els:  # the error goes in its turn, in the next reply
                    self._error_next = item
                    break
                return {"els": [], "end": False, "error": type(item).__name__,
                        "message": item.message}
            els.append(item)
        stacked = _wire.stacked_arrays(els)
        if stacked is not None:
            return {"stacked": stacked, "n": len(els), "els": [], "end": self._ended}
        return {"els": [_wire.leaf_arrays(e) for e in els], "end": self._ended}

    def stop(self) -> None:
        self._stop.set()


class Worker:
    """The state and threads of one worker server (``WorkerServer`` wraps it)."""

    def __init__(self, config):
        self.config = config
        self.incarnation = uuid.uuid4().hex
        self.dispatcher = _transport.Client(config.dispatcher_address)
        self._interval_s = config.heartbeat_interval_ms / 1000.0
        self._server = _transport.Server(config.port, {"GetElement": (self._get_element, False)})
        self.address = None  # known once the server has bound its port
        self._tasks: dict = {}
        self._datasets: dict = {}
        self._lock = threading.RLock()
        self._hb_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    @property
    def port(self) -> int:
        return self._server.port

    def start(self) -> None:
        if self._thread is not None:
            return
        self._server.start()
        self.address = self.config.worker_address.replace("%port%", str(self._server.port))
        try:
            self.heartbeat()
        except errors.OpError as e:
            _log.warning("tf.data service worker %s: dispatcher at %s not reachable yet: %s",
                         self.address, self.config.dispatcher_address, e)
        self._thread = start_thread(self._heartbeat_loop, "tf.data service worker heartbeat")

    def _heartbeat_loop(self) -> None:
        while not self._stop.wait(self._interval_s):
            try:
                self.heartbeat()
            except ValueError:  # grpc: stop() closed the channel
                return
            except errors.OpError as e:
                _log.warning("tf.data service worker %s: heartbeat failed: %s", self.address, e)

    def heartbeat(self) -> None:
        with self._hb_lock:
            with self._lock:
                running = list(self._tasks)
            r = self.dispatcher.call("WorkerHeartbeat", {
                "address": self.address, "incarnation": self.incarnation,
                "interval_s": self._interval_s, "tasks": running}, timeout=10.0)
            for task_id in r["delete"]:
                with self._lock:
                    t = self._tasks.pop(int(task_id), None)
                if t is not None:
                    t.stop()
            for task_def in r["new"]:
                ds = self._dataset(int(task_def["dataset"]))
                with self._lock:
                    if self._stop.is_set() or int(task_def["task"]) in self._tasks:
                        continue
                    self._tasks[int(task_def["task"])] = _Task(self, task_def, ds)

    def _dataset(self, dataset_id: int):
        blob = self._datasets.get(dataset_id)
        if blob is None:
            r = self.dispatcher.call("GetDatasetDef", {"dataset": dataset_id}, timeout=30.0)
            blob = self._datasets[dataset_id] = (bytes(r["data"]), r["sig"],
                                                 str(r.get("kind", "pickle")))
        # a fresh copy for each task: tasks do not share a pipeline's state
        return _transport.load_signed(*blob)

    def task_ended(self, task_id: int) -> None:
        try:
            self.dispatcher.call("WorkerUpdate", {"task": task_id}, timeout=10.0)
        except errors.OpError as e:  # the next heartbeats still run; the task stays ended
            _log.warning("tf.data service worker %s: update for task %d failed: %s",
                         self.address, task_id, e)

    def _get_element(self, req: dict) -> dict:
        task_id = int(req["task"])
        with self._lock:
            t = self._tasks.get(task_id)
        if t is None and not self._stop.is_set():
            self.heartbeat()
            with self._lock:
                t = self._tasks.get(task_id)
        if t is None:
            raise errors.NotFoundError(None, None, f"Worker {self.address} has no task "
                                       f"{task_id}")
        return t.get(int(req["client"]), int(req["seq"]), float(req.get("wait_s", 1.0)),
                     max(1, int(req.get("most", 1))))

    def join(self) -> None:
        self._server.wait()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            tasks, self._tasks = list(self._tasks.values()), {}
        for t in tasks:
            t.stop()
        self._server.stop()
        if self._thread is not None:
            self._thread.join(timeout=2.0)  # it may be in a call: let it see the stop
        self.dispatcher.close()
