"""``tf.keras.optimizers.Adamax``."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.optimizers._fast import FusedMixin, slots
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer
from torchflow._src.ops import training_ops
from torchflow._src.util.api import public


@public("torchflow.keras.optimizers")
class Adamax(FusedMixin, Optimizer):
    """Adamax: Adam with the infinity norm of past gradients in place of ``v``.

    Args:
      learning_rate: A float, a ``LearningRateSchedule`` or a zero-argument callable;
        default 0.001.
      beta_1: float, default 0.9: the decay rate of the first-moment estimates.
      beta_2: float, default 0.999: the decay rate of the exponentially weighted infinity
        norm.
      epsilon: float, default 1e-7: a small constant for numerical stability.
      name: str, default ``'Adamax'``: the prefix of the slot variables' names.
      kwargs: ``clipvalue``, ``clipnorm``, ``global_clipnorm`` (gradient clipping), ``lr``
        (deprecated alias of ``learning_rate``), ``decay`` (inverse-time decay).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Adamax", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _apply_batch(self, grads, variables, iterations):
        b1, b2 = self._hyper_float("beta_1"), self._hyper_float("beta_2")
        lr_t = self._lr_float(iterations) / (1.0 - b1 ** (iterations + 1))
        training_ops.apply_adamax(variables, grads, slots(self, variables, "m"),
                                  slots(self, variables, "v"), lr_t, b1, b2,
                                  float(self.epsilon))

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "beta_1": self._serialize_hyperparameter("beta_1"),
                       "beta_2": self._serialize_hyperparameter("beta_2"),
                       "epsilon": self.epsilon})
        return config
