"""``tf.distribute.MirroredStrategy``: synchronous training on the devices of one
process (``MirroredExtended`` is the base of MultiWorkerMirroredStrategy's
extended object; see the package docstring for what it overrides)."""

from __future__ import annotations

import logging
import math

from torchflow._src.core import config, context, graph_trace
from torchflow._src.core.device import DeviceSpec, device
from torchflow._src.core.variable_scope import current_name_scope
from torchflow._src.core.variables import Variable, VariableSynchronization
from torchflow._src.distribute import ds_context, mirrored_run, values
from torchflow._src.distribute.cross_device_ops import CrossDeviceOps, ReductionToOneDevice
from torchflow._src.distribute.distribute_lib import ReplicaContext, Strategy, StrategyExtended
from torchflow._src.distribute.input_lib import DistributedDataset
from torchflow._src.distribute.input_options import (
    InputContext,
    InputReplicationMode,
    ValueContext,
)
from torchflow._src.util.api import public

_log = logging.getLogger("tensorflow")
_state = context.thread_state()


def canonicalize_device(name, job="localhost", task=0) -> str:
    """``"/cpu:1"`` -> ``"/job:localhost/replica:0/task:0/device:CPU:1"``.

    A device that does not exist is kept (as TF keeps it): with soft placement its
    replica runs on the CPU.
    """
    if not isinstance(name, str):
        name = getattr(name, "name", name)
    spec = DeviceSpec.from_string(str(name))
    kind = (spec.device_type or "CPU").upper()
    index = spec.device_index or 0
    return f"/job:{job}/replica:0/task:{task}/device:{kind}:{index}"


def default_devices() -> tuple:
    gpus = config.list_logical_devices("GPU")
    if gpus:
        return tuple(canonicalize_device(d.name) for d in gpus)
    return (canonicalize_device("/device:CPU:0"),)


class MirroredExtended(StrategyExtended):
    """``strategy.extended`` of MirroredStrategy: replicas on this process's devices."""

    def __init__(self, container_strategy, devices=None, cross_device_ops=None):
        super().__init__(container_strategy)
        if devices is None:
            devices = default_devices()
        elif isinstance(devices, str):
            devices = [devices]
        devices = tuple(canonicalize_device(d) for d in devices)
        if not devices:
            raise ValueError("`devices` cannot be empty")
        if len(set(devices)) != len(devices):
            raise ValueError(f"No duplicates allowed in `devices` argument: {devices}")
        if cross_device_ops is not None and not isinstance(cross_device_ops, CrossDeviceOps):
            raise ValueError(f"cross_device_ops must be a tf.distribute.CrossDeviceOps; "
                             f"received {cross_device_ops!r}")
        self._devices = devices
        self._local_torch_devices = tuple(config.logical_device_torch(d) for d in devices)
        self._cross_device_ops = cross_device_ops or ReductionToOneDevice()
        # Multi-worker subclasses set these (see the package docstring).
        self._num_workers = 1
        self._worker_index = 0

    # --- extension points ------------------------------------------------------------
    @property
    def _num_replicas_in_sync(self) -> int:
        return len(self._devices) * self._num_workers

    @property
    def _first_replica_id(self) -> int:
        return self._worker_index * len(self._devices)

    @property
    def _torch_devices(self) -> tuple:
        return self._local_torch_devices

    def _num_local_replicas(self) -> int:
        return len(self._devices)

    def _input_devices(self) -> tuple:
        return self._local_torch_devices

    def _per_replica_batch_size(self, global_batch_size: int) -> int:
        return max(1, math.ceil(global_batch_size / self._num_replicas_in_sync))

    def _shard_dataset(self, dataset, options):
        """The part of ``dataset`` this worker reads (all of it with one worker)."""
        return dataset

    def _after_variable_created(self, var) -> None:
        """Called once per new distributed variable (MWMS broadcasts it from the chief)."""

    # --- variables ---------------------------------------------------------------------
    def _create_variable(self, next_creator, **kwargs):
        strategy = self._container_strategy()
        ctx = ds_context.current_replica()
        store = None if ctx is None or ctx._strategy is not strategy else \
            getattr(ctx, "_shared_variables", None)
        if store is not None:
            # Created inside strategy.run with several replicas: replica 0 creates
            # it, the others get replica 0's variable of that name (TF's shared
            # variable creator; replicas run in turn, so replica 0 is first).
            key = current_name_scope() + str(kwargs.get("name") or "Variable")
            local_id = ctx.replica_id_in_sync_group_py - self._first_replica_id
            if local_id > 0:
                index = ctx._variable_access.get(key, 0)
                try:
                    var = store[key][index]
                except (KeyError, IndexError):
                    raise RuntimeError(f"Tried to create variable {key} with mismatching "
                                       f"name on device {local_id}") from None
                ctx._variable_access[key] = index + 1
                return var
            var = self._create_distributed_variable(next_creator, **kwargs)
            store.setdefault(key, []).append(var)
            return var
        return self._create_distributed_variable(next_creator, **kwargs)

    def _create_distributed_variable(self, next_creator, **kwargs):
        strategy = self._container_strategy()
        sync = kwargs.get("synchronization") or VariableSynchronization.AUTO
        if sync is VariableSynchronization.NONE:
            raise ValueError(
                "`NONE` variable synchronization mode is not supported with "
                f"`{type(strategy).__name__}` distribution strategy. Please change the "
                f"`synchronization` for variable: {kwargs.get('name')}")
        with device(self._devices[0]):
            primary = next_creator(**kwargs)
        if type(primary) is not Variable:
            return primary
        if sync is VariableSynchronization.ON_READ:
            comps = [primary]
            base = primary.name[:-2]
            for i, dev in enumerate(self._devices[1:], start=1):
                kw = dict(kwargs, initial_value=primary.read_value(), name=f"{base}/replica_{i}")
                with device(dev):
                    comps.append(next_creator(**kw))
            primary.__class__ = values.SyncOnReadVariable
            primary._init_distributed(strategy, comps)
        else:
            primary.__class__ = values.MirroredVariable
            primary._init_distributed(strategy, (primary,) * len(self._devices))
        self._after_variable_created(primary)
        return primary

    # --- reductions --------------------------------------------------------------------
    def _reduce_to(self, reduce_op, value, destinations, options):
        if isinstance(value, values.MirroredVariable):
            value = values.PerReplica(value.values)
        return self._cross_device_ops.reduce(reduce_op, value, destinations, options)

    def _batch_reduce_to(self, reduce_op, value_destination_pairs, options):
        pairs = [(values.PerReplica(v.values) if isinstance(v, values.MirroredVariable) else v,
                  d) for v, d in value_destination_pairs]
        return self._cross_device_ops.batch_reduce(reduce_op, pairs, options)

    def _gather_to(self, value, destinations, axis, options=None):
        return self._cross_device_ops._gather(value, destinations, axis, options)

    def _local_reduce(self, reduce_op, parts, destinations=None):
        out = self._reduce_to(reduce_op, values.PerReplica(parts), destinations, None)
        return out._primary if isinstance(out, values.DistributedValues) else out

    def _update(self, var, fn, args, kwargs, group):
        if isinstance(var, values.SyncOnReadVariable):
            out = [fn(c, *values.select_replica(i, args), **values.select_replica(i, kwargs))
                   for i, c in enumerate(var.values)]
            return var if group else tuple(out)
        if isinstance(var, values.MirroredVariable) and var._is_split():
            var._in_update = True  # fn(var) writes replica 0's copy alone
            try:
                out = [fn(c, *values.select_replica(i, args), **values.select_replica(i, kwargs))
                       for i, c in enumerate(var.values)]
            finally:
                var._in_update = False
            return var if group else tuple(out)
        return super()._update(var, fn, args, kwargs, group)

    # --- running ------------------------------------------------------------------------
    def _replica_contexts(self) -> list:
        strategy = self._container_strategy()
        out = []
        for i, dev in enumerate(self._local_torch_devices):
            ctx = ReplicaContext(strategy, self._first_replica_id + i)
            ctx._torch_device = dev
            ctx._local_replica_id = i
            out.append(ctx)
        return out

    def _call_for_each_replica(self, fn, args, kwargs):
        contexts = self._replica_contexts()
        if len(contexts) == 1:
            with device(self._devices[0]), contexts[0]:
                return fn(*values.select_replica(0, args), **values.select_replica(0, kwargs))
        pool = self.__dict__.get("_worker_pool")
        if pool is None or len(pool.workers) < len(contexts):
            pool = self._worker_pool = mirrored_run.WorkerPool(self, len(contexts))
        # A tracing tf.function records the replicas' threads too (they take turns).
        return mirrored_run.call_for_each_replica(self._container_strategy(), pool, contexts,
                                                  self._devices, fn, args, kwargs,
                                                  graph_trace.tracing_recorder())

    # --- input ----------------------------------------------------------------------------
    def _distribute_dataset(self, dataset, options):
        if options is not None and \
                options.experimental_replication_mode is InputReplicationMode.PER_REPLICA:
            raise NotImplementedError("InputReplicationMode.PER_REPLICA is only supported in "
                                      "`distribute_datasets_from_function`.")
        return DistributedDataset(self, self._shard_dataset(dataset, options), "split")

    def _input_context(self) -> InputContext:
        return InputContext(self._num_workers, self._worker_index, self._num_replicas_in_sync)

    def _distribute_datasets_from_function(self, dataset_fn, options):
        dataset = dataset_fn(self._input_context())
        return DistributedDataset(self, dataset, "consecutive")

    def _distribute_values_from_function(self, value_fn):
        n = self._num_replicas_in_sync
        parts = [value_fn(ValueContext(self._first_replica_id + i, n))
                 for i in range(len(self._devices))]
        return values.regroup(parts, always_wrap=True)

    # --- properties ---------------------------------------------------------------------------
    @property
    def worker_devices(self) -> tuple:
        return self._devices

    @property
    def parameter_devices(self) -> tuple:
        return self._devices


@public("torchflow.distribute")
class MirroredStrategy(Strategy):
    """Synchronous training on several devices of one machine.

    One replica per device; variables created in ``scope()`` are mirrored (kept
    identical on every replica); ``run`` runs the step on every replica
    concurrently, and the optimizer all-reduces the gradients before applying
    them. For several CPU replicas, split the CPU into logical devices first:
    ``tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)``.

    Args:
      devices: Device names (default: every GPU, else the CPU).
      cross_device_ops: A ``tf.distribute.CrossDeviceOps`` (default: ``ReductionToOneDevice``).

    Raises:
      ValueError: For an unknown or repeated device.

    >>> import torchflow as tf
    >>> strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    >>> strategy.num_replicas_in_sync
    1
    """

    def __init__(self, devices=None, cross_device_ops=None):
        super().__init__(MirroredExtended(self, devices, cross_device_ops))
        _log.info("Using MirroredStrategy with devices %s", self._extended._devices)


@public("torchflow.distribute")
class OneDeviceStrategy(Strategy):
    """Runs everything on one device (variables and computation placed there).

    Args:
      device: The device name (e.g. "/gpu:0" or "/cpu:0").

    >>> import torchflow as tf
    >>> tf.distribute.OneDeviceStrategy("/cpu:0").num_replicas_in_sync
    1
    """

    def __init__(self, device):
        super().__init__(MirroredExtended(self, [device]))


class _CentralStorageExtended(MirroredExtended):
    def __init__(self, container_strategy, compute_devices=None, parameter_device=None):
        super().__init__(container_strategy, compute_devices)
        if parameter_device is None:
            parameter_device = self._devices[0] if len(self._devices) == 1 else "/device:CPU:0"
        self._parameter_device = canonicalize_device(parameter_device)

    def _create_distributed_variable(self, next_creator, **kwargs):
        with device(self._parameter_device):
            return super()._create_distributed_variable(next_creator, **kwargs)

    @property
    def parameter_devices(self) -> tuple:
        return (self._parameter_device,)


@public("torchflow.distribute.experimental")
class CentralStorageStrategy(Strategy):
    """Synchronous training with the variables on one device (the parameter device)
    and the computation replicated on the compute devices.

    Args:
      compute_devices: Device names of the replicas (default: every GPU, else the CPU).
      parameter_device: Where variables live (default: the CPU, or the one compute device).

    >>> import torchflow as tf
    >>> tf.distribute.experimental.CentralStorageStrategy().num_replicas_in_sync
    1
    """

    def __init__(self, compute_devices=None, parameter_device=None):
        super().__init__(_CentralStorageExtended(self, compute_devices, parameter_device))
