"""``tf.keras.callbacks.EarlyStopping``: stops ``fit`` when a metric stops improving."""

from __future__ import annotations

import logging

import numpy as np

from torchflow._src.keras.callbacks import _utils
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")


@public("torchflow.keras.callbacks")
class EarlyStopping(Callback):
    """Stops training when ``monitor`` has not improved for ``patience`` epochs.

    Args:
      monitor: Quantity to monitor (a key of the epoch logs).
      min_delta: Minimum change counted as an improvement.
      patience: Epochs without improvement before stopping.
      verbose: 0 or 1.
      mode: ``'auto'``, ``'min'`` or ``'max'``.
      baseline: A value the monitored quantity must beat.
      restore_best_weights: Restore the weights of the best epoch when stopping.

    >>> import torchflow as tf
    >>> cb = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=3)
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        if mode not in ("auto", "min", "max"):
            _log.warning("EarlyStopping mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        self.monitor_op = _utils.monitor_op(mode, monitor, "EarlyStopping")
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op is np.less else -np.inf
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = self.get_monitor_value(logs)
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose > 0:
                    print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")

    def get_monitor_value(self, logs):
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            _log.warning("Early stopping conditioned on metric `%s` which is not available. "
                         "Available metrics are: %s", self.monitor, ",".join(logs))
        return _utils.to_float(value)
