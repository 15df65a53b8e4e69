"""Custom-object scopes and registration, get_source_inputs, model_to_dot/plot_model."""

from __future__ import annotations

import shutil
import sys
import types

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _custom_layer_class(base):
    class Scaled(base.keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    return Scaled


@pytest.mark.parametrize("mod", ["torchflow", "tensorflow"])
def test_custom_object_scope_and_registration(mod):
    t = tf if mod == "torchflow" else real_tf()
    u = t.keras.utils
    Scaled = _custom_layer_class(t)
    layer = Scaled(3.0, name="s")
    config = t.keras.layers.serialize(layer)
    with u.custom_object_scope({"Scaled": Scaled}):
        again = t.keras.layers.deserialize(config)
    assert isinstance(again, Scaled) and again.factor == 3.0
    with u.CustomObjectScope({"Scaled": Scaled}):
        assert u.get_registered_object("Scaled") is Scaled
    assert u.get_registered_object("Scaled") is None

    registered = u.register_keras_serializable(package="Pkg" + mod[:2])(
        _custom_layer_class(t))
    name = u.get_registered_name(registered)
    assert name == "Pkg" + mod[:2] + ">Scaled"
    assert u.get_custom_objects()[name] is registered
    assert u.get_registered_object(name) is registered
    if mod == "torchflow":
        # TF 2.4 refuses to register a name twice; 2.21 dropped that check.
        with pytest.raises(ValueError, match="has already been registered"):
            u.register_keras_serializable(package="Pkg" + mod[:2])(registered)
    with pytest.raises(ValueError):
        u.register_keras_serializable()(type("NoConfig", (), {}))
    assert u.get_registered_name(np.abs) == "absolute"
    del u.get_custom_objects()[name]


def test_serialize_keras_object_matches_tf():
    rtf = real_tf()
    ours = tf.keras.utils.serialize_keras_object(tf.keras.initializers.Constant(2.0))
    theirs = rtf.keras.utils.serialize_keras_object(rtf.keras.initializers.Constant(2.0))
    assert ours["class_name"] == theirs["class_name"] == "Constant"
    assert ours["config"] == theirs["config"]
    back = tf.keras.utils.deserialize_keras_object(
        ours, module_objects={"Constant": tf.keras.initializers.Constant})
    assert isinstance(back, tf.keras.initializers.Constant) and back.value == 2.0
    with pytest.raises(ValueError, match="Unknown object: Nope"):
        tf.keras.utils.deserialize_keras_object("Nope")
    assert tf.keras.utils.serialize_keras_object(None) is None


def test_get_source_inputs_matches_tf():
    def build(t):
        a, b = t.keras.Input((2,), name="a"), t.keras.Input((2,), name="b")
        h = t.keras.layers.Dense(3)(a)
        out = t.keras.layers.Add()([t.keras.layers.Dense(3)(b), h])
        return [x.name for x in t.keras.utils.get_source_inputs(out)], a, \
            t.keras.utils.get_source_inputs(a)

    ours, a, own = build(tf)
    theirs, _, _ = build(real_tf())
    assert [n.split(":")[0] for n in ours] == [n.split(":")[0] for n in theirs]
    assert own[0] is a


def _model():
    x = tf.keras.Input((4,), name="x")
    h = tf.keras.layers.Dense(3, name="h")(x)
    y = tf.keras.layers.Dense(2, name="y")(h)
    z = tf.keras.layers.Concatenate(name="z")([h, y])
    return tf.keras.Model(x, z)


def test_plot_model_without_pydot_raises_tf24_import_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pydot", None)  # as if pydot is not installed
    with pytest.raises(ImportError, match=r"You must install pydot \(`pip install pydot`\) and "
                       r"install graphviz .* for plot_model/model_to_dot to work."):
        tf.keras.utils.plot_model(_model(), str(tmp_path / "m.png"))
    with pytest.raises(ImportError, match="graphviz"):
        tf.keras.utils.model_to_dot(_model())
    # Inside IPython, TF prints the message and returns None instead.
    monkeypatch.setitem(sys.modules, "IPython.core.magics.namespace", types.ModuleType("ns"))
    assert tf.keras.utils.plot_model(_model(), str(tmp_path / "m.png")) is None
    assert not (tmp_path / "m.png").exists()


def _dot_graph(dot, layers):
    """(node labels by layer name, edges by layer name) of a pydot graph."""
    names = {str(id(layer)): layer.name for layer in layers}
    labels = {names[n.get_name()]: n.get_label() for n in dot.get_nodes()
              if n.get_name() in names}
    edges = sorted((names[e.get_source()], names[e.get_destination()])
                   for e in dot.get_edges())
    return labels, edges


def test_model_to_dot_and_plot_model_with_real_pydot_match_tf(tmp_path):
    pytest.importorskip("pydot")
    if shutil.which("dot") is None:
        pytest.skip("graphviz's dot is not installed")
    rtf = real_tf()
    got = [], []
    for m, out in ((rtf, got[0]), (tf, got[1])):
        x = m.keras.Input((4,), name="x")
        h = m.keras.layers.Dense(3, name="h")(x)
        y = m.keras.layers.Dense(3, name="y")(h)
        z = m.keras.layers.Add(name="z")([h, y])
        model = m.keras.Model(x, z)
        dot = m.keras.utils.model_to_dot(model, show_shapes=True, rankdir="LR")
        out.append(_dot_graph(dot, model.layers))
        out.append(dot.get_rankdir())
        path = tmp_path / f"{m.__name__}.png"
        m.keras.utils.plot_model(model, str(path), show_shapes=True)
        out.append(path.read_bytes()[:8])
    (labels_t, edges_t), rank_t, png_t = got[0]
    (labels_o, edges_o), rank_o, png_o = got[1]
    assert edges_o == edges_t == [("h", "y"), ("h", "z"), ("x", "h"), ("y", "z")]
    assert rank_o == rank_t == "LR"
    assert png_o == png_t == b"\x89PNG\r\n\x1a\n"
    # TF 2.21 draws shapes as an HTML table; TF 2.4 (which torchflow follows) as a
    # record label "name: Class|{input:|output:}|{{in}|{out}}".
    assert labels_o["h"] == "h: Dense|{input:|output:}|{{(None, 4)}|{(None, 3)}}"
    assert set(labels_o) == set(labels_t)
