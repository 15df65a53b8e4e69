"""``tf.distribute.Strategy``, ``StrategyExtended``, ``ReplicaContext`` and the
default strategy (TF's ``distribute_lib.py``).

The extension points a concrete strategy overrides are described in the package
docstring (``_src/distribute/__init__.py``).
"""

from __future__ import annotations

import contextlib
import warnings

from torchflow._src.core import context
from torchflow._src.core.convert import constant, convert_to_tensor
from torchflow._src.core.custom_gradient import stop_gradient
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.distribute import ds_context, values
from torchflow._src.distribute.input_options import InputContext, ValueContext
from torchflow._src.distribute.reduce_util import ReduceOp, as_reduce_op
from torchflow._src.ops.array_ops import concat
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.math_ops import add_n, subtract, truediv
from torchflow._src.ops.reduction_ops import reduce_sum
from torchflow._src.ops.shape_ops import shape as shape_op
from torchflow._src.util import nest
from torchflow._src.util.api import public

_state = context.thread_state()


# --- scopes --------------------------------------------------------------------------


def _wrong_strategy_scope(strategy, mode):
    if not ds_context.has_strategy():
        raise RuntimeError(f'Need to be inside "with strategy.scope()" for {strategy}')
    raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: "
                       f"{mode.strategy} is not {strategy}")


def require_cross_replica_or_default_context(extended):
    """Raises TF's RuntimeError unless in ``extended``'s cross-replica or the default context."""
    mode = ds_context.current_mode()
    cross = mode.cross_replica_context
    if cross is not None and cross.extended is extended:
        return
    if mode is ds_context.default_mode():
        return
    strategy = extended._container_strategy()
    if mode.strategy is not strategy:
        _wrong_strategy_scope(strategy, mode)
    raise RuntimeError("Method requires being in cross-replica context, use "
                       "get_replica_context().merge_call()")


class _StrategyScope:
    """What ``strategy.scope()`` returns: enters cross-replica mode and the
    strategy's variable creator."""

    def __init__(self, strategy):
        self._strategy = strategy
        self._entered: list = []

    def __enter__(self):
        strategy = self._strategy
        if ds_context.has_strategy():
            require_cross_replica_or_default_context(strategy.extended)
            self._entered.append(False)
            return strategy
        ds_context.push_mode(ds_context.ThreadMode(strategy, cross_replica_context=strategy))
        _state.variable_creator_stack.append(strategy.extended._creator)
        self._entered.append(True)
        return strategy

    def __exit__(self, *exc):
        if not self._entered.pop():
            return False
        stack = _state.variable_creator_stack
        creator = self._strategy.extended._creator
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is creator:
                del stack[i]
                break
        mode_stack = _state.strategy_stack
        for i in range(len(mode_stack) - 1, -1, -1):
            if mode_stack[i].strategy is self._strategy and \
                    mode_stack[i].cross_replica_context is self._strategy:
                del mode_stack[i]
                break
        return False


@public("torchflow.distribute")
def experimental_set_strategy(strategy):
    """Sets ``strategy`` as the current strategy for this thread, as if its
    ``scope()`` were entered for good (None goes back to the default strategy).

    Args:
      strategy: A ``tf.distribute.Strategy``, or None to clear the strategy set
        by an earlier call.

    Raises:
      RuntimeError: When called inside a strategy's scope.
    """
    old = context.GLOBAL.global_strategy_scope
    if old is not None:
        old.__exit__(None, None, None)
        context.GLOBAL.global_strategy_scope = None
    if ds_context.has_strategy():
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        context.GLOBAL.global_strategy_scope = scope


# --- ReplicaContext --------------------------------------------------------------------


@public("torchflow.distribute")
class ReplicaContext:
    """The context of one replica while ``strategy.run`` runs ``fn`` there.

    Get it with ``tf.distribute.get_replica_context()``.

    Args:
      strategy: The ``tf.distribute.Strategy``.
      replica_id_in_sync_group: This replica's index (0 .. num_replicas_in_sync - 1).
    """

    def __init__(self, strategy, replica_id_in_sync_group):
        self._strategy = strategy
        self.replica_id_in_sync_group_py = int(replica_id_in_sync_group)
        self._torch_device = None
        self._local_replica_id = 0  # the index among this worker's replicas
        self._merge_hook = None  # set by the multi-threaded runner

    def __enter__(self):
        ds_context.push_mode(ds_context.ThreadMode(self._strategy, replica_context=self))
        return self

    def __exit__(self, *exc):
        ds_context.pop_mode()
        return False

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas kept in sync."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index, an int32 scalar Tensor."""
        return constant(self.replica_id_in_sync_group_py, dtype="int32")

    @property
    def strategy(self):
        """The strategy this replica belongs to."""
        return self._strategy

    @property
    def devices(self) -> tuple:
        """The devices of this replica."""
        return (self._strategy.extended.worker_devices[
            self.replica_id_in_sync_group_py % len(self._strategy.extended.worker_devices)],)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Runs ``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context,
        with the arguments of all replicas merged into distributed values.

        Every replica must call ``merge_call`` the same number of times; each gets
        its own component of the result.

        Raises:
          RuntimeError: If not called in this replica's context.
        """
        kwargs = {} if kwargs is None else kwargs
        if ds_context.current_mode().replica_context is not self:
            raise RuntimeError("`merge_call` called while defining a new graph or a "
                               "tf.function. This can often happen if the function `fn` "
                               "passed to `strategy.run()` contains a nested "
                               "`@tf.function`, and the nested `@tf.function` contains "
                               "a synchronization point, such as aggregating gradients.")
        if self._merge_hook is not None:
            return self._merge_hook(merge_fn, args, kwargs)
        return _merge_in_cross_replica(self._strategy, merge_fn, args, kwargs)

    def all_reduce(self, reduce_op, value, options=None):
        """All-reduces ``value`` (a nested structure of tensors) across replicas.

        Args:
          reduce_op: A ``tf.distribute.ReduceOp`` (or "SUM"/"MEAN").
          value: A nested structure of tensors.
          options: A ``tf.distribute.experimental.CommunicationOptions``.

        Returns:
          The same structure, reduced, identical on every replica.

        Differences from TensorFlow 2.4: the gradient of the result with respect to
        this replica's input is the replica's own upstream gradient (TF all-reduces
        the upstream gradients); summed over replicas, as an optimizer does, both agree.
        """
        reduce_op = as_reduce_op(reduce_op)
        flat = [convert_to_tensor(v) for v in nest.flatten(value)]
        if self.num_replicas_in_sync == 1 and self._merge_hook is None:
            return nest.pack_sequence_as(value, flat)

        def batch_all_reduce(strategy, *per_replica):
            return strategy.extended.batch_reduce_to(
                reduce_op, [(v, v) for v in per_replica], options=options)

        reduced = self.merge_call(batch_all_reduce, args=tuple(flat))
        if not context.thread_state().recording:
            # No tape records here: nothing to route a gradient through (and two
            # full-size passes saved per tensor).
            return nest.pack_sequence_as(value, list(reduced))
        n = self.num_replicas_in_sync
        out = []
        for x, y in zip(flat, reduced):
            own = x if reduce_op is ReduceOp.SUM or not x.dtype.is_floating else \
                truediv(x, cast(n, x.dtype))
            if own.dtype == y.dtype and (y.dtype.is_floating or y.dtype.is_complex):
                y = stop_gradient(subtract(y, own)) + own
            out.append(y)
        return nest.pack_sequence_as(value, out)

    def all_gather(self, value, axis, options=None):
        """Concatenates each replica's ``value`` along ``axis``, on every replica.

        Args:
          value: A nested structure of tensors (same shape except along ``axis``).
          axis: The axis to concatenate along.
          options: A ``tf.distribute.experimental.CommunicationOptions``.
        """
        flat = [convert_to_tensor(v) for v in nest.flatten(value)]

        def gather(strategy, *per_replica):
            return [strategy.extended._gather_to(v, v, axis, options) for v in per_replica]

        if self.num_replicas_in_sync == 1 and self._merge_hook is None:
            return nest.pack_sequence_as(value, flat)
        return nest.pack_sequence_as(value, self.merge_call(gather, args=tuple(flat)))

    def __repr__(self) -> str:
        return (f"<tf.distribute.ReplicaContext replica_id_in_sync_group="
                f"{self.replica_id_in_sync_group_py} of {self.num_replicas_in_sync}>")


def _merge_in_cross_replica(strategy, merge_fn, args, kwargs):
    ds_context.push_mode(ds_context.ThreadMode(strategy, cross_replica_context=strategy))
    try:
        return merge_fn(strategy, *args, **kwargs)
    finally:
        ds_context.pop_mode()


# --- StrategyExtended ------------------------------------------------------------------


@public("torchflow.distribute")
class StrategyExtended:
    """Additional APIs for algorithms that need to be distribution-aware
    (``strategy.extended``).

    Each strategy makes its own (``strategy.extended``): variable placement
    (``colocate_vars_with``, ``variable_created_in_scope``), updates
    (``update``, ``reduce_to``, ``batch_reduce_to``), ``worker_devices`` and
    ``parameter_devices``.

    Args:
      container_strategy: The ``tf.distribute.Strategy`` this object extends.
    """

    def __init__(self, container_strategy):
        self._container_strategy_ref = container_strategy
        self._creator = self._variable_creator

    def _container_strategy(self):
        return self._container_strategy_ref

    # -- extension points (see the package docstring) --
    @property
    def _num_replicas_in_sync(self) -> int:
        return len(self.worker_devices)

    @property
    def _torch_devices(self) -> tuple:
        return (context.default_device(),)

    def _create_variable(self, next_creator, **kwargs):
        return next_creator(**kwargs)

    def _local_reduce(self, reduce_op, parts, destinations=None):
        """Reduces a list of tensors (one per local replica) to one tensor."""
        total = parts[0] if len(parts) == 1 else add_n(list(parts))
        if reduce_op is ReduceOp.MEAN:
            n = self._num_replicas_in_sync
            if total.dtype.is_floating or total.dtype.is_complex:
                return truediv(total, cast(n, total.dtype))
            return truediv(total, n)
        return total

    def _reduce_to(self, reduce_op, value, destinations, options):
        if isinstance(value, values.DistributedValues) and not isinstance(
                value, values.MirroredVariable):
            return values.Mirrored([self._local_reduce(reduce_op, list(value.values),
                                                       destinations)])
        return value

    def _batch_reduce_to(self, reduce_op, value_destination_pairs, options):
        return [self._reduce_to(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def _gather_to(self, value, destinations, axis, options=None):
        parts = values.local_results(value)
        return parts[0] if len(parts) == 1 else concat(list(parts), axis)

    def _call_for_each_replica(self, fn, args, kwargs):
        ctx = _DEFAULT.replica_context if isinstance(self, _DefaultExtended) else \
            ReplicaContext(self._container_strategy(), 0)
        with ctx:
            return fn(*args, **kwargs)

    def _update(self, var, fn, args, kwargs, group):
        args = values.select_replica(0, args)
        kwargs = values.select_replica(0, kwargs)
        return fn(var, *args, **kwargs)

    def _distribute_dataset(self, dataset, options):
        return dataset

    def _distribute_datasets_from_function(self, dataset_fn, options):
        return dataset_fn(InputContext())

    def _distribute_values_from_function(self, value_fn):
        return value_fn(ValueContext())

    def _variable_creator(self, next_creator, **kwargs):
        return self._create_variable(next_creator, **kwargs)

    # -- public API --
    @property
    def worker_devices(self) -> tuple:
        """The devices the replicas of this worker run on."""
        return ("/job:localhost/replica:0/task:0/device:CPU:0",)

    @property
    def parameter_devices(self) -> tuple:
        """The devices variables live on."""
        return self.worker_devices

    @property
    def experimental_require_static_shapes(self) -> bool:
        return False

    @property
    def experimental_between_graph(self) -> bool:
        return False

    @property
    def experimental_should_init(self) -> bool:
        return True

    @property
    def should_checkpoint(self) -> bool:
        return True

    @property
    def should_save_summary(self) -> bool:
        return True

    def variable_created_in_scope(self, v) -> bool:
        """Whether ``v`` was created while this strategy's scope was active."""
        return getattr(v, "_distribute_strategy", None) is self._container_strategy()

    def colocate_vars_with(self, colocate_with_variable):
        """Scope in which new variables are placed with ``colocate_with_variable``."""
        return contextlib.nullcontext()

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """Combines (via ``reduce_op``) ``value`` and places the result on ``destinations``.

        Args:
          reduce_op: A ``tf.distribute.ReduceOp`` (or "SUM"/"MEAN").
          value: A ``PerReplica`` value, or a tensor.
          destinations: A tensor, variable or device string saying where the result goes.
          options: A ``tf.distribute.experimental.CommunicationOptions``.

        Returns:
          A tensor or ``Mirrored`` value.

        Raises:
          ValueError: If ``value`` is not distributed and cannot be reduced with
            ``reduce_op`` (SUM over several replicas).
        """
        require_cross_replica_or_default_context(self)
        reduce_op = as_reduce_op(reduce_op)
        if not isinstance(value, values.DistributedValues):
            return self._reduce_non_distributed(reduce_op, value)
        return self._reduce_to(reduce_op, value, destinations, options)

    def _reduce_non_distributed(self, reduce_op, value):
        n = self._num_replicas_in_sync
        if reduce_op is ReduceOp.MEAN or n == 1:
            return value
        t = convert_to_tensor(value)
        if not bool(reduce_sum(cast(t != 0, "int32")).numpy() == 0):
            raise ValueError(f"A non-DistributedValues value {value} cannot be reduced with "
                             f"the given reduce op {reduce_op}.")
        return value

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        """Combines several values, each sent to its destinations (see ``reduce_to``)."""
        require_cross_replica_or_default_context(self)
        reduce_op = as_reduce_op(reduce_op)
        pairs = list(value_destination_pairs)
        out = [None] * len(pairs)
        distributed = [i for i, (v, _) in enumerate(pairs)
                       if isinstance(v, values.DistributedValues)]
        for i, (v, _) in enumerate(pairs):
            if i not in distributed:
                out[i] = self._reduce_non_distributed(reduce_op, v)
        if distributed:
            done = self._batch_reduce_to(reduce_op, [pairs[i] for i in distributed], options)
            for i, r in zip(distributed, done):
                out[i] = r
        return out

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Runs ``fn(var, *args, **kwargs)`` to update ``var`` on each of its devices.

        Args:
          var: A variable (possibly mirrored).
          fn: The update function.
          args: Mirrored or plain arguments.
          kwargs: Mirrored or plain keyword arguments.
          group: Whether to return one value (True) or the per-device ones.
        """
        require_cross_replica_or_default_context(self)
        return self._update(var, fn, args, {} if kwargs is None else kwargs, group)

    def value_container(self, value):
        """The container a component belongs to (the value itself here)."""
        return value

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        """Runs ``fn`` once per replica (prefer ``strategy.run``)."""
        return self._call_for_each_replica(fn, args, {} if kwargs is None else kwargs)

    def experimental_make_numpy_dataset(self, numpy_input, session=None):
        raise AttributeError("'StrategyExtended' object has no attribute "
                             "'experimental_make_numpy_dataset'")


del StrategyExtended.experimental_make_numpy_dataset


# --- Strategy --------------------------------------------------------------------------


@public("torchflow.distribute")
class Strategy:
    """A state and compute distribution policy on a list of devices.

    Create a concrete one (``MirroredStrategy``, ``OneDeviceStrategy``, ...);
    ``tf.distribute.get_strategy()`` outside any scope returns the default
    strategy, which runs everything once on the default device.

    >>> import torchflow as tf
    >>> strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    >>> with strategy.scope():
    ...     v = tf.Variable(1.0)
    >>> strategy.extended.variable_created_in_scope(v)
    True

    Args:
      extended: The strategy's ``tf.distribute.StrategyExtended`` (subclasses
        make it; users call a concrete strategy's constructor).
    """

    def __init__(self, extended):
        self._extended = extended
        context.mark_runtime_started()

    @property
    def extended(self):
        """The ``tf.distribute.StrategyExtended`` with the extra APIs."""
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas over which gradients are aggregated."""
        return self._extended._num_replicas_in_sync

    def scope(self):
        """Context manager making this strategy current and distributing variables.

        Variables created inside are ``MirroredVariable`` (or ``SyncOnReadVariable``
        for ON_READ synchronization) for multi-device strategies.

        Raises:
          RuntimeError: Entered inside another strategy's scope, or in a replica context.
        """
        return _StrategyScope(self)

    def run(self, fn, args=(), kwargs=None, options=None):
        """Runs ``fn`` on each replica, with the given arguments.

        Distributed values (``PerReplica``) in ``args``/``kwargs`` give each replica
        its component; other values are passed to every replica as they are.

        Args:
          fn: The function to run.
          args: Positional arguments.
          kwargs: Keyword arguments.
          options: A ``tf.distribute.RunOptions`` (accepted; nothing to configure).

        Returns:
          The merged return values: ``PerReplica`` where they differ, the value
          itself where every replica returned the same object.
        """
        kwargs = {} if kwargs is None else kwargs
        with self.scope():
            return self._extended._call_for_each_replica(fn, tuple(args), kwargs)

    def reduce(self, reduce_op, value, axis):
        """Reduces ``value`` across replicas (and along ``axis``) to one tensor.

        Args:
          reduce_op: A ``tf.distribute.ReduceOp`` (or "SUM"/"MEAN").
          value: A ``PerReplica`` value (from ``run``) or a tensor.
          axis: None, or the axis of each component to reduce as well
            (MEAN then divides by the total count along that axis).

        Returns:
          A tensor.
        """
        reduce_op = as_reduce_op(reduce_op)
        require_cross_replica_or_default_context(self._extended)
        if axis is None:
            out = self._extended.reduce_to(reduce_op, value, "/device:CPU:0")
            return out._primary if isinstance(out, values.DistributedValues) else out
        parts = values.local_results(value)
        sums = [reduce_sum(convert_to_tensor(p), axis=axis) for p in parts]
        per = values.PerReplica(sums) if isinstance(value, values.DistributedValues) else sums[0]
        numer = self._extended.reduce_to(ReduceOp.SUM, per, "/device:CPU:0")
        numer = numer._primary if isinstance(numer, values.DistributedValues) else numer
        if reduce_op is ReduceOp.SUM:
            return numer
        counts = []
        for p in parts:
            p = convert_to_tensor(p)
            axes = [axis] if isinstance(axis, int) else list(axis)
            n = 1
            for a in axes:
                d = p.shape[a]
                n = n * (d if d is not None else int(shape_op(p)[a].numpy()))
            counts.append(convert_to_tensor(n, dtype=numer.dtype if numer.dtype.is_floating
                                            else "float64"))
        per = values.PerReplica(counts) if isinstance(value, values.DistributedValues) else \
            counts[0]
        denom = self._extended.reduce_to(ReduceOp.SUM, per, "/device:CPU:0")
        denom = denom._primary if isinstance(denom, values.DistributedValues) else denom
        return truediv(numer, cast(denom, numer.dtype))

    def experimental_local_results(self, value) -> tuple:
        """The components of ``value`` on this worker's replicas: a tuple of one per
        replica for a distributed value, ``(value,)`` for anything else (a nested
        structure too, as in TF)."""
        return values.local_results(value)

    def gather(self, value, axis):
        """Concatenates each replica's ``value`` along ``axis`` (cross-replica context).

        Raises:
          RuntimeError: In a replica context (use ``ReplicaContext.all_gather``).
        """
        if ds_context.current_replica() is not None:
            raise RuntimeError("`tf.distribute.Strategy.gather` method is not supported "
                               "in replica context; use `ReplicaContext.all_gather` instead")
        require_cross_replica_or_default_context(self._extended)
        return nest.map_structure(
            lambda v: self._extended._gather_to(v, "/device:CPU:0", axis), value)

    def experimental_distribute_dataset(self, dataset, options=None):
        """Splits each global batch of ``dataset`` between the replicas.

        Args:
          dataset: A ``tf.data.Dataset`` batched with the global batch size.
          options: A ``tf.distribute.InputOptions``.

        Returns:
          A ``tf.distribute.DistributedDataset``.
        """
        return self._extended._distribute_dataset(dataset, options)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """Calls ``dataset_fn(input_context)`` once per input pipeline; replicas take
        consecutive batches of its datasets.

        Args:
          dataset_fn: ``fn(tf.distribute.InputContext) -> tf.data.Dataset``, batched
            with the per-replica batch size.
          options: A ``tf.distribute.InputOptions``.
        """
        return self._extended._distribute_datasets_from_function(dataset_fn, options)

    def experimental_distribute_datasets_from_function(self, dataset_fn, options=None):
        """Deprecated alias of ``distribute_datasets_from_function`` (TF 2.4)."""
        warnings.warn("From tf.distribute: experimental_distribute_datasets_from_function "
                      "(from tensorflow.python.distribute.distribute_lib) is deprecated and "
                      "will be removed in a future version.\nInstructions for updating:\n"
                      "rename to distribute_datasets_from_function",
                      DeprecationWarning, stacklevel=2)
        return self.distribute_datasets_from_function(dataset_fn, options)

    def experimental_distribute_values_from_function(self, value_fn):
        """Builds a distributed value from ``value_fn(tf.distribute.experimental.ValueContext)``,
        called once per replica of this worker.

        Returns:
          A ``PerReplica`` value (the value itself for the default strategy).
        """
        return self._extended._distribute_values_from_function(value_fn)

    def update_config_proto(self, config_proto):
        return config_proto

    def __deepcopy__(self, memo):
        raise RuntimeError("Must only deepcopy DistributedStrategy.")


# --- the default strategy ----------------------------------------------------------------


class _DefaultExtended(StrategyExtended):
    def variable_created_in_scope(self, v) -> bool:
        return getattr(v, "_distribute_strategy", None) is None

    @property
    def worker_devices(self) -> tuple:
        return (context.tf_device_name(context.default_device()),)


class _DefaultDistributionStrategy(Strategy):
    """The strategy in effect outside any ``scope()``: everything runs once."""

    def __init__(self):
        self._extended = _DefaultExtended(self)

    def scope(self):
        if ds_context.has_strategy():
            raise RuntimeError("Must not nest tf.distribute.Strategy scopes.")
        return _DefaultScope()


class _DefaultScope:
    def __enter__(self):
        return _DEFAULT.strategy

    def __exit__(self, *exc):
        return False


class _Defaults:
    def __init__(self):
        self.strategy = _DefaultDistributionStrategy()
        self.replica_context = ReplicaContext(self.strategy, 0)
        self.mode = ds_context.ThreadMode(self.strategy, replica_context=self.replica_context)


_DEFAULT = _Defaults()
ds_context._DEFAULT_MODE.append(lambda: _DEFAULT.mode)


def is_tensor_or_variable(x) -> bool:
    return isinstance(x, (Tensor, Variable))
