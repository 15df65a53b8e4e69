"""HDF5 weights move both ways between real tf.keras and torchflow (same architecture)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


class Dense(tf.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", [input_shape[-1], self.units])
        self.bias = self.add_weight("bias", [self.units], initializer="zeros")

    def call(self, x):
        return tf.matmul(x, self.kernel) + self.bias

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def _ours():
    x = tf.keras.Input(shape=(4,))
    return tf.keras.Model(x, Dense(2)(Dense(3)(x)))


def _theirs(ref):
    x = ref.keras.Input(shape=(4,))
    return ref.keras.Model(x, ref.keras.layers.Dense(2)(ref.keras.layers.Dense(3)(x)))


DATA = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)


def test_tf_keras_h5_weights_load_into_torchflow(tmp_path):
    ref = real_tf()
    theirs = _theirs(ref)
    path = str(tmp_path / "w.h5")
    theirs.save_weights(path)
    ours = _ours()
    ours.load_weights(path)
    np.testing.assert_allclose(ours(DATA).numpy(), theirs(DATA).numpy(), rtol=1e-6, atol=1e-6)


def test_torchflow_h5_weights_load_into_tf_keras(tmp_path):
    ref = real_tf()
    ours = _ours()
    path = str(tmp_path / "w.h5")
    ours.save_weights(path)
    theirs = _theirs(ref)
    theirs.load_weights(path)
    np.testing.assert_allclose(theirs(DATA).numpy(), ours(DATA).numpy(), rtol=1e-6, atol=1e-6)


def test_by_name_skip_mismatch_and_count_error(tmp_path):
    ours = _ours()
    path = str(tmp_path / "w.h5")
    ours.save_weights(path)
    x = tf.keras.Input(shape=(4,))
    other = tf.keras.Model(x, Dense(3, name="dense_1")(x))
    with pytest.raises(ValueError, match="2 layers into a model with 1 layers"):
        other.load_weights(path)
    other.load_weights(path, by_name=True)  # 'dense_1' is the 4->3 layer in both
    np.testing.assert_array_equal(other.layers[1].kernel.numpy(),
                                  ours.get_layer("dense_1").kernel.numpy())
    x2 = tf.keras.Input(shape=(4,))
    wrong = tf.keras.Model(x2, Dense(5, name="dense_1")(x2))
    with pytest.raises(ValueError):
        wrong.load_weights(path, by_name=True)
    wrong.load_weights(path, by_name=True, skip_mismatch=True)


def test_checkpoint_format_weights_round_trip(tmp_path):
    ours = _ours()
    path = str(tmp_path / "ckpt" / "weights")
    ours.save_weights(path)
    fresh = _ours()
    fresh.load_weights(path).assert_consumed()
    np.testing.assert_array_equal(fresh(DATA).numpy(), ours(DATA).numpy())


def test_whole_model_h5_and_directory_round_trip(tmp_path):
    ours = _ours()
    for path in (str(tmp_path / "m.h5"), str(tmp_path / "m_dir")):
        ours.save(path)
        back = tf.keras.models.load_model(path, custom_objects={"Dense": Dense})
        np.testing.assert_array_equal(back(DATA).numpy(), ours(DATA).numpy())
