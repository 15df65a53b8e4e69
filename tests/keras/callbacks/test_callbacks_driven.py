"""Callbacks driven hook by hook with the same logs in torchflow and real tf.keras.

Each callback gets identical metric sequences and models with identical weights
in both libraries; what it decides (when to stop, which weights to restore, the
learning rates, the files written, the CSV text) must be the same.
"""

import os

import numpy as np
import pytest
from _callback_models import both, dense_model

import torchflow as tf
from torchflow._src.testing import real_tf

LOSSES = [1.0, 0.8, 0.85, 0.79, 0.9, 0.95, 0.99, 0.5, 0.97, 0.98, 0.99]
ACCS = [0.5, 0.6, 0.58, 0.61, 0.6, 0.55, 0.7, 0.69, 0.68, 0.67, 0.66]


def _drive_epochs(cb, model, monitor, values, set_weights=True):
    """Runs on_train_begin/on_epoch_*/on_train_end; returns the epoch fit would stop at."""
    cb.set_model(model)
    model.stop_training = False
    cb.on_train_begin({})
    stopped = None
    for epoch, v in enumerate(values):
        cb.on_epoch_begin(epoch, {})
        if set_weights:  # weights that say which epoch they belong to
            model.set_weights([np.full(w.shape, epoch, np.float32) for w in model.get_weights()])
        cb.on_epoch_end(epoch, {monitor: v, "loss": v})
        if model.stop_training:
            stopped = epoch
            break
    cb.on_train_end({})
    return stopped


@pytest.mark.parametrize("kwargs,values", [
    ({"monitor": "val_loss", "patience": 2}, LOSSES),
    ({"monitor": "val_loss", "patience": 1, "min_delta": 0.02}, LOSSES),
    ({"monitor": "val_loss", "patience": 2, "restore_best_weights": True}, LOSSES),
    ({"monitor": "val_loss", "patience": 3, "baseline": 0.82, "restore_best_weights": True},
     LOSSES),
    ({"monitor": "val_accuracy", "patience": 2, "restore_best_weights": True}, ACCS),
    ({"monitor": "val_accuracy", "patience": 3, "mode": "min"}, ACCS),
    ({"monitor": "val_loss", "patience": 20}, LOSSES),
])
def test_early_stopping_matches_tf_keras(kwargs, values):
    real = real_tf()
    out = []
    for lib, model in both(real):
        cb = lib.keras.callbacks.EarlyStopping(**kwargs)
        stopped = _drive_epochs(cb, model, kwargs["monitor"], values)
        out.append((stopped, cb.stopped_epoch, float(cb.best), cb.wait,
                    [w.tolist() for w in model.get_weights()]))
    assert out[0] == out[1]


def test_early_stopping_missing_monitor_only_warns(caplog):
    model = dense_model(tf)
    cb = tf.keras.callbacks.EarlyStopping(monitor="val_nope", patience=0)
    assert _drive_epochs(cb, model, "loss", [1.0, 2.0]) is None
    assert "val_nope" in caplog.text


@pytest.mark.parametrize("kwargs,values", [
    ({"monitor": "val_loss", "factor": 0.5, "patience": 1}, LOSSES),
    ({"monitor": "val_loss", "factor": 0.5, "patience": 1, "cooldown": 2, "min_lr": 0.02},
     LOSSES),
    ({"monitor": "val_accuracy", "factor": 0.2, "patience": 2}, ACCS),
    ({"monitor": "val_loss", "factor": 0.1, "patience": 0, "min_delta": 0.1}, LOSSES),
])
def test_reduce_lr_on_plateau_matches_tf_keras(kwargs, values):
    real = real_tf()
    lrs = []
    for lib, model in both(real):
        cb = lib.keras.callbacks.ReduceLROnPlateau(**kwargs)
        cb.set_model(model)
        cb.on_train_begin({})
        seen = []
        for epoch, v in enumerate(values):
            logs = {kwargs["monitor"]: v}
            cb.on_epoch_end(epoch, logs)
            seen.append((float(logs["lr"]), float(np.asarray(model.optimizer.lr.numpy()))))
        lrs.append(seen)
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-6)


def test_reduce_lr_on_plateau_rejects_factor_one():
    for lib in (tf, real_tf()):
        with pytest.raises(ValueError, match="factor >= 1.0"):
            lib.keras.callbacks.ReduceLROnPlateau(factor=1.0)


@pytest.mark.parametrize("schedule", [
    lambda epoch, lr: lr if epoch < 2 else lr * 0.5,
    lambda epoch: 0.1 / (epoch + 1),
    lambda epoch, lr: np.float32(0.01 * epoch + 0.001),
])
def test_learning_rate_scheduler_matches_tf_keras(schedule):
    real = real_tf()
    lrs = []
    for lib, model in both(real):
        cb = lib.keras.callbacks.LearningRateScheduler(schedule)
        cb.set_model(model)
        seen = []
        for epoch in range(5):
            cb.on_epoch_begin(epoch, {})
            logs = {"loss": 1.0}
            cb.on_epoch_end(epoch, logs)
            seen.append(float(logs["lr"]))
        lrs.append(seen)
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-6)


def test_learning_rate_scheduler_rejects_non_float():
    for lib, model in both(real_tf()):
        cb = lib.keras.callbacks.LearningRateScheduler(lambda epoch: "x")
        cb.set_model(model)
        with pytest.raises(ValueError, match="should be float"):
            cb.on_epoch_begin(0, {})


def _checkpoint_files(lib, model, directory, kwargs, epochs, batches, logs_fn):
    cb = lib.keras.callbacks.ModelCheckpoint(os.path.join(directory, kwargs.pop("name")),
                                             **kwargs)
    cb.set_model(model)
    cb.on_train_begin({})
    for epoch in range(epochs):
        cb.on_epoch_begin(epoch, {})
        for batch in batches:
            cb.on_train_batch_begin(batch, {})
            cb.on_train_batch_end(batch, {"loss": 1.0 / (batch + 1)})
        cb.on_epoch_end(epoch, logs_fn(epoch))
    cb.on_train_end({})
    return sorted(os.listdir(directory))


@pytest.mark.parametrize("kwargs", [
    {"name": "w.{epoch:02d}-{val_loss:.3f}.h5", "save_weights_only": True},
    {"name": "best.{epoch:02d}-{val_loss:.2f}.h5", "save_weights_only": True,
     "save_best_only": True},
    {"name": "acc.{epoch:02d}.h5", "save_weights_only": True, "save_best_only": True,
     "monitor": "val_accuracy"},
    {"name": "min.{epoch:02d}.h5", "save_weights_only": True, "save_best_only": True,
     "monitor": "val_accuracy", "mode": "min"},
    {"name": "b.{epoch:02d}-{batch:02d}.h5", "save_weights_only": True, "save_freq": 3},
    {"name": "model.{epoch:02d}.h5", "save_best_only": True},
])
def test_model_checkpoint_writes_the_files_tf_keras_writes(kwargs, tmp_path):
    real = real_tf()
    listings = []
    for lib, model in both(real):
        d = tmp_path / lib.__name__
        d.mkdir()
        listings.append(_checkpoint_files(
            lib, model, str(d), dict(kwargs), epochs=len(LOSSES), batches=range(4),
            logs_fn=lambda e: {"val_loss": LOSSES[e], "val_accuracy": ACCS[e]}))
    assert listings[0] == listings[1]
    assert listings[0]


def test_model_checkpoint_saves_loadable_weights_during_fit(tmp_path):
    from _callback_models import data

    x, y = data()
    model = dense_model(tf)
    path = str(tmp_path / "ckpt-{epoch:02d}-{loss:.4f}.h5")
    hist = model.fit(x, y, batch_size=10, epochs=3, verbose=0, shuffle=False,
                     callbacks=[tf.keras.callbacks.ModelCheckpoint(path,
                                                                   save_weights_only=True)])
    names = sorted(os.listdir(tmp_path))
    assert names == [f"ckpt-{e + 1:02d}-{hist.history['loss'][e]:.4f}.h5" for e in range(3)]
    other = dense_model(tf)
    other.load_weights(str(tmp_path / names[-1]))
    for a, b in zip(other.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_model_checkpoint_errors_match_tf_keras(tmp_path):
    real = real_tf()
    for lib, model in both(real):
        with pytest.raises(ValueError, match="Unrecognized save_freq"):
            lib.keras.callbacks.ModelCheckpoint(str(tmp_path / "x"), save_freq="often")
        cb = lib.keras.callbacks.ModelCheckpoint(str(tmp_path / "{nope}.h5"),
                                                 save_weights_only=True)
        cb.set_model(model)
        with pytest.raises(KeyError, match="Failed to format this callback filepath"):
            cb.on_epoch_end(0, {"loss": 1.0})


def _csv(lib, model, path, kwargs, rows, stop_at=None):
    cb = lib.keras.callbacks.CSVLogger(path, **kwargs)
    cb.set_model(model)
    model.stop_training = False
    cb.on_train_begin({})
    for epoch, logs in enumerate(rows):
        if epoch == stop_at:
            model.stop_training = True
        cb.on_epoch_end(epoch, dict(logs))
    cb.on_train_end({})
    with open(path, newline="") as f:
        return f.read()


@pytest.mark.parametrize("kwargs", [{}, {"separator": ";"}, {"append": True}])
def test_csv_logger_writes_tf_keras_text(kwargs, tmp_path):
    real = real_tf()
    rows = [{"loss": 0.5 + e, "val_loss": np.float32(0.25 * e), "acc": np.float64(1 / 3)}
            for e in range(3)]
    texts = []
    for lib, model in both(real):
        path = str(tmp_path / f"{lib.__name__}.csv")
        _csv(lib, model, path, kwargs, rows)
        texts.append(_csv(lib, model, path, kwargs, rows[:2] + [{"loss": 9.0}], stop_at=2))
    assert texts[0] == texts[1]
    assert texts[0].splitlines()[0] == kwargs.get("separator", ",").join(
        ["epoch", "acc", "loss", "val_loss"])


def test_terminate_on_nan_matches_tf_keras(capsys):
    out = []
    for lib, model in both(real_tf()):
        cb = lib.keras.callbacks.TerminateOnNaN()
        cb.set_model(model)
        model.stop_training = False
        cb.on_train_batch_end(3, {"loss": 1.0})
        first = model.stop_training
        cb.on_train_batch_end(4, {"loss": float("inf")})
        out.append((first, model.stop_training, capsys.readouterr().out))
    assert out[0] == out[1] == (False, True, "Batch 4: Invalid loss, terminating training\n")
