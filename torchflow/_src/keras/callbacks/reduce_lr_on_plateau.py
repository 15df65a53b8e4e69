"""``tf.keras.callbacks.ReduceLROnPlateau``: lowers the learning rate on a plateau."""

from __future__ import annotations

import logging

import numpy as np

from torchflow._src.keras.callbacks import _utils
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")


@public("torchflow.keras.callbacks")
class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` stops improving.

    Args:
      monitor: Quantity to monitor.
      factor: ``new_lr = lr * factor`` (must be < 1).
      patience: Epochs without improvement before reducing.
      verbose: 0 or 1.
      mode: ``'auto'``, ``'min'`` or ``'max'``.
      min_delta: Threshold for a significant change.
      cooldown: Epochs to wait after a reduction before counting again.
      min_lr: Lower bound on the learning rate.

    Raises:
      ValueError: If ``factor >= 1``.

    >>> import torchflow as tf
    >>> cb = tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=5, min_lr=0.001)
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
            _log.warning("`epsilon` argument is deprecated and will be removed, use "
                         "`min_delta` instead.")
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best = 0
        self.mode = mode
        self.monitor_op = None
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            _log.warning("Learning rate reduction mode %s is unknown, fallback to auto mode.",
                         self.mode)
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = np.float32(_utils.get_lr(self.model.optimizer))
        current = _utils.to_float(logs.get(self.monitor))
        if current is None:
            _log.warning("Learning rate reduction is conditioned on metric `%s` which is not "
                         "available. Available metrics are: %s", self.monitor, ",".join(logs))
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = np.float32(_utils.get_lr(self.model.optimizer))
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    _utils.set_lr(self.model.optimizer, new_lr)
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1:05d}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0
