"""``tf.keras.callbacks.TerminateOnNaN``."""

from __future__ import annotations

import numpy as np

from torchflow._src.keras.callbacks import _utils
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public


@public("torchflow.keras.callbacks")
class TerminateOnNaN(Callback):
    """Stops training as soon as a batch's loss is NaN or infinite.

    Prints ``Batch N: Invalid loss, terminating training`` and sets the model's
    ``stop_training``, so ``fit`` ends after that batch.
    """

    def __init__(self):
        super().__init__()
        self._supports_tf_logs = True

    def on_batch_end(self, batch, logs=None):
        loss = _utils.to_float((logs or {}).get("loss"))
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
