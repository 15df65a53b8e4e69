"""BackupAndRestore: a fit whose process is killed with SIGKILL mid-epoch, started again
with the same callback, resumes after the last completed epoch with the model and the
optimizer (Adam slots, iterations) restored, and ends with exactly the weights of an
uninterrupted run; the backup is deleted when training completes."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import torchflow as tf

CHILD = textwrap.dedent('''
    import json, os, sys, time
    import numpy as np
    import torchflow as tf
    backup, out, marker, kill_epoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    try:
        Adam = tf.keras.optimizers.Adam
    except AttributeError:
        from torchflow._src.keras.optimizers.adam import Adam
    rng = np.random.default_rng(0)
    x = rng.standard_normal((30, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.set_weights([np.linspace(-1, 1, w.size, dtype=np.float32).reshape(w.shape)
                       for w in model.get_weights()])
    model.compile(Adam(0.05), tf.keras.losses.MeanSquaredError())
    epochs = []

    class Stall(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            epochs.append(epoch)

        def on_train_batch_begin(self, batch, logs=None):
            if epochs[-1] == kill_epoch and batch == 1:  # batch 0 of this epoch already ran
                with open(marker, "w") as f:
                    f.write("stalled")
                time.sleep(600)  # the parent kills the process here

    model.fit(x, y, batch_size=10, epochs=6, shuffle=False, verbose=0,
              callbacks=[tf.keras.callbacks.experimental.BackupAndRestore(backup), Stall()])
    np.savez(out, *model.get_weights())
    with open(out + ".json", "w") as f:
        json.dump({"epochs": epochs, "iterations": int(model.optimizer.iterations.numpy())}, f)
''')


def _run(script, *args, timeout=120):
    return subprocess.run([sys.executable, script, *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def _result(out):
    with np.load(out) as f:
        weights = [f[k] for k in sorted(f.files, key=lambda k: int(k.split("_")[1]))]
    with open(out + ".json") as f:
        return weights, json.load(f)


def test_resume_after_sigkill_matches_an_uninterrupted_fit(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    backup, marker = tmp_path / "backup", tmp_path / "marker"

    ref = _run(script, tmp_path / "b0", tmp_path / "ref.npz", marker, -1)
    assert ref.returncode == 0, ref.stderr
    ref_weights, ref_info = _result(str(tmp_path / "ref.npz"))
    assert ref_info == {"epochs": [0, 1, 2, 3, 4, 5], "iterations": 18}
    assert not (tmp_path / "b0").exists()  # deleted when training completed

    proc = subprocess.Popen([sys.executable, str(script), str(backup), str(tmp_path / "x.npz"),
                             str(marker), "3"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the child never reached epoch 3"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        proc.stderr.close()
    assert backup.exists() and not (tmp_path / "x.npz").exists()

    resumed = _run(script, backup, tmp_path / "resumed.npz", marker, -1)
    assert resumed.returncode == 0, resumed.stderr
    weights, info = _result(str(tmp_path / "resumed.npz"))
    assert info == {"epochs": [3, 4, 5], "iterations": 18}  # epochs 0-2 came from the backup
    for a, b in zip(weights, ref_weights):
        np.testing.assert_array_equal(a, b)
    assert not backup.exists()


def test_backup_is_written_each_epoch_and_removed_at_the_end(tmp_path):
    backup = tmp_path / "bk"
    x = np.ones((4, 3), np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    from _callback_models import sgd

    model.compile(sgd(tf), tf.keras.losses.MeanSquaredError())
    listings = []
    spy = tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: listings.append(sorted(os.listdir(backup))))
    cb = tf.keras.callbacks.experimental.BackupAndRestore(str(backup))
    model.fit(x, x[:, :1], epochs=2, verbose=0, callbacks=[cb, spy])
    assert all(any(n.startswith("ckpt-") for n in names) and "checkpoint" in names
               for names in listings)
    assert not backup.exists()
    with pytest.raises(ValueError, match="Empty `backup_dir`"):
        tf.keras.callbacks.experimental.BackupAndRestore("")


def test_checkpoint_restores_an_int64_followed_by_float32(tmp_path):
    """The backup's epoch counter (int64) sits next to float32 weights in the data file."""
    a = tf.Variable(np.int64(7))
    b = tf.Variable(np.float32([1.5, 2.5, 3.5]))
    path = tf.train.Checkpoint(a=a, b=b).save(str(tmp_path / "ck"))
    a2, b2 = tf.Variable(np.int64(0)), tf.Variable(np.zeros(3, np.float32))
    tf.train.Checkpoint(a=a2, b=b2).restore(path)
    assert int(a2.numpy()) == 7
    np.testing.assert_array_equal(b2.numpy(), [1.5, 2.5, 3.5])
