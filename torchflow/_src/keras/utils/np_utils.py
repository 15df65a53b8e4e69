"""``tf.keras.utils.to_categorical`` and ``normalize``: NumPy in, NumPy out."""

from __future__ import annotations

import numpy as np

from torchflow._src.util.api import public


@public("torchflow.keras.utils")
def to_categorical(y, num_classes=None, dtype="float32"):
    """Converts a class vector (integers) to a binary class matrix.

    Args:
      y: Array-like of class values from 0 to ``num_classes - 1``. A trailing
        dimension of size 1 is dropped first.
      num_classes: Total number of classes; ``max(y) + 1`` when None.
      dtype: The dtype of the result (``"float32"``).

    Returns:
      A NumPy array of shape ``y.shape + (num_classes,)`` holding one-hot rows.

    Raises:
      IndexError: If a class value is ``>= num_classes``.

    >>> import torchflow as tf
    >>> tf.keras.utils.to_categorical([0, 2], num_classes=3)
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = np.max(y) + 1
    n = y.shape[0]
    out = np.zeros((n, num_classes), dtype=dtype)
    out[np.arange(n), y] = 1
    return np.reshape(out, input_shape + (num_classes,))


@public("torchflow.keras.utils")
def normalize(x, axis=-1, order=2):
    """Normalizes a NumPy array to unit ``order``-norm along ``axis``.

    Args:
      x: The array to normalize.
      axis: The axis along which to normalize.
      order: The norm's order (2 for the L2 norm).

    Returns:
      A normalized copy of ``x`` (rows of norm 0 are left as they are).

    >>> import torchflow as tf
    >>> tf.keras.utils.normalize([[3., 4.]])
    array([[0.6, 0.8]])
    """
    norms = np.atleast_1d(np.linalg.norm(x, order, axis))
    norms[norms == 0] = 1
    return x / np.expand_dims(norms, axis)
