"""Variables that live on parameter-server tasks: ``PSVariable`` and ``ShardedVariable``.

A ``PSVariable`` is a ``tf.Variable`` whose value is owned by one ``ps`` task (its
``device`` names the task, as TF's does). The local storage is a cache:

- on the coordinator every read fetches the value from the ps task (one call);
- on a worker, while a scheduled function runs, the variables the function
  references are fetched before it starts, in one batched call per ps task
  (``prefetch``), and reads in the step use that snapshot; a ps task's call is
  skipped when the values its last update answered include every write the
  program has seen there (see "versions" below);
- ``assign``/``assign_add``/``assign_sub`` are one remote call each, applied
  atomically on the ps under the variable's lock (concurrent workers lose no
  update); the new value comes back and refreshes the cache.

In a traced function the remote part of a read (``_sync``) and of a write
(``_update``) are host nodes, so a recording makes them again on every call; the
read itself is a read of the local cache, which they keep up to date.

Pickled (cloudpickle sends scheduled functions to workers), a PSVariable travels
as its key and ps address only; unpickled inside a worker's service it becomes
that worker's proxy for the key (one per key per worker).

Worker-side state (which step is running, the proxies of a worker) is per thread
here rather than in ``core/context.py``: it belongs to the ps service's threads only.
"""

from __future__ import annotations

import threading

import numpy as np

from torchflow._src.core import dtypes, errors, graph_trace, rpc
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.variables import Variable
from torchflow._src.ops.array_ops import concat, reshape, split
from torchflow._src.ops.gather_ops import gather

READ_TIMEOUT = 5.0  # reads retry (idempotent) within it; a lost ps fails a step in ~5 s
# Steps read from the snapshot their worker's last update returned when no write the
# program could have seen is missing from it (see ``prefetch``); "0" turns that off.
SNAPSHOT_ENV = "TORCHFLOW_PS_SNAPSHOT_READS"

_local = threading.local()
_channels: dict = {}
_channels_lock = threading.Lock()


def channel(address: str) -> rpc.Channel:
    """The process's channel to ``address`` (made once)."""
    ch = _channels.get(address)
    if ch is None:
        with _channels_lock:
            ch = _channels.get(address)
            if ch is None:
                ch = _channels[address] = rpc.Channel(address)
    return ch


def drop_channel(address: str) -> None:
    with _channels_lock:
        ch = _channels.pop(address, None)
    if ch is not None:
        ch.close()


# --- worker-side step state ------------------------------------------------------------


class WorkerScope:
    """Marks this thread as running a step for a worker service (``proxies`` is that
    worker's key -> PSVariable table, ``epoch`` the step's number, ``service`` the
    worker's ``TaskService``: its iterators)."""

    def __init__(self, proxies: dict, epoch: int, service=None):
        self.proxies = proxies
        self.epoch = epoch
        self.service = service
        self.touched: dict = {}  # key -> proxy: the variables unpickled in this scope
        self.read: dict = {}  # key -> proxy: the variables read in this scope
        self.versions: dict = {}  # ps address -> the newest version this step saw
        self.wanted: dict = {}  # key -> proxy: what the step prefetched
        # ps address -> (version, {key: value}): the worker's snapshots (see prefetch)
        self.snapshots = None if service is None else getattr(service, "snapshots", None)

    def __enter__(self):
        self._prev = getattr(_local, "scope", None)
        _local.scope = self
        return self

    def __exit__(self, *exc):
        _local.scope = self._prev
        return False


def current_scope() -> WorkerScope | None:
    return getattr(_local, "scope", None)


def _epoch():
    s = current_scope()
    return None if s is None else (id(s.proxies), s.epoch)


# --- versions: which writes a read has seen --------------------------------------------
#
# Every ps task numbers its writes ([incarnation, count]: VarCreate, VarUpdate and
# OptApply bump it after writing) and answers reads and writes with the number it
# had reached. The coordinator's process keeps, per ps task, the highest number
# the program has seen (``observe``): its own reads and writes, and the steps whose
# completion it observed (``RemoteValue.fetch``, ``join``, ``done``: their
# ``versions``). A step on a worker may then use the values its worker's previous
# update returned (``snapshots``, read on the ps right after that update) instead of
# reading again, when they include every write the program has seen on that task:
# writes of steps still running, or finished unobserved, are concurrent with the step
# (TF promises nothing about them), so it reads what it would have read a moment
# earlier. A write of the step itself after its update drops the snapshot.

_observed: dict = {}  # ps address -> (incarnation, count): writes the program has seen
_observed_lock = threading.Lock()


def _newer(a, b) -> bool:
    """Whether version ``a`` includes every write of ``b`` (same incarnation only)."""
    return a is not None and b is not None and a[0] == b[0] and a[1] >= b[1]


def observe(address: str, version) -> None:
    """Records that the program has seen ``version`` of ps task ``address`` (in the
    coordinator's process; inside a worker's step the step's scope records it)."""
    if not version:
        return
    version = (str(version[0]), int(version[1]))
    scope = current_scope()
    if scope is not None:
        old = scope.versions.get(address)
        if old is None or old[0] != version[0] or old[1] < version[1]:
            scope.versions[address] = version
        return
    with _observed_lock:
        old = _observed.get(address)
        if old is None or old[0] != version[0] or old[1] < version[1]:
            _observed[address] = version


def observe_all(versions) -> None:
    for address, version in (versions or {}).items():
        observe(address, version)


def observed() -> dict:
    """The versions the program has seen, as a FnRun request carries them."""
    with _observed_lock:
        return {a: list(v) for a, v in _observed.items()}


def _snapshot(scope, address: str, version, keys, values) -> None:
    if scope is not None and scope.snapshots is not None and version:
        scope.snapshots[address] = ((str(version[0]), int(version[1])),
                                    dict(zip(keys, values)))


def prefetch(variables, known=None) -> None:
    """Reads ``variables`` (PSVariables) in one call per ps task; marks them fresh.

    ``known`` (ps address -> version the program has seen) lets a ps task's reads be
    served from the worker's snapshot of it when that includes those writes."""
    by_ps: dict = {}
    for v in variables:
        by_ps.setdefault(v._address, []).append(v)
    epoch = _epoch()
    scope = current_scope()
    snaps = None if scope is None else scope.snapshots
    groups = []
    for address, vs in by_ps.items():
        snap = None if snaps is None or known is None else snaps.get(address)
        need = known.get(address) if known else None
        if snap is not None and need is not None and _newer(snap[0], tuple(need)) and \
                all(v._key in snap[1] for v in vs):
            for v in vs:
                v._set_cache(snap[1][v._key], epoch)
            observe(address, snap[0])
        else:
            groups.append((address, vs))
    if not groups:
        return
    outs = rpc.call_all([(channel(a), "VarRead", rpc.encode({"keys": [v._key for v in vs]}))
                         for a, vs in groups], timeout=READ_TIMEOUT, idempotent=True)
    for (address, vs), raw in zip(groups, outs):
        out = rpc.decode(raw)
        for v, value in zip(vs, out["values"]):
            v._set_cache(value, epoch)
        observe(address, out.get("version"))
        _snapshot(scope, address, out.get("version"), [v._key for v in vs], out["values"])


# --- PSVariable ------------------------------------------------------------------------


class PSVariable(Variable):
    """A ``tf.Variable`` stored on a parameter-server task (see the module doc)."""

    def __init__(self, key: str, ps_index: int, address: str, initial_value, name: str,
                 trainable=None, strategy=None, **kwargs):
        Variable.__init__(self, initial_value=initial_value, trainable=trainable, name=name,
                          **kwargs)
        self._key = key
        self._ps_index = int(ps_index)
        self._address = address
        self._fresh = None
        self._distribute_strategy = strategy

    @property
    def device(self) -> str:
        return f"/job:ps/replica:0/task:{self._ps_index}/device:CPU:0"

    def _set_cache(self, value, epoch) -> None:
        Variable.assign(self, value)
        self._fresh = epoch

    def _refresh(self) -> None:
        out = rpc.decode(channel(self._address).call(
            "VarRead", rpc.encode({"keys": [self._key]}), timeout=READ_TIMEOUT,
            idempotent=True))
        self._set_cache(out["values"][0], _epoch())
        observe(self._address, out.get("version"))

    def _read(self):
        _sync(self)  # a host node of a traced function: every call brings the cache up to date
        return Variable._read(self)

    def numpy(self) -> np.ndarray:
        self._read()
        return Variable.numpy(self)

    def _remote(self, op: str, value, read_value: bool):
        v = convert_to_tensor(value, dtype=self.dtype)
        if op != "assign" and tuple(v.shape) != tuple(self.shape):
            raise errors.InvalidArgumentError(
                None, None, f"Cannot update variable with shape {list(self.shape)} using a "
                f"Tensor with shape {list(v.shape)}, shapes must be equal.")
        if op == "assign" and not self.shape.is_compatible_with(TensorShape(v.shape)):
            raise ValueError(
                f"Cannot assign value to variable ' {self.name}': Shape mismatch.The "
                f"variable shape {tuple(self.shape)}, and the assigned value shape "
                f"{tuple(v.shape)} are incompatible.")
        _update(self, op, v)  # a host node of a traced function: one remote call per call
        return self if read_value else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Assigns ``value`` on the owning ps task (one remote call)."""
        return self._remote("assign", value, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds ``delta`` on the owning ps task, atomically (one remote call)."""
        return self._remote("add", delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts ``delta`` on the owning ps task, atomically (one remote call)."""
        return self._remote("sub", delta, read_value)

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_rebuild, (self._key, self._ps_index, self._address, self.name[:-2],
                           self.dtype.name, tuple(self.shape), self.trainable,
                           self._distribute_strategy))

    def __repr__(self) -> str:
        return (f"<tf.Variable '{self.name}' shape={tuple(self.shape)} dtype={self.dtype.name}"
                f" device={self.device}>")


# Reads and writes are remote calls made in Python: host nodes of a traced function, so
# a worker's recording of a scheduled function makes them again on every call.


@graph_trace.host_op
def _sync(var: PSVariable) -> None:
    """Brings ``var``'s cache up to date before a read: on a worker inside a step, from
    the step's prefetch (a call only when it is missing); elsewhere, one call."""
    scope = current_scope()
    if scope is None:
        var._refresh()
        return
    scope.read[var._key] = var
    if var._fresh != (id(scope.proxies), scope.epoch):
        var._refresh()


@graph_trace.host_op
def _update(var: PSVariable, op: str, value) -> None:
    """Applies ``op`` ("assign", "add", "sub") of ``value`` to ``var`` on its ps task."""
    scope = current_scope()
    if scope is not None and scope.snapshots is not None:
        scope.snapshots.pop(var._address, None)  # this step writes after its update
    out = rpc.decode(channel(var._address).call(
        "VarUpdate", rpc.encode({"ops": [[var._key, op, value]]}), timeout=rpc.DEFAULT_TIMEOUT))
    var._set_cache(out["values"][0], _epoch())
    observe(var._address, out.get("version"))


def _rebuild(key, ps_index, address, name, dtype, shape, trainable, strategy):
    scope = current_scope()
    if scope is not None and key in scope.proxies:
        v = scope.proxies[key]
        scope.touched[key] = v
        return v
    dt = dtypes.as_dtype(dtype)
    zeros = np.zeros(shape, dtype=object) if dt is dtypes.string else np.zeros(
        shape, dtype=dt.as_numpy_dtype)
    v = PSVariable(key, ps_index, address, zeros, name, trainable=trainable,
                   strategy=strategy, dtype=dt)
    if scope is not None:
        scope.proxies[key] = v
        scope.touched[key] = v
    return v


# --- ShardedVariable -------------------------------------------------------------------


class ShardedVariable:
    """A variable split along axis 0 into shards, each a variable on a ps task.

    Created by ``ParameterServerStrategy`` when its ``variable_partitioner``
    returns more than one shard. It converts to one tensor (the shards
    concatenated), and ``assign*`` split the value between the shards.

    Args:
      variables: The shards, in order along axis 0.
      name: The name of the whole variable.
    """

    _is_tf_tensor_like = True

    def __init__(self, variables, name="ShardedVariable"):
        variables = list(variables)
        if not variables:
            raise ValueError("Expected a list of `Variable`s, found: []")
        first = variables[0]
        for v in variables[1:]:
            if v.dtype != first.dtype:
                raise ValueError("All `Variable`s must have the same dtype, found: "
                                 f"{[v.dtype for v in variables]}")
            if tuple(v.shape[1:]) != tuple(first.shape[1:]):
                raise ValueError("All `Variable`s must have the same shapes except for the "
                                 f"first axis, found {[v.shape for v in variables]}")
        self._variables = variables
        self._name = name
        self._shape = TensorShape([sum(int(v.shape[0]) for v in variables),
                                   *first.shape[1:]])

    @property
    def variables(self) -> list:
        """The list of the shard variables."""
        return list(self._variables)

    def _checkpoint_shards(self) -> list:
        """The shards along axis 0: tf.train.Checkpoint saves them as TF 2.4 saves a
        ShardedVariable, one partitioned tensor whose slices are the shards."""
        return list(self._variables)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self):
        return self._variables[0].dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def trainable(self) -> bool:
        return self._variables[0].trainable

    def get_shape(self) -> TensorShape:
        return self._shape

    def _tf_value(self, dtype=None):
        return self.read_value()

    def value(self):
        return self.read_value()

    def read_value(self):
        """The whole value: the shards' values concatenated along axis 0."""
        parts = [v.read_value() for v in self._variables]
        return parts[0] if len(parts) == 1 else concat(parts, 0)

    def numpy(self) -> np.ndarray:
        return np.concatenate([v.numpy() for v in self._variables], axis=0)

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self.numpy())
        return a if dtype is None else a.astype(dtype)

    def sparse_read(self, indices, name=None):
        """Rows ``indices`` of the whole variable, read from the shards that hold them."""
        return embedding_lookup(self, indices)

    def _split(self, value):
        v = convert_to_tensor(value, dtype=self.dtype)
        if tuple(v.shape) != tuple(self._shape):
            raise ValueError(f"Cannot assign value of shape {tuple(v.shape)} to sharded "
                             f"variable '{self._name}' of shape {tuple(self._shape)}.")
        return split(v, [int(s.shape[0]) for s in self._variables], axis=0)

    def assign(self, value, use_locking=False, name=None, read_value=True):
        for s, part in zip(self._variables, self._split(value)):
            s.assign(part)
        return self if read_value else None

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        for s, part in zip(self._variables, self._split(delta)):
            s.assign_add(part)
        return self if read_value else None

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        for s, part in zip(self._variables, self._split(delta)):
            s.assign_sub(part)
        return self if read_value else None

    def __iter__(self):
        return iter(self._variables)

    def __len__(self) -> int:
        return len(self._variables)

    def __repr__(self) -> str:
        return (f"<tf.ShardedVariable '{self._name}' shape={tuple(self._shape)} "
                f"dtype={self.dtype.name} shards={len(self._variables)}>")


def embedding_lookup(sharded: ShardedVariable, ids):
    """Rows ``ids`` of ``sharded`` (axis 0 split as its shards are), each shard read once."""
    ids = convert_to_tensor(ids)
    flat = np.asarray(ids.numpy()).reshape(-1).astype(np.int64)
    bounds = np.cumsum([0] + [int(v.shape[0]) for v in sharded._variables])
    if flat.size and (flat.min() < 0 or flat.max() >= bounds[-1]):
        bad = flat[(flat < 0) | (flat >= bounds[-1])][0]
        raise errors.InvalidArgumentError(
            None, None, f"indices = {bad} is not in [0, {bounds[-1]}) [Op:ResourceGather]")
    owner = np.searchsorted(bounds, flat, side="right") - 1
    pieces, order = [], []
    for i, v in enumerate(sharded._variables):
        pos = np.nonzero(owner == i)[0]
        if pos.size:
            pieces.append(gather(v, convert_to_tensor(flat[pos] - bounds[i])))
            order.append(pos)
    if not pieces:
        rows = gather(sharded._variables[0], convert_to_tensor(np.zeros(0, np.int64)))
    else:
        rows = pieces[0] if len(pieces) == 1 else concat(pieces, 0)
        inverse = np.argsort(np.concatenate(order))
        rows = gather(rows, convert_to_tensor(inverse))
    return reshape(rows, [*ids.shape, *sharded.shape[1:]])
