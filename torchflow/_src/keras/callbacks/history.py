"""``tf.keras.callbacks.History``: what ``fit`` returns."""

from __future__ import annotations

from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public


@public("torchflow.keras.callbacks")
class History(Callback):
    """Records ``epoch`` numbers and the ``history`` of every logged metric.

    ``fit`` adds it to every run and returns it: ``history.history["loss"]`` is the list
    of the epochs' losses, ``history.epoch`` the epoch indices.
    """

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self
