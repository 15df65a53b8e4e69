"""``tf.keras.datasets.cifar100.load_data``: CIFAR-100 from TF's ``cifar-100-python``."""

from __future__ import annotations

import os

import numpy as np

from torchflow._src.keras import backend
from torchflow._src.keras.datasets import _cache
from torchflow._src.keras.datasets.cifar import load_batch
from torchflow._src.keras.utils.data_utils import get_file
from torchflow._src.util.api import public


@public("torchflow.keras.datasets.cifar100")
def load_data(label_mode="fine", cache_dir=None):
    """Loads CIFAR-100 (50,000 training and 10,000 test 32x32 colour images).

    Args:
      label_mode: ``'fine'`` (100 classes) or ``'coarse'`` (20 superclasses).
      cache_dir: Where to cache instead of ``~/.keras`` (tf-keras' later argument;
        TF 2.4 has none).

    Returns:
      ``(x_train, y_train), (x_test, y_test)``: uint8 images ``[n, 32, 32, 3]`` (``[n, 3,
      32, 32]`` for ``channels_first``) and int64 labels ``[n, 1]``.

    Raises:
      ValueError: For another ``label_mode``.
      Exception: get_file's ``URL fetch failure on ...`` when the file is not cached and
        cannot be downloaded.
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError("`label_mode` must be one of `\"fine\"`, `\"coarse\"`.")
    path = get_file("cifar-100-python",
                    origin="https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz",
                    untar=True,
                    file_hash="85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
                    cache_dir=_cache(cache_dir))
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=label_mode + "_labels")
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=label_mode + "_labels")
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if backend.image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)
