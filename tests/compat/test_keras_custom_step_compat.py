"""One program in the style of TF's "customizing what happens in fit" guide, run
under real tf.keras 2.21 (Keras 2) and torchflow, outputs compared: a Functional
model built inside a ``Model`` subclass with a custom ``train_step`` that unpacks
``x, y = data``, a ``test_step`` using ``unpack_x_y_sample_weight`` with sample
weights, ``steps_per_execution=3`` with a callback recording batch indices, a
``keras.utils.Sequence`` (shuffled by Python's ``random``) with uint8 labels, and
``evaluate``/``predict``."""

import random

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(7)
X = RNG.normal(size=(60, 6)).astype("float32")
LABELS = (np.abs(X[:, 0] * 2 + X[:, 1]) % 4).astype("uint8")  # keras.datasets' dtype
SW = RNG.uniform(0.5, 1.5, size=60).astype("float32")
W0 = [RNG.normal(size=(6, 8)).astype("float32") * 0.3, np.zeros(8, "float32"),
      RNG.normal(size=(8, 4)).astype("float32") * 0.3, np.zeros(4, "float32")]


def program(mod):
    k = mod.keras
    out = {"events": []}

    class CustomModel(k.Model):
        def train_step(self, data):
            if len(data) == 3:
                x, y, sample_weight = data
            else:
                sample_weight = None
                x, y = data
            with mod.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, sample_weight=sample_weight,
                                          regularization_losses=self.losses)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred, sample_weight=sample_weight)
            return {m.name: m.result() for m in self.metrics}

        def test_step(self, data):
            x, y, sample_weight = k.utils.unpack_x_y_sample_weight(data)
            y_pred = self(x, training=False)
            self.compiled_loss(y, y_pred, sample_weight, regularization_losses=self.losses)
            self.compiled_metrics.update_state(y, y_pred, sample_weight)
            return {m.name: m.result() for m in self.metrics}

    class Recorder(k.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            out["events"].append(("begin", batch))

        def on_train_batch_end(self, batch, logs=None):
            out["events"].append(("end", batch, round(float(logs["loss"]), 4)))

        def on_test_batch_end(self, batch, logs=None):
            out["events"].append(("test_end", batch))

    class Batches(k.utils.Sequence):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return X[i * 10:(i + 1) * 10], LABELS[i * 10:(i + 1) * 10]

    inputs = k.Input(shape=(6,))
    hidden = k.layers.Dense(8, activation="relu")(inputs)
    model = CustomModel(inputs, k.layers.Dense(4)(hidden))
    model.set_weights(W0)
    model.compile(optimizer=k.optimizers.SGD(0.1),
                  loss=k.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", k.metrics.SparseTopKCategoricalAccuracy(k=2)],
                  steps_per_execution=3)
    h1 = model.fit(X, LABELS, batch_size=8, epochs=2, shuffle=False, verbose=0,
                   validation_split=0.25, callbacks=[Recorder()])
    h2 = model.fit(X, LABELS, sample_weight=SW, batch_size=16, epochs=1, shuffle=False,
                   verbose=0)
    random.seed(3)
    h3 = model.fit(Batches(), epochs=2, verbose=0, callbacks=[Recorder()])
    out["history"] = [h1.history, h2.history, h3.history]
    out["evaluate"] = model.evaluate(X, LABELS, sample_weight=SW, batch_size=16, verbose=0,
                                     return_dict=True)
    out["predict"] = model.predict(X, batch_size=16)
    out["weights"] = model.get_weights()
    return out


def test_custom_step_program_matches_tf_keras():
    ours = program(tf)
    theirs = program(real_tf())
    assert ours["events"] == theirs["events"]
    for h_o, h_t in zip(ours["history"], theirs["history"]):
        assert h_o.keys() == h_t.keys()
        for key in h_t:
            np.testing.assert_allclose(h_o[key], h_t[key], rtol=1e-4, atol=1e-5, err_msg=key)
    assert ours["evaluate"].keys() == theirs["evaluate"].keys()
    for key in theirs["evaluate"]:
        np.testing.assert_allclose(ours["evaluate"][key], theirs["evaluate"][key], rtol=1e-4)
    np.testing.assert_allclose(ours["predict"], theirs["predict"], rtol=1e-4, atol=1e-5)
    for a, b in zip(ours["weights"], theirs["weights"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
