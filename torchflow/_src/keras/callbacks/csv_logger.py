"""``tf.keras.callbacks.CSVLogger``: streams epoch results to a CSV file."""

from __future__ import annotations

import collections
import csv
import os
from collections.abc import Iterable

import numpy as np

from torchflow._src.keras.callbacks import _utils
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public


@public("torchflow.keras.callbacks")
class CSVLogger(Callback):
    """Writes one CSV row per epoch: ``epoch`` then the logs' keys in sorted order.

    Args:
      filename: The CSV file.
      separator: The field separator.
      append: Append to an existing file (no header if it is not empty).

    >>> import torchflow as tf
    >>> cb = tf.keras.callbacks.CSVLogger("training.log")
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        self.csv_file = open(self.filename, mode, newline="")

    def on_epoch_end(self, epoch, logs=None):
        logs = {k: _utils.to_float(v) for k, v in (logs or {}).items()}

        def handle_value(k):
            is_zero_dim = isinstance(k, np.ndarray) and k.ndim == 0
            if isinstance(k, str):
                return k
            if isinstance(k, Iterable) and not is_zero_dim:
                return f"\"[{', '.join(map(str, k))}]\""
            return k

        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.model is not None and self.model.stop_training:
            logs = {k: logs.get(k, "NA") for k in self.keys}
        if not self.writer:
            sep = self.sep

            class CustomDialect(csv.excel):
                delimiter = sep

            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=CustomDialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, handle_value(logs[key])) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None:
            self.csv_file.close()
        self.writer = None
