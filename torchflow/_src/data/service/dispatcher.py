"""The dispatcher's state: datasets, jobs, consumers, workers, tasks and splits.

Every change is an entry (a small dict) applied by ``_apply``; with a journal
(``fault_tolerant_mode`` with a ``work_dir``) each entry is written and flushed to
``work_dir/journal.jsonl`` before it is applied, and a dispatcher started on the
same ``work_dir`` replays the journal, so ids, jobs, consumers, tasks and the
splits already handed out survive a restart. Dataset definitions are kept as files
in ``work_dir/datasets/`` whenever there is a ``work_dir``. Worker liveness is not
journaled: after a restart every known worker gets a fresh heartbeat deadline.

The dispatcher never reads a dataset (a graph or a pickle): it keeps the bytes a
consumer sent and hands them to workers, so no user code runs here.

Jobs. A job is one pass over a dataset in one processing mode; an unnamed job has
one consumer, a named job (``job_name``) is shared by every consumer that asks for
that name while it runs. Each live worker gets one task per unfinished job (a
worker that registers later, or comes back, gets tasks for the jobs then running).

* ``parallel_epochs``: each task produces the whole dataset; the job is finished
  when no task is running and at least one task finished.
* ``distributed_epoch``: tasks ask ``get_split`` for ranges of source indices;
  each range is handed out once. The job is finished when all ranges are handed
  out and no task is running.

A worker that misses heartbeats for ``3 * heartbeat_interval`` (at least 1 s) is
dropped: its running tasks are lost (their buffered elements and, in
``distributed_epoch``, the ranges they held are not produced again: at most once),
and the ranges not yet handed out go to the other workers.
"""

from __future__ import annotations

import json
import os
import threading
import time

from torchflow._src.core.errors import InvalidArgumentError, NotFoundError

PARALLEL_EPOCHS = "parallel_epochs"
DISTRIBUTED_EPOCH = "distributed_epoch"
MIN_WORKER_TIMEOUT_S = 1.0
MISSED_HEARTBEATS = 3


class _Job:
    __slots__ = ("id", "dataset_id", "mode", "name", "next_split", "clients", "released",
                 "tasks")

    def __init__(self, job_id, dataset_id, mode, name):
        self.id, self.dataset_id, self.mode, self.name = job_id, dataset_id, mode, name
        self.next_split = 0
        self.clients: set = set()
        self.released = False
        self.tasks: list = []


class _Task:
    __slots__ = ("id", "job_id", "worker", "state")

    def __init__(self, task_id, job_id, worker):
        self.id, self.job_id, self.worker, self.state = task_id, job_id, worker, "active"


class _Worker:
    __slots__ = ("address", "incarnation", "last_seen", "timeout_s", "alive")

    def __init__(self, address, incarnation, now):
        self.address, self.incarnation = address, incarnation
        self.last_seen, self.timeout_s, self.alive = now, MIN_WORKER_TIMEOUT_S, True


class DispatcherState:
    """The dispatcher's state machine (no I/O but its journal; servers call it)."""

    def __init__(self, work_dir=None, fault_tolerant_mode=False, clock=time.monotonic,
                 job_gc_timeout_s=300.0):
        self._lock = threading.RLock()
        self._clock = clock
        self._gc_timeout_s = float(job_gc_timeout_s)
        self._client_seen: dict = {}  # client id -> last heartbeat (not journaled)
        self.datasets: dict = {}   # id -> {"fp", "spec", "splits", "sig", "kind"}
        self._dataset_bytes: dict = {}
        self._by_fingerprint: dict = {}
        self.jobs: dict = {}
        self._named: dict = {}
        self.clients: dict = {}    # client id -> job id
        self.tasks: dict = {}
        self.workers: dict = {}
        self._next = {"dataset": 1000, "job": 2000, "client": 3000, "task": 4000}
        self._last_split: dict = {}  # task id -> (seq, answer), for retried calls
        self._requests: dict = {}    # GetOrCreateJob request id -> (job, client)
        self._work_dir = work_dir
        self._journal = None
        if work_dir:
            os.makedirs(os.path.join(work_dir, "datasets"), exist_ok=True)
        if work_dir and fault_tolerant_mode:
            path = os.path.join(work_dir, "journal.jsonl")
            if os.path.exists(path):
                self._replay(path)
            self._journal = open(path, "a")

    # --- journal ----------------------------------------------------------------
    def _replay(self, path) -> None:
        good = 0
        with open(path, "rb") as f:
            for line in f:
                try:
                    entry = json.loads(line) if line.endswith(b"\n") else None
                except ValueError:
                    entry = None
                if entry is None:
                    break  # a torn last line: the change it started never happened
                self._apply(entry)
                good += len(line)
        if good != os.path.getsize(path):
            with open(path, "r+b") as f:  # later entries must not extend the torn line
                f.truncate(good)
        now = self._clock()
        for w in self.workers.values():
            w.last_seen = now

    def _record(self, entry: dict):
        if self._journal is not None:
            self._journal.write(json.dumps(entry, separators=(",", ":")) + "\n")
            self._journal.flush()
            os.fsync(self._journal.fileno())
        return self._apply(entry)

    def _new_id(self, kind) -> int:
        return self._next[kind]

    def _apply(self, e: dict):
        op = e["op"]
        if op == "dataset":
            self.datasets[e["id"]] = {"fp": e["fp"], "spec": e["spec"], "splits": e["splits"],
                                      "sig": e["sig"], "kind": e.get("kind", "pickle")}
            self._by_fingerprint[e["fp"]] = e["id"]
            if e["id"] not in self._dataset_bytes and self._work_dir:
                with open(self._dataset_path(e["id"]), "rb") as f:
                    self._dataset_bytes[e["id"]] = f.read()
            self._next["dataset"] = max(self._next["dataset"], e["id"] + 1)
        elif op == "job":
            job = self.jobs[e["id"]] = _Job(e["id"], e["dataset"], e["mode"], e["name"])
            if job.name is not None:
                self._named[job.name] = job.id
            self._next["job"] = max(self._next["job"], e["id"] + 1)
        elif op == "client":
            self.clients[e["id"]] = e["job"]
            if e.get("req") is not None:
                self._requests[e["req"]] = (e["job"], e["id"])
            self.jobs[e["job"]].clients.add(e["id"])
            self._next["client"] = max(self._next["client"], e["id"] + 1)
        elif op == "release":
            job = self.jobs[self.clients.pop(e["client"])]
            job.clients.discard(e["client"])
            if not job.clients:
                job.released = True
                if job.name is not None and self._named.get(job.name) == job.id:
                    del self._named[job.name]
        elif op == "worker":
            old = self.workers.get(e["address"])
            if old is not None and old.incarnation == e["incarnation"]:
                old.alive, old.last_seen = True, self._clock()
            else:
                self.workers[e["address"]] = _Worker(e["address"], e["incarnation"],
                                                     self._clock())
        elif op == "worker_lost":
            w = self.workers.get(e["address"])
            if w is not None:
                w.alive = False
        elif op == "task":
            t = self.tasks[e["id"]] = _Task(e["id"], e["job"], e["worker"])
            self.jobs[e["job"]].tasks.append(t)
            self._next["task"] = max(self._next["task"], e["id"] + 1)
        elif op == "task_end":
            self.tasks[e["id"]].state = e["state"]
        elif op == "split":
            self.jobs[e["job"]].next_split = e["next"]
            if "task" in e:  # the answer, for a retry that comes after a restart
                self._last_split[e["task"]] = (e["seq"], [e["next"] - e["size"], e["next"]])
        return e

    def _dataset_path(self, dataset_id) -> str:
        return os.path.join(self._work_dir, "datasets", f"{dataset_id}.pkl")

    # --- datasets -------------------------------------------------------------------
    def register_dataset(self, fingerprint: str, data: bytes, spec, splits, sig: str,
                         kind: str = "pickle") -> int:
        with self._lock:
            if fingerprint in self._by_fingerprint:
                return self._by_fingerprint[fingerprint]
            dataset_id = self._new_id("dataset")
            self._dataset_bytes[dataset_id] = data
            if self._work_dir:
                tmp = self._dataset_path(dataset_id) + ".tmp"
                with open(tmp, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self._dataset_path(dataset_id))
            self._record({"op": "dataset", "id": dataset_id, "fp": fingerprint,
                          "spec": spec, "splits": splits, "sig": sig, "kind": kind})
            return dataset_id

    def dataset(self, dataset_id: int):
        """``(info, bytes)`` of a registered dataset."""
        with self._lock:
            if dataset_id not in self.datasets:
                raise NotFoundError(None, None, f"Dataset id {dataset_id} not found")
            return self.datasets[dataset_id], self._dataset_bytes[dataset_id]

    # --- jobs and consumers -------------------------------------------------------
    def get_or_create_job(self, dataset_id: int, mode: str, job_name=None, request_id=None):
        """``(job_id, client_id)`` for a new consumer of the (named) job. A request
        repeated with the same ``request_id`` (a retry) gets the same answer."""
        with self._lock:
            if request_id is not None and request_id in self._requests:
                return self._requests[request_id]
            info, _ = self.dataset(dataset_id)
            job = None
            if job_name is not None and job_name in self._named:
                job = self.jobs[self._named[job_name]]
                if job.dataset_id != dataset_id or job.mode != mode:
                    raise InvalidArgumentError(
                        None, None, f"Tried to create a job with name {job_name}, but found "
                        f"an existing job with different parameters: existing: dataset "
                        f"{job.dataset_id} processing mode {job.mode}, new: dataset "
                        f"{dataset_id} processing mode {mode}")
            if mode == DISTRIBUTED_EPOCH and info["splits"] is None:
                raise InvalidArgumentError(
                    None, None, "distributed_epoch needs a dataset whose source can be split "
                    "(range, from_tensor_slices or file readers)")
            if job is None:
                job = self.jobs[self._record({"op": "job", "id": self._new_id("job"),
                                              "dataset": dataset_id, "mode": mode,
                                              "name": job_name})["id"]]
                for w in list(self.workers.values()):
                    if w.alive:
                        self._create_task(job, w.address)
            client = self._record({"op": "client", "id": self._new_id("client"),
                                   "job": job.id, "req": request_id})["id"]
            return job.id, client

    def _create_task(self, job: _Job, worker: str) -> None:
        if self._job_finished(job) or job.released:
            return
        if job.mode == DISTRIBUTED_EPOCH and \
                job.next_split >= self.datasets[job.dataset_id]["splits"]:
            return
        if any(t.worker == worker and t.state == "active" for t in job.tasks):
            return
        self._record({"op": "task", "id": self._new_id("task"), "job": job.id,
                      "worker": worker})

    def _job_finished(self, job: _Job) -> bool:
        if any(t.state == "active" for t in job.tasks):
            return False
        if job.mode == DISTRIBUTED_EPOCH:
            return job.next_split >= self.datasets[job.dataset_id]["splits"]
        return any(t.state == "finished" for t in job.tasks)

    def client_heartbeat(self, client_id: int) -> dict:
        with self._lock:
            if client_id not in self.clients:
                raise NotFoundError(None, None, f"Unknown job client id {client_id}")
            self._client_seen[client_id] = self._clock()
            job = self.jobs[self.clients[client_id]]
            tasks = [[t.id, t.worker] for t in job.tasks if t.state != "lost"]
            timeout = max([w.timeout_s for w in self.workers.values()] or [0.0])
            return {"tasks": tasks, "finished": self._job_finished(job),
                    "worker_timeout_s": timeout}

    def gc_clients(self) -> list:
        """Releases the consumers silent for longer than ``job_gc_timeout``: a consumer
        process that died without releasing its job would keep the job's tasks running
        on the workers. Returns the released client ids."""
        with self._lock:
            now = self._clock()
            gone = [c for c in self.clients
                    if now - self._client_seen.setdefault(c, now) > self._gc_timeout_s]
            for c in gone:
                self._record({"op": "release", "client": c})
                self._client_seen.pop(c, None)
            return gone

    def release_client(self, client_id: int) -> None:
        with self._lock:
            if client_id in self.clients:
                self._record({"op": "release", "client": client_id})

    # --- workers and tasks --------------------------------------------------------
    def worker_heartbeat(self, address: str, incarnation: str, interval_s: float,
                         running: list) -> dict:
        """Registers or refreshes a worker; returns the tasks it should start and those
        it should delete."""
        with self._lock:
            w = self.workers.get(address)
            if w is None or not w.alive or w.incarnation != incarnation:
                if w is not None and w.incarnation != incarnation:
                    self._lose_tasks(address)  # a new process: the old one's tasks are gone
                self._record({"op": "worker", "address": address, "incarnation": incarnation})
                w = self.workers[address]
                for job in list(self.jobs.values()):
                    self._create_task(job, address)
            w.last_seen = self._clock()
            w.timeout_s = max(MIN_WORKER_TIMEOUT_S, MISSED_HEARTBEATS * float(interval_s))
            new, delete = [], []
            running = set(running)
            for t in self.tasks.values():
                if t.worker != address:
                    continue
                job = self.jobs[t.job_id]
                if t.state == "active" and not job.released and t.id not in running:
                    new.append(self._task_def(t))
                elif t.id in running and (t.state == "lost" or job.released):
                    delete.append(t.id)
            delete.extend(i for i in running if i not in self.tasks)
            return {"new": new, "delete": delete}

    def _task_def(self, t: _Task) -> dict:
        job = self.jobs[t.job_id]
        return {"task": t.id, "job": job.id, "dataset": job.dataset_id, "mode": job.mode}

    def _lose_tasks(self, address: str) -> None:
        for t in list(self.tasks.values()):
            if t.worker == address and t.state == "active":
                self._record({"op": "task_end", "id": t.id, "state": "lost"})

    def worker_update(self, task_id: int) -> None:
        """A task has produced its last element."""
        with self._lock:
            t = self.tasks.get(task_id)
            if t is not None and t.state == "active":
                self._record({"op": "task_end", "id": task_id, "state": "finished"})

    def get_split(self, job_id: int, task_id: int, seq: int = -1):
        """The next ``[start, stop)`` range of source indices for ``task_id``, or None
        when all are handed out (or the task was dropped). A call repeated with the
        same ``seq`` (a retry) gets the same answer."""
        with self._lock:
            last = self._last_split.get(task_id)
            if last is not None and last[0] == seq:
                return last[1]
            out = self._next_split(job_id, task_id, seq)
            self._last_split[task_id] = (seq, out)
            return out

    def _next_split(self, job_id: int, task_id: int, seq: int):
        job = self.jobs.get(job_id)
        t = self.tasks.get(task_id)
        if job is None or t is None or t.state != "active":
            return None
        total = self.datasets[job.dataset_id]["splits"]
        start = job.next_split
        if start >= total:
            return None
        live = sum(1 for x in job.tasks if x.state == "active")
        size = max(1, min(256, (total - start) // (4 * max(1, live))))
        self._record({"op": "split", "job": job_id, "next": start + size, "task": task_id,
                      "seq": seq, "size": size})
        return [start, start + size]

    def check_workers(self) -> list:
        """Drops the workers whose heartbeats stopped; returns their addresses."""
        with self._lock:
            now = self._clock()
            lost = [w.address for w in self.workers.values()
                    if w.alive and now - w.last_seen > w.timeout_s]
            for address in lost:
                self._record({"op": "worker_lost", "address": address})
                self._lose_tasks(address)
            return lost

    def num_workers(self) -> int:
        with self._lock:
            return sum(1 for w in self.workers.values() if w.alive)

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None
