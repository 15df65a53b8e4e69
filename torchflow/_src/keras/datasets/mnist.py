"""``tf.keras.datasets.mnist.load_data``: MNIST digits from TF's ``mnist.npz``."""

from __future__ import annotations

import numpy as np

from torchflow._src.keras.datasets import ORIGIN, _cache
from torchflow._src.keras.utils.data_utils import get_file
from torchflow._src.util.api import public


@public("torchflow.keras.datasets.mnist")
def load_data(path="mnist.npz", cache_dir=None):
    """Loads the MNIST dataset (60,000 training and 10,000 test 28x28 digit images).

    Args:
      path: Where to cache the file, relative to ``~/.keras/datasets``.
      cache_dir: Where to cache instead of ``~/.keras`` (tf-keras' later argument;
        TF 2.4 has none).

    Returns:
      ``(x_train, y_train), (x_test, y_test)``: uint8 images ``[n, 28, 28]`` and uint8
      labels ``[n]`` in 0..9.

    Raises:
      Exception: get_file's ``URL fetch failure on ...`` when the file is not cached and
        cannot be downloaded.
    """
    path = get_file(path, origin=ORIGIN + "mnist.npz",
                    file_hash="731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
                    cache_dir=_cache(cache_dir))
    with np.load(path, allow_pickle=True) as f:
        x_train, y_train = f["x_train"], f["y_train"]
        x_test, y_test = f["x_test"], f["y_test"]
    return (x_train, y_train), (x_test, y_test)
