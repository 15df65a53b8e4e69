"""``tf.keras.optimizers.Adadelta``."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.optimizers._fast import FusedMixin, slots
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer
from torchflow._src.ops import training_ops
from torchflow._src.util.api import public


@public("torchflow.keras.optimizers")
class Adadelta(FusedMixin, Optimizer):
    """Adadelta: steps scaled by the RMS of past updates over the RMS of gradients.

    Args:
      learning_rate: A float, a ``LearningRateSchedule`` or a zero-argument callable;
        default 0.001.
      rho: float, default 0.95: the decay rate of the running averages.
      epsilon: float, default 1e-7: a small constant for numerical stability.
      name: str, default ``'Adadelta'``: the prefix of the slot variables' names.
      kwargs: ``clipvalue``, ``clipnorm``, ``global_clipnorm`` (gradient clipping), ``lr``
        (deprecated alias of ``learning_rate``), ``decay`` (inverse-time decay).
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accum_grad")
        for var in var_list:
            self.add_slot(var, "accum_var")

    def _apply_batch(self, grads, variables, iterations):
        training_ops.apply_adadelta(
            variables, grads, slots(self, variables, "accum_grad"),
            slots(self, variables, "accum_var"), self._lr_float(iterations),
            self._hyper_float("rho"), float(self.epsilon))

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "rho": self._serialize_hyperparameter("rho"), "epsilon": self.epsilon})
        return config
