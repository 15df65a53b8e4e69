"""`make demo`'s Keras part (examples/keras_digits_cnn.py), shortened: a CNN trained with
fit on the bundled digits reaches >= 95% validation accuracy, prints the progress bar,
writes TensorBoard logs that TensorBoard reads back, and predicts identically after
model.save / tf.keras.models.load_model."""

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keras_digits_cnn.py"


@pytest.fixture(scope="module")
def demo():
    spec = importlib.util.spec_from_file_location("keras_digits_cnn", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_short_run_trains_logs_saves_and_reloads(demo, tmp_path, capsys):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.util import tensor_util

    val_acc = demo.main(["--epochs", "6", "--logdir", str(tmp_path)])
    out = capsys.readouterr().out
    assert val_acc >= 0.95
    assert "Epoch 6/6" in out and "43/43 [==============================]" in out
    assert "max |prediction difference| = 0.0" in out
    acc = EventAccumulator(str(tmp_path / "validation"), size_guidance={"tensors": 0})
    acc.Reload()
    logged = [float(tensor_util.make_ndarray(e.tensor_proto))
              for e in acc.Tensors("epoch_accuracy")]
    assert len(logged) == 6 and logged[-1] == pytest.approx(val_acc, rel=1e-6)
    train = EventAccumulator(str(tmp_path / "train"), size_guidance={"tensors": 0})
    train.Reload()
    assert any(t.startswith("conv2d/kernel") for t in train.Tags()["tensors"])
    assert os.path.exists(tmp_path / "digits_cnn.h5")


def test_data_is_the_bundled_digits(demo):
    x_train, y_train, x_test, y_test = demo.load_data()
    assert x_train.shape[1:] == (8, 8, 1) and len(x_train) + len(x_test) == 1797
    assert 0.0 <= x_train.min() and x_train.max() <= 1.0
    assert set(np.unique(y_train)) == set(range(10))
