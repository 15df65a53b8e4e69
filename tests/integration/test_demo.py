"""`make demo` (examples/digits_softmax.py) trains, and matches a NumPy reference.

The reference is the same softmax regression written in NumPy with the gradient
derived by hand ((softmax(z) - onehot(y)) / N), the same zero initialisation,
data split and learning rate. Full-batch gradient descent is deterministic, so
torchflow's loss curve must follow it to float32 rounding, and its test accuracy
must match (within one image). NumPy reaches 96.2% test accuracy after 200
epochs, hence the > 90% floor.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "digits_softmax.py"


@pytest.fixture(scope="module")
def demo():
    spec = importlib.util.spec_from_file_location("digits_softmax", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def data(demo):
    return demo.load_data()


def numpy_softmax_regression(x, y, epochs, lr):
    w = np.zeros((x.shape[1], 10), np.float64)
    b = np.zeros(10, np.float64)
    losses = []
    rows = np.arange(len(y))
    for _ in range(epochs):
        z = x @ w + b
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        losses.append(-np.log(p[rows, y]).mean())
        g = p
        g[rows, y] -= 1.0
        g /= len(y)
        w -= lr * (x.T @ g)
        b -= lr * g.sum(axis=0)
    return w, b, np.array(losses)


def test_loss_curve_matches_numpy(demo, data):
    x_train, y_train, _, _ = data
    _, losses = demo.train(x_train, y_train, epochs=30, learning_rate=0.5, log=None)
    _, _, ref = numpy_softmax_regression(x_train.astype(np.float64), y_train, 30, 0.5)
    np.testing.assert_allclose(losses, ref, rtol=2e-4, atol=1e-5)
    assert losses[-1] < 0.5 * losses[0]


def test_accuracy_matches_numpy_and_beats_90_percent(demo, data):
    x_train, y_train, x_test, y_test = data
    model, losses = demo.train(x_train, y_train, epochs=200, learning_rate=0.5, log=None)
    acc = demo.accuracy(model, demo.tf.constant(x_test), demo.tf.constant(y_test))
    w, b, _ = numpy_softmax_regression(x_train.astype(np.float64), y_train, 200, 0.5)
    ref_acc = float(((x_test @ w + b).argmax(axis=1) == y_test).mean())
    assert ref_acc > 0.95  # the reference itself; guards the data pipeline
    assert abs(acc - ref_acc) <= 1.0 / len(y_test) + 1e-9
    assert acc > 0.90


def test_main_prints_falling_loss_and_accuracy(demo, capsys):
    acc = demo.main(["--epochs", "41"])
    out = capsys.readouterr().out
    losses = [float(line.split("loss")[1]) for line in out.splitlines() if "loss" in line]
    assert len(losses) == 3  # epochs 0, 20 and 40 (the last)
    assert losses == sorted(losses, reverse=True)
    assert "test accuracy" in out and 0.8 < acc <= 1.0
