"""``tf.distribute.CrossDeviceOps``: reductions among the replicas of one process.

A cross-device-ops object reduces a ``PerReplica`` value (one tensor per local
replica) to a ``Mirrored`` one. ``reduce_implementation`` and
``batch_reduce_implementation`` first sum the local components on the
destination device (``_local_sum``), then hand the sums to
``_cross_process_sum`` / ``_cross_process_batch_sum`` — identity here; the
multi-worker collective (MWMS) overrides them with a process-group all-reduce —
and MEAN finally divides by the global replica count
(``len(components) * _num_processes``).

All the local implementations are the same on torch: ``add_n`` on the
destination device (which is what TF's three classes compute, by different
routes); ``NcclAllReduce`` and ``HierarchicalCopyAllReduce`` are kept for their
names and arguments.
"""

from __future__ import annotations

from torchflow._src.core import context
from torchflow._src.core.config import copy_to_device
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.distribute import values
from torchflow._src.distribute.reduce_util import ReduceOp, as_reduce_op
from torchflow._src.ops.array_ops import concat
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.math_ops import add_n, truediv
from torchflow._src.util.api import public


def _destination_device(destinations, default):
    """The torch device a reduction result goes to."""
    if isinstance(destinations, (str, Variable, Tensor)):
        name = destinations if isinstance(destinations, str) else destinations.device
        try:
            dev = context.parse_device(name)
        except ValueError:
            dev = None
        return default if dev is None else dev
    return default


def _divide(total, n):
    if total.dtype.is_floating or total.dtype.is_complex:
        return truediv(total, cast(n, total.dtype))
    return truediv(total, n)


@public("torchflow.distribute")
class CrossDeviceOps:
    """Base class for cross-device reduction and broadcasting algorithms.

    A strategy uses one to sum or average per-replica values (``reduce``,
    ``batch_reduce``) and to copy a value to devices (``broadcast``). Subclasses
    (``tf.distribute.ReductionToOneDevice``, ``HierarchicalCopyAllReduce``,
    ``NcclAllReduce``) override the ``*_implementation`` methods; pass one as
    ``MirroredStrategy(cross_device_ops=...)``. The constructor takes no arguments.
    """

    _num_processes = 1

    def __init__(self):
        pass

    # -- the hooks a multi-process implementation overrides --
    def _cross_process_sum(self, tensor, options):
        return tensor

    def _cross_process_batch_sum(self, tensors, options):
        return [self._cross_process_sum(t, options) for t in tensors]

    def _cross_process_gather(self, tensor, axis, options):
        return tensor

    # -- local work --
    def _local_sum(self, per_replica_value, destinations):
        parts = [convert_to_tensor(p) for p in values.local_results(per_replica_value)]
        device = _destination_device(destinations, parts[0]._t.device)
        parts = [copy_to_device(p, device) for p in parts]
        return (parts[0] if len(parts) == 1 else add_n(parts)), len(parts)

    def _finish(self, reduce_op, total, n_local):
        if reduce_op is ReduceOp.MEAN:
            total = _divide(total, n_local * self._num_processes)
        return values.Mirrored([total])

    # -- TF's API --
    def reduce(self, reduce_op, per_replica_value, destinations, options=None):
        """Reduces ``per_replica_value`` to ``destinations``.

        Args:
          reduce_op: A ``tf.distribute.ReduceOp``.
          per_replica_value: A ``PerReplica`` value (or a tensor).
          destinations: Where the result goes (a tensor, variable or device string).
          options: A ``tf.distribute.experimental.CommunicationOptions``.

        Returns:
          A ``Mirrored`` value.
        """
        reduce_op = as_reduce_op(reduce_op)
        if not isinstance(per_replica_value, values.DistributedValues):
            per_replica_value = values.PerReplica([per_replica_value])
        return self.reduce_implementation(reduce_op, per_replica_value, destinations, options)

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        """Reduces several ``(value, destinations)`` pairs at once (see ``reduce``)."""
        reduce_op = as_reduce_op(reduce_op)
        pairs = [(v if isinstance(v, values.DistributedValues) else values.PerReplica([v]), d)
                 for v, d in value_destination_pairs]
        return self.batch_reduce_implementation(reduce_op, pairs, options)

    def broadcast(self, tensor, destinations):
        """Mirrors ``tensor`` to ``destinations``."""
        return self.broadcast_implementation(tensor, destinations)

    def reduce_implementation(self, reduce_op, per_replica_value, destinations, options):
        total, n = self._local_sum(per_replica_value, destinations)
        return self._finish(reduce_op, self._cross_process_sum(total, options), n)

    def batch_reduce_implementation(self, reduce_op, value_destination_pairs, options):
        sums = [self._local_sum(v, d) for v, d in value_destination_pairs]
        reduced = self._cross_process_batch_sum([t for t, _ in sums], options)
        return [self._finish(reduce_op, t, n) for t, (_, n) in zip(reduced, sums)]

    def broadcast_implementation(self, tensor, destinations):
        device = _destination_device(destinations, None)
        t = convert_to_tensor(tensor)
        return values.Mirrored([t if device is None else copy_to_device(t, device)])

    def _gather(self, per_replica_value, destinations, axis, options=None):
        parts = [convert_to_tensor(p) for p in values.local_results(per_replica_value)]
        device = _destination_device(destinations, parts[0]._t.device)
        parts = [copy_to_device(p, device) for p in parts]
        local = parts[0] if len(parts) == 1 else concat(parts, axis)
        return self._cross_process_gather(local, axis, options)


@public("torchflow.distribute")
class ReductionToOneDevice(CrossDeviceOps):
    """Reduces to one device, then broadcasts the result.

    Args:
      reduce_to_device: The intermediate device (recorded).
      accumulation_fn: The function that sums a list of tensors (default ``tf.add_n``).
    """

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        super().__init__()
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn or add_n

    def _local_sum(self, per_replica_value, destinations):
        parts = [convert_to_tensor(p) for p in values.local_results(per_replica_value)]
        device = _destination_device(destinations, parts[0]._t.device)
        parts = [copy_to_device(p, device) for p in parts]
        return (parts[0] if len(parts) == 1 else self.accumulation_fn(parts)), len(parts)


@public("torchflow.distribute")
class NcclAllReduce(CrossDeviceOps):
    """All-reduce among local GPUs (TF's NCCL algorithm; the sum is torch's).

    Args:
      num_packs: The number of gradient packs (recorded).
    """

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(f"NCCL all-reduce requires num_packs >= 0, but {num_packs} "
                             f"is specified")
        super().__init__()
        self._num_packs = num_packs


@public("torchflow.distribute")
class HierarchicalCopyAllReduce(CrossDeviceOps):
    """Hierarchical-copy all-reduce among local GPUs (the sum is torch's).

    Args:
      num_packs: The number of gradient packs (recorded).
    """

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(f"HierarchicalCopy requires num_packs >= 0, but {num_packs} "
                             f"is specified")
        super().__init__()
        self._num_packs = num_packs
