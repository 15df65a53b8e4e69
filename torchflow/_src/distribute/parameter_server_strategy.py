"""``tf.distribute.experimental.ParameterServerStrategy`` (TF 2.4's V2 strategy).

Variables created under ``strategy.scope()`` live on the ``ps`` tasks, placed
round-robin (``variable.device`` is ``/job:ps/replica:0/task:N/device:CPU:0``), or
split along axis 0 into a ``ShardedVariable`` when ``variable_partitioner`` asks
for more than one shard. Functions run on the workers through a
``tf.distribute.experimental.coordinator.ClusterCoordinator``.

The strategy travels to the workers inside the scheduled functions (pickled as
its cluster, partitioner and id); there it runs ``strategy.run`` as one replica,
and a variable created during a function (an optimizer's slot) is created on a
ps task by get-or-create under a name-derived key, so every worker shares it.

The optimizer's update of ps variables runs on the ps task that owns them
(``apply_optimizer_remotely``: one call per ps task per step, carrying the
gradients; the optimizer and its slots live there), so concurrent workers never
lose each other's updates.
"""

from __future__ import annotations

import threading
import uuid
import zlib

from torchflow._src.core import graph_trace, rpc
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.variable_scope import current_name_scope
from torchflow._src.distribute import ps_values
from torchflow._src.distribute.distribute_lib import (
    ReplicaContext,
    Strategy,
    StrategyExtended,
    _merge_in_cross_replica,
)
from torchflow._src.distribute.ps_values import PSVariable, ShardedVariable
from torchflow._src.ops.array_ops import split
from torchflow._src.util.api import public

_sent_optimizers: set = set()
_sent_lock = threading.Lock()


def _job_addresses(spec: dict, job: str) -> list:
    tasks = spec.get(job) or []
    if isinstance(tasks, dict):
        return [tasks[i] for i in sorted(tasks)]
    return list(tasks)


class ParameterServerExtended(StrategyExtended):
    """``strategy.extended`` of ``ParameterServerStrategy``."""

    def __init__(self, strategy, cluster: dict, partitioner, sid: str):
        super().__init__(strategy)
        self._cluster = cluster
        self._ps = _job_addresses(cluster, "ps")
        self._workers = _job_addresses(cluster, "worker")
        self._partitioner = partitioner
        self._sid = sid
        self._next_ps = 0
        self._names: dict = {}
        self._lock = threading.Lock()
        self._coordinator = None
        self._used_with_coordinator = False

    @property
    def _num_replicas_in_sync(self) -> int:
        return 1

    @property
    def worker_devices(self) -> tuple:
        return ("/job:chief/replica:0/task:0/device:CPU:0",)

    @property
    def parameter_devices(self) -> tuple:
        return tuple(f"/job:ps/replica:0/task:{i}/device:CPU:0" for i in range(len(self._ps)))

    @property
    def experimental_between_graph(self) -> bool:
        return True

    # --- variables ---
    def _place(self, full_name: str) -> tuple[str, int]:
        """The key and the ps task of a new variable."""
        scope = ps_values.current_scope()
        with self._lock:
            if scope is None:  # the coordinator: round-robin
                n = self._names.get(full_name, 0)
                self._names[full_name] = n + 1
                index = self._next_ps % len(self._ps)
                self._next_ps += 1
                return f"{self._sid}/{full_name}/{n}", index
            counts = scope.service.created_names
            n = counts.get(full_name, 0)
            counts[full_name] = n + 1
        # On a worker (inside a scheduled function) every worker makes the same key,
        # so they share one variable; its task comes from the key.
        key = f"{self._sid}/w/{full_name}/{n}"
        return key, zlib.crc32(key.encode()) % len(self._ps)

    def _create_one(self, value, name: str, kwargs) -> PSVariable:
        full = current_name_scope() + name
        key, index = self._place(full)
        address = self._ps[index]
        trainable = kwargs.get("trainable")
        out = rpc.decode(ps_values.channel(address).call(
            "VarCreate", rpc.encode({"key": key, "value": value, "name": full,
                                     "trainable": trainable is not False}),
            timeout=rpc.DEFAULT_TIMEOUT, idempotent=True))
        ps_values.observe(address, out.get("version"))
        extra = {k: kwargs[k] for k in ("constraint", "synchronization", "aggregation")
                 if kwargs.get(k) is not None}
        v = PSVariable(key, index, address, out["value"], name, trainable=trainable,
                       strategy=self._container_strategy(), dtype=value.dtype, **extra)
        scope = ps_values.current_scope()
        if scope is not None:
            scope.proxies[key] = v
        return v

    def _create_variable(self, next_creator, **kwargs):
        init = kwargs.get("initial_value")
        if callable(init):
            init = init()
        value = convert_to_tensor(init, dtype=kwargs.get("dtype"))
        base = kwargs.get("name") or "Variable"
        base = base[:-2] if base.endswith(":0") else base
        shape = value.shape
        if self._partitioner is not None and shape.rank and shape[0] is not None:
            shards = self._partitioner(shape, value.dtype)[0]
            if shards > 1:
                n, k = int(shape[0]), int(shards)
                sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
                parts = split(value, sizes, axis=0)
                full = current_name_scope() + base
                return ShardedVariable(
                    [self._create_one(p, f"{base}/part_{i}", kwargs)
                     for i, p in enumerate(parts)], name=full)
        return self._create_one(value, base, kwargs)

    def variable_created_in_scope(self, v) -> bool:
        s = getattr(v, "_distribute_strategy", None)
        return s is not None and getattr(s.extended, "_sid", None) == self._sid

    # --- the optimizer's update, on the ps tasks ---
    # A host node of a traced step: the update is remote calls, made on every call.
    @graph_trace.host_op
    def apply_optimizer_remotely(self, optimizer, grads_and_vars, apply_locally) -> None:
        """Applies ``optimizer``'s update of the ps variables on their ps tasks (one
        call per task, with the gradients) and counts the step once; other
        variables go to ``apply_locally(pairs)``."""
        by_ps: dict = {}
        local = []
        for g, v in grads_and_vars:
            if isinstance(v, PSVariable):
                by_ps.setdefault(v._address, []).append((g, v))
            else:
                local.append((g, v))
        if local:
            apply_locally(local)
        if not by_ps:
            return
        it = optimizer.iterations
        step = int(it.numpy())
        opt_key = it._key if isinstance(it, PSVariable) else f"{self._sid}/opt/{id(optimizer)}"
        blob = None
        counted = not isinstance(it, PSVariable)
        calls, sent_keys, reads = [], [], []
        scope = ps_values.current_scope()
        for address, pairs in by_ps.items():
            msg = {"opt": opt_key, "keys": [v._key for _, v in pairs],
                   "grads": [convert_to_tensor(g) for g, _ in pairs], "step": step}
            read = None
            if scope is not None and scope.snapshots is not None:
                # The values the next step reads here, answered after this update
                # (ps_values.prefetch: the next step may not need to read them).
                wanted = {**scope.wanted, **scope.read}
                read = [k for k, v in wanted.items() if v._address == address]
                msg["read"] = read
            reads.append(read)
            if not counted and address == it._address:
                msg["count"] = it._key  # the step is counted where `iterations` lives
                counted = True
            sent = (address, opt_key, id(optimizer))
            if sent not in _sent_optimizers:
                blob = blob or rpc.dumps_code(optimizer)
                msg["blob"] = blob
            calls.append((ps_values.channel(address), "OptApply", rpc.encode(msg)))
            sent_keys.append(sent)
        outs = rpc.call_all(calls, timeout=rpc.DEFAULT_TIMEOUT)  # every ps task's at once
        for address, read, raw in zip(by_ps, reads, outs):
            if read is not None and raw:
                out = rpc.decode(raw)
                ps_values.observe(address, out["version"])
                ps_values._snapshot(scope, address, out["version"], read, out["values"])
        with _sent_lock:
            _sent_optimizers.update(sent_keys)
        if not counted:
            it.assign_add(1)

    # --- running ---
    def _update(self, var, fn, args, kwargs, group):
        return fn(var, *args, **kwargs)

    def _call_for_each_replica(self, fn, args, kwargs):
        strategy = self._container_strategy()
        ctx = ReplicaContext(strategy, 0)

        def merge(merge_fn, m_args, m_kwargs):
            # A Keras optimizer applies its (aggregated) gradients through
            # merge_call(optimizer._distributed_apply, (grads_and_vars,)): ps variables
            # are updated on their ps tasks instead, beside the optimizer's slots.
            opt = getattr(merge_fn, "__self__", None)
            if getattr(merge_fn, "__name__", "") == "_distributed_apply" and \
                    hasattr(opt, "apply_gradients") and len(m_args) == 1 and not m_kwargs:
                return _merge_in_cross_replica(
                    strategy, lambda s, gv: self.apply_optimizer_remotely(
                        opt, list(gv), lambda pairs: merge_fn(s, pairs)), m_args, {})
            return _merge_in_cross_replica(strategy, merge_fn, m_args, m_kwargs)

        ctx._merge_hook = merge
        with ctx:
            return fn(*args, **kwargs)


def _worker_copy(cluster, partitioner, sid):
    """The strategy on a worker (unpickled from a scheduled function): one per worker."""
    scope = ps_values.current_scope()
    cache = scope.service.strategies if scope is not None and scope.service else None
    if cache is not None and sid in cache:
        return cache[sid]
    s = ParameterServerStrategy.__new__(ParameterServerStrategy)
    Strategy.__init__(s, ParameterServerExtended(s, cluster, partitioner, sid))
    s._cluster_resolver = None
    if cache is not None:
        cache[sid] = s
    return s


@public("torchflow.distribute.experimental")
class ParameterServerStrategy(Strategy):
    """An asynchronous multi-worker parameter-server ``tf.distribute`` strategy.

    Variables created under ``scope()`` are placed on the cluster's ``ps`` tasks
    round-robin (or sharded by ``variable_partitioner``); a
    ``tf.distribute.experimental.coordinator.ClusterCoordinator`` schedules
    functions on the ``worker`` tasks, which read the variables from the ps tasks
    and update them there.

    Args:
      cluster_resolver: A ``tf.distribute.cluster_resolver.ClusterResolver`` whose
        cluster has ``worker`` and ``ps`` jobs (and optionally a ``chief``).
      variable_partitioner: None, or a partitioner from
        ``tf.distribute.experimental.partitioners``, called with a variable's shape
        and dtype; more than one shard along axis 0 makes a ``ShardedVariable``.

    Raises:
      ValueError: If the cluster is empty or has no ``ps`` or no ``worker`` task.

    Differences from TensorFlow 2.4: scheduled functions run their Python on the
    workers (sent with cloudpickle to authenticated peers) instead of as a graph.
    """

    _is_parameter_server_strategy_v2 = True

    def __init__(self, cluster_resolver, variable_partitioner=None):
        spec = cluster_resolver.cluster_spec()
        if not spec:
            raise ValueError("Cluster spec must be non-empty in "
                             "`tf.distribute.cluster_resolver.ClusterResolver`.")
        cluster = spec.as_dict()
        for job in cluster:
            if job not in ("chief", "worker", "ps", "evaluator"):
                raise ValueError(f"Unrecognized task_type: {job!r}, valid task types are: "
                                 "\"chief\", \"worker\", \"evaluator\" and \"ps\".")
        if not _job_addresses(cluster, "ps"):
            raise ValueError("There must be at least one ps.")
        if not _job_addresses(cluster, "worker"):
            raise ValueError("There must be at least one worker.")
        self._cluster_resolver = cluster_resolver
        rpc.ensure_cluster_token()
        super().__init__(ParameterServerExtended(self, cluster, variable_partitioner,
                                                 uuid.uuid4().hex[:12]))

    @property
    def cluster_resolver(self):
        """The cluster resolver the strategy was made with."""
        return self._cluster_resolver

    def __reduce__(self):
        ext = self._extended
        return (_worker_copy, (ext._cluster, ext._partitioner, ext._sid))

    def __deepcopy__(self, memo):
        return self
