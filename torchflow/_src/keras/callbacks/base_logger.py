"""``tf.keras.callbacks.BaseLogger``: epoch averages of batch metrics (Keras 1 style)."""

from __future__ import annotations

from torchflow._src.keras.callbacks import _utils
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public


@public("torchflow.keras.callbacks")
class BaseLogger(Callback):
    """Accumulates batch metrics weighted by the batch's ``size`` log.

    At the end of an epoch, each name in ``params['metrics']`` gets the
    average over the epoch's samples written into the epoch logs (``fit`` in
    TF 2 already logs running averages, so this is rarely needed).

    Args:
      stateful_metrics: Names whose last value is kept instead of averaged.
    """

    def __init__(self, stateful_metrics=None):
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])
        self.seen = 0
        self.totals = {}

    def on_epoch_begin(self, epoch, logs=None):
        self.seen = 0
        self.totals = {}

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        batch_size = logs.get("size", 0)
        num_steps = logs.get("num_steps", 1)
        self.seen += batch_size * num_steps
        for k, v in logs.items():
            v = _utils.to_float(v)
            if k in self.stateful_metrics:
                self.totals[k] = v
            else:
                self.totals[k] = self.totals.get(k, 0) + v * batch_size

    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        for k in self.params.get("metrics", []):
            if k in self.totals:
                logs[k] = self.totals[k] if k in self.stateful_metrics else \
                    self.totals[k] / self.seen
