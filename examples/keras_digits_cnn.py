"""A small CNN on scikit-learn's 8x8 digits with ``tf.keras`` ``fit``, written against TF 2.4.

Every line is TensorFlow 2.4 Keras code; only the import differs
(``import torchflow as tf``). Run with ``make demo`` or
``python examples/keras_digits_cnn.py [--epochs N] [--logdir DIR]``.

It trains Conv-Pool-Conv-Dense with the progress bar, validation on a held-out
quarter of the data and TensorBoard logs (``tensorboard --logdir DIR``), then
saves the model with ``model.save``, reloads it with
``tf.keras.models.load_model`` and checks that the reloaded model predicts
exactly what the trained one does.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

import torchflow as tf


def load_data(seed: int = 0, test_fraction: float = 0.25):
    """``(x_train, y_train, x_test, y_test)``: images ``[n, 8, 8, 1]`` in [0, 1], int labels."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.images.astype(np.float32) / 16.0)[..., np.newaxis]
    y = digits.target.astype(np.int32)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = perm[:n_test], perm[n_test:]
    return x[train], y[train], x[test], y[test]


def build_model():
    """Conv32-Pool-Conv64-Flatten-Dense64-Dense10 (logits)."""
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu",
                               input_shape=(8, 8, 1)),
        tf.keras.layers.MaxPooling2D(2),
        tf.keras.layers.Conv2D(64, 3, padding="same", activation="relu"),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10),
    ])


def train(epochs=15, logdir=None, verbose=1, seed=0):
    """Trains the CNN; returns ``(model, history, (x_test, y_test))``."""
    tf.random.set_seed(seed)
    x_train, y_train, x_test, y_test = load_data(seed)
    model = build_model()
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    callbacks = []
    if logdir is not None:
        callbacks.append(tf.keras.callbacks.TensorBoard(log_dir=logdir, histogram_freq=1))
    history = model.fit(x_train, y_train, batch_size=32, epochs=epochs,
                        validation_data=(x_test, y_test), callbacks=callbacks,
                        verbose=verbose)
    return model, history, (x_test, y_test)


def save_and_reload(model, x, directory):
    """Saves ``model`` as HDF5, reloads it and returns ``(path, max |difference|)``."""
    path = os.path.join(directory, "digits_cnn.h5")
    model.save(path)
    reloaded = tf.keras.models.load_model(path)
    diff = float(np.max(np.abs(model.predict(x) - reloaded.predict(x))))
    return path, diff


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--logdir", default=None,
                        help="TensorBoard log directory (default: a new temporary one)")
    args = parser.parse_args(argv)
    logdir = args.logdir or tempfile.mkdtemp(prefix="keras_digits_cnn_")
    start = time.perf_counter()
    model, history, (x_test, y_test) = train(args.epochs, logdir)
    elapsed = time.perf_counter() - start
    val_acc = history.history["val_accuracy"][-1]
    print(f"validation accuracy {val_acc:.4f} after {args.epochs} epochs ({elapsed:.1f} s)")
    print(f"TensorBoard logs in {logdir}  (tensorboard --logdir {logdir})")
    path, diff = save_and_reload(model, x_test, logdir)
    print(f"saved to {path} and reloaded: max |prediction difference| = {diff}")
    if diff != 0.0:
        raise SystemExit("the reloaded model predicts differently")
    return val_acc


if __name__ == "__main__":
    main()
