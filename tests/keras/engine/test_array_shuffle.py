"""Shuffled array input to ``fit``: what each batch holds, against real tf.keras 2.21.

Each row of ``x`` carries its index, and so do ``y`` and ``sample_weight``: every
batch of a shuffled epoch must hold rows that belong together (one permutation for
all inputs), every row once per epoch, in batches of ``batch_size`` with a short last
one. The order itself is random in both frameworks, so it is not compared.
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

N, BATCH = 23, 5


def _collect(mod, width, shuffle, epochs=2):
    k = mod.keras
    seen = []

    class Probe(k.Model):
        def __init__(self):
            super().__init__()
            self.d = k.layers.Dense(1)

        def call(self, x):
            return self.d(x)

        def train_step(self, data):
            seen.append(tuple(np.asarray(t.numpy()) for t in
                              (data if isinstance(data, tuple) else (data,))))
            return {}

    idx = np.arange(N, dtype="float32")
    x = np.stack([idx, -idx], axis=1)
    model = Probe()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    args = {1: (x,), 2: (x, idx), 3: (x, idx, idx)}[width]
    model.fit(*args[:2], sample_weight=args[2] if width == 3 else None, batch_size=BATCH,
              epochs=epochs, shuffle=shuffle, verbose=0)
    return seen


def _epochs(seen):
    per = -(-N // BATCH)
    return [seen[i:i + per] for i in range(0, len(seen), per)]


@pytest.mark.parametrize("width", [1, 2, 3])
def test_shuffled_batches_hold_matching_rows_once_per_epoch(width):
    tf_ref = real_tf()
    for mod in (tf, tf_ref):
        seen = _collect(mod, width, shuffle=True)
        epochs = _epochs(seen)
        assert len(epochs) == 2
        orders = []
        for batches in epochs:
            assert [len(b[0]) for b in batches] == [5, 5, 5, 5, 3]
            rows = np.concatenate([b[0][:, 0] for b in batches])
            np.testing.assert_array_equal(np.sort(rows), np.arange(N))
            for b in batches:
                np.testing.assert_array_equal(b[0][:, 1], -b[0][:, 0])
                for other in b[1:]:  # y and sample_weight: the same rows as x
                    np.testing.assert_array_equal(other.reshape(-1), b[0][:, 0])
            orders.append(rows)
        # Shuffled each epoch (23! orders: equal or sorted by chance is negligible).
        assert not np.array_equal(orders[0], orders[1])
        assert not np.array_equal(orders[0], np.arange(N))


def test_unshuffled_batches_are_contiguous_as_tf():
    tf_ref = real_tf()
    ours, theirs = _collect(tf, 2, shuffle=False), _collect(tf_ref, 2, shuffle=False)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v.reshape(u.shape))


def test_shuffled_fit_trains_on_the_permuted_rows():
    # The traced default step: the shuffled epoch's batches are the rows of
    # tf.random.shuffle(tf.range(n)) (the first random op after set_seed), so the
    # weights equal train_on_batch on those rows in order.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, 4)).astype("float32")
    y = rng.standard_normal((N, 1)).astype("float32")

    def model():
        tf.keras.backend.clear_session()
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="ones",
                                                       input_shape=(4,))])
        m.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        return m

    fitted = model()
    tf.random.set_seed(7)
    fitted.fit(x, y, batch_size=BATCH, epochs=1, shuffle=True, verbose=0)
    tf.random.set_seed(7)
    perm = tf.random.shuffle(tf.range(N)).numpy()
    assert not np.array_equal(perm, np.arange(N))
    stepped = model()
    for lo in range(0, N, BATCH):
        rows = perm[lo:lo + BATCH]
        stepped.train_on_batch(x[rows], y[rows])
    for a, b in zip(fitted.get_weights(), stepped.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
