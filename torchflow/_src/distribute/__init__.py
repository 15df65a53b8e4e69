"""tf.distribute: the Strategy API, MirroredStrategy (and, from the cluster
modules, MultiWorkerMirroredStrategy).

Layer 5: imports util, core, ops, data (and train/summary); never keras, never torch.

Modules
-------
* ``ds_context``: which strategy / context the thread is in. The per-thread stack
  of ``ThreadMode(strategy, cross_replica_context, replica_context)`` lives in
  ``core/context.py`` (``thread_state().strategy_stack``); empty = default strategy.
* ``distribute_lib``: ``Strategy``, ``StrategyExtended``, ``ReplicaContext``,
  the default strategy, ``experimental_set_strategy``.
* ``values``: ``DistributedValues``, ``PerReplica``, ``Mirrored``,
  ``MirroredVariable``, ``SyncOnReadVariable``, ``regroup``/``select_replica``.
* ``cross_device_ops``: ``CrossDeviceOps`` and TF's three local implementations.
* ``mirrored_run``: one thread per local replica, ``merge_call`` rendezvous.
* ``mirrored_strategy``: ``MirroredExtended``, ``MirroredStrategy``, ``OneDeviceStrategy``.
* ``input_lib``: ``DistributedDataset``, ``DistributedIterator``, ``PerReplicaSpec``.
* ``input_options``: ``InputContext``, ``ValueContext``, ``InputOptions``,
  ``InputReplicationMode``, ``RunOptions``.
* ``communication_options``: ``CommunicationOptions``, ``CommunicationImplementation``
  (+ the 2.4 aliases ``CollectiveCommunication``, ``CollectiveHints``).
* ``reduce_util``: ``ReduceOp``.

Reserved for MWMS / the cluster helper (do not create here otherwise):
``cluster_resolver.py``, ``cluster_spec.py``, ``server.py``,
``multi_worker_mirrored.py``, ``launch*.py``, ``collective*.py``.

Extension points (how MultiWorkerMirroredStrategy builds on MirroredStrategy)
-------------------------------------------------------------------------
Subclass ``mirrored_strategy.MirroredExtended`` (TF's ``CollectiveAllReduceExtended``
shape) and ``cross_device_ops.CrossDeviceOps``:

* Replica count. ``MirroredExtended._num_replicas_in_sync`` is
  ``len(self._devices) * self._num_workers``; set ``self._num_workers`` and
  ``self._worker_index`` in ``__init__`` (after ``super().__init__``).
  ``self._devices`` are this worker's local devices (canonical TF names;
  ``canonicalize_device(name, job=, task=)`` builds them), ``_torch_devices`` their
  torch devices; ``_first_replica_id`` = ``worker_index * len(devices)`` gives
  replica ids across workers. ``worker_devices`` returns ``self._devices``.
* Reductions. Every cross-replica reduction goes through
  ``self._cross_device_ops`` (set it in ``__init__``): ``reduce(op, per_replica,
  destinations, options)`` and ``batch_reduce(op, [(per_replica, destinations)],
  options)`` return ``Mirrored`` values. The base class sums the local components
  (``_local_sum``), calls ``_cross_process_sum(tensor, options)`` /
  ``_cross_process_batch_sum(tensors, options)`` -- identity here; override them
  with the process-group all-reduce (pack by ``options.bytes_per_pack``, honour
  ``timeout_seconds``) -- and MEAN divides by ``len(local components) *
  self._num_processes`` (set ``_num_processes`` = number of workers).
  ``_cross_process_gather(tensor, axis, options)`` does the same for
  ``gather``/``all_gather``. ``ReplicaContext.all_reduce`` and the optimizer's
  gradient all-reduce reach these through ``merge_call`` ->
  ``extended.batch_reduce_to`` (so all workers run the collective once per
  call, in the same order); Keras metrics (``SyncOnReadVariable`` reads) go
  through ``extended._local_reduce`` -> ``_reduce_to`` too.
* Variables. ``MirroredExtended._create_variable`` creates the variable on the
  first local device through the creator chain and promotes it to
  ``MirroredVariable`` (one storage shared by the local replicas on one torch
  device) or ``SyncOnReadVariable`` (one storage per replica). It then calls
  ``self._after_variable_created(var)``: override it to broadcast the chief's
  initial value (``var.assign(broadcast(var.read_value()))``).
  ``variable_created_in_scope(v)`` checks ``v._distribute_strategy``.
* Datasets. ``_distribute_dataset`` calls ``self._shard_dataset(dataset,
  options)`` (identity here; override with ``data.distribute.auto_shard_dataset(
  dataset, num_workers, worker_index)``), then splits each global batch between
  the local replicas with ``_per_replica_batch_size(global_batch)`` =
  ``ceil(global_batch / num_replicas_in_sync)`` elements each.
  ``distribute_datasets_from_function`` calls ``dataset_fn`` with
  ``_input_context()`` = ``InputContext(num_input_pipelines=_num_workers,
  input_pipeline_id=_worker_index, num_replicas_in_sync)``; local replicas take
  consecutive elements.
* Running. ``_call_for_each_replica`` runs ``fn`` directly with one local replica
  (the common MWMS case: no threads), else via ``mirrored_run``.
"""
