"""Keras under the profiler: fit's step markers and TensorBoard(profile_batch=...).

Oracle: XProf's converter on the files (steps on the overview page, ops inside them),
and the file layout TF 2.4's TensorBoard callback writes (``log_dir/train/plugins/...``).
"""

from __future__ import annotations

import numpy as np
import pytest
from xprof_helpers import (
    events,
    host_plane,
    load_space,
    steps_with_ops,
    xplane_files,
    xprof_op_stats,
    xprof_step_names,
)

import torchflow as tf
from torchflow._src.profiler import session as session_lib


def _end_any_session():
    if session_lib._current is not None:
        session_lib.end(session_lib._current)
    session_lib._logdir = None


@pytest.fixture(autouse=True)
def _no_session_left():
    # A fit that failed elsewhere in this process may have left the TensorBoard
    # callback's session running (as it would in TF); and a failed test here must not
    # leak its own.
    _end_any_session()
    yield
    _end_any_session()


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def _data(n=32):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 4)).astype("float32"), rng.normal(size=(n, 1)).astype("float32")


def test_fit_inside_a_profile_has_a_step_per_batch(tmp_path):
    x, y = _data(32)
    model = _model()
    tf.profiler.experimental.start(str(tmp_path))
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    tf.profiler.experimental.stop()
    files = xplane_files(tmp_path)
    plane = host_plane(load_space(files[0]))
    # two Dense layers: at least two matmuls forward in every one of the 4 steps
    counts = steps_with_ops(plane, "aten.mm:Mm")
    assert sorted(counts) == [0, 1, 2, 3] and min(counts.values()) >= 2
    steps = [s for _, name, _, _, s in events(plane) if name == "train"]
    assert [s["epoch_num"] for s in steps] == [0] * 4 and steps[0]["batch_size"] == 8
    assert xprof_step_names(files) == ["train 0", "train 1", "train 2", "train 3"]
    assert xprof_op_stats(files).get(("Mm", "aten.mm"), 0) >= 8


def test_evaluate_and_predict_markers(tmp_path):
    x, y = _data(16)
    model = _model()
    tf.profiler.experimental.start(str(tmp_path))
    model.evaluate(x, y, batch_size=8, verbose=0)
    model.predict(x, batch_size=4)
    tf.profiler.experimental.stop()
    plane = host_plane(load_space(xplane_files(tmp_path)[0]))
    marks = [(name, s["step_num"], s["_r"]) for _, name, _, _, s in events(plane)
             if name in ("test", "predict")]
    assert marks == [("test", 0, 1), ("test", 1, 1)] + [("predict", i, 1) for i in range(4)]


@pytest.mark.parametrize("profile_batch,expected", [(2, ["train 1"]),
                                                     ((2, 3), ["train 1", "train 2"]),
                                                     ("3,4", ["train 2", "train 3"])])
def test_tensorboard_profile_batch(tmp_path, profile_batch, expected):
    x, y = _data(40)
    model = _model()
    cb = tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path), profile_batch=profile_batch)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[cb])
    assert session_lib._current is None  # the callback stopped its profile
    assert xplane_files(tmp_path) == []  # it goes under log_dir/train, as TF 2.4 writes it
    files = xplane_files(tmp_path / "train")
    assert len(files) == 1
    assert xprof_step_names(files) == expected
    plane = host_plane(load_space(files[0]))
    assert all(n >= 2 for n in steps_with_ops(plane, "aten.mm:Mm").values())


def test_tensorboard_profile_batch_counts_across_epochs_and_stops_at_train_end(tmp_path):
    x, y = _data(16)  # 2 batches an epoch
    model = _model()
    cb = tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path), profile_batch=(3, 10))
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, callbacks=[cb])
    assert session_lib._current is None  # stopped at the end of training (batch 10 never ran)
    files = xplane_files(tmp_path / "train")
    plane = host_plane(load_space(files[0]))
    steps = [(s["epoch_num"], s["step_num"]) for _, name, _, _, s in events(plane)
             if name == "train"]
    assert steps == [(1, 0), (1, 1)]


def test_tensorboard_profile_batch_zero_profiles_nothing(tmp_path):
    x, y = _data(16)
    model = _model()
    model.fit(x, y, batch_size=8, epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path),
                                                        profile_batch=0)])
    assert xplane_files(tmp_path / "train") == []
