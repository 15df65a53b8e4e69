"""Softmax regression on scikit-learn's 8x8 digits, written against the TF 2.4 API.

Every line of the model is TensorFlow 2.4 code; only the import differs
(``import torchflow as tf``). Run with ``make demo`` or
``python examples/digits_softmax.py [--epochs N] [--lr LR]``.

The data set (1,797 8x8 images of handwritten digits) ships inside scikit-learn,
so nothing is downloaded. Features are standardised with the training split's
statistics; the model is ``softmax(x @ W + b)`` trained by full-batch gradient
descent with a ``tf.GradientTape``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import torchflow as tf


def load_data(seed: int = 0, test_fraction: float = 0.25):
    """Returns ``(x_train, y_train, x_test, y_test)`` as NumPy float32 / int32 arrays."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = digits.data.astype(np.float32)
    y = digits.target.astype(np.int32)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = perm[:n_test], perm[n_test:]
    mean = x[train].mean(axis=0)
    std = x[train].std(axis=0)
    std[std == 0] = 1.0  # pixels that are always blank in training
    x = (x - mean) / std
    return x[train], y[train], x[test], y[test]


class SoftmaxRegression:
    """``logits = x @ W + b``; weights start at zero, so runs are deterministic."""

    def __init__(self, n_features: int, n_classes: int):
        self.w = tf.Variable(tf.zeros([n_features, n_classes]), name="w")
        self.b = tf.Variable(tf.zeros([n_classes]), name="b")

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


def loss_fn(model, x, y):
    logits = model(x)
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def accuracy(model, x, y) -> float:
    predicted = tf.argmax(model(x), axis=1, output_type=tf.int32)
    return float(tf.reduce_mean(tf.cast(tf.equal(predicted, y), tf.float32)).numpy())


def train(x_train, y_train, epochs: int = 200, learning_rate: float = 0.5,
          log_every: int = 20, log=print):
    """Fits the model; returns ``(model, losses)`` with one loss per epoch."""
    x = tf.constant(x_train)
    y = tf.constant(y_train)
    model = SoftmaxRegression(x.shape[1], 10)
    losses = []
    for epoch in range(epochs):
        with tf.GradientTape() as tape:
            loss = loss_fn(model, x, y)
        grad_w, grad_b = tape.gradient(loss, [model.w, model.b])
        model.w.assign_sub(learning_rate * grad_w)
        model.b.assign_sub(learning_rate * grad_b)
        losses.append(float(loss.numpy()))
        if log is not None and (epoch % log_every == 0 or epoch == epochs - 1):
            log(f"epoch {epoch:4d}  loss {losses[-1]:.4f}")
    return model, losses


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--lr", type=float, default=0.5)
    args = parser.parse_args(argv)

    x_train, y_train, x_test, y_test = load_data()
    print(f"digits: {len(x_train)} training and {len(x_test)} test images, "
          f"{x_train.shape[1]} features, 10 classes")
    start = time.perf_counter()
    model, _ = train(x_train, y_train, epochs=args.epochs, learning_rate=args.lr)
    seconds = time.perf_counter() - start
    train_acc = accuracy(model, tf.constant(x_train), tf.constant(y_train))
    test_acc = accuracy(model, tf.constant(x_test), tf.constant(y_test))
    print(f"trained {args.epochs} epochs in {seconds:.2f} s")
    print(f"train accuracy {train_acc:.3f}")
    print(f"test accuracy  {test_acc:.3f}")
    return test_acc


if __name__ == "__main__":
    main()
