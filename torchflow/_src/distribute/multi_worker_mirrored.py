"""``tf.distribute.MultiWorkerMirroredStrategy``: synchronous training, one process per worker.

The cluster comes from a cluster resolver (default ``TFConfigClusterResolver``:
``TF_CONFIG``, else torchrun's ``RANK``/``WORLD_SIZE``/``MASTER_ADDR``/
``MASTER_PORT``). The training tasks are ``chief`` (if any) and the ``worker``s;
ranks follow TF's order (chief 0, then workers). An ``evaluator`` task, or a
cluster of one, runs locally without collectives.

On top of ``MirroredExtended`` (this worker's devices, mirrored variables, the
replica machinery) this module adds the process group: reductions add the
local replicas, then all-reduce the sum between the workers through
``core.collective.CollectiveGroup`` (Gloo on CPU, NCCL between GPUs), packed by
``CommunicationOptions.bytes_per_pack`` and bounded by ``timeout_seconds``; every
new variable takes the chief's initial value (a broadcast); datasets are
auto-sharded between the workers and each global batch is split among all
``num_replicas_in_sync`` replicas of the cluster.

Datasets (``experimental_distribute_dataset``) follow TF 2.4's rebatch-then-shard:
each global batch of ``B`` elements is split into ``num_replicas_in_sync``
per-replica batches of ``ceil(B / num_replicas_in_sync)`` elements (the last
ones shorter, possibly empty, in a short batch), and by the dataset's
``AutoShardPolicy``:

* ``DATA`` (or ``AUTO`` with no file reader, ``HINT``): every worker reads all
  the data and keeps its replicas' slices of each global batch, so a step sees
  exactly the global batch a single process would.
* ``FILE`` (or ``AUTO`` with file readers): each worker reads its share of the
  files; each of its global batches feeds ``num_workers`` steps. Fewer files
  than workers is an ``InvalidArgumentError`` at once (a worker would get no
  data; TF hangs there).
* ``OFF``: every worker reads all the data and takes its steps from it like FILE.

Threads: when several training tasks of the cluster run on this machine (their
addresses name the same host, or torchrun's ``LOCAL_WORLD_SIZE``), each worker's
intra-op thread count defaults to the machine's CPUs divided among them, as
torchrun's ``OMP_NUM_THREADS=1`` default does: torch's CPU kernels would
otherwise run every worker with a thread per core, and the workers' threads then
stall each other (a 2-worker ``fit`` on 2 CPUs ran at half the speed).
``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` or
``tf.config.threading.set_intra_op_parallelism_threads`` keep the user's choice.

Differences from TensorFlow 2.4: ``CommunicationOptions.timeout_seconds=None``
waits at most ``core.collective.DEFAULT_TIMEOUT_SECONDS`` (1800 s, the
``TORCHFLOW_COLLECTIVE_TIMEOUT`` environment variable), not forever; the
per-replica slice of a short batch under DATA is computed from that batch
(TF fixes it from the first batch).
"""

from __future__ import annotations

import logging
import math
import os
import warnings

from torchflow._src.core import collective, config
from torchflow._src.core.errors import NotFoundError
from torchflow._src.core.variables import Variable, VariableSynchronization
from torchflow._src.data.distribute import auto_shard_dataset
from torchflow._src.data.options import AutoShardPolicy
from torchflow._src.distribute import values
from torchflow._src.distribute.cluster_resolver import (
    ClusterResolver,
    TFConfigClusterResolver,
    _torchrun_env,
)
from torchflow._src.distribute.communication_options import (
    CommunicationImplementation,
    Options,
)
from torchflow._src.distribute.cross_device_ops import CrossDeviceOps
from torchflow._src.distribute.distribute_lib import Strategy, _merge_in_cross_replica
from torchflow._src.distribute.mirrored_strategy import (
    MirroredExtended,
    canonicalize_device,
    default_devices,
)
from torchflow._src.ops.math_ops import minimum
from torchflow._src.ops.shape_ops import shape as shape_op
from torchflow._src.util import nest, omp_env
from torchflow._src.util.api import public

_log = logging.getLogger("tensorflow")
_TRAINING_JOBS = ("chief", "worker")


def _implementation_name(options) -> str:
    impl = options.implementation
    return {CommunicationImplementation.RING: "ring",
            CommunicationImplementation.NCCL: "nccl"}.get(impl, "auto")


class CollectiveAllReduce(CrossDeviceOps):
    """Adds the local replicas, then all-reduces the sum between the workers."""

    def __init__(self, group, num_workers: int, options: Options):
        super().__init__()
        self._group = group
        self._num_processes = num_workers
        self._options = options

    def _opts(self, options):
        return self._options.merge(options)

    def _cross_process_batch_sum(self, tensors, options):
        if self._group is None or not tensors:
            return list(tensors)
        o = self._opts(options)
        return self._group.all_reduce(list(tensors), "sum", bytes_per_pack=o.bytes_per_pack,
                                      timeout_seconds=o.timeout_seconds,
                                      implementation=_implementation_name(o))

    def _cross_process_sum(self, tensor, options):
        return self._cross_process_batch_sum([tensor], options)[0]

    def _cross_process_gather(self, tensor, axis, options):
        if self._group is None:
            return tensor
        return self._group.all_gather(tensor, axis, timeout_seconds=self._opts(options)
                                      .timeout_seconds)


def _cluster_roles(resolver):
    """(task_type, task_id, ordered training task names, this task's rank or None)."""
    spec = resolver.cluster_spec()
    task_type, task_id = resolver.task_type, resolver.task_id
    if not spec.jobs:
        return task_type, task_id, [], None
    if "ps" in spec.jobs:
        raise ValueError("MultiWorkerMirroredStrategy does not support a cluster with `ps` "
                         "tasks; use tf.distribute.experimental.ParameterServerStrategy.")
    if task_type is None or task_id is None:
        raise ValueError("When `cluster_spec` is given, you must also specify `task_type` and "
                         f"`task_id`. Received: task_type={task_type!r}, task_id={task_id!r}")
    if task_type not in ("chief", "worker", "evaluator"):
        raise ValueError(f"Unrecognized task_type: {task_type!r}, valid task types are: "
                         "\"chief\", \"worker\", \"evaluator\" and \"ps\".")
    if "chief" in spec.jobs and spec.num_tasks("chief") > 1:
        raise ValueError("There must be at most one 'chief' job.")
    names = []
    for job in _TRAINING_JOBS:
        if job in spec.jobs:
            names += [f"/job:{job}/replica:0/task:{i}" for i in spec.task_indices(job)]
    if task_type == "evaluator":
        return task_type, task_id, names, None
    me = f"/job:{task_type}/replica:0/task:{task_id}"
    if me not in names:
        raise ValueError(f"The task {me} is not in the cluster: {spec}")
    return task_type, task_id, names, names.index(me)


class CollectiveAllReduceExtended(MirroredExtended):
    """``strategy.extended`` of MultiWorkerMirroredStrategy."""

    def __init__(self, container_strategy, cluster_resolver, communication_options):
        self._cluster_resolver = cluster_resolver
        self._communication_options = communication_options
        task_type, task_id, names, rank = _cluster_roles(cluster_resolver)
        self._task_type, self._task_id = task_type, task_id
        self._cluster_spec = cluster_resolver.cluster_spec()
        multi = rank is not None and len(names) > 1
        torchrun = _torchrun_env()
        devices = None
        if torchrun is not None and int(os.environ.get("LOCAL_WORLD_SIZE", "1") or 1) > 1:
            # One process per device (torchrun's way): this process's device only.
            gpus = default_devices()
            if "GPU" in gpus[0] and torchrun["local_rank"] < len(gpus):
                devices = [gpus[torchrun["local_rank"]]]
        group = None
        if multi:
            _share_cpus(_colocated_tasks(cluster_resolver, names, torchrun))
            group = _make_group(cluster_resolver, names, rank, communication_options, torchrun)
        super().__init__(container_strategy, devices,
                         CollectiveAllReduce(group, len(names) if multi else 1,
                                             communication_options))
        job = task_type if rank is not None else "localhost"
        self._devices = tuple(canonicalize_device(d, job=job, task=task_id or 0)
                              for d in self._devices)
        self._group = group
        self._num_workers = len(names) if multi else 1
        self._worker_index = rank if multi else 0
        self._is_chief = (not multi) or rank == 0
        _log.info("MultiWorkerMirroredStrategy with cluster_spec = %r, task_type = %r, "
                  "task_id = %r, num_workers = %r, local_devices = %r, communication = %s",
                  self._cluster_spec.as_dict(), task_type, task_id, self._num_workers,
                  self._devices, communication_options.implementation)

    # --- the MirroredExtended extension points ---------------------------------------
    def _after_variable_created(self, var) -> None:
        if self._group is None or isinstance(var, values.SyncOnReadVariable):
            return
        if getattr(var, "_synchronization", None) is VariableSynchronization.ON_READ:
            return
        chief = self._group.broadcast([var.read_value()], 0, timeout_seconds=self
                                      ._communication_options.timeout_seconds)[0]
        Variable.assign(var, chief, read_value=False)  # the local storage, no merge_call

    def _per_replica_batch_size(self, local_batch_size: int) -> int:
        # _shard_dataset has already cut this worker's share of each global batch.
        return max(1, math.ceil(local_batch_size / self._num_local_replicas()))

    def _shard_dataset(self, dataset, options):
        if self._num_workers == 1:
            return dataset
        policy = AutoShardPolicy(dataset.options().experimental_distribute.auto_shard_policy)
        n, w, local = self._num_workers, self._worker_index, self._num_local_replicas()
        replicas = self._num_replicas_in_sync
        if policy in (AutoShardPolicy.FILE, AutoShardPolicy.AUTO):
            try:
                sharded = auto_shard_dataset(dataset, n, w, AutoShardPolicy.FILE)
                return _steps_per_batch(sharded, n)
            except NotFoundError:
                if policy == AutoShardPolicy.FILE:
                    raise
                _log.warning("AutoShardPolicy.AUTO found no file reader in the dataset; "
                             "falling back to sharding by data (DATA).")
        if policy == AutoShardPolicy.OFF:
            return _steps_per_batch(dataset, n)
        return _worker_slices(dataset, w * local, local, replicas)

    def _replica_contexts(self) -> list:
        contexts = super()._replica_contexts()
        if len(contexts) == 1 and self._num_workers > 1:
            # One local replica: merge_call runs in place, but its result must be
            # handed back as this replica's component (as the threaded runner does).
            strategy = self._container_strategy()

            def merge(merge_fn, args, kwargs):
                out = _merge_in_cross_replica(strategy, merge_fn, args, kwargs)
                return values.select_replica(0, out)

            contexts[0]._merge_hook = merge
        return contexts

    # --- reductions: a plain value is this worker's one replica's --------------------
    def _wrap_local(self, value):
        if self._num_workers == 1 or isinstance(value, values.DistributedValues):
            return value
        return values.PerReplica([value])

    def reduce_to(self, reduce_op, value, destinations, options=None):
        return super().reduce_to(reduce_op, self._wrap_local(value), destinations, options)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        pairs = [(self._wrap_local(v), d) for v, d in value_destination_pairs]
        return super().batch_reduce_to(reduce_op, pairs, options)

    # --- TF's multi-worker surface ------------------------------------------------------
    def _in_multi_worker_mode(self) -> bool:
        return self._num_workers > 1

    @property
    def experimental_between_graph(self) -> bool:
        return True

    @property
    def experimental_should_init(self) -> bool:
        return True

    @property
    def should_checkpoint(self) -> bool:
        return self._is_chief

    @property
    def should_save_summary(self) -> bool:
        return self._is_chief

    def _check_health(self) -> list:
        """``(task, reason)`` for each peer that does not answer a health check."""
        return [] if self._group is None else self._group.lost_tasks()


_LOOPBACK = ("localhost", "::1", "[::1]")


def _host_of(address: str) -> str:
    host = address.rpartition(":")[0] or address
    return "127.0.0.1" if host.startswith("127.") or host in _LOOPBACK else host


def _colocated_tasks(resolver, names, torchrun) -> int:
    """How many of the cluster's training tasks (this one included) run on this machine."""
    if torchrun is not None:
        try:
            return max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1") or 1))
        except ValueError:
            return 1
    spec = resolver.cluster_spec()
    mine = _host_of(spec.task_address(resolver.task_type, resolver.task_id))
    count = 0
    for name in names:
        job, _, index = name[len("/job:"):].partition("/replica:0/task:")
        if _host_of(spec.task_address(job, int(index))) == mine:
            count += 1
    return max(1, count)


def _share_cpus(local_tasks: int) -> None:
    """Divides the CPUs among ``local_tasks`` workers of this machine (see the module doc)."""
    if local_tasks <= 1 or omp_env.user_set_threads() or \
            config.get_intra_op_parallelism_threads():
        return
    share = max(1, (os.cpu_count() or 1) // local_tasks)
    if config.lower_default_intra_op_threads(share):
        _log.info("MultiWorkerMirroredStrategy: %d workers share this machine's %d CPUs; "
                  "intra-op threads per worker: %d", local_tasks, os.cpu_count() or 1, share)


def _make_group(resolver, names, rank, options, torchrun):
    spec = resolver.cluster_spec()
    leader_job, _, rest = names[0][len("/job:"):].partition("/replica:0/task:")
    leader = spec.task_address(leader_job, int(rest))
    mine = spec.task_address(resolver.task_type, resolver.task_id)
    # torchrun does not publish other ranks' addresses (placeholders): found locally.
    host = None if mine.startswith("torchrun-rank-") else mine.rpartition(":")[0] or None
    use_nccl = options.implementation is not CommunicationImplementation.RING and \
        collective.cuda_available()
    if torchrun is not None and torchrun["world_size"] == len(names):
        if torchrun["rank"] != rank:
            raise ValueError(f"TF_CONFIG makes this task rank {rank} ({names[rank]}) but "
                             f"torchrun's RANK is {torchrun['rank']}; they must agree.")
        return collective.CollectiveGroup(
            rank, len(names), names, master_addr=torchrun["master_addr"],
            master_port=torchrun["master_port"], timeout_seconds=options.timeout_seconds,
            host=host,
            agent_store=os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True",
            use_nccl=use_nccl)
    addr, _, port = leader.rpartition(":")
    return collective.CollectiveGroup(rank, len(names), names, master_addr=addr,
                                      master_port=int(port),
                                      timeout_seconds=options.timeout_seconds, host=host,
                                      use_nccl=use_nccl)


def _batch_size(t):
    return shape_op(t)[0]


def _worker_slices(dataset, first_replica, local, replicas):
    """Each global batch cut to replicas ``[first_replica, first_replica + local)``."""

    def cut(*element):
        element = element[0] if len(element) == 1 else element
        flat = nest.flatten(element)
        _check_batched(flat)
        b = _batch_size(flat[0])
        per = (b + replicas - 1) // replicas
        lo = minimum(per * first_replica, b)
        hi = minimum(per * (first_replica + local), b)
        return nest.pack_sequence_as(element, [t[lo:hi] for t in flat])

    return dataset.map(cut)


def _steps_per_batch(dataset, num_workers):
    """Each of this worker's global batches, cut into ``num_workers`` consecutive steps."""
    spec = nest.flatten(dataset.element_spec)
    if spec and getattr(spec[0], "shape", None) is not None and spec[0].shape.rank == 0:
        _check_batched([spec[0]])
    b = spec[0].shape[0] if spec and getattr(spec[0], "shape", None) is not None and \
        spec[0].shape.rank else None
    if b is None:  # unknown static batch size: the first batch's
        first = next(iter(dataset.take(1)), None)
        if first is None:
            return dataset
        b = int(nest.flatten(first)[0].shape[0])
    return dataset.unbatch().batch(max(1, math.ceil(b / num_workers)))


def _check_batched(flat):
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError(
                "MultiWorkerMirroredStrategy.experimental_distribute_dataset needs a batched "
                "dataset (each global batch is split between the replicas of all workers); "
                f"received elements of shape {t.shape}. Batch the dataset with the global "
                "batch size.")


def _resolve(cluster_resolver, communication_options):
    if cluster_resolver is None:
        cluster_resolver = TFConfigClusterResolver()
    elif not isinstance(cluster_resolver, ClusterResolver):
        raise ValueError(f"cluster_resolver must be a ClusterResolver; received "
                         f"{cluster_resolver!r}")
    if communication_options is None:
        communication_options = Options()
    elif not isinstance(communication_options, Options):
        raise ValueError("communication_options must be an instance of "
                         "tf.distribute.experimental.CommunicationOptions")
    return cluster_resolver, communication_options


@public("torchflow.distribute")
class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training across workers, each with one or more devices.

    Run the same program on every worker, with ``TF_CONFIG`` (or torchrun's
    variables) describing the cluster. Variables created in ``scope()`` start
    with the chief's values and stay identical; gradients are all-reduced
    between all replicas of all workers (Gloo on CPU, NCCL on GPUs).

    Args:
      cluster_resolver: A ``tf.distribute.cluster_resolver.ClusterResolver``
        (default: ``TFConfigClusterResolver()``).
      communication_options: A ``tf.distribute.experimental.CommunicationOptions``.

    Raises:
      ValueError: For a cluster it cannot run on (``ps`` tasks, unknown task type).
      tf.errors.DeadlineExceededError: If not every worker joined within the timeout.

    >>> import torchflow as tf
    >>> strategy = tf.distribute.MultiWorkerMirroredStrategy()  # no TF_CONFIG: one worker
    >>> strategy.num_replicas_in_sync
    1
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        cluster_resolver, communication_options = _resolve(cluster_resolver,
                                                           communication_options)
        super().__init__(CollectiveAllReduceExtended(self, cluster_resolver,
                                                     communication_options))

    @property
    def cluster_resolver(self):
        """The cluster resolver this strategy was built from (``task_type``, ``task_id``)."""
        return self._extended._cluster_resolver


@public("torchflow.distribute.experimental")
class _ExperimentalMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
    """Deprecated in TF 2.4: use ``tf.distribute.MultiWorkerMirroredStrategy``.

    Args:
      communication: A ``CollectiveCommunication`` (default ``AUTO``); used when
        ``communication_options`` is not given.
      cluster_resolver: As in ``tf.distribute.MultiWorkerMirroredStrategy``.
      communication_options: As in ``tf.distribute.MultiWorkerMirroredStrategy``.
    """

    def __init__(self, communication=CommunicationImplementation.AUTO, cluster_resolver=None,
                 communication_options=None):
        warnings.warn("From tf.distribute.experimental.MultiWorkerMirroredStrategy: "
                      "use distribute.MultiWorkerMirroredStrategy instead",
                      DeprecationWarning, stacklevel=2)
        if communication_options is None:
            communication_options = Options(implementation=communication)
        super().__init__(cluster_resolver, communication_options)


_ExperimentalMultiWorkerMirroredStrategy.__name__ = "MultiWorkerMirroredStrategy"
_ExperimentalMultiWorkerMirroredStrategy.__qualname__ = "MultiWorkerMirroredStrategy"
