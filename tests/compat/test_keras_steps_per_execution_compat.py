"""``steps_per_execution`` groups (one traced call per group) against ungrouped steps and
real tf.keras 2.21: side-effecting user code in a custom ``train_step`` (a Python list
appended to at trace time, ``tf.print`` on every step), a metric with its own state, a
callback reading the batch logs, BatchNormalization's moving statistics, validation and
``predict`` in groups, and Dropout's random masks (grouped and ungrouped alike)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(11)
X = RNG.normal(size=(44, 5)).astype("float32")  # 6 batches of 8, the last of 4
LABELS = (np.abs(X[:, 0] * 2 + X[:, 1]) % 3).astype("int32")
W0 = [RNG.normal(size=(5, 8)).astype("float32") * 0.4, np.zeros(8, "float32"),
      np.ones(8, "float32"), np.zeros(8, "float32"), np.zeros(8, "float32"),
      np.ones(8, "float32"), RNG.normal(size=(8, 3)).astype("float32") * 0.4,
      np.zeros(3, "float32")]


def program(mod, spe, custom_step=True):
    k = mod.keras
    out = {"events": [], "traced": 0}

    class LabelSum(k.metrics.Metric):
        """A metric with its own state: the running sum of the labels seen."""

        def __init__(self, name="label_sum"):
            super().__init__(name=name)
            self.total = self.add_weight("total", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.total.assign_add(mod.reduce_sum(mod.cast(y_true, "float32")))

        def result(self):
            return mod.identity(self.total)

    class CustomModel(k.Model):
        def train_step(self, data):
            out["traced"] += 1  # Python: runs when the step traces
            mod.print("step", self.optimizer.iterations)  # an op: runs every step
            return super().train_step(data)

    class Recorder(k.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            out["events"].append(("begin", batch))

        def on_train_batch_end(self, batch, logs=None):
            out["events"].append(("end", batch, {n: round(float(v), 4)
                                                 for n, v in sorted(logs.items())}))

        def on_test_batch_end(self, batch, logs=None):
            out["events"].append(("test_end", batch, round(float(logs["loss"]), 4)))

    inputs = k.Input(shape=(5,))
    h = k.layers.Dense(8)(inputs)
    h = k.layers.BatchNormalization()(h)
    h = k.layers.ReLU()(h)
    cls = CustomModel if custom_step else k.Model
    model = cls(inputs, k.layers.Dense(3)(h))
    model.set_weights(W0)
    model.compile(optimizer=k.optimizers.SGD(0.1, momentum=0.5),
                  loss=k.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", LabelSum()], steps_per_execution=spe)
    hist = model.fit(X, LABELS, batch_size=8, epochs=2, shuffle=False, verbose=0,
                     validation_data=(X[:20], LABELS[:20]), callbacks=[Recorder()])
    out["history"] = hist.history
    out["iterations"] = int(model.optimizer.iterations.numpy())
    out["weights"] = model.get_weights()  # BatchNormalization's moving stats included
    out["predict"] = model.predict(X, batch_size=8)
    return out


def _compare(a, b, rtol=1e-4, atol=1e-5):
    assert a["history"].keys() == b["history"].keys()
    for key in a["history"]:
        np.testing.assert_allclose(a["history"][key], b["history"][key], rtol=rtol, atol=atol,
                                   err_msg=key)
    assert a["iterations"] == b["iterations"]
    for x, y in zip(a["weights"], b["weights"]):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)
    np.testing.assert_allclose(a["predict"], b["predict"], rtol=rtol, atol=atol)


def _events_close(a, b):
    assert [e[:2] for e in a] == [e[:2] for e in b]
    for x, y in zip(a, b):
        if len(x) > 2:
            assert x[2] == pytest.approx(y[2], rel=1e-3, abs=1e-3)


@pytest.mark.parametrize("custom_step", [True, False], ids=["custom-train-step", "default"])
def test_grouped_steps_match_tf_keras_and_ungrouped_steps(capfd, custom_step):
    ours = program(tf, 3, custom_step)
    ours_prints = capfd.readouterr().err.count("step ")
    ours_single = program(tf, 1, custom_step)
    single_prints = capfd.readouterr().err.count("step ")
    theirs = program(real_tf(), 3, custom_step)
    theirs_prints = capfd.readouterr().err.count("step ")
    # hooks at group ends: batches 2 and 5 (of 6), begin at the group's first batch
    ends = [e[1] for e in ours["events"] if e[0] == "end"]
    assert ends == [2, 5, 2, 5]
    _events_close(ours["events"], theirs["events"])
    _compare(ours, theirs)
    _compare(ours, ours_single, rtol=1e-6, atol=1e-7)
    # the ungrouped run's logs at batches 2 and 5 are the grouped run's
    single_ends = {(i // 6, e[1]): e[2] for i, e in enumerate(
        [e for e in ours_single["events"] if e[0] == "end"])}
    grouped_ends = [e for e in ours["events"] if e[0] == "end"]
    for i, e in enumerate(grouped_ends):
        assert e[2] == single_ends[(i // 2, e[1])]
    if custom_step:
        assert ours_prints == single_prints == theirs_prints == 12  # every step
        # Python at the single step's traces only: twice for batches of 8 (the first
        # creates variables, as tf.keras 2.21 traces twice), once for the short batch
        # of 4; the group function's traces replay the traced step inside
        assert ours_single["traced"] == 3
        assert ours["traced"] == 3


def test_dropout_masks_are_fresh_in_every_replayed_group():
    """Dropout in a replayed group draws new masks. (Which masks a seed gives depends on
    the traced functions' op seeds, in TF too: N=4 and N=1 draw different ones.)"""
    def run(spe):
        tf.random.set_seed(5)
        model = tf.keras.Sequential([tf.keras.layers.Dense(16, input_shape=(5,)),
                                     tf.keras.layers.Dropout(0.5),
                                     tf.keras.layers.Dense(3)])
        model.set_weights([W0[0].repeat(2, axis=1), np.zeros(16, "float32"),
                           np.tile(W0[6], (2, 1)), np.zeros(3, "float32")])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.0),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      steps_per_execution=spe)
        return model.fit(X, LABELS, batch_size=8, epochs=4, shuffle=False,
                         verbose=0).history["loss"]

    # nothing trains at lr=0: the epochs' losses differ only by their masks (epochs 3
    # and 4 are replays of epoch 2's groups)
    for spe in (1, 3):
        losses = run(spe)
        assert len(set(losses)) == 4, (spe, losses)
