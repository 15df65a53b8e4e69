"""``tf.keras.optimizers.Nadam``."""

from __future__ import annotations

from torchflow._src.core.variables import VariableAggregation
from torchflow._src.keras import backend
from torchflow._src.keras.optimizers._fast import FusedMixin, slots
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer, host_scope
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    LearningRateSchedule,
)
from torchflow._src.ops import training_ops
from torchflow._src.util.api import public


@public("torchflow.keras.optimizers")
class Nadam(FusedMixin, Optimizer):
    """Adam with Nesterov momentum and Keras's momentum-decay schedule
    (``schedule_decay``, stored as ``decay``, default 0.004).

    Args:
      learning_rate: A float (not a schedule), default 0.001.
      beta_1: float, default 0.9: the decay rate of the first-moment estimates.
      beta_2: float, default 0.999: the decay rate of the second-moment estimates.
      epsilon: float, default 1e-7: a small constant for numerical stability.
      name: str, default ``'Nadam'``: the prefix of the slot variables' names.
      kwargs: ``clipvalue``, ``clipnorm``, ``global_clipnorm`` (gradient clipping), ``lr``
        (deprecated alias of ``learning_rate``), ``decay`` (inverse-time decay).

    Raises:
      ValueError: If ``learning_rate`` is a LearningRateSchedule (as TF 2.4).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Nadam", **kwargs):
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)
        learning_rate = kwargs.get("lr", learning_rate)
        if isinstance(learning_rate, LearningRateSchedule):
            raise ValueError("The Nadam optimizer does not support "
                             "tf.keras.optimizers.LearningRateSchedules as the learning rate.")
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()
        self._m_cache = None

    def _create_slots(self, var_list):
        if self._m_cache is None:
            with host_scope():
                self._m_cache = self.add_weight(
                    "momentum_cache", shape=[], dtype=var_list[0].dtype, initializer="ones",
                    trainable=False, aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _apply_batch(self, grads, variables, iterations):
        b1, b2 = self._hyper_float("beta_1"), self._hyper_float("beta_2")
        t, t1 = iterations + 1, iterations + 2
        d = self._initial_decay
        mu_t = b1 * (1.0 - 0.5 * 0.96 ** (d * t))
        mu_t1 = b1 * (1.0 - 0.5 * 0.96 ** (d * t1))
        m_new = float(self._m_cache.numpy()) * mu_t
        self._m_cache.assign(m_new)
        training_ops.apply_nadam(
            variables, grads, slots(self, variables, "m"), slots(self, variables, "v"),
            self._hyper_float("learning_rate"), b1, b2, float(self.epsilon), mu_t, mu_t1,
            m_new, m_new * mu_t1, 1.0 - b2 ** t)

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "beta_1": self._serialize_hyperparameter("beta_1"),
                       "beta_2": self._serialize_hyperparameter("beta_2"),
                       "epsilon": self.epsilon})
        return config
