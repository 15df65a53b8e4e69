"""``tf.keras.callbacks.ProgbarLogger``: prints the progress bar during fit/evaluate/predict."""

from __future__ import annotations

from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.keras.utils.progbar import Progbar
from torchflow._src.util.api import public


@public("torchflow.keras.callbacks")
class ProgbarLogger(Callback):
    """Prints metrics to stdout as ``fit`` runs (``verbose`` 1 or 2).

    Args:
      count_mode: ``"steps"`` or ``"samples"``.
      stateful_metrics: Metric names shown as is rather than averaged.
    """

    _reads_lazy_logs = True  # fit may pass logs that are read when looked at

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super().__init__()
        if count_mode not in ("samples", "steps"):
            raise ValueError(f"Unknown `count_mode`: {count_mode}. Expected values are "
                             f"[\"samples\", \"steps\"]")
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics or ())
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        self.params = params
        self.verbose = params.get("verbose", 1)
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def _reset(self):
        self.seen = 0
        self.progbar = None

    def _bar(self):
        if self.progbar is None:
            if self.model is not None:  # fit's logs are running values already (TF 2.4)
                self.stateful_metrics |= {m.name for m in getattr(self.model, "metrics", [])}
            self.progbar = Progbar(target=self.target, verbose=self.verbose,
                                   stateful_metrics=self.stateful_metrics,
                                   unit_name="step" if self.use_steps else "sample")
        return self.progbar

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset()
            self.target = self.params.get("steps")

    def on_predict_begin(self, logs=None):
        self._reset()
        self.target = self.params.get("steps")

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()
        self.target = self.params.get("steps")
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def _batch_update(self, batch, logs):
        self.seen = batch + 1
        bar = self._bar()  # started at the first batch, as TF 2.4 (its clock shows in verbose=2)
        if self.verbose == 1:
            if logs is None or isinstance(logs, dict) or bar._will_draw(self.seen):
                bar.update(self.seen, list((logs or {}).items()), finalize=False)
            else:
                # fit's lazy logs (the model's running metrics, shown as they are,
                # not averaged) are read only when the bar redraws
                bar._advance(self.seen)

    def on_train_batch_end(self, batch, logs=None):
        self._batch_update(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._batch_update(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._batch_update(batch, None)

    def _finalize(self, logs):
        if self.target is None:
            self.target = self.seen
            if self.progbar is not None:
                self.progbar.target = self.seen
        if self.verbose:
            self._bar().update(self.seen, list((logs or {}).items()), finalize=True)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs=None):
        self._finalize(None)

    def on_train_end(self, logs=None):
        self._called_in_fit = False
