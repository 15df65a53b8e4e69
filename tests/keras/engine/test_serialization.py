"""tf.keras.layers.serialize / deserialize: which classes are found without
``custom_objects``, compared with real tf.keras's legacy (TF 2.4) format."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _custom_classes(mod, package):
    class MyLayer(mod.keras.layers.Layer):
        def __init__(self, units=2, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def call(self, x):
            return x * 2.0

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    @mod.keras.utils.register_keras_serializable(package)
    class RegLayer(MyLayer):
        pass

    return MyLayer, RegLayer


def _ser(mod, layer):
    if mod is tf:
        return mod.keras.layers.serialize(layer)
    return mod.keras.layers.serialize(layer, use_legacy_format=True)


def _deser(mod, config, custom_objects=None):
    if mod is tf:
        return mod.keras.layers.deserialize(config, custom_objects=custom_objects)
    return mod.keras.layers.deserialize(config, custom_objects=custom_objects,
                                        use_legacy_format=True)


@pytest.mark.parametrize("mod_name", ["tf", "ours"])
def test_unregistered_custom_layer_needs_custom_objects(mod_name):
    mod = real_tf() if mod_name == "tf" else tf
    my_layer, _ = _custom_classes(mod, "ser_test_" + mod_name)
    cfg = _ser(mod, my_layer(3))
    assert cfg["class_name"] == "MyLayer"
    with pytest.raises(ValueError, match="Unknown layer: '?MyLayer"):
        _deser(mod, cfg)
    assert _deser(mod, cfg, {"MyLayer": my_layer}).units == 3
    with mod.keras.utils.custom_object_scope({"MyLayer": my_layer}):
        assert _deser(mod, cfg).units == 3
    with pytest.raises(ValueError, match="Unknown layer: '?Nope"):
        _deser(mod, {"class_name": "Nope", "config": {}})
    # Built-in classes need nothing.
    assert type(_deser(mod, {"class_name": "Dense", "config": {"units": 2}})).__name__ == "Dense"


def test_unknown_layer_message_is_tf24s():
    # TF 2.4's generic_utils wording (2.21's legacy path words it differently).
    my_layer, _ = _custom_classes(tf, "ser_test_msg")
    with pytest.raises(ValueError) as info:
        tf.keras.layers.deserialize(tf.keras.layers.serialize(my_layer()))
    assert str(info.value) == (
        "Unknown layer: MyLayer. Please ensure this object is passed to the "
        "`custom_objects` argument. See https://www.tensorflow.org/guide/keras/"
        "save_and_serialize#registering_the_custom_object for details.")


@pytest.mark.parametrize("mod_name", ["tf", "ours"])
def test_registered_layer_round_trips_by_registered_name(mod_name):
    mod = real_tf() if mod_name == "tf" else tf
    _, reg_layer = _custom_classes(mod, "ser_reg_" + mod_name)
    cfg = _ser(mod, reg_layer(4))
    assert cfg["class_name"] == f"ser_reg_{mod_name}>RegLayer"
    back = _deser(mod, cfg)
    assert type(back) is reg_layer and back.units == 4


def test_functional_model_with_custom_layer_needs_custom_objects():
    my_layer, _ = _custom_classes(tf, "ser_test_model")
    inp = tf.keras.Input((3,))
    model = tf.keras.Model(inp, my_layer(2)(inp))
    with pytest.raises(ValueError, match="Unknown layer: MyLayer"):
        tf.keras.Model.from_config(model.get_config())
    clone = tf.keras.Model.from_config(model.get_config(), custom_objects={"MyLayer": my_layer})
    assert [type(layer).__name__ for layer in clone.layers] == ["InputLayer", "MyLayer"]


def test_saved_model_dir_loads_custom_layers_without_custom_objects_h5_does_not(tmp_path):
    # TF revives a SavedModel's custom layers from its graph (no custom_objects
    # needed; the save-and-serialize guide relies on it), while an HDF5 file names
    # only the class: tf.keras raises ValueError "Unknown layer" there.
    my_layer, _ = _custom_classes(tf, "ser_test_saved")
    inp = tf.keras.Input((3,))
    model = tf.keras.Model(inp, tf.keras.layers.Dense(2)(my_layer(2)(inp)))
    x = np.ones((2, 3), "float32")
    model.save(str(tmp_path / "dir"))
    loaded = tf.keras.models.load_model(str(tmp_path / "dir"))
    np.testing.assert_allclose(loaded.predict(x), model.predict(x))
    model.save(str(tmp_path / "m.h5"))
    with pytest.raises(ValueError, match="Unknown layer: MyLayer"):
        tf.keras.models.load_model(str(tmp_path / "m.h5"))
    # After a SavedModel load, the strict lookup applies again.
    with pytest.raises(ValueError, match="Unknown layer: MyLayer"):
        tf.keras.layers.deserialize(tf.keras.layers.serialize(my_layer(1)))
