"""``tf.keras.optimizers.Adam``."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.optimizers._fast import FusedMixin, slots
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer
from torchflow._src.ops import training_ops, training_sparse_ops
from torchflow._src.util.api import public


@public("torchflow.keras.optimizers")
class Adam(FusedMixin, Optimizer):
    """Adam (TF's update: ``lr_t = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)``,
    ``w -= lr_t * m / (sqrt(v) + epsilon)``), optionally AMSGrad.

    Args:
      learning_rate: A float, a schedule or a callable. beta_1, beta_2: Moment
        decay rates. epsilon: Stability constant (default 1e-7).
      amsgrad: Use the running maximum of ``v`` (slot ``vhat``).
      name: Name prefix of the optimizer variables.
      **kwargs: See ``Optimizer``.

    >>> import torchflow as tf
    >>> opt = tf.keras.optimizers.Adam(learning_rate=0.1)
    >>> var = tf.Variable(1.0)
    >>> _ = opt.minimize(lambda: (var ** 2) / 2.0, [var])
    >>> round(float(var.numpy()), 4)
    0.9
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()
        self.amsgrad = amsgrad

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")
        if self.amsgrad:
            for var in var_list:
                self.add_slot(var, "vhat")

    def _apply_batch(self, grads, variables, iterations):
        lr = self._lr_float(iterations)
        b1, b2 = self._hyper_float("beta_1"), self._hyper_float("beta_2")
        step = iterations + 1
        lr_t = training_ops.adam_lr_t(lr, b1, b2, step)
        training_ops.apply_adam(
            variables, grads, slots(self, variables, "m"), slots(self, variables, "v"),
            slots(self, variables, "vhat") if self.amsgrad else None, lr_t, b1, b2,
            float(self.epsilon))

    def _apply_sparse_batch(self, grads, variables, iterations):
        lr = self._lr_float(iterations)
        b1, b2 = self._hyper_float("beta_1"), self._hyper_float("beta_2")
        lr_t = training_ops.adam_lr_t(lr, b1, b2, iterations + 1)
        training_sparse_ops.sparse_apply_adam(
            variables, grads, slots(self, variables, "m"), slots(self, variables, "v"),
            slots(self, variables, "vhat") if self.amsgrad else None, lr_t, b1, b2,
            float(self.epsilon))

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "beta_1": self._serialize_hyperparameter("beta_1"),
                       "beta_2": self._serialize_hyperparameter("beta_2"),
                       "epsilon": self.epsilon, "amsgrad": self.amsgrad})
        return config
