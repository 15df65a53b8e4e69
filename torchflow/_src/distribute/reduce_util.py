"""``tf.distribute.ReduceOp``: how values from several replicas are combined."""

from __future__ import annotations

import enum

from torchflow._src.core.variables import VariableAggregation
from torchflow._src.util.api import public


@public("torchflow.distribute")
class ReduceOp(enum.Enum):
    """Indicates how a set of values should be reduced.

    * ``SUM``: add all the values.
    * ``MEAN``: take the arithmetic mean ("average") of the values.

    >>> import torchflow as tf
    >>> tf.distribute.ReduceOp.SUM
    <ReduceOp.SUM: 'SUM'>
    """

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """The ``ReduceOp`` of a ``tf.VariableAggregation`` (SUM or MEAN).

        Raises:
          ValueError: For an aggregation with no reduction (NONE, ONLY_FIRST_REPLICA).
        """
        mapping = {VariableAggregation.SUM: ReduceOp.SUM,
                   VariableAggregation.MEAN: ReduceOp.MEAN}
        reduce_op = mapping.get(aggregation)
        if reduce_op is None:
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to"
                             f"`tf.distribute.ReduceOp` type")
        return reduce_op


def as_reduce_op(reduce_op) -> ReduceOp:
    """Accepts a ``ReduceOp`` or its name ("SUM", "MEAN"), as TF does.

    Raises:
      ValueError: For any other value.
    """
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    if isinstance(reduce_op, VariableAggregation):
        return ReduceOp.from_variable_aggregation(reduce_op)
    if isinstance(reduce_op, str) and reduce_op.upper() in ("SUM", "MEAN"):
        return ReduceOp(reduce_op.upper())
    raise ValueError(f"Expected a tf.distribute.ReduceOp (SUM or MEAN); received "
                     f"reduce_op={reduce_op!r}")
