"""The CIFAR batch files: Python pickles of ``{b'data': uint8 [n, 3072], b'<labels>': [...]}``."""

from __future__ import annotations

import pickle


def load_batch(fpath, label_key="labels"):
    """``(data [n, 3, 32, 32] uint8, labels list)`` of one CIFAR batch file.

    Args:
      fpath: The batch file.
      label_key: ``'labels'`` (CIFAR-10), ``'fine_labels'`` or ``'coarse_labels'``.

    Returns:
      ``(data, labels)``.
    """
    with open(fpath, "rb") as f:
        d = pickle.load(f, encoding="bytes")
    d = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in d.items()}
    data = d["data"]
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]
