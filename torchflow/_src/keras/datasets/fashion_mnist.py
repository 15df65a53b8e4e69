"""``tf.keras.datasets.fashion_mnist.load_data``: Fashion-MNIST from TF's idx files."""

from __future__ import annotations

import gzip
import os

import numpy as np

from torchflow._src.keras.datasets import ORIGIN, _cache
from torchflow._src.keras.utils.data_utils import get_file
from torchflow._src.util.api import public

_FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
          "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")


def _read(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


@public("torchflow.keras.datasets.fashion_mnist")
def load_data(cache_dir=None):
    """Loads Fashion-MNIST (60,000 training and 10,000 test 28x28 clothing images).

    The four gzipped idx files are cached in ``~/.keras/datasets/fashion-mnist/``.

    Args:
      cache_dir: Where to cache instead of ``~/.keras`` (tf-keras' later argument;
        TF 2.4 has none).

    Returns:
      ``(x_train, y_train), (x_test, y_test)``: uint8 images ``[n, 28, 28]`` and uint8
      labels ``[n]`` in 0..9.

    Raises:
      Exception: get_file's ``URL fetch failure on ...`` when a file is not cached and
        cannot be downloaded.
    """
    subdir = os.path.join("datasets", "fashion-mnist")
    paths = [get_file(name, origin=ORIGIN + name, cache_subdir=subdir,
                      cache_dir=_cache(cache_dir)) for name in _FILES]
    y_train = _read(paths[0], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    y_test = _read(paths[2], 8)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
