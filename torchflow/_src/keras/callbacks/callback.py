"""``tf.keras.callbacks.Callback`` and ``CallbackList``."""

from __future__ import annotations

from torchflow._src.util.api import public


@public("torchflow.keras.callbacks")
class Callback:
    """Base class for hooks into ``fit``, ``evaluate`` and ``predict``.

    ``self.model`` and ``self.params`` (``verbose``, ``epochs``, ``steps``) are
    set before training starts; every hook receives a ``logs`` dict.
    """

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = {}
        self._supports_tf_logs = False

    def set_params(self, params):
        """Receives the run's parameters before it starts (``fit`` calls it).

        Args:
          params: dict with ``verbose``, ``epochs`` and ``steps`` (batches per epoch).
        """
        self.params = params

    def set_model(self, model):
        """Receives the model the callback works on (available as ``self.model``).

        Args:
          model: The ``tf.keras.Model`` being trained, evaluated or run.
        """
        self.model = model

    def on_batch_begin(self, batch, logs=None):
        """A backwards-compatibility alias for ``on_train_batch_begin``.

        Args:
          batch: int, the index of the batch within the epoch (or the run).
          logs: dict, currently empty (kept for the subclass API).
        """

    def on_batch_end(self, batch, logs=None):
        """A backwards-compatibility alias for ``on_train_batch_end``.

        Args:
          batch: int, the index of the batch within the epoch (or the run).
          logs: dict, the batch's loss and metrics.
        """

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of an epoch (training only).

        Args:
          epoch: int, the epoch's index (from ``initial_epoch``).
          logs: dict, currently empty (kept for the subclass API).
        """

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of an epoch with the epoch's metrics (and ``val_`` ones).

        Args:
          epoch: int, the epoch's index.
          logs: dict of the epoch's loss and metrics, and the validation ones prefixed
            ``val_`` when ``fit`` validates.
        """

    def on_train_batch_begin(self, batch, logs=None):
        """Called before a training batch in ``fit``.

        Args:
          batch: int, the index of the batch within the epoch (or the run).
          logs: dict, currently empty (kept for the subclass API).
        """
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Called after a training batch in ``fit``.

        Args:
          batch: int, the index of the batch within the epoch (or the run).
          logs: dict, the running loss and metrics of the epoch so far.
        """
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Called before a batch in ``evaluate`` (and validation).

        Args:
          batch: int, the index of the batch within the epoch (or the run).
          logs: dict, currently empty (kept for the subclass API).
        """

    def on_test_batch_end(self, batch, logs=None):
        """Called after a batch in ``evaluate`` (and validation).

        Args:
          batch: int, the index of the batch within the epoch (or the run).
          logs: dict, the running loss and metrics so far.
        """

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before a batch in ``predict``.

        Args:
          batch: int, the index of the batch within the epoch (or the run).
          logs: dict, currently empty (kept for the subclass API).
        """

    def on_predict_batch_end(self, batch, logs=None):
        """Called after a batch in ``predict``.

        Args:
          batch: int, the index of the batch within the epoch (or the run).
          logs: dict, ``outputs``: the batch's predictions.
        """

    def on_train_begin(self, logs=None):
        """Called at the start of ``fit``.

        Args:
          logs: dict, currently empty (kept for the subclass API).
        """

    def on_train_end(self, logs=None):
        """Called at the end of ``fit``.

        Args:
          logs: dict, the last epoch's logs.
        """

    def on_test_begin(self, logs=None):
        """Called at the start of ``evaluate`` (and of each validation run).

        Args:
          logs: dict, currently empty (kept for the subclass API).
        """

    def on_test_end(self, logs=None):
        """Called at the end of ``evaluate`` (and of each validation run).

        Args:
          logs: dict, the loss and metrics of the run.
        """

    def on_predict_begin(self, logs=None):
        """Called at the start of ``predict``.

        Args:
          logs: dict, currently empty (kept for the subclass API).
        """

    def on_predict_end(self, logs=None):
        """Called at the end of ``predict``.

        Args:
          logs: dict, currently empty (kept for the subclass API).
        """

    def _implements_test_batch_hooks(self):
        return (type(self).on_test_batch_begin is not Callback.on_test_batch_begin
                or type(self).on_test_batch_end is not Callback.on_test_batch_end)

    def _implements_train_batch_hooks(self):
        return (type(self).on_batch_begin is not Callback.on_batch_begin
                or type(self).on_batch_end is not Callback.on_batch_end
                or type(self).on_train_batch_begin is not Callback.on_train_batch_begin
                or type(self).on_train_batch_end is not Callback.on_train_batch_end)


@public("torchflow.keras.callbacks")
class CallbackList:
    """A container calling every callback's hooks in order.

    Args:
      callbacks: List of ``Callback`` instances.
      add_history: Add a ``History`` callback (``fit`` does).
      add_progbar: Add a ``ProgbarLogger`` (when ``verbose`` is not 0).
      model: The model the callbacks watch.
      **params: ``verbose``, ``epochs``, ``steps`` passed to ``set_params``.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        # cycle: History and ProgbarLogger subclass Callback, defined here.
        from torchflow._src.keras.callbacks.history import History
        from torchflow._src.keras.callbacks.progbar_logger import ProgbarLogger

        self.callbacks = list(callbacks or [])
        self.model = model
        self.params = params
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self._progbar = ProgbarLogger(count_mode="steps")
            self.callbacks.insert(0, self._progbar)
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self._history = History()
            self.callbacks.append(self._history)
        for c in self.callbacks:
            if model is not None:
                c.set_model(model)
            if params:
                c.set_params(params)

    def append(self, callback):
        self.callbacks.append(callback)

    def set_params(self, params):
        self.params = params
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        self.model = model
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, hook, *args):
        if args[-1] is None:  # callbacks get {} for absent logs, as in TF
            args = args[:-1] + ({},)
        for c in self.callbacks:
            getattr(c, hook)(*args)

    def on_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs)

    def on_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs)

    def __iter__(self):
        return iter(self.callbacks)
