"""``tf.keras.datasets.cifar10.load_data``: CIFAR-10 from TF's ``cifar-10-batches-py``."""

from __future__ import annotations

import os

import numpy as np

from torchflow._src.keras import backend
from torchflow._src.keras.datasets import _cache
from torchflow._src.keras.datasets.cifar import load_batch
from torchflow._src.keras.utils.data_utils import get_file
from torchflow._src.util.api import public


@public("torchflow.keras.datasets.cifar10")
def load_data(cache_dir=None):
    """Loads CIFAR-10 (50,000 training and 10,000 test 32x32 colour images, 10 classes).

    The tarball ``cifar-10-batches-py.tar.gz`` is cached in ``~/.keras/datasets`` and
    extracted next to it (``data_batch_1`` .. ``data_batch_5``, ``test_batch``).

    Args:
      cache_dir: Where to cache instead of ``~/.keras`` (tf-keras' later argument;
        TF 2.4 has none).

    Returns:
      ``(x_train, y_train), (x_test, y_test)``: uint8 images ``[n, 32, 32, 3]`` (``[n, 3,
      32, 32]`` when ``image_data_format()`` is ``channels_first``) and uint8 labels
      ``[n, 1]``.

    Raises:
      Exception: get_file's ``URL fetch failure on ...`` when the file is not cached and
        cannot be downloaded.
    """
    path = get_file("cifar-10-batches-py",
                    origin="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
                    untar=True,
                    file_hash="6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
                    cache_dir=_cache(cache_dir))
    parts = [load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([p[0] for p in parts]).astype("uint8")
    y_train = np.concatenate([np.asarray(p[1]) for p in parts]).astype("uint8")
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    y_train = y_train.reshape(len(y_train), 1)
    y_test = np.reshape(y_test, (len(y_test), 1))
    if backend.image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))
