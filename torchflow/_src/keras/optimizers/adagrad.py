"""``tf.keras.optimizers.Adagrad``."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.initializers import Constant
from torchflow._src.keras.optimizers._fast import FusedMixin, slots
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer
from torchflow._src.ops import training_ops, training_sparse_ops
from torchflow._src.util.api import public


@public("torchflow.keras.optimizers")
class Adagrad(FusedMixin, Optimizer):
    """Adagrad: per-parameter rates scaled by the accumulated squared gradients.

    Args:
      learning_rate: A float, a ``LearningRateSchedule`` or a zero-argument callable;
        default 0.001.
      initial_accumulator_value: float >= 0, default 0.1: the starting value of the
        accumulators.
      epsilon: float, default 1e-7: a small constant for numerical stability.
      name: str, default ``'Adagrad'``: the prefix of the slot variables' names.
      kwargs: ``clipvalue``, ``clipnorm``, ``global_clipnorm`` (gradient clipping), ``lr``
        (deprecated alias of ``learning_rate``), ``decay`` (inverse-time decay).

    Raises:
      ValueError: If ``initial_accumulator_value`` is negative.
    """

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value must be non-negative: "
                             f"{initial_accumulator_value}")
        if epsilon is None:
            epsilon = backend.epsilon()
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", Constant(self._initial_accumulator_value))

    def _apply_batch(self, grads, variables, iterations):
        training_ops.apply_adagrad(variables, grads, slots(self, variables, "accumulator"),
                                   self._lr_float(iterations), float(self.epsilon))

    def _apply_sparse_batch(self, grads, variables, iterations):
        training_sparse_ops.sparse_apply_adagrad(
            variables, grads, slots(self, variables, "accumulator"),
            self._lr_float(iterations), float(self.epsilon))

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "initial_accumulator_value": self._initial_accumulator_value,
                       "epsilon": self.epsilon})
        return config
