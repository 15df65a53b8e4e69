"""``tf.keras.optimizers.Ftrl``."""

from __future__ import annotations

from torchflow._src.keras.initializers import Constant
from torchflow._src.keras.optimizers._fast import FusedMixin, slots
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer
from torchflow._src.ops import training_ops
from torchflow._src.util.api import public


@public("torchflow.keras.optimizers")
class Ftrl(FusedMixin, Optimizer):
    """FTRL-proximal with L1, L2 and L2-shrinkage regularization.

    Args:
      learning_rate: A float, a ``LearningRateSchedule`` or a zero-argument callable;
        default 0.001.
      learning_rate_power: float <= 0, default -0.5: how the per-coordinate rate shrinks
        during training.
      initial_accumulator_value: float >= 0, default 0.1.
      l1_regularization_strength: float >= 0, default 0.0.
      l2_regularization_strength: float >= 0, default 0.0.
      name: str, default ``'Ftrl'``: the prefix of the slot variables' names.
      l2_shrinkage_regularization_strength: float >= 0, default 0.0: an L2 penalty on the
        weights (not the accumulators).
      beta: float, default 0.0: added to the accumulator root in the denominator.
      kwargs: ``clipvalue``, ``clipnorm``, ``global_clipnorm`` (gradient clipping), ``lr``
        (deprecated alias of ``learning_rate``), ``decay`` (inverse-time decay).

    Raises:
      ValueError: For a negative accumulator value or regularization strength,
        or a positive ``learning_rate_power``.
    """

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, name="Ftrl",
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, **kwargs):
        super().__init__(name, **kwargs)
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value {initial_accumulator_value} needs to "
                             f"be positive or zero")
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power} needs to be negative "
                             f"or zero")
        for n, v in (("l1_regularization_strength", l1_regularization_strength),
                     ("l2_regularization_strength", l2_regularization_strength),
                     ("l2_shrinkage_regularization_strength",
                      l2_shrinkage_regularization_strength)):
            if v < 0.0:
                raise ValueError(f"{n} {v} needs to be positive or zero")
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._set_hyper("beta", beta)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", Constant(self._initial_accumulator_value))
            self.add_slot(var, "linear")

    def _apply_batch(self, grads, variables, iterations):
        lr = self._lr_float(iterations)
        l2 = self._hyper_float("l2_regularization_strength") + \
            self._hyper_float("beta") / (2.0 * lr)
        training_ops.apply_ftrl(
            variables, grads, slots(self, variables, "accumulator"),
            slots(self, variables, "linear"), lr,
            self._hyper_float("l1_regularization_strength"), l2,
            float(self._l2_shrinkage_regularization_strength),
            self._hyper_float("learning_rate_power"))

    def get_config(self):
        config = super().get_config()
        config.update({
            "learning_rate": self._serialize_hyperparameter("learning_rate"),
            "decay": self._initial_decay,
            "initial_accumulator_value": self._initial_accumulator_value,
            "learning_rate_power": self._serialize_hyperparameter("learning_rate_power"),
            "l1_regularization_strength":
                self._serialize_hyperparameter("l1_regularization_strength"),
            "l2_regularization_strength":
                self._serialize_hyperparameter("l2_regularization_strength"),
            "beta": self._serialize_hyperparameter("beta"),
            "l2_shrinkage_regularization_strength": self._l2_shrinkage_regularization_strength,
        })
        return config
