"""Distributed values: one value per replica (TF's ``values.py``).

* ``PerReplica``: a possibly different value on each replica (``strategy.run``
  results, distributed input).
* ``Mirrored``: the same value on every replica (results of ``reduce_to`` and
  of all-reduces).
* ``MirroredVariable``: a ``tf.Variable`` created in ``strategy.scope()`` with
  ON_WRITE synchronization. Replicas whose devices share one torch device share
  one storage (logical CPUs, one GPU, one device per MWMS worker), so the
  copies are identical by construction; a replica on another device reads a
  copy moved there. Writes in a replica context with SUM/MEAN/ONLY_FIRST_REPLICA
  aggregation go through ``merge_call`` and update every replica's value. The
  first write in a replica context with NONE aggregation (TF: each replica writes
  its own copy, unsynchronized) gives every local replica a storage of its own.
* ``SyncOnReadVariable``: ON_READ synchronization (Keras metrics): one storage
  per replica, each replica updates its own; a read in cross-replica context
  aggregates them by the variable's ``aggregation``.
"""

from __future__ import annotations

import threading

import numpy as np

from torchflow._src.core import function as _function
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.config import copy_to_device
from torchflow._src.core.convert import convert_to_tensor, to_tensor
from torchflow._src.core.device import device
from torchflow._src.core.tensor import Tensor, _numpy_repr
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.core.variables import Variable, VariableAggregation, _shape_str
from torchflow._src.distribute import ds_context
from torchflow._src.distribute.reduce_util import ReduceOp
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.math_ops import truediv
from torchflow._src.util import nest
from torchflow._src.util.api import public


@public("torchflow.distribute")
class DistributedValues:
    """Base class for values with one component per replica.

    Returned by ``strategy.run`` (a ``PerReplica``), by distributed iterators and
    by all-reduces (a ``Mirrored``); variables created in ``strategy.scope()`` are
    ``DistributedValues`` too. Use ``strategy.experimental_local_results`` to get
    the components.

    Args:
      values: The components, one per replica, in replica order.

    >>> import torchflow as tf
    >>> s = tf.distribute.MirroredStrategy(["/cpu:0"])
    >>> isinstance(s.run(lambda: tf.constant(1.0)), tf.distribute.DistributedValues)
    False
    """

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self) -> tuple:
        """The per-replica components."""
        return self._values

    def _get(self):
        """The component of the current replica (the first in cross-replica context)."""
        ctx = ds_context.current_replica()
        if ctx is None:
            return self._values[0]
        return self._values[_local_replica_id(ctx)]

    @property
    def _primary(self):
        return self._values[0]

    def __repr__(self) -> str:
        body = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"

    def __str__(self) -> str:
        body = ",\n".join(f"  {i}: {v!s}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"


class PerReplica(DistributedValues):
    """A value that may differ on each replica.

    A composite value, as in TF: its type is a spec of its components' types, so
    a ``tf.function`` called with the ``PerReplica`` batches of a distributed
    dataset traces once per signature (not once per value) and binds the
    components as its inputs."""

    @property
    def _type_spec(self) -> "PerReplicaSpec":
        return PerReplicaSpec(*(_component_spec(v) for v in self._values))


def _component_spec(v):
    if isinstance(v, Tensor):
        return TensorSpec(v.shape, v.dtype)
    spec = getattr(v, "_type_spec", None)
    return spec if isinstance(spec, TypeSpec) else v


class PerReplicaSpec(TypeSpec):
    """The type of a ``PerReplica`` value: one spec per replica's component."""

    __slots__ = ("_value_specs",)

    def __init__(self, *value_specs):
        self._value_specs = tuple(value_specs)

    @property
    def value_type(self):
        return PerReplica

    @property
    def _component_specs(self):
        return self._value_specs

    def _to_components(self, value):
        return value._values

    def _from_components(self, components):
        return PerReplica(components)

    def _serialize(self) -> tuple:
        return self._value_specs


def _per_replica_placeholder(spec: PerReplicaSpec, unknown: int = 1) -> PerReplica:
    return PerReplica([_function._placeholder(s, unknown) for s in spec._value_specs])


_function.register_composite_placeholder(PerReplicaSpec, _per_replica_placeholder)


class Mirrored(DistributedValues):
    """A value that is the same on every replica; converts to the local one."""

    def _tf_value(self, dtype=None):
        return to_tensor(self._get(), dtype)

    def numpy(self):
        return self._values[0].numpy()


# --- structure helpers ----------------------------------------------------------------


def regroup(values: list, wrap_class=PerReplica, always_wrap=False):
    """Turns a list of per-replica structures into one structure of distributed values.

    One replica's structure comes back as it is unless ``always_wrap``.

    Raises:
      ValueError: If the replicas returned different structures.
    """
    v0 = values[0]
    if len(values) == 1 and not always_wrap:
        return v0
    try:
        for v in values[1:]:
            nest.assert_same_structure(v0, v, check_types=False)
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"The structures of the values returned by each replica do not match: {e}. "
            f"Replica 0 returned {v0!r}, replica {values.index(v)} returned {v!r}."
        ) from None
    flats = [nest.flatten(v) for v in values]
    if not flats[0] and v0 is not None:
        return v0
    out = []
    for comps in zip(*flats):
        c0 = comps[0]
        if all(c is c0 for c in comps):
            if isinstance(c0, (DistributedValues,)) or not _is_value(c0):
                out.append(c0)  # the same object everywhere: a mirrored variable, None...
                continue
        out.append(wrap_class(comps))
    return nest.pack_sequence_as(v0, out)


def _local_replica_id(ctx) -> int:
    """The index of ``ctx``'s replica among this worker's replicas (the replica id
    is global across workers under MultiWorkerMirroredStrategy)."""
    first = getattr(ctx._strategy.extended, "_first_replica_id", 0)
    return ctx.replica_id_in_sync_group_py - first


def _is_value(x) -> bool:
    return isinstance(x, Tensor)


def select_replica(replica_id: int, structured):
    """The component of ``replica_id`` in each distributed value of ``structured``."""

    def pick(x):
        if isinstance(x, DistributedValues) and not isinstance(x, Variable):
            vals = x._values
            return vals[replica_id] if len(vals) > 1 else vals[0]
        return x

    return nest.map_structure(pick, structured)


def first_local_value(value):
    """The first local component of a distributed value (the value itself otherwise)."""
    if isinstance(value, DistributedValues) and not isinstance(value, Variable):
        return value._values[0]
    return value


def local_results(value) -> tuple:
    if isinstance(value, DistributedValues):
        return tuple(value.values)
    return (value,)


# --- variables ---------------------------------------------------------------------------


class DistributedVariable(Variable, DistributedValues):
    """A ``tf.Variable`` made in a strategy's scope (promoted from the plain one)."""

    def _init_distributed(self, strategy, components):
        self._distribute_strategy = strategy
        self._values = tuple(components)

    @property
    def distribute_strategy(self):
        return self._distribute_strategy

    def _replica_ctx(self):
        """The replica context of this variable's strategy in this thread, or None."""
        ctx = ds_context.current_replica()
        if ctx is None or ctx._strategy is not self._distribute_strategy:
            return None
        return ctx

    def __repr__(self) -> str:
        lines = []
        for i, c in enumerate(self._values):
            if c is self:
                name = self._name if i == 0 else self._name[:-2] + f"/replica_{i}:0"
                text = (f"<tf.Variable '{name}' shape={_shape_str(self._shape)} "
                        f"dtype={self._dtype.name}, numpy={_numpy_repr(Variable._read(self))}>")
            else:
                text = repr(c)
            lines.append(f"  {i}: {text}")
        body = ",\n".join(lines)
        return f"{type(self).__name__}:{{\n{body}\n}}"

    __str__ = __repr__


_split_lock = threading.Lock()


class MirroredVariable(DistributedVariable):
    """A variable kept identical on every replica (ON_WRITE synchronization)."""

    _in_update = False  # strategy.extended.update is writing each copy itself

    def _read(self):
        ctx = self._replica_ctx()
        if ctx is None:
            return Variable._read(self)
        own = self._values[_local_replica_id(ctx)] if len(self._values) > 1 else self
        t = Variable._read(self) if own is self else own._read()
        return copy_to_device(t, ctx._torch_device)

    def _is_split(self) -> bool:
        return len(self._values) > 1 and self._values[1] is not self

    def _split(self) -> None:
        """Gives each local replica a storage of its own, a copy of the current value
        (before any replica of this step wrote it)."""
        with _split_lock:
            if self._is_split():
                return
            base = self.name[:-2]
            devices = self._distribute_strategy.extended._devices
            current = Variable._read(self)
            comps: list = [self]
            for i in range(1, len(self._values)):
                with device(devices[i]):
                    # type.__call__: a plain variable, past the strategy's creator
                    comps.append(type.__call__(Variable, initial_value=current, trainable=False,
                                               name=f"{base}/replica_{i}", dtype=self.dtype))
            self._values = tuple(comps)

    def _replica_write(self, method, value, kwargs):
        ctx = self._replica_ctx()
        if ctx is None and self._is_split() and not self._in_update:
            for c in self._values:  # cross-replica: every replica's copy
                getattr(Variable, method)(c, value, read_value=False)
            return self if kwargs.get("read_value", True) else None
        if ctx is None or ctx.num_replicas_in_sync == 1:
            return getattr(Variable, method)(self, value, **kwargs)
        if self._aggregation is VariableAggregation.NONE:
            # TF 2.4 writes each replica's own copy, unsynchronized
            if len(self._values) > 1:
                self._split()
                getattr(Variable, method)(self._values[_local_replica_id(ctx)], value,
                                          read_value=False)
            else:
                getattr(Variable, method)(self, value, read_value=False)
            return self if kwargs.get("read_value", True) else None

        def merge(strategy, var, per_replica):
            if var._aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
                reduced = local_results(per_replica)[0]
            else:
                op = ReduceOp.from_variable_aggregation(var._aggregation)
                reduced = strategy.extended.reduce_to(op, per_replica, var)
            return strategy.extended.update(
                var, lambda v, x: getattr(Variable, method)(v, x, **kwargs), args=(reduced,))

        return ctx.merge_call(merge, args=(self, value))

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._replica_write("assign", value, {"read_value": read_value})

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._replica_write("assign_add", delta, {"read_value": read_value})

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._replica_write("assign_sub", delta, {"read_value": read_value})


class _PrimaryComponent:
    """Replica 0's copy of a ``SyncOnReadVariable`` (whose own storage it is), as
    ``experimental_local_results`` lists it: reads and writes skip the aggregation."""

    def __init__(self, var):
        self._var = var

    name = property(lambda self: self._var.name)
    shape = property(lambda self: self._var.shape)
    dtype = property(lambda self: self._var.dtype)
    device = property(lambda self: self._var.device)

    def read_value(self):
        return Variable._read(self._var)

    value = read_value

    def _tf_value(self, dtype=None):
        return Variable._read(self._var)

    def numpy(self):
        return Variable.numpy(self._var)

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self.numpy())
        return a if dtype is None else a.astype(dtype)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return Variable.assign(self._var, value, read_value=read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return Variable.assign_add(self._var, delta, read_value=read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return Variable.assign_sub(self._var, delta, read_value=read_value)

    def __repr__(self) -> str:
        v = self._var
        return (f"<tf.Variable '{v._name}' shape={_shape_str(v._shape)} "
                f"dtype={v._dtype.name}, numpy={_numpy_repr(Variable._read(v))}>")


# id(sync-on-read variable) -> its cross-replica value, reduced ahead together with
# others (Keras reads all its metrics after a step with one batch_reduce_to); filled
# and emptied by the reader around its reads.
_read_ahead: dict = {}


class SyncOnReadVariable(DistributedVariable):
    """One storage per replica; a cross-replica read aggregates (ON_READ)."""

    @property
    def values(self) -> tuple:
        return (_PrimaryComponent(self),) + tuple(self._values[1:])

    def _component(self, replica_id: int):
        return self if replica_id == 0 else self._values[replica_id]

    def _read(self):
        ctx = self._replica_ctx()
        if ctx is not None:
            rid = _local_replica_id(ctx)
            return Variable._read(self) if rid == 0 else self._values[rid]._read()
        return self._cross_replica_value()

    def _cross_replica_value(self):
        ahead = _read_ahead.get(id(self))  # reduced with others in one collective
        if ahead is not None:
            return ahead
        agg = self._aggregation
        first = Variable._read(self)
        if agg is VariableAggregation.ONLY_FIRST_REPLICA or len(self._values) == 1 and \
                agg is not VariableAggregation.NONE and \
                self._distribute_strategy.num_replicas_in_sync == 1:
            return first
        op = ReduceOp.from_variable_aggregation(agg)
        parts = [first] + [c._read() for c in self._values[1:]]
        return self._distribute_strategy.extended._local_reduce(op, parts, self)

    def numpy(self):
        return self._read().numpy()

    def _replica_or_all(self, method, value, kwargs):
        ctx = self._replica_ctx()
        if ctx is not None:
            rid = _local_replica_id(ctx)
            target = self._component(rid)
            getattr(Variable, method)(target, value, **kwargs)
            return self if kwargs.get("read_value", True) else None
        if method != "assign" and self._aggregation is VariableAggregation.SUM:
            raise ValueError(
                f"SyncOnReadVariable does not support `{method}` in cross-replica context "
                f"when aggregation is set to `tf.VariableAggregation.SUM`.")
        if method == "assign" and self._aggregation is VariableAggregation.SUM:
            value = cast(truediv(convert_to_tensor(value, dtype_hint=self.dtype),
                                 len(self._values)), self.dtype)
        for i in range(len(self._values)):
            getattr(Variable, method)(self._component(i), value, read_value=False)
        return self if kwargs.get("read_value", True) else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._replica_or_all("assign", value, {"read_value": read_value})

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._replica_or_all("assign_add", delta, {"read_value": read_value})

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._replica_or_all("assign_sub", delta, {"read_value": read_value})
