"""Checkpoint (``save_weights`` in TF format) of Functional models: layers are keyed
``layer-N`` as in tf.keras, so a sub-model's checkpoint loads into a bigger model
with the same first layers (the save-and-serialize guide's transfer pattern), the
extra layer left as it was."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _mlp(k, units, name):
    inputs = k.Input(shape=(8,), name="digits")
    x = k.layers.Dense(6, activation="relu", name="dense_1")(inputs)
    x = k.layers.Dense(6, activation="relu", name="dense_2")(x)
    return k.Model(inputs, k.layers.Dense(units, name="predictions")(x), name=name)


def _program(k, path):
    full = _mlp(k, 10, "mlp")
    pretrained = k.Model(full.inputs, full.layers[-1].input, name="pretrained")
    rng = np.random.RandomState(0)
    pretrained.set_weights([rng.normal(size=w.shape).astype("float32")
                            for w in pretrained.get_weights()])
    pretrained.save_weights(path)
    model = _mlp(k, 5, "new_model")
    before = model.get_weights()[-2:]
    model.load_weights(path)
    return pretrained.get_weights(), model.get_weights(), before


def test_sub_model_checkpoint_loads_into_a_bigger_model(tmp_path):
    for k, name in ((tf.keras, "ours"), (real_tf().keras, "theirs")):
        saved, loaded, before = _program(k, str(tmp_path / name / "ckpt"))
        for a, b in zip(saved, loaded[:4]):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(before, loaded[4:]):  # the new output layer is not touched
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("explicit_input", [False, True])
def test_sequential_saved_to_a_directory_reloads_its_weights(tmp_path, explicit_input):
    # The distributed Keras tutorial: model.save(path, save_format="tf"), then
    # load_model(path) and evaluate. A stack built from input_shape and one rebuilt
    # from its config (which holds an InputLayer) must key their layers alike.
    first = [tf.keras.Input((6,))] if explicit_input else []
    kw = {} if explicit_input else {"input_shape": (6,)}
    model = tf.keras.Sequential(first + [tf.keras.layers.Dense(5, activation="relu", **kw),
                                         tf.keras.layers.Dense(4, activation="relu"),
                                         tf.keras.layers.Dense(3)])
    model.compile(loss="mse", optimizer="adam")
    x = np.random.default_rng(0).normal(size=(8, 6)).astype(np.float32)
    model.fit(x, np.ones((8, 3), np.float32), verbose=0)
    model.save(str(tmp_path / "m"), save_format="tf")
    again = tf.keras.models.load_model(str(tmp_path / "m"))
    np.testing.assert_array_equal(again.predict(x), model.predict(x))
