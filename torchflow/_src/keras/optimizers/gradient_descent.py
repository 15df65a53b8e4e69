"""``tf.keras.optimizers.SGD``."""

from __future__ import annotations

from torchflow._src.core.tensor import Tensor
from torchflow._src.keras.optimizers._fast import FusedMixin, slots
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer
from torchflow._src.ops import training_ops, training_sparse_ops
from torchflow._src.util.api import public


@public("torchflow.keras.optimizers")
class SGD(FusedMixin, Optimizer):
    """Gradient descent, with (Nesterov) momentum when ``momentum > 0``.

    ``velocity = momentum * velocity - learning_rate * g``; ``w += velocity``.

    Args:
      learning_rate: A float, a ``LearningRateSchedule`` or a zero-argument callable;
        default 0.01.
      momentum: float in ``[0, 1]``, default 0.0: accelerates steps in a consistent
        direction.
      nesterov: bool, default False: use Nesterov momentum.
      name: str, default ``'SGD'``: the prefix of the slot variables' names.
      kwargs: ``clipvalue``, ``clipnorm``, ``global_clipnorm`` (gradient clipping), ``lr``
        (deprecated alias of ``learning_rate``), ``decay`` (inverse-time decay).

    Raises:
      ValueError: If ``momentum`` is outside [0, 1].

    >>> import torchflow as tf
    >>> opt = tf.keras.optimizers.SGD(learning_rate=0.1)
    >>> var = tf.Variable(1.0)
    >>> _ = opt.minimize(lambda: (var ** 2) / 2.0, [var])
    >>> round(float(var.numpy()), 6)
    0.9
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._momentum = False
        if isinstance(momentum, Tensor) or callable(momentum) or momentum > 0:
            self._momentum = True
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError("`momentum` must be between [0, 1].")
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _create_slots(self, var_list):
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _apply_batch(self, grads, variables, iterations):
        lr = self._lr_float(iterations)
        if self._momentum:
            training_ops.apply_keras_momentum(
                variables, grads, slots(self, variables, "momentum"), lr,
                self._hyper_float("momentum"), self.nesterov)
        else:
            training_ops.apply_gradient_descent(variables, grads, lr)

    def _apply_sparse_batch(self, grads, variables, iterations):
        lr = self._lr_float(iterations)
        if self._momentum:
            training_sparse_ops.sparse_apply_keras_momentum(
                variables, grads, slots(self, variables, "momentum"), lr,
                self._hyper_float("momentum"), self.nesterov)
        else:
            training_sparse_ops.sparse_apply_gradient_descent(variables, grads, lr)

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "momentum": self._serialize_hyperparameter("momentum"),
                       "nesterov": self.nesterov})
        return config
