"""``tf.keras.callbacks.LearningRateScheduler``: sets the learning rate each epoch."""

from __future__ import annotations

import numpy as np

from torchflow._src.core.tensor import Tensor
from torchflow._src.keras.callbacks import _utils
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public


@public("torchflow.keras.callbacks")
class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to ``schedule(epoch, lr)`` at each epoch start.

    Args:
      schedule: ``schedule(epoch, lr) -> new_lr`` (0-based epoch) or ``schedule(epoch)``.
      verbose: 0 or 1.

    Raises:
      ValueError: If the optimizer has no ``lr`` or ``schedule`` returns a non-float.

    >>> import torchflow as tf
    >>> cb = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr if epoch < 10 else lr * 0.9)
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        if not _utils.has_lr(self.model.optimizer):
            raise ValueError('Optimizer must have a "lr" attribute.')
        try:
            lr = float(_utils.get_lr(self.model.optimizer))
            lr = self.schedule(epoch, lr)
        except TypeError:  # the old one-argument API
            lr = self.schedule(epoch)
        if not isinstance(lr, (Tensor, float, np.float32, np.float64)):
            raise ValueError('The output of the "schedule" function should be float.')
        if isinstance(lr, Tensor) and not lr.dtype.is_floating:
            raise ValueError("The dtype of Tensor should be float")
        _utils.set_lr(self.model.optimizer, _utils.to_float(lr))
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: LearningRateScheduler reducing learning rate "
                  f"to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = np.float32(_utils.get_lr(self.model.optimizer))
