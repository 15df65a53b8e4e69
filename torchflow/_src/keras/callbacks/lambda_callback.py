"""``tf.keras.callbacks.LambdaCallback``: a callback built from functions."""

from __future__ import annotations

from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public


def _noop(*args, **kwargs):
    return None


@public("torchflow.keras.callbacks")
class LambdaCallback(Callback):
    """Calls the given functions at the matching hooks.

    Args:
      on_epoch_begin, on_epoch_end: ``f(epoch, logs)``.
      on_batch_begin, on_batch_end: ``f(batch, logs)`` (training batches).
      on_train_begin, on_train_end: ``f(logs)``.
      **kwargs: Any other hook (e.g. ``on_test_batch_end``) or attribute.

    >>> import torchflow as tf
    >>> cb = tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: print(epoch))
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        self.on_epoch_begin = on_epoch_begin or _noop
        self.on_epoch_end = on_epoch_end or _noop
        self.on_batch_begin = on_batch_begin or _noop
        self.on_batch_end = on_batch_end or _noop
        self.on_train_begin = on_train_begin or _noop
        self.on_train_end = on_train_end or _noop

    def _implements_train_batch_hooks(self):
        # The hooks are instance attributes here, which the class-level check cannot see.
        return any(getattr(self, h, _noop) is not _noop and h in self.__dict__
                   for h in ("on_batch_begin", "on_batch_end", "on_train_batch_begin",
                             "on_train_batch_end")) or super()._implements_train_batch_hooks()
