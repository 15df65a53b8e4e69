"""The service every ``tf.distribute.Server`` task runs: variables and functions.

Methods (all on the one transport, ``core/rpc.py``; * = code, token required):

==============  =================================================================
``Info``        ``{"incarnation", "job", "task"}``: a new incarnation per process start
``VarCreate``   get-or-create ``key`` with an initial value; answers the current value
``VarRead``     ``{"keys"}`` -> ``{"values"}``: one call per ps task per step
``VarUpdate``   ``{"ops": [[key, "assign"|"add"|"sub", value], ...]}``, each op
                atomic under its variable's lock; answers the new values
``OptApply`` *  ``{"opt", "keys", "grads", "step"[, "blob", "count", "read"]}``: the
                optimizer's update of this task's variables, run here beside its slots,
                under one lock; ``count`` names the ``iterations`` variable to increment
                here; ``read``: keys whose values to answer after the update
``FnRegister`` * ``{"id", "blob"}``: a scheduled function (and its strategy), once; a
                ``tf.function`` comes with its options and is made again here, so it
                is traced on this worker once per signature and replayed after
``FnRun`` *     ``{"id", "args"[, "known"]}``: runs it; ``{"ok": result}`` or
                ``{"error": {...}}``, with ``"versions"``: what the step saw of each ps
``DatasetCreate`` * / ``IteratorCreate``: per-worker datasets and their iterators
``WorkerJoin``  ``{"address"}``: a worker task announces itself (sent to ps task 0 by
                every worker ``Server``); ``Workers`` -> ``{"addresses"}``: those
                announced, in order, which the coordinator polls to add workers
                started after it (elastic workers)
==============  =================================================================

Every answer about variables carries ``"version"``: ``[incarnation, writes]`` of this
task, the number of writes it had finished before it read the values answered (see
``ps_values.prefetch``: a step may use its worker's last snapshot instead of reading).

While ``tf.profiler`` captures a worker, each ``FnRun`` is a training step in the
profile: an event named after the function with TF's step marker stats (``step_num``, a
count of this worker's runs, and ``_r=1``), around its reads, input and ops, so XProf and
``torchflow profile view`` split the worker's steps (TF itself marks no steps on PS
workers; its users put ``Trace`` on the coordinator, which this does not replace).

A user function's exception is an answer (``{"error": ...}``), not a failed call,
so the coordinator tells a user error from a lost worker: a failed call means
the worker is gone. ``UnavailableError`` raised inside the function (its ps task
is gone) is marked ``"ps": True``.
"""

from __future__ import annotations

import itertools
import logging
import os
import secrets
import threading

from torchflow._src.core import errors, graph_trace, profiler_backend, rpc
from torchflow._src.core.function import function as tf_function
from torchflow._src.core.variables import Variable
from torchflow._src.distribute import ps_values

_log = logging.getLogger("torchflow")


class _VarSlot:
    __slots__ = ("lock", "var")

    def __init__(self, var):
        self.lock = threading.Lock()
        self.var = var


def error_payload(e: BaseException) -> dict:
    """What a worker answers for an exception raised by the user's function."""
    code = e.error_code if isinstance(e, errors.OpError) else None
    return {"type": type(e).__name__, "module": type(e).__module__,
            "message": e.message if isinstance(e, errors.OpError) else str(e),
            "code": code, "ps": isinstance(e, errors.UnavailableError)}


class TaskService:
    """The methods a task serves (see the module doc)."""

    def __init__(self, server: rpc.Server, job: str, task: int):
        self.incarnation = secrets.token_hex(8)
        self.job, self.task = job, task
        self._vars: dict[str, _VarSlot] = {}
        self._lock = threading.Lock()
        self._opts: dict = {}
        self._fns: dict = {}
        self._fn_vars: dict = {}  # function id -> {key: proxy} it references
        self._datasets: dict = {}
        self._iterators: dict = {}
        self._handles: dict = {}  # iterator id -> its WorkerIterator
        self._proxies: dict = {}
        self.created_names: dict = {}  # variables made in functions: name -> count
        self.strategies: dict = {}  # the strategy copies, by strategy id
        self.snapshots: dict | None = None if os.environ.get(
            ps_values.SNAPSHOT_ENV, "1") == "0" else {}  # a worker's (ps_values.prefetch)
        self._writes = 0  # writes finished on this task's variables (the version)
        self._writes_lock = threading.Lock()
        self._epoch = 0
        self._steps = itertools.count(1)  # FnRun steps marked while a profile runs
        self._joined: list = []  # worker addresses announced to this task, in order
        for name in ("Info", "VarCreate", "VarRead", "VarUpdate", "WorkerJoin", "Workers"):
            server.add_method(name, getattr(self, "_" + name))
        for name in ("OptApply", "FnRegister", "FnRun", "DatasetCreate", "IteratorCreate"):
            server.add_method(name, getattr(self, "_" + name), code=True)

    # --- variables (a ps task) ---
    def _slot(self, key) -> _VarSlot:
        slot = self._vars.get(key)
        if slot is None:
            raise errors.NotFoundError(None, None, f"Resource {key} does not exist on "
                                       f"/job:{self.job}/replica:0/task:{self.task}")
        return slot

    def _wrote(self) -> None:
        with self._writes_lock:
            self._writes += 1

    def _version(self) -> list:
        return [self.incarnation, self._writes]

    def _Info(self, req, ctx):
        return rpc.encode({"incarnation": self.incarnation, "job": self.job, "task": self.task})

    # --- elastic workers (ps task 0) ---
    def _WorkerJoin(self, req, ctx):
        address = rpc.decode(req).get("address")
        if not isinstance(address, str) or not address or len(address) > 512:
            raise errors.InvalidArgumentError(None, None, "WorkerJoin needs an address")
        with self._lock:
            if address not in self._joined:
                self._joined.append(address)
        return b""

    def _Workers(self, req, ctx):
        with self._lock:
            return rpc.encode({"addresses": list(self._joined)})

    def _VarCreate(self, req, ctx):
        r = rpc.decode(req)
        with self._lock:
            slot = self._vars.get(r["key"])
            if slot is None:
                var = Variable(r["value"], trainable=bool(r.get("trainable", True)),
                               name=r.get("name") or "Variable")
                slot = self._vars[r["key"]] = _VarSlot(var)
                self._wrote()
        version = self._version()
        with slot.lock:
            return rpc.encode({"value": slot.var.numpy(), "version": version})

    def _VarRead(self, req, ctx):
        keys = rpc.decode(req)["keys"]
        version = self._version()  # before the reads: they include every write counted
        values = []
        for key in keys:
            slot = self._slot(key)
            with slot.lock:
                values.append(slot.var.numpy())
        return rpc.encode({"values": values, "version": version})

    def _VarUpdate(self, req, ctx):
        out = []
        for key, op, value in rpc.decode(req)["ops"]:
            slot = self._slot(key)
            with slot.lock:
                if op == "assign":
                    slot.var.assign(value)
                elif op == "add":
                    slot.var.assign_add(value)
                elif op == "sub":
                    slot.var.assign_sub(value)
                else:
                    raise errors.InvalidArgumentError(None, None, f"Unknown update {op!r}")
                out.append(slot.var.numpy())
            self._wrote()
        return rpc.encode({"values": out, "version": self._version()})

    def _OptApply(self, req, ctx):
        r = rpc.decode(req)
        with self._lock:
            entry = self._opts.get(r["opt"])
            if entry is None:
                if "blob" not in r:
                    raise errors.NotFoundError(None, None, f"optimizer {r['opt']} not here")
                opt = rpc.loads_code(r["blob"])
                _forget_slots(opt)
                # The step count is the coordinator's variable; this copy counts locally
                # and is told the step before each update (schedules read it).
                step = Variable(int(r["step"]), dtype="int64", trainable=False,
                                name="iter")
                object.__setattr__(opt, "_iterations", step)
                # Hyperparameter variables made on a worker are read here on every
                # update: this copy keeps their values locally (one read now).
                hyper = getattr(opt, "_hyper", None)
                if isinstance(hyper, dict):
                    for name, value in list(hyper.items()):
                        if isinstance(value, ps_values.PSVariable):
                            hyper[name] = Variable(value.numpy(), trainable=False, name=name)
                entry = self._opts[r["opt"]] = (threading.Lock(), opt)
        lock, opt = entry
        pairs = list(zip(r["grads"], [self._slot(k).var for k in r["keys"]]))
        with lock:
            opt._iterations.assign(int(r["step"]))
            _apply_merged(opt, pairs)
        if "count" in r:
            it = self._slot(r["count"])
            with it.lock:
                it.var.assign_add(1)
        self._wrote()
        if "read" not in r:
            return b""
        version = self._version()
        values = []
        for key in r["read"]:
            slot = self._slot(key)
            with slot.lock:
                values.append(slot.var.numpy())
        return rpc.encode({"values": values, "version": version})

    # --- functions (a worker task) ---
    def _scope(self, epoch=None):
        if epoch is None:
            self._epoch += 1
            epoch = self._epoch
        return ps_values.WorkerScope(self._proxies, epoch, self)

    def _FnRegister(self, req, ctx):
        r = rpc.decode(req)
        with self._scope(-1) as scope:
            fn, strategy, options = rpc.loads_code(r["blob"])
        if options is not None:  # a tf.function: traced here once per signature, replayed
            fn = tf_function(fn, **options)
        self._fns[r["id"]] = (fn, strategy)
        self._fn_vars[r["id"]] = dict(scope.touched)
        return b""

    def _FnRun(self, req, ctx):
        r = rpc.decode(req)
        entry = self._fns.get(r["id"])
        if entry is None:
            raise errors.NotFoundError(None, None, f"function {r['id']} is not registered")
        fn, strategy = entry
        if profiler_backend.active():
            step = f"{getattr(fn, '__name__', 'scheduled_function')}#step_num=" \
                   f"{next(self._steps)},_r=1#"
            with profiler_backend.host_range(step):
                return self._run(r, fn, strategy)
        return self._run(r, fn, strategy)

    def _run(self, r, fn, strategy):
        with self._scope() as scope:
            try:
                args, kwargs = rpc.loads_code(r["args"])
                # What the function read last time (at first: every variable it and its
                # arguments reference): one read per ps task, before the step.
                wanted = dict(self._fn_vars.get(r["id"], {}))
                wanted.update(scope.touched)
                scope.wanted = wanted
                ps_values.prefetch(list(wanted.values()), r.get("known"))
                with strategy.scope():
                    result = fn(*args, **kwargs)
                # The next run prefetches what this one read (a variable the function
                # made, as an optimizer's step count, included; one only written, not).
                self._fn_vars[r["id"]] = dict(scope.read)
                return rpc.encode({"ok": _to_plain(result), "versions": _plain_versions(scope)})
            except Exception as e:  # noqa: BLE001 - the user's error is the answer
                _log.debug("scheduled function %s failed", r["id"], exc_info=True)
                if self.snapshots is not None:
                    self.snapshots.clear()
                return rpc.encode({"error": error_payload(e),
                                   "versions": _plain_versions(scope)})

    def _DatasetCreate(self, req, ctx):
        r = rpc.decode(req)
        with self._scope(-1):
            dataset_fn, strategy = rpc.loads_code(r["blob"])
            with strategy.scope():
                self._datasets[r["id"]] = dataset_fn()
        return b""

    def _IteratorCreate(self, req, ctx):
        r = rpc.decode(req)
        ds = self._datasets.get(r["ds"])
        if ds is None:
            raise errors.NotFoundError(None, None, f"dataset {r['ds']} is not here")
        self._iterators[r["id"]] = iter(ds)
        return b""

    def iterator(self, it_id):
        it = self._iterators.get(it_id)
        if it is None:
            raise errors.NotFoundError(None, None, f"iterator {it_id} is not on this worker")
        return it

    def iterator_handle(self, it_id) -> WorkerIterator:
        """The handle of this worker's iterator ``it_id`` that scheduled functions get
        (one per id: a traced function's recording keeps reading through it)."""
        self.iterator(it_id)
        handle = self._handles.get(it_id)
        if handle is None:
            handle = self._handles[it_id] = WorkerIterator(self, it_id)
        return handle


class WorkerIterator:
    """A worker's iterator of a per-worker dataset, as a scheduled function gets it.

    A plain object to ``tf.function`` (traced by identity, one per iterator and
    worker) whose reads are host nodes: a worker's recording of a scheduled
    function reads the next element on every call, from the iterator the worker
    holds for that id then."""

    __slots__ = ("_service", "_id", "__weakref__")

    def __init__(self, service: TaskService, it_id):
        self._service = service
        self._id = it_id

    @property
    def element_spec(self):
        return self._service.iterator(self._id).element_spec

    def __iter__(self):
        return self

    @graph_trace.host_op(dry=graph_trace.cannot_dry_run)  # a trace without effects: no read
    def __next__(self):
        return next(self._service.iterator(self._id))

    next = __next__

    @graph_trace.host_op(dry=graph_trace.cannot_dry_run)
    def get_next(self, name=None):
        """The next element; raises ``tf.errors.OutOfRangeError`` at the end."""
        return self._service.iterator(self._id).get_next(name)

    def get_next_as_optional(self):
        """The next element wrapped in an ``Optional`` (empty at the end)."""
        return self._service.iterator(self._id).get_next_as_optional()

    def __repr__(self) -> str:
        return f"<WorkerIterator {self._id}>"


def _plain_versions(scope) -> dict:
    return {a: list(v) for a, v in scope.versions.items()}


def _apply_merged(opt, pairs) -> None:
    """Runs on this task what the worker's ``merge_call(optimizer._distributed_apply)``
    would have run. The gradients arrive clipped and transformed (the worker's
    ``apply_gradients`` did that over all of them), so they are not transformed again
    (``apply_gradients`` here applied user ``gradient_transformers`` twice)."""
    create = getattr(opt, "_create_all_weights", None)
    apply = getattr(opt, "_distributed_apply", None)
    if create is None or apply is None:
        opt.apply_gradients(pairs, experimental_aggregate_gradients=False)
        return
    create([v for _, v in pairs])
    apply(None, pairs)


def _forget_slots(opt) -> None:
    """Drops the slots a Keras optimizer copy arrived with. Its slot tables are keyed by
    variable ids of the process that pickled it (a worker): here those ids can name
    other variables (a bias's slot used for a kernel), so this copy makes its own
    slots, beside this task's variables, on first use."""
    slots = getattr(opt, "_slots", None)
    if not isinstance(slots, dict):
        return
    made = {id(s) for d in slots.values() for s in d.values()}
    weights = getattr(opt, "_weights", None)
    if isinstance(weights, list):
        weights[:] = [w for w in weights if id(w) not in made]
    slots.clear()
    for name in ("_slot_vars", "_created_for"):
        table = getattr(opt, name, None)
        if table is not None:
            table.clear()
    opt.__dict__.pop("_slot_lists", None)
    opt.__dict__.pop("_created_last", None)  # the worker's variables


def _to_plain(x):
    """A function's result as the transport sends it (tensors, arrays, scalars, nests)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_to_plain(v) for v in x) if not hasattr(x, "_fields") else tuple(
            _to_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_plain(v) for k, v in x.items()}
    if isinstance(x, Variable):
        return x.read_value()
    if hasattr(x, "_tf_value") and not isinstance(x, (int, float, str, bytes)):
        return x._tf_value()
    return x
