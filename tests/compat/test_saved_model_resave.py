"""Re-saving a loaded SavedModel: ``tf.saved_model.save(tf.saved_model.load(p), p2)``.

The re-saved directory keeps the variables, children, restored ``tf.function``s
(every traced signature, Python default arguments included), bare concrete
functions and signatures; it loads in real TF and in torchflow with the same
outputs as the original model. Both directions: SavedModels first written by
torchflow and by real TF.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

X = np.array([[1.0, -2.0], [0.5, 1.0]], np.float32)


def _module(m):
    class Affine(m.Module):
        def __init__(self):
            super().__init__()
            self.w = m.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
            self.b = m.Variable([0.5, -0.5], name="b")
            self.child = m.Module()
            self.child.scale = m.Variable(3.0, name="scale", trainable=False)

        @m.function(input_signature=[m.TensorSpec([None, 2], m.float32)])
        def __call__(self, x):
            return m.nn.relu(m.matmul(x, self.w) + self.b)

        @m.function
        def f(self, x, y=2.0):
            return x * self.child.scale + y

    mod = Affine()
    mod.f(m.constant(1.0))
    mod.f(m.constant([1.0, 2.0]), 3.0)
    return mod


def _check(lib, loaded, want):
    np.testing.assert_allclose(loaded(X).numpy(), want["call"], rtol=1e-6)
    np.testing.assert_allclose(loaded.f(lib.constant(1.0)).numpy(), want["f0"])
    np.testing.assert_allclose(loaded.f(lib.constant([1.0, 2.0]), 3.0).numpy(), want["f1"])
    out = loaded.signatures["serving_default"](x=lib.constant(X))
    np.testing.assert_allclose(out["output_0"].numpy(), want["call"], rtol=1e-6)
    assert float(loaded.child.scale.numpy()) == want["scale"]
    assert not loaded.child.scale.trainable and loaded.w.trainable


def _expected(mod):
    return {"call": mod(X).numpy(), "f0": mod.f(tf.constant(1.0)).numpy(),
            "f1": mod.f(tf.constant([1.0, 2.0]), 3.0).numpy(),
            "scale": float(mod.child.scale.numpy())}


def test_resave_of_a_torchflow_savedmodel_loads_in_both(tmp_path):
    rtf = real_tf()
    p1, p2 = str(tmp_path / "p1"), str(tmp_path / "p2")
    mod = _module(tf)
    want = _expected(mod)
    np.testing.assert_allclose(want["call"], _module(rtf)(X).numpy(), rtol=1e-6)
    tf.saved_model.save(mod, p1)
    loaded = tf.saved_model.load(p1)
    tf.saved_model.save(loaded, p2)
    _check(tf, tf.saved_model.load(p2), want)
    theirs = rtf.saved_model.load(p2)
    _check(rtf, theirs, want)
    # The functions are the saved ones, not new traces: the same concrete functions.
    sm = tf_saved_model_pb2.SavedModel()
    with open(os.path.join(p2, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    nodes = sm.meta_graphs[0].object_graph_def.nodes
    kinds = {ref.local_name: nodes[ref.node_id].WhichOneof("kind") for ref in nodes[0].children}
    assert kinds["f"] == "function" and kinds["__call__"] == "function"
    f_node = next(nodes[r.node_id] for r in nodes[0].children if r.local_name == "f")
    assert len(f_node.function.concrete_functions) == 2
    # A re-save of the re-saved model (twice removed) still serves.
    tf.saved_model.save(tf.saved_model.load(p2), str(tmp_path / "p3"))
    _check(tf, tf.saved_model.load(str(tmp_path / "p3")), want)


def test_resave_keeps_new_variable_values_and_added_functions(tmp_path):
    rtf = real_tf()
    p1, p2 = str(tmp_path / "p1"), str(tmp_path / "p2")
    tf.saved_model.save(_module(tf), p1)
    loaded = tf.saved_model.load(p1)
    loaded.child.scale.assign(5.0)
    loaded.w.assign([[0.0, 1.0], [1.0, 0.0]])
    # A new tf.function on the loaded object, over its restored variables.
    loaded.g = tf.function(lambda x: x * loaded.child.scale,
                           input_signature=[tf.TensorSpec([], tf.float32)])
    tf.saved_model.save(loaded, p2, signatures={"g": loaded.g,
                                                "serving_default": loaded.signatures[
                                                    "serving_default"]})
    want_call = np.maximum(X @ np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)
                           + np.array([0.5, -0.5], np.float32), 0.0)
    for lib in (tf, rtf):
        back = lib.saved_model.load(p2)
        np.testing.assert_allclose(back(X).numpy(), want_call, rtol=1e-6)
        np.testing.assert_allclose(back.f(lib.constant(1.0)).numpy(), 7.0)
        np.testing.assert_allclose(back.g(lib.constant(2.0)).numpy(), 10.0)
        assert sorted(back.signatures) == ["g", "serving_default"]
        np.testing.assert_allclose(back.signatures["g"](x=lib.constant(2.0))["output_0"], 10.0)
        np.testing.assert_allclose(
            back.signatures["serving_default"](x=lib.constant(X))["output_0"], want_call,
            rtol=1e-6)


def _tf_module(rtf):
    class Adder(rtf.Module):
        def __init__(self):
            self.v = rtf.Variable(2.0)
            self.items = [rtf.Variable([1.0, 2.0]), {"k": rtf.Variable(4.0)}]

        @rtf.function
        def double(self, x):
            return x + x * self.v

        @rtf.function(input_signature=[rtf.TensorSpec([None], rtf.float32)])
        def serve(self, x):
            return {"y": x * self.v + self.items[0] * self.items[1]["k"]}

    m = Adder()
    m.double.get_concrete_function(rtf.TensorSpec([], rtf.float32))
    m.double.get_concrete_function(rtf.TensorSpec([None], rtf.float32))
    return m


def test_resave_of_a_tf_savedmodel(tmp_path):
    rtf = real_tf()
    p1, p2, p3 = (str(tmp_path / n) for n in ("tf", "resaved", "with_sigs"))
    ref = _tf_module(rtf)
    rtf.saved_model.save(ref, p1)
    x = np.array([1.0, 3.0], np.float32)
    want_double = ref.double(rtf.constant(x)).numpy()
    want_serve = ref.serve(rtf.constant(x))["y"].numpy()
    loaded = tf.saved_model.load(p1)
    tf.saved_model.save(loaded, p2)  # serving_default: the one function with a signature
    tf.saved_model.save(loaded, p3, signatures=loaded.signatures)  # TF's own wrapper
    for path in (p2, p3):
        for lib in (tf, rtf):
            back = lib.saved_model.load(path)
            np.testing.assert_allclose(back.double(lib.constant(x)).numpy(), want_double)
            np.testing.assert_allclose(back.double(lib.constant(3.0)).numpy(), 9.0)
            np.testing.assert_allclose(back.serve(lib.constant(x))["y"].numpy(), want_serve)
            out = back.signatures["serving_default"](x=lib.constant(x))
            np.testing.assert_allclose(out["y"].numpy(), want_serve)
            np.testing.assert_allclose(back.items[1]["k"].numpy(), 4.0)


def test_resave_of_a_loaded_keras_model(tmp_path):
    rtf = real_tf()
    p1, p2 = str(tmp_path / "k1"), str(tmp_path / "k2")
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(2)])
    model.compile("adam", "mse")
    x = np.random.RandomState(0).rand(5, 3).astype(np.float32)
    model.fit(x, np.zeros((5, 2), np.float32), verbose=0)
    want = model.predict(x, verbose=0)
    model.save(p1)
    loaded = tf.keras.models.load_model(p1)
    loaded.save(p2)
    again = tf.keras.models.load_model(p2)
    np.testing.assert_allclose(again.predict(x, verbose=0), want, rtol=1e-6)
    assert again.optimizer.get_config()["name"] == "Adam"
    theirs = rtf.keras.models.load_model(p2)
    # TF's and torch's matmul kernels sum in different orders: outputs near 0 differ
    # by a few ulps of the inputs, not of themselves
    np.testing.assert_allclose(theirs.predict(x, verbose=0), want, rtol=1e-5, atol=1e-6)


def test_resave_of_a_tf_keras_savedmodel_loaded_as_objects(tmp_path):
    """A Keras SavedModel written by tf.keras, loaded with tf.saved_model.load (as
    objects) and saved again: its _default_save_signature is serving_default again."""
    rtf = real_tf()
    p1, p2 = str(tmp_path / "k"), str(tmp_path / "k_re")
    model = rtf.keras.Sequential([rtf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                  rtf.keras.layers.Dense(2)])
    x = np.random.RandomState(1).rand(5, 3).astype(np.float32)
    want = model.predict(x, verbose=0)
    model.save(p1)
    tf.saved_model.save(tf.saved_model.load(p1), p2)
    for lib in (tf, rtf):
        back = lib.saved_model.load(p2)
        assert list(back.signatures) == ["serving_default"]
        out = back.signatures["serving_default"](lib.constant(x))
        np.testing.assert_allclose(next(iter(out.values())).numpy(), want, rtol=1e-5)
        np.testing.assert_allclose(back(lib.constant(x)).numpy(), want, rtol=1e-5)


def test_resave_of_a_function_capturing_an_asset(tmp_path):
    rtf = real_tf()
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    m = rtf.Module()
    m.asset = rtf.saved_model.Asset(str(vocab))
    m.f = rtf.function(lambda: rtf.io.read_file(m.asset.asset_path))
    m.f.get_concrete_function()
    m.g = rtf.function(lambda: rtf.io.read_file(m.asset.asset_path), input_signature=[])
    rtf.saved_model.save(m, str(tmp_path / "a1"), signatures={})
    loaded = tf.saved_model.load(str(tmp_path / "a1"))
    assert loaded.f().numpy() == b"a\nb\n"
    tf.saved_model.save(loaded, str(tmp_path / "a2"), signatures={})
    vocab.unlink()  # the re-saved model reads its own assets/ copy
    for lib in (tf, rtf):
        back = lib.saved_model.load(str(tmp_path / "a2"))
        assert back.f().numpy() == b"a\nb\n" and back.g().numpy() == b"a\nb\n"
        assert os.path.basename(back.asset.asset_path.numpy()) == b"vocab.txt"
    # As a signature, the asset's path would have to be fed by the graph: not yet.
    with pytest.raises(tf.errors.UnimplementedError, match="captures an asset path"):
        tf.saved_model.save(loaded, str(tmp_path / "a3"), signatures={"s": loaded.g})
    assert not os.path.exists(str(tmp_path / "a3" / "saved_model.pb"))
