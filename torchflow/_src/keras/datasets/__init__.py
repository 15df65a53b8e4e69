"""``tf.keras.datasets``: TF 2.4's dataset loaders, reading TF's cache files.

Every loader fetches through ``tf.keras.utils.get_file`` with TF's file name, origin
and hash, so a file already in ``~/.keras/datasets`` (TF's cache) is used as is and a
missing one is downloaded from TF's origin (offline: get_file's error).
"""

import os

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def _cache(cache_dir):
    """tf-keras' ``cache_dir`` argument: expanded and created; None keeps ``~/.keras``."""
    if cache_dir:
        cache_dir = os.path.expanduser(cache_dir)
        os.makedirs(cache_dir, exist_ok=True)
    return cache_dir
