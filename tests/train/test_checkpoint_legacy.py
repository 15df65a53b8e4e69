"""Checkpoints in torchflow's first (JSON-indexed) format still restore, for one release.

Reference: tests/train/data/legacy_v1, written by torchflow at commit ea35f01 (the
last with the old writer) from a 2-step Adam-trained Sequential model and a
tf.Module; expected.npz holds the values it saved (get_weights() at save time).
"""

import os
import shutil

import numpy as np

import torchflow as tf

DATA = os.path.join(os.path.dirname(__file__), "data", "legacy_v1")


def _objects():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,)),
                                 tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.Adam(0.01)
    m = tf.Module()
    m.v = tf.Variable([0.0, 0.0])
    m.i = tf.Variable(0, dtype=tf.int64)
    return model, opt, m


def test_legacy_checkpoint_restores_weights_and_slots(tmp_path):
    shutil.copytree(DATA, tmp_path / "ck")
    expected = np.load(os.path.join(DATA, "expected.npz"))
    model, opt, m = _objects()
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, module=m)
    path = tf.train.latest_checkpoint(str(tmp_path / "ck"))
    assert path == str(tmp_path / "ck" / "ckpt-1")
    status = ckpt.restore(path)
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_array_equal(w, expected[f"model_{i}"])
    np.testing.assert_array_equal(m.v.numpy(), expected["v"])
    assert int(m.i.numpy()) == int(expected["i"])
    # The Adam slots were saved; they restore when the optimizer creates them.
    opt._create_all_weights(model.trainable_variables)
    for i, w in enumerate(opt.get_weights()):
        if i == 0:
            assert int(w) == int(expected["opt_0"])  # iterations
        else:
            np.testing.assert_array_equal(w, expected[f"opt_{i}"])
    status.assert_existing_objects_matched()
    assert int(ckpt.save_counter.numpy()) == 1


def test_legacy_checkpoint_lists_and_rewrites_in_tf_format(tmp_path):
    shutil.copytree(DATA, tmp_path / "ck")
    path = str(tmp_path / "ck" / "ckpt-1")
    names = dict(tf.train.list_variables(path))
    assert names["module/v/.ATTRIBUTES/VARIABLE_VALUE"] == [2]
    np.testing.assert_array_equal(tf.train.load_variable(path, "module/v/.ATTRIBUTES/VARIABLE_VALUE"),
                                  np.load(os.path.join(DATA, "expected.npz"))["v"])
    model, opt, m = _objects()
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, module=m)
    ckpt.restore(path).expect_partial()
    ckpt.write(path)  # overwrite in TF's format: the old data file goes
    files = sorted(os.listdir(tmp_path / "ck"))
    assert "ckpt-1.data-00000-of-00001" in files
    assert not [f for f in files if f.startswith("ckpt-1.data-") and f != "ckpt-1.data-00000-of-00001"]
    with open(path + ".index", "rb") as f:
        assert f.read(1) != b"{"
    np.testing.assert_array_equal(tf.train.load_variable(path, "module/v/.ATTRIBUTES/VARIABLE_VALUE"),
                                  m.v.numpy())


def test_legacy_save_weights_file_loads(tmp_path):
    # torchflow 0.x's save_weights wrote Checkpoint(model=model); the new load_weights
    # takes the model as the root object and finds it under "model".
    shutil.copytree(DATA, tmp_path / "ck")
    expected = np.load(os.path.join(DATA, "expected.npz"))
    model, _, _ = _objects()
    model.load_weights(str(tmp_path / "ck" / "ckpt-1")).expect_partial()
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_array_equal(w, expected[f"model_{i}"])
