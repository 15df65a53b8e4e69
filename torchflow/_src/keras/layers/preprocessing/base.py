"""``PreprocessingLayer``: a layer whose state is computed from data by ``adapt``."""

from __future__ import annotations

import numpy as np

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.util.api import public


def to_numpy(x) -> np.ndarray:
    """NumPy value of a tensor, array or Python value (strings: bytes object arrays)."""
    if isinstance(x, Tensor):
        return np.asarray(x.numpy())
    if isinstance(x, np.ndarray):
        return x
    return np.asarray(convert_to_tensor(x).numpy())


def as_tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def iter_batches(data, batch_size=None, steps=None):
    """Yields NumPy batches of ``data`` (a ``tf.data.Dataset``, array, tensor or list)."""
    if isinstance(data, DatasetV2):
        for i, elem in enumerate(data):
            if steps is not None and i >= steps:
                break
            yield to_numpy(elem)
        return
    a = to_numpy(data)
    if batch_size is None:
        yield a
        return
    for i, start in enumerate(range(0, len(a), batch_size)):
        if steps is not None and i >= steps:
            break
        yield a[start:start + batch_size]


@public("torchflow.keras.layers.experimental.preprocessing")
class PreprocessingLayer(Layer):
    """Base class of layers with state computed from data by :meth:`adapt`.

    Subclasses implement ``_reset_state()``, ``_update_state(batch)`` (a NumPy
    batch) and ``_finalize_state()``.

    Args:
      trainable: bool, default True.
      name: str, default None.
      dtype: The layer's dtype, default None.
      dynamic: bool, default False.
      **kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ...).
    """

    _must_restore_from_config = True

    def adapt(self, data, batch_size=None, steps=None, reset_state=True):
        """Computes the layer's state from ``data``.

        Args:
          data: A ``tf.data.Dataset`` of batches, a NumPy array, tensor or list.
          batch_size: Batch size for array data (default: one batch).
          steps: Number of batches to read (default: all).
          reset_state: Start from scratch (otherwise extend the current state).
        """
        if reset_state or not getattr(self, "_adapted", False):
            self._reset_state()
        for batch in iter_batches(data, batch_size, steps):
            if not self.built:
                self._build_from_batch(batch)
            self._update_state(batch)
        self._finalize_state()
        self._adapted = True

    def _build_from_batch(self, batch):
        self.build(TensorShape(batch.shape))
        self.built = True

    def _reset_state(self):
        pass

    def _update_state(self, batch):
        raise NotImplementedError(f"{type(self).__name__} does not support `adapt`.")

    def _finalize_state(self):
        pass
