"""Callbacks inside ``fit``/``evaluate``/``predict``: hook order, logs keys, batch numbers
with ``steps_per_execution``, the progress bar, and callbacks that stop training.
The reference is real tf.keras running the same model on the same data."""

import contextlib
import io
import re

import numpy as np
import pytest
from _callback_models import both, data, dense_model

import torchflow as tf
from torchflow._src.testing import real_tf

HOOKS = ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
         "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
         "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
         "on_predict_batch_begin", "on_predict_batch_end"]


def _recorder(lib):
    class Recorder(lib.keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.events = []

    def make(hook):
        def f(self, *args, **kwargs):
            args, logs = (args[:-1], args[-1]) if "logs" not in kwargs else (args, kwargs["logs"])
            self.events.append((hook, args, sorted(logs) if isinstance(logs, dict) else logs))
        return f

    for h in HOOKS:
        setattr(Recorder, h, make(h))
    return Recorder()


def test_hook_order_and_logs_keys_match_tf_keras():
    x, y = data()
    events = []
    for lib, model in both(real_tf()):
        rec = _recorder(lib)
        model.fit(x, y, batch_size=10, epochs=2, verbose=0, callbacks=[rec],
                  validation_data=(x[:20], y[:20]), shuffle=False)
        model.evaluate(x[:20], y[:20], batch_size=10, verbose=0, callbacks=[rec])
        model.predict(x[:20], batch_size=10, verbose=0, callbacks=[rec])
        events.append(rec.events)
    assert events[0] == events[1]
    assert ("on_epoch_end", (1,), ["loss", "val_loss"]) in events[0]


@pytest.mark.parametrize("n,steps,val", [(3, 10, 5), (4, 10, 3), (1, 4, 2), (5, 5, 1)])
def test_steps_per_execution_batch_numbers_match_tf_keras(n, steps, val):
    x, y = data(10 * steps)
    seen = []
    for lib in (tf, real_tf()):
        model = dense_model(lib, steps_per_execution=n)
        train, test, pred = [], [], []
        cb = lib.keras.callbacks.LambdaCallback(
            on_batch_end=lambda batch, logs: train.append(batch),
            on_test_batch_end=lambda batch, logs: test.append(batch),
            on_predict_batch_end=lambda batch, logs: pred.append(batch))
        model.fit(x, y, batch_size=10, epochs=2, verbose=0, callbacks=[cb], shuffle=False,
                  validation_data=(x[:10 * val], y[:10 * val]))
        model.predict(x, batch_size=10, verbose=0, callbacks=[cb])
        seen.append((train, test, pred))
    assert seen[0] == seen[1]


def _fit_output(lib, verbose, epochs=2, validation=True):
    x, y = data()
    model = dense_model(lib)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        hist = model.fit(x, y, batch_size=10, epochs=epochs, verbose=verbose, shuffle=False,
                         validation_data=(x[:20], y[:20]) if validation else None)
    return buf.getvalue(), hist.history


def test_verbose_2_prints_tf_keras_lines():
    out, hist = _fit_output(tf, 2)
    ref, _ = _fit_output(real_tf(), 2)
    # TF 2.4 prints "3/3 - 0s - loss: ..."; tf.keras 2.21 adds " - Nms/epoch - Nms/step".
    ref = re.sub(r" - \d+m?s/epoch - \d+m?s/step", "", ref)

    def shape(text):
        return re.sub(r"\d+\.\d+(e[-+]\d+)?", "V", re.sub(r" - \d+s - ", " - Ts - ", text))

    assert shape(out) == shape(ref)
    lines = out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[1].startswith("3/3 - ")
    shown = [float(v) for v in re.findall(r"loss: (\d+\.\d+)", lines[3])]
    assert shown == [round(hist["loss"][1], 4), round(hist["val_loss"][1], 4)]


def test_verbose_1_prints_a_bar_with_the_epoch_metrics():
    out, hist = _fit_output(tf, 1, epochs=1, validation=False)
    last = out.rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"3/3 \[={30}\] - \d+s \d+m?u?s/step - loss: \d+\.\d{4}", last), last
    assert float(last.rsplit(" ", 1)[1]) == round(hist["loss"][0], 4)
    assert "Unknown" not in out


def test_verbose_0_prints_nothing():
    out, _ = _fit_output(tf, 0)
    assert out == ""


def test_lambda_callback_counts_match_tf_keras():
    x, y = data()
    counts = []
    for lib, model in both(real_tf()):
        c = {"eb": 0, "ee": 0, "bb": 0, "be": 0, "tb": 0, "te": 0, "test": 0}
        cb = lib.keras.callbacks.LambdaCallback(
            on_epoch_begin=lambda epoch, logs: c.__setitem__("eb", c["eb"] + 1),
            on_epoch_end=lambda epoch, logs: c.__setitem__("ee", c["ee"] + 1),
            on_batch_begin=lambda batch, logs: c.__setitem__("bb", c["bb"] + 1),
            on_batch_end=lambda batch, logs: c.__setitem__("be", c["be"] + 1),
            on_train_begin=lambda logs: c.__setitem__("tb", c["tb"] + 1),
            on_train_end=lambda logs: c.__setitem__("te", c["te"] + 1),
            on_test_batch_end=lambda batch, logs: c.__setitem__("test", c["test"] + 1))
        model.fit(x, y, batch_size=10, epochs=3, verbose=0, callbacks=[cb],
                  validation_data=(x[:10], y[:10]))
        counts.append(c)
    assert counts[0] == counts[1] == {"eb": 3, "ee": 3, "bb": 9, "be": 9, "tb": 1, "te": 1,
                                      "test": 3}


def test_early_stopping_in_fit_restores_the_best_epoch():
    x, y = data()
    model = dense_model(tf, lr=0.5)  # too large a step: the loss rises after a few epochs
    snapshots = []
    keep = tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: snapshots.append(model.get_weights()))
    es = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=2,
                                          restore_best_weights=True)
    hist = model.fit(x, y * 50, batch_size=30, epochs=50, verbose=0, callbacks=[keep, es])
    losses = hist.history["loss"]
    best = int(np.argmin(losses))
    assert len(losses) == best + 3 < 50  # stopped `patience` epochs after the best one
    assert es.stopped_epoch == best + 2
    for a, b in zip(model.get_weights(), snapshots[best]):
        np.testing.assert_array_equal(a, b)


def test_terminate_on_nan_stops_fit_at_the_bad_batch():
    x, y = data()
    y = y.copy()
    y[15] = np.nan  # the second batch of 10 produces a NaN loss
    batches = []
    model = dense_model(tf)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        hist = model.fit(x, y, batch_size=10, epochs=3, verbose=0, shuffle=False,
                         callbacks=[tf.keras.callbacks.TerminateOnNaN(),
                                    tf.keras.callbacks.LambdaCallback(
                                        on_batch_end=lambda b, logs: batches.append(b))])
    assert batches == [0, 1] and len(hist.history["loss"]) == 1
    assert out.getvalue() == "Batch 1: Invalid loss, terminating training\n"
