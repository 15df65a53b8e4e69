"""Callbacks' batch indices with ``steps_per_execution=N`` (TF 2.4's): the batch
begin hooks get the first batch of each group, the batch end hooks its last,
including a final partial group; predict's batch end gets the group's outputs,
concatenated. Compared with real tf.keras 2.21 (Keras 2), which behaves as 2.4."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

X = np.linspace(-1, 1, 120, dtype="float32").reshape(40, 3)
Y = X.sum(-1, keepdims=True)


def _recorder(k):
    class Rec(k.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.events = []

        def on_train_batch_begin(self, batch, logs=None):
            self.events.append(("train_begin", batch))

        def on_train_batch_end(self, batch, logs=None):
            self.events.append(("train_end", batch, sorted(logs)))

        def on_test_batch_begin(self, batch, logs=None):
            self.events.append(("test_begin", batch))

        def on_test_batch_end(self, batch, logs=None):
            self.events.append(("test_end", batch, sorted(logs)))

        def on_predict_batch_begin(self, batch, logs=None):
            self.events.append(("predict_begin", batch))

        def on_predict_batch_end(self, batch, logs=None):
            self.events.append(("predict_end", batch, tuple(logs["outputs"].shape)))

        def on_epoch_end(self, epoch, logs=None):
            self.events.append(("epoch_end", epoch, sorted(logs)))

    return Rec()


def _run(mod, spe, source):
    k = mod.keras
    model = k.Sequential([k.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse", metrics=["mae"], steps_per_execution=spe)
    rec = _recorder(k)
    if source == "arrays":
        fit_args, fit_kw = (X, Y), dict(batch_size=4, validation_data=(X[:20], Y[:20]))
    elif source == "dataset":
        ds = mod.data.Dataset.from_tensor_slices((X, Y)).batch(4)
        fit_args, fit_kw = (ds,), dict(validation_data=ds.take(5))
    else:  # steps_per_epoch over a repeated dataset
        ds = mod.data.Dataset.from_tensor_slices((X, Y)).batch(4).repeat()
        fit_args, fit_kw = (ds,), dict(steps_per_epoch=7)
    model.fit(*fit_args, epochs=2, verbose=0, callbacks=[rec], **fit_kw)
    if source == "arrays":
        model.evaluate(X, Y, batch_size=4, verbose=0, callbacks=[rec])
        model.predict(X, batch_size=4, callbacks=[rec])
    elif source == "dataset":
        model.evaluate(ds, verbose=0, callbacks=[rec])
        model.predict(ds.map(lambda x, y: x), callbacks=[rec])
    else:
        model.evaluate(ds, steps=5, verbose=0, callbacks=[rec])
        model.predict(ds.map(lambda x, y: x), steps=5, callbacks=[rec])
    return rec.events


@pytest.mark.parametrize("source", ["arrays", "dataset", "steps_per_epoch"])
@pytest.mark.parametrize("spe", [1, 3, 4, 32])
def test_batch_hooks_see_tf_batch_indices(spe, source):
    assert _run(tf, spe, source) == _run(real_tf(), spe, source)


def test_groups_of_three_over_ten_batches():
    # Analytic: 10 batches in groups of 3 -> begins 0, 3, 6, 9; ends 2, 5, 8, 9.
    events = _run(tf, 3, "arrays")
    train = [e[:2] for e in events if e[0].startswith("train")][:8]
    assert train == [("train_begin", 0), ("train_end", 2), ("train_begin", 3),
                     ("train_end", 5), ("train_begin", 6), ("train_end", 8),
                     ("train_begin", 9), ("train_end", 9)]
    predict = [e for e in events if e[0] == "predict_end"]
    assert predict == [("predict_end", 2, (12, 1)), ("predict_end", 5, (12, 1)),
                       ("predict_end", 8, (12, 1)), ("predict_end", 9, (4, 1))]
