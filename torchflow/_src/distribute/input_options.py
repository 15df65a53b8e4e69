"""``InputContext``, ``ValueContext``, ``InputOptions``, ``InputReplicationMode``,
``RunOptions``: the small value classes of ``tf.distribute``."""

from __future__ import annotations

import collections
import enum

from torchflow._src.util.api import public


@public("torchflow.distribute")
class InputReplicationMode(enum.Enum):
    """How input is replicated: ``PER_WORKER`` (one pipeline per worker, TF 2.4's
    default) or ``PER_REPLICA`` (one per replica, ``distribute_datasets_from_function``)."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


@public("torchflow.distribute")
class InputContext:
    """What ``dataset_fn`` of ``distribute_datasets_from_function`` learns about its
    input pipeline.

    Args:
      num_input_pipelines: The number of input pipelines (workers).
      input_pipeline_id: This pipeline's index.
      num_replicas_in_sync: The number of replicas kept in sync.

    >>> import torchflow as tf
    >>> ctx = tf.distribute.InputContext(num_replicas_in_sync=2)
    >>> ctx.get_per_replica_batch_size(8)
    4
    """

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas kept in sync."""
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self) -> int:
        """This input pipeline's index (0 .. num_input_pipelines - 1)."""
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self) -> int:
        """The number of input pipelines."""
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size) -> int:
        """The batch size of each replica for ``global_batch_size``.

        Raises:
          ValueError: If ``global_batch_size`` is not divisible by the replica count.
        """
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size!r} is not divisible "
                             f"by `num_replicas_in_sync` {self._num_replicas_in_sync!r} ")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self) -> str:
        return (f"tf.distribute.InputContext(input pipeline id {self.input_pipeline_id}, "
                f"total: {self.num_input_pipelines})")

    __repr__ = __str__


@public("torchflow.distribute.experimental")
class ValueContext:
    """What ``value_fn`` of ``experimental_distribute_values_from_function`` learns.

    Args:
      replica_id_in_sync_group: The replica the value is for.
      num_replicas_in_sync: The number of replicas kept in sync.
    """

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas kept in sync."""
        return self._num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        """The replica the value is for."""
        return self._replica_id_in_sync_group

    def __str__(self) -> str:
        return (f"tf.distribute.ValueContext(replica id {self.replica_id_in_sync_group}, "
                f" total replicas in sync: {self.num_replicas_in_sync})")

    __repr__ = __str__


@public("torchflow.distribute")
class InputOptions:
    """Options for ``experimental_distribute_dataset`` and
    ``distribute_datasets_from_function``.

    Args:
      experimental_prefetch_to_device: Prefetch input onto the replicas' devices
        (TF 2.4's name; ``experimental_fetch_to_device`` is TF 2.5's, accepted).
      experimental_replication_mode: An ``InputReplicationMode``.
      experimental_place_dataset_on_device: Run the dataset on the device.
      experimental_per_replica_buffer_size: Prefetch buffer per replica (TF 2.5+).
    """

    def __init__(self, experimental_prefetch_to_device=True,
                 experimental_replication_mode=InputReplicationMode.PER_WORKER,
                 experimental_place_dataset_on_device=False,
                 experimental_fetch_to_device=None, experimental_per_replica_buffer_size=1):
        if experimental_fetch_to_device is not None:
            experimental_prefetch_to_device = experimental_fetch_to_device
        self.experimental_prefetch_to_device = bool(experimental_prefetch_to_device)
        self.experimental_replication_mode = InputReplicationMode(experimental_replication_mode)
        self.experimental_place_dataset_on_device = bool(experimental_place_dataset_on_device)
        self.experimental_per_replica_buffer_size = int(experimental_per_replica_buffer_size)

    @property
    def experimental_fetch_to_device(self) -> bool:
        return self.experimental_prefetch_to_device

    def __repr__(self) -> str:
        return (f"InputOptions(experimental_prefetch_to_device="
                f"{self.experimental_prefetch_to_device}, experimental_replication_mode="
                f"{self.experimental_replication_mode}, experimental_place_dataset_on_device="
                f"{self.experimental_place_dataset_on_device})")


@public("torchflow.distribute")
class RunOptions(collections.namedtuple(
        "RunOptions", ["experimental_enable_dynamic_batch_size",
                       "experimental_bucketizing_dynamic_shape"])):
    """Options for ``strategy.run`` (TPU-specific in TF; accepted and recorded).

    Args:
      experimental_enable_dynamic_batch_size: Recorded.
      experimental_bucketizing_dynamic_shape: Recorded.
    """

    __slots__ = ()

    def __new__(cls, experimental_enable_dynamic_batch_size=True,
                experimental_bucketizing_dynamic_shape=False):
        return super().__new__(cls, experimental_enable_dynamic_batch_size,
                               experimental_bucketizing_dynamic_shape)
