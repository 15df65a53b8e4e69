"""Tiny models built the same way in torchflow and in real tf.keras for the callback tests."""

import numpy as np

import torchflow as tf


def sgd(lib, lr=0.1):
    opts = getattr(lib.keras, "optimizers", None)
    if opts is not None and hasattr(opts, "SGD"):
        return opts.SGD(lr)
    from torchflow._src.keras.optimizers.gradient_descent import SGD

    return SGD(lr)


def dense_model(lib, units=1, lr=0.1, **compile_kwargs):
    """``Sequential([Dense(units)])`` on 3 features, SGD, MSE; weights set to fixed values."""
    model = lib.keras.Sequential([lib.keras.layers.Dense(units, input_shape=(3,), name="dense")])
    model.compile(sgd(lib, lr), lib.keras.losses.MeanSquaredError(), **compile_kwargs)
    model.set_weights([np.full((3, units), 0.1, np.float32), np.zeros(units, np.float32)])
    return model


def data(n=30, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


def both(real):
    """``[(torchflow, model), (real tf, model)]`` with identical weights."""
    return [(tf, dense_model(tf)), (real, dense_model(real))]
