"""The ``tf.keras.Model``/``Layer`` members TF 2.4 has, and the behaviour of the
older ones (node-indexed shapes and masks, ``*_generator``, ``add_update``,
``add_variable``, ``stateful``/``reset_states``, ``model_from_*``), against real
tf.keras 2.21 (Keras 2)."""

import json

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

# Members tf-keras 2.21 has that TF 2.4 did not (added in 2.5-2.13).
NEWER = {"autotune_steps_per_execution", "build_from_config", "compile_from_config",
         "compute_loss", "compute_metrics", "distribute_reduction_method", "export",
         "finalize_state", "get_build_config", "get_compile_config", "get_metrics_result",
         "get_weight_paths", "jit_compile", "load_own_variables", "save_own_variables",
         "save_spec", "steps_per_execution"}
# Set in __init__ (an instance attribute, as in TF), not on the class.
INSTANCE = {"supports_masking"}


@pytest.mark.parametrize("cls", ["Model", "Sequential", "layers.Layer"])
def test_tf_2_4_members_present(cls):
    def get(mod):
        obj = mod.keras
        for part in cls.split("."):
            obj = getattr(obj, part)
        return {n for n in dir(obj) if not n.startswith("_")}

    missing = get(real_tf()) - get(tf) - NEWER - INSTANCE
    assert not missing


def _model(k):
    i = k.Input((3,), name="i")
    d = k.layers.Dense(2, name="d")
    return k.Model(i, d(d(k.layers.Dense(2, name="pre")(i)))), d


def test_node_indexed_shapes_and_errors_match_tf():
    ours, d = _model(tf.keras)
    theirs, rd = _model(real_tf().keras)
    assert d.get_input_shape_at(0) == rd.get_input_shape_at(0)
    assert d.get_output_shape_at(1) == rd.get_output_shape_at(1)
    assert d.get_input_mask_at(1) is None and rd.get_input_mask_at(1) is None
    assert ours.supports_masking == theirs.supports_masking
    assert ours.stateful == theirs.stateful is False
    for layer, mod in ((d, tf), (rd, real_tf())):
        with pytest.raises(ValueError, match="Asked to get input shape at node 2, but the "
                                             "layer has only 2 inbound nodes."):
            layer.get_input_shape_at(2)
        fresh = mod.keras.layers.Dense(2)
        with pytest.raises(RuntimeError, match="has never been called"):
            fresh.get_input_shape_at(0)
        with pytest.raises(AttributeError, match="is not connected"):
            _ = fresh.input_mask


def test_masks_through_node_accessors():
    i = tf.keras.Input((4,), dtype="int32")
    emb = tf.keras.layers.Embedding(5, 2, mask_zero=True)
    emb(i)
    assert emb.get_output_mask_at(0) is not None
    assert emb.output_mask is emb.get_output_mask_at(0)
    assert emb.input_mask is None


def test_generator_methods_warn_and_run_as_tf():
    x = np.linspace(0, 1, 24, dtype="float32").reshape(8, 3)
    y = x.sum(-1, keepdims=True)

    def run(mod):
        k = mod.keras
        model = k.Sequential([k.layers.Dense(1, input_shape=(3,), kernel_initializer="ones")])
        model.compile(k.optimizers.SGD(0.1), "mse")

        def gen():
            while True:
                yield x, y

        with pytest.warns(UserWarning, match="fit_generator` is deprecated"):
            h = model.fit_generator(gen(), steps_per_epoch=2, epochs=2, verbose=0)
        with pytest.warns(UserWarning, match="evaluate_generator` is deprecated"):
            loss = model.evaluate_generator(gen(), steps=2)
        with pytest.warns(UserWarning, match="predict_generator` is deprecated"):
            pred = model.predict_generator((x for _ in range(2)), steps=2)
        return h.history["loss"], loss, pred

    ours, theirs = run(tf), run(real_tf())
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_add_update_runs_callables_and_add_variable_warns():
    class Counting(tf.keras.layers.Layer):
        def build(self, shape):
            with pytest.warns(UserWarning, match="add_variable` is deprecated"):
                self.count = self.add_variable("count", shape=(), initializer="zeros",
                                               trainable=False)

        def call(self, x):
            self.add_update(lambda: self.count.assign_add(1.0))
            return x

    layer = Counting()
    layer(tf.ones([1]))
    layer(tf.ones([1]))
    assert float(layer.count.numpy()) == 2.0
    layer.trainable = False
    layer(tf.ones([1]))  # frozen: updates do not run, as in TF
    assert float(layer.count.numpy()) == 2.0


def test_stateful_rnn_and_reset_states():
    model = tf.keras.Sequential([tf.keras.layers.SimpleRNN(2, stateful=True,
                                                           batch_input_shape=(1, 3, 1))])
    assert model.stateful
    first = model.predict(np.ones((1, 3, 1), "float32"))
    second = model.predict(np.ones((1, 3, 1), "float32"))
    assert not np.allclose(first, second)  # the state carried over
    model.reset_states()
    np.testing.assert_allclose(model.predict(np.ones((1, 3, 1), "float32")), first, rtol=1e-6)


def test_model_from_json_reads_tf_keras_json():
    ref = real_tf()
    theirs, _ = _model(ref.keras)
    model = tf.keras.models.model_from_json(theirs.to_json())
    assert [l.name for l in model.layers] == [l.name for l in theirs.layers]
    model.set_weights(theirs.get_weights())
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(model.predict(x), theirs.predict(x, verbose=0), rtol=1e-5)
    cfg = json.loads(theirs.to_json())
    assert type(tf.keras.models.model_from_config(cfg)).__name__ == "Functional"
    with pytest.raises(TypeError, match="expects a dictionary, not a list"):
        tf.keras.models.model_from_config([cfg])


def test_yaml_round_trip_or_tf_import_error():
    model, _ = _model(tf.keras)
    try:
        import yaml  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="Requires yaml module installed"):
            model.to_yaml()
        return
    clone = tf.keras.models.model_from_yaml(model.to_yaml())
    assert [l.name for l in clone.layers] == [l.name for l in model.layers]


def test_forgotten_super_init_raises_tf_runtime_error():
    ref = real_tf()
    for mod in (tf, ref):
        class L(mod.keras.layers.Layer):
            def __init__(self):
                pass

            def call(self, x):
                return x

        class M(mod.keras.Model):
            def __init__(self):
                self.d = mod.keras.layers.Dense(1)

        with pytest.raises(RuntimeError, match=r"You must call `super\(\).__init__\(\)` in the "
                                               "layer constructor."):
            L()(mod.ones([1]))
        with pytest.raises(RuntimeError, match="It looks like you are subclassing `Model` and "
                                               "you forgot to call"):
            M()


def test_layer_without_super_init_still_checkpoints_as_tf(tmp_path):
    # The save-and-serialize guide's checkpoint cell: TF tracks the attribute and
    # raises only when such a layer is called.
    for mod in (tf, real_tf()):
        class CustomLayer(mod.keras.layers.Layer):
            def __init__(self, a):
                self.var = mod.Variable(a, name="var_a")

        layer = CustomLayer(5)
        path = mod.train.Checkpoint(layer=layer).save(str(tmp_path / mod.__name__ / "ckpt"))
        dtypes = mod.train.load_checkpoint(path).get_variable_to_dtype_map()
        assert dtypes["layer/var/.ATTRIBUTES/VARIABLE_VALUE"] == mod.int32


def test_sublayer_set_before_super_init_is_tracked():
    class Early(tf.keras.layers.Layer):
        def __init__(self):
            self.dense = tf.keras.layers.Dense(2)
            super().__init__()

        def call(self, x):
            return self.dense(x)

    layer = Early()
    layer(tf.ones([1, 3]))
    assert len(layer.trainable_weights) == 2
