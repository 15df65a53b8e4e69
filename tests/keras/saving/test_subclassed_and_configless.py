"""Saving subclassed models and layers without ``get_config``, as TF 2.4 does.

TF 2.4: HDF5 needs a Functional or Sequential model (NotImplementedError with
TF's message, checked against tf.keras 2.21, which kept it); a layer whose
``__init__`` takes arguments and that does not override ``get_config`` raises
NotImplementedError when a config is needed (HDF5 save, ``get_config``,
``clone_model``) and saves to the directory format all the same (TF 2.21 no
longer raises: it returns the base config). Subclassed models without a config
save to the directory format; torchflow cannot revive them without SavedModel
graphs, and says so at load time.
"""

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

X = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)


def _subclassed(mod):
    class Sub(mod.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = mod.keras.layers.Dense(2)

        def call(self, x):
            return self.d(x)

    m = Sub()
    m(X)
    return m


class NoConfig(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.units = units

    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], self.units), initializer="ones")

    def call(self, x):
        return tf.matmul(x, self.w)


class NoArgs(tf.keras.layers.Layer):
    def call(self, x):
        return x * 2.0


def _functional(layer):
    inputs = tf.keras.Input((3,))
    return tf.keras.Model(inputs, layer(inputs))


def test_h5_save_of_a_subclassed_model_raises_tf_error(tmp_path):
    ref = real_tf()
    with pytest.raises(NotImplementedError) as theirs:
        _subclassed(ref).save(str(tmp_path / "ref.h5"))
    with pytest.raises(NotImplementedError) as ours:
        _subclassed(tf).save(str(tmp_path / "ours.h5"))
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(NotImplementedError, match="requires the model to be a Functional"):
        _subclassed(tf).save(str(tmp_path / "x"), save_format="h5")


def test_subclassed_model_saves_to_a_directory_and_restores_weights(tmp_path):
    model = _subclassed(tf)
    model.compile("sgd", "mse")
    path = str(tmp_path / "sub")
    model.save(path)
    assert os.path.isdir(path)
    # As TF: no config, so the model is revived from its saved call graph.
    revived = tf.keras.models.load_model(path)
    np.testing.assert_allclose(revived(X).numpy(), model(X).numpy(), rtol=1e-6)
    fresh = _subclassed(tf)
    fresh.load_weights(path)
    np.testing.assert_allclose(fresh(X).numpy(), model(X).numpy())


def test_subclassed_model_with_config_reloads_with_custom_objects(tmp_path):
    # The save-and-serialize guide's CustomModel, loaded with custom_objects.
    class CustomModel(tf.keras.Model):
        def __init__(self, hidden_units):
            super().__init__()
            self.hidden_units = hidden_units
            self.dense_layers = [tf.keras.layers.Dense(u) for u in hidden_units]

        def call(self, inputs):
            for layer in self.dense_layers:
                inputs = layer(inputs)
            return inputs

        def get_config(self):
            return {"hidden_units": self.hidden_units}

        @classmethod
        def from_config(cls, config):
            return cls(**config)

    model = CustomModel([16, 16, 10])
    out = model(X)
    model.save(str(tmp_path / "custom"))
    loaded = tf.keras.models.load_model(str(tmp_path / "custom"),
                                        custom_objects={"CustomModel": CustomModel})
    np.testing.assert_allclose(loaded(X).numpy(), out.numpy(), rtol=1e-6)


MESSAGE = "Layer NoConfig has arguments in `__init__` and therefore must override `get_config`."


def test_layer_with_init_arguments_needs_get_config_as_tf_2_4():
    with pytest.raises(NotImplementedError) as e:
        NoConfig(2).get_config()
    assert str(e.value) == MESSAGE
    cfg = NoArgs().get_config()
    assert sorted(cfg) == ["dtype", "name", "trainable"]


def test_configless_layer_where_a_config_is_needed(tmp_path):
    model = _functional(NoConfig(2))
    for needs_config in (lambda: model.save(str(tmp_path / "m.h5")), model.get_config,
                         model.to_json, lambda: tf.keras.models.clone_model(model)):
        with pytest.raises(NotImplementedError, match="must override `get_config`"):
            needs_config()
    # Where no config is needed, it works: weights in HDF5, the directory format.
    model.save_weights(str(tmp_path / "w.h5"))
    model.save(str(tmp_path / "dir"))
    other = _functional(NoConfig(2))
    other.load_weights(str(tmp_path / "w.h5"))
    np.testing.assert_allclose(other(X).numpy(), model(X).numpy())


def test_argumentless_custom_layer_round_trips(tmp_path):
    model = _functional(NoArgs())
    model.save(str(tmp_path / "m.h5"))
    loaded = tf.keras.models.load_model(str(tmp_path / "m.h5"),
                                        custom_objects={"NoArgs": NoArgs})
    np.testing.assert_allclose(loaded(X).numpy(), X * 2.0)
    clone = tf.keras.models.clone_model(model)
    np.testing.assert_allclose(clone(X).numpy(), X * 2.0)


def test_functional_subclass_pattern_saves_as_functional(tmp_path):
    # The "customizing what happens in fit" pattern: a subclass built as
    # Model(inputs, outputs) is a Functional model (TF injects Functional into its
    # bases), so HDF5 saving works, as in TF.
    ref = real_tf()
    for mod, path in ((tf, tmp_path / "ours.h5"), (ref, tmp_path / "ref.h5")):
        class CustomModel(mod.keras.Model):
            def train_step(self, data):
                return super().train_step(data)

        inputs = mod.keras.Input(shape=(3,))
        model = CustomModel(inputs, mod.keras.layers.Dense(1)(inputs))
        assert isinstance(model, mod.keras.Model)
        assert type(model).__mro__[1].__name__ == "Functional"
        model.compile("sgd", "mse")
        model.save(str(path))
        assert os.path.exists(path)
