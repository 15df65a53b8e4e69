"""Keras models in TF's SavedModel directory layout, both ways with real tf.keras.

Each model is built with the same code under real TF (2.21 with tf-keras, the
reference) and torchflow and given the same weights; a directory written by
one library's ``model.save(dir)`` is read by ``tf.keras.models.load_model`` of
the other (and of the same one), and the predictions, optimizer state and the
next training step are compared with what the saving library computed.

TF 2.21 difference: tf-keras 2.21's ``"adam"`` is the new optimizer, whose state
sits under ``optimizer/_variables/N``; TF 2.4's OptimizerV2 layout is
``optimizers.legacy.Adam``'s. Both are read.
"""

import json
import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_metadata_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(11)
IMG = RNG.rand(4, 8, 8, 3).astype(np.float32)
IDS = RNG.randint(0, 10, size=(4, 5)).astype(np.int32)
X = RNG.rand(6, 3).astype(np.float32)
Y = RNG.rand(6, 2).astype(np.float32)
SEQ = RNG.rand(3, 6, 4).astype(np.float32)


def _sequential(lib):
    L = lib.keras.layers
    return lib.keras.Sequential([
        L.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 3)),
        L.BatchNormalization(),
        L.MaxPooling2D(2),
        L.Dropout(0.3),
        L.Flatten(),
        L.Dense(3, activation="tanh"),
    ])


def _functional(lib):
    L = lib.keras.layers
    ids = lib.keras.Input(shape=(5,), dtype="int32", name="ids")
    h = L.Embedding(10, 4)(ids)
    h = L.LayerNormalization()(h)
    flat = L.Flatten()(h)
    a = L.Dense(3, activation="relu")(flat)
    b = L.Dense(3)(flat)
    s = L.Add()([a, b])
    out = L.Dense(2)(L.Concatenate()([s, flat]))
    return lib.keras.Model(ids, out)


def _recurrent(lib):
    L = lib.keras.layers
    seq = lib.keras.Input(shape=(6, 4), name="seq")
    h = L.Conv1D(5, 2, padding="same", activation="relu")(seq)
    h = L.LSTM(3, return_sequences=True)(h)
    h = L.GRU(3, return_sequences=True)(h)
    return lib.keras.Model(seq, L.Dense(2)(L.Reshape((18,))(h)))


def _dense(lib):
    return lib.keras.Sequential([lib.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 lib.keras.layers.Dense(2)])


BUILDERS = {"sequential": (_sequential, IMG), "functional": (_functional, IDS),
            "recurrent": (_recurrent, SEQ)}


def _fill(model, seed=3):
    rng = np.random.RandomState(seed)
    model.set_weights([rng.uniform(0.5, 1.5, size=w.shape).astype(np.float32) * 0.5
                       for w in model.get_weights()])


def _predict(model, x):
    return np.asarray(model(x, training=False))


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_tf_saved_keras_model_loads_and_predicts_the_same(tmp_path, kind):
    rtf = real_tf()
    build, x = BUILDERS[kind]
    ref = build(rtf)
    _fill(ref)
    path = str(tmp_path / kind)
    ref.save(path, save_format="tf")
    expected = _predict(ref, x)
    model = tf.keras.models.load_model(path)
    assert type(model).__name__ == type(ref).__name__
    assert [type(la).__name__ for la in model.layers] == [type(la).__name__ for la in ref.layers]
    np.testing.assert_allclose(_predict(model, x), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_torchflow_saved_keras_model_loads_in_torchflow_and_tf(tmp_path, kind):
    rtf = real_tf()
    build, x = BUILDERS[kind]
    model = build(tf)
    _fill(model)
    path = str(tmp_path / kind)
    model.save(path)
    expected = _predict(model, x)
    assert sorted(os.listdir(path)) == ["assets", "keras_metadata.pb", "saved_model.pb",
                                        "variables"]
    meta = tf_saved_metadata_pb2.SavedMetadata()
    with open(os.path.join(path, "keras_metadata.pb"), "rb") as f:
        meta.ParseFromString(f.read())
    root = next(n for n in meta.nodes if n.node_path == "root")
    assert root.identifier == ("_tf_keras_sequential" if kind == "sequential"
                               else "_tf_keras_network")
    assert (root.version.producer, root.version.min_consumer) == (2, 1)
    root_meta = json.loads(root.metadata)
    assert root_meta["class_name"] == type(model).__name__
    for key in ("name", "trainable", "expects_training_arg", "dtype", "batch_input_shape",
                "config", "model_config", "is_graph_network"):
        assert key in root_meta, key
    assert {n.identifier for n in meta.nodes} >= {"_tf_keras_layer"}

    again = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(_predict(again, x), expected)

    theirs = rtf.keras.models.load_model(path)
    assert [type(la).__name__ for la in theirs.layers] == \
        [type(la).__name__ for la in model.layers]
    np.testing.assert_allclose(_predict(theirs, x), expected, rtol=1e-5, atol=1e-6)
    # tf.saved_model.load reads the object graph and the variables.
    obj = rtf.saved_model.load(path)
    saved = sorted(v.numpy().ravel().sum() for v in _variables_of(rtf, obj))
    ours = sorted(v.numpy().ravel().sum() for v in model.variables)
    np.testing.assert_allclose(saved, ours, rtol=1e-6)


def _variables_of(rtf, obj, seen=None):
    """The variables reachable through the attributes of a revived object."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, rtf.Variable):
        return [obj]
    out = []
    for name, child in sorted(vars(obj).items()) if hasattr(obj, "__dict__") else []:
        if not name.startswith("__") and (isinstance(child, rtf.Variable) or
                                          hasattr(child, "__dict__")):
            out += _variables_of(rtf, child, seen)
    return out


def _adam(lib, legacy):
    if lib is real_tf() and legacy:
        return lib.keras.optimizers.legacy.Adam(0.05)
    return lib.keras.optimizers.Adam(0.05)


def _trained(lib, legacy=True):
    model = _dense(lib)
    _fill(model)
    model.compile(optimizer=_adam(lib, legacy), loss="mse", metrics=["mae"])
    for _ in range(3):
        model.train_on_batch(X, Y)
    return model


def _tf_slots(rtf, model):
    opt = model.optimizer
    if hasattr(opt, "get_slot"):  # legacy OptimizerV2
        opt._create_all_weights(model.trainable_variables)
        return [(opt.get_slot(v, "m").numpy(), opt.get_slot(v, "v").numpy())
                for v in model.trainable_variables]
    return [(m.numpy(), v.numpy()) for m, v in zip(opt._momentums, opt._velocities)]


def _our_slots(model):
    opt = model.optimizer
    return [(opt.get_slot(v, "m").numpy(), opt.get_slot(v, "v").numpy())
            for v in model.trainable_variables]


@pytest.mark.parametrize("legacy", [True, False], ids=["tf24_optimizer", "new_optimizer"])
def test_compiled_model_from_tf_restores_optimizer_and_trains_identically(tmp_path, legacy):
    rtf = real_tf()
    ref = _trained(rtf, legacy)
    path = str(tmp_path / "compiled")
    ref.save(path, save_format="tf")
    slots = _tf_slots(rtf, ref)
    iterations = int(ref.optimizer.iterations.numpy())
    model = tf.keras.models.load_model(path)
    assert model.optimizer is not None and model.loss == "mse"
    assert int(model.optimizer.iterations.numpy()) == iterations == 3
    for (m, v), (m2, v2) in zip(_our_slots(model), slots):
        np.testing.assert_allclose(m, m2, rtol=1e-6)
        np.testing.assert_allclose(v, v2, rtol=1e-6)
    np.testing.assert_allclose(_predict(model, X), _predict(ref, X), rtol=1e-5)
    ref.train_on_batch(X, Y)
    model.train_on_batch(X, Y)
    for a, b in zip(model.get_weights(), ref.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_compiled_model_from_torchflow_round_trips_optimizer_state(tmp_path):
    rtf = real_tf()
    model = _trained(tf)
    path = str(tmp_path / "compiled")
    model.save(path)
    slots = _our_slots(model)
    saved_predictions = _predict(model, X)
    loaded = tf.keras.models.load_model(path)
    assert int(loaded.optimizer.iterations.numpy()) == 3
    for (m, v), (m2, v2) in zip(_our_slots(loaded), slots):
        np.testing.assert_array_equal(m, m2)
        np.testing.assert_array_equal(v, v2)
    loaded.train_on_batch(X, Y)
    model.train_on_batch(X, Y)
    for a, b in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)

    # Real TF: the state sits under TF's keys in variables/ ...
    reader = rtf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    assert reader.get_tensor("optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE") == 3
    for name, (m, v) in zip(["kernel", "bias"], slots[:2]):
        key = f"layer_with_weights-0/{name}/.OPTIMIZER_SLOT/optimizer/{{}}/.ATTRIBUTES/" \
            "VARIABLE_VALUE"
        np.testing.assert_array_equal(reader.get_tensor(key.format("m")), m)
        np.testing.assert_array_equal(reader.get_tensor(key.format("v")), v)
    # ... and tf.keras' load_model compiles the model from the training config (it
    # starts a new optimizer, as it does for its own SavedModels, with a warning).
    theirs = rtf.keras.models.load_model(path)
    assert getattr(theirs.loss, "__name__", theirs.loss) == "mean_squared_error"
    assert type(theirs.optimizer).__name__ == "Adam"
    np.testing.assert_allclose(float(theirs.optimizer.learning_rate.numpy()), 0.05, rtol=1e-6)
    np.testing.assert_allclose(_predict(theirs, X), saved_predictions, rtol=1e-5, atol=1e-6)


def test_traced_call_serves_in_tf_and_torchflow(tmp_path):
    # Dense and BatchNormalization have TF lowerings, so model.save writes the call's
    # graph: __call__ and the serving_default signature, keyed by the output name.
    rtf = real_tf()
    L = tf.keras.layers
    model = tf.keras.Sequential([L.Dense(4, activation="relu", input_shape=(3,)),
                                 L.BatchNormalization(), L.Dense(2, name="out")])
    _fill(model)
    path = str(tmp_path / "served")
    model.save(path)
    expected = _predict(model, X)
    for lib in (rtf, tf):
        obj = lib.saved_model.load(path)
        np.testing.assert_allclose(np.asarray(obj(X)), expected, rtol=1e-5, atol=1e-6)
        sig = obj.signatures["serving_default"]
        out = sig(**{list(sig.structured_input_signature[1])[0]: lib.constant(X)})
        assert list(out) == ["out"]
        np.testing.assert_allclose(out["out"].numpy(), expected, rtol=1e-5, atol=1e-6)
    theirs = rtf.keras.models.load_model(path)
    np.testing.assert_allclose(_predict(theirs, X), expected, rtol=1e-5, atol=1e-6)


def test_model_saved_without_optimizer_loads_uncompiled(tmp_path):
    model = _trained(tf)
    path = str(tmp_path / "no_opt")
    model.save(path, include_optimizer=False)
    loaded = tf.keras.models.load_model(path)
    assert loaded.optimizer is None
    np.testing.assert_array_equal(_predict(loaded, X), _predict(model, X))
    reader = tf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    assert not [k for k in reader.get_variable_to_shape_map() if "optimizer" in k.lower()]


def test_model_checkpoint_to_a_directory_reloads_to_the_same_predictions(tmp_path):
    model = _dense(tf)
    model.compile("adam", "mse")
    path = str(tmp_path / "ckpt")
    model.fit(X, Y, epochs=2, verbose=0,
              callbacks=[tf.keras.callbacks.ModelCheckpoint(path, save_weights_only=False)])
    assert os.path.isfile(os.path.join(path, "keras_metadata.pb"))
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(_predict(loaded, X), _predict(model, X))
    np.testing.assert_array_equal(loaded.optimizer.iterations.numpy(),
                                  model.optimizer.iterations.numpy())


def test_torchflow_0x_directory_format_still_loads(tmp_path):
    model = _dense(tf)
    _fill(model)
    path = tmp_path / "old"
    path.mkdir()
    meta = {"model_config": json.loads(model.to_json()), "training_config": None,
            "format": "torchflow-keras", "version": 1}
    (path / "keras_metadata.json").write_text(json.dumps(meta))
    tf.train.Checkpoint(model=model).write(str(path / "variables" / "variables"))
    loaded = tf.keras.models.load_model(str(path))
    np.testing.assert_array_equal(_predict(loaded, X), _predict(model, X))


def test_malformed_metadata_and_unknown_classes_are_clear_errors(tmp_path):
    model = _dense(tf)
    path = str(tmp_path / "m")
    model.save(path)
    with open(os.path.join(path, "keras_metadata.pb"), "rb") as f:
        data = f.read()
    with open(os.path.join(path, "keras_metadata.pb"), "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(tf.errors.DataLossError, match="keras_metadata.pb"):
        tf.keras.models.load_model(path)

    model.save(path)  # a class no process defines, in the root's config
    meta = tf_saved_metadata_pb2.SavedMetadata()
    with open(os.path.join(path, "keras_metadata.pb"), "rb") as f:
        meta.ParseFromString(f.read())
    for node in meta.nodes:
        node.metadata = node.metadata.replace('"Dense"', '"NoSuchLayerAnywhere"')
    with open(os.path.join(path, "keras_metadata.pb"), "wb") as f:
        f.write(meta.SerializeToString())
    with pytest.raises(ValueError, match="NoSuchLayerAnywhere.*custom_objects"):
        tf.keras.models.load_model(path)
