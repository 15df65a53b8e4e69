"""``tf.keras.callbacks.ModelCheckpoint``: saves the model or its weights during ``fit``."""

from __future__ import annotations

import logging
import os
import re

import numpy as np

from torchflow._src.keras.callbacks import _utils
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")


@public("torchflow.keras.callbacks")
class ModelCheckpoint(Callback):
    """Saves the model (or its weights) at some frequency.

    ``filepath`` may contain named formatting options filled from ``epoch``
    (1-based), ``batch`` (1-based, only when saving on batches) and the keys of
    ``logs``, e.g. ``"weights.{epoch:02d}-{val_loss:.2f}.h5"``.

    Args:
      filepath: Where to save (string or path-like).
      monitor: Metric name to monitor (``save_best_only``).
      verbose: 0 or 1 (prints a line per save).
      save_best_only: Only save when the monitored value improves.
      save_weights_only: ``model.save_weights`` instead of ``model.save``.
      mode: ``'auto'``, ``'min'`` or ``'max'``.
      save_freq: ``'epoch'`` or an integer number of batches.
      options: Passed to ``save``/``save_weights``.

    Raises:
      ValueError: For an unrecognized ``save_freq``.

    >>> import torchflow as tf
    >>> cb = tf.keras.callbacks.ModelCheckpoint("/tmp/ckpt-{epoch:02d}.h5", save_weights_only=True)
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch", options=None,
                 **kwargs):
        super().__init__()
        self._supports_tf_logs = True
        self.monitor = monitor
        self.verbose = verbose
        self.filepath = os.fspath(filepath) if filepath is not None else filepath
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self.options = options
        self.epochs_since_last_save = 0
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        if "load_weights_on_restart" in kwargs:
            self.load_weights_on_restart = kwargs.pop("load_weights_on_restart")
            _log.warning("`load_weights_on_restart` argument is deprecated. Please use "
                         "`model.load_weights()` for loading weights before the start of "
                         "`model.fit()`.")
        else:
            self.load_weights_on_restart = False
        if "period" in kwargs:
            self.period = kwargs.pop("period")
            _log.warning("`period` argument is deprecated. Please use `save_freq` to specify "
                         "the frequency in number of batches seen.")
        else:
            self.period = 1
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {list(kwargs)}")
        if mode not in ("auto", "min", "max"):
            _log.warning("ModelCheckpoint mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        self.mode = mode
        self.monitor_op = _utils.monitor_op(mode, monitor, "ModelCheckpoint")
        self.best = np.inf if self.monitor_op is np.less else -np.inf
        if self.save_freq != "epoch" and not isinstance(self.save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {self.save_freq}")

    def on_train_begin(self, logs=None):
        if self.load_weights_on_restart:
            latest = self._latest_existing()
            if latest is not None:
                try:
                    self.model.load_weights(latest)
                except (OSError, IOError) as e:
                    raise ValueError(f"Error loading file from {latest}. Reason: {e}") from e

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(epoch=self._current_epoch, batch=batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        self.epochs_since_last_save += 1
        if self.save_freq == "epoch":
            self._save_model(epoch=epoch, batch=None, logs=logs)

    def _implements_train_batch_hooks(self):
        return self.save_freq != "epoch"  # fit may skip batch hooks otherwise

    def _should_save_on_batch(self, batch) -> bool:
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:  # a new epoch started
            add_batches = batch + 1
        else:
            add_batches = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _save_model(self, epoch, batch, logs):
        logs = {k: _utils.to_float(v) for k, v in (logs or {}).items()}
        if not (isinstance(self.save_freq, int) or self.epochs_since_last_save >= self.period):
            return
        self.epochs_since_last_save = 0
        filepath = self._get_file_path(epoch, batch, logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                _log.warning("Can save best model only with %s available, skipping.",
                             self.monitor)
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1:05d}: {self.monitor} did not improve from "
                          f"{self.best:0.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1:05d}: {self.monitor} improved from "
                      f"{self.best:0.5f} to {current:0.5f}, saving model to {filepath}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: saving model to {filepath}")
        dirname = os.path.dirname(filepath)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True, options=self.options)
        else:
            self.model.save(filepath, overwrite=True, options=self.options)

    def _get_file_path(self, epoch, batch, logs) -> str:
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {e}") from e

    def _latest_existing(self):
        """The most recently modified file matching ``filepath`` (for load_weights_on_restart)."""
        dirname, base = os.path.split(self.filepath)
        dirname = dirname or "."
        pattern = re.sub(r"{.*?}", r".*", re.escape(base).replace(r"\{", "{").replace(r"\}", "}"))
        if not os.path.isdir(dirname):
            return None
        found = [os.path.join(dirname, f) for f in os.listdir(dirname) if re.fullmatch(pattern, f)]
        return max(found, key=os.path.getmtime) if found else None
