"""``tf.keras.optimizers.RMSprop``."""

from __future__ import annotations

from torchflow._src.core.tensor import Tensor
from torchflow._src.keras import backend
from torchflow._src.keras.optimizers._fast import FusedMixin, slots
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer
from torchflow._src.ops import training_ops, training_sparse_ops
from torchflow._src.util.api import public


@public("torchflow.keras.optimizers")
class RMSprop(FusedMixin, Optimizer):
    """RMSprop: divides the gradient by a running root mean square (``centered``
    subtracts the squared running mean; ``momentum > 0`` adds a momentum slot).

    Args:
      learning_rate: A float, a ``LearningRateSchedule`` or a zero-argument callable;
        default 0.001.
      rho: float, default 0.9: the decay rate of the running mean of squared gradients.
      momentum: float >= 0, default 0.0: momentum coefficient.
      epsilon: float, default 1e-7: a small constant for numerical stability.
      centered: bool, default False: normalise by the estimated variance instead of the
        second moment.
      name: str, default ``'RMSprop'``: the prefix of the slot variables' names.
      kwargs: ``clipvalue``, ``clipnorm``, ``global_clipnorm`` (gradient clipping), ``lr``
        (deprecated alias of ``learning_rate``), ``decay`` (inverse-time decay).
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name="RMSprop", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._momentum = False
        if isinstance(momentum, Tensor) or callable(momentum) or momentum > 0:
            self._momentum = True
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError("`momentum` must be between [0, 1].")
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon or backend.epsilon()
        self.centered = centered

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "rms")
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")
        if self.centered:
            for var in var_list:
                self.add_slot(var, "mg")

    def _apply_batch(self, grads, variables, iterations):
        training_ops.apply_rmsprop(
            variables, grads, slots(self, variables, "rms"),
            slots(self, variables, "momentum") if self._momentum else None,
            slots(self, variables, "mg") if self.centered else None,
            self._lr_float(iterations), self._hyper_float("rho"),
            self._hyper_float("momentum"), float(self.epsilon))

    def _apply_sparse_batch(self, grads, variables, iterations):
        training_sparse_ops.sparse_apply_rmsprop(
            variables, grads, slots(self, variables, "rms"),
            slots(self, variables, "momentum") if self._momentum else None,
            slots(self, variables, "mg") if self.centered else None,
            self._lr_float(iterations), self._hyper_float("rho"),
            self._hyper_float("momentum"), float(self.epsilon))

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "rho": self._serialize_hyperparameter("rho"),
                       "momentum": self._serialize_hyperparameter("momentum"),
                       "epsilon": self.epsilon, "centered": self.centered})
        return config
