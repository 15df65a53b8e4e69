"""``tf.keras.datasets.boston_housing.load_data``: TF's ``boston_housing.npz``."""

from __future__ import annotations

import numpy as np

from torchflow._src.keras.datasets import ORIGIN, _cache
from torchflow._src.keras.utils.data_utils import get_file
from torchflow._src.util.api import public


@public("torchflow.keras.datasets.boston_housing")
def load_data(path="boston_housing.npz", test_split=0.2, seed=113, cache_dir=None):
    """Loads the Boston housing price regression dataset (506 samples, 13 features).

    Args:
      path: Where to cache the file, relative to ``~/.keras/datasets``.
      test_split: Fraction of the (shuffled) samples kept for the test set, in ``[0, 1)``.
      seed: Seed of the shuffle before the split.
      cache_dir: Where to cache instead of ``~/.keras`` (tf-keras' later argument;
        TF 2.4 has none).

    Returns:
      ``(x_train, y_train), (x_test, y_test)``: float64 features ``[n, 13]`` and prices
      ``[n]``.

    Raises:
      AssertionError: For ``test_split`` outside ``[0, 1)`` (TF 2.4's check).
      Exception: get_file's ``URL fetch failure on ...`` when the file is not cached and
        cannot be downloaded.
    """
    if not 0 <= test_split < 1:
        raise AssertionError(f"test_split must be in [0, 1). Received: {test_split}")
    path = get_file(path, origin=ORIGIN + "boston_housing.npz",
                    file_hash="f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
                    cache_dir=_cache(cache_dir))
    with np.load(path, allow_pickle=True) as f:
        x, y = f["x"], f["y"]
    indices = np.arange(len(x))
    np.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
