"""torchflow's copies of TF's SavedModel schemas read what real TensorFlow writes.

Real TF (the reference) writes a SavedModel of a tf.Module and of a Keras model;
the files must parse with torchflow's tf_saved_model / tf_saved_metadata modules,
leave no field unknown to the schemas (so every field TF writes is one we can
read), and serialize back to the same bytes (TF writes saved_model.pb with
deterministic serialization, i.e. map entries sorted by key).
"""

import os

import pytest
from google.protobuf import unknown_fields

from torchflow._src.core.proto import tf_saved_metadata_pb2, tf_saved_model_pb2
from torchflow._src.testing import real_tf


@pytest.fixture(scope="module")
def saved_dirs(tmp_path_factory):
    tf = real_tf()
    root = tmp_path_factory.mktemp("sm_protos")

    class Mod(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
            self.table = {"b": tf.Variable([0.5, -0.5])}

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def f(self, x):
            return tf.nn.relu(tf.matmul(x, self.w) + self.table["b"])

        @tf.function
        def g(self, x, scale=2.0):
            return {"out": x * scale, "n": tf.shape(x)}

    mod = Mod()
    mod.g(tf.constant([1.0, 2.0]))
    mod.g(tf.constant([[1.0, 2.0]], tf.float64), 3.0)
    tf.saved_model.save(mod, str(root / "module"))

    inp = tf.keras.Input((4,))
    hidden = tf.keras.layers.Dense(3, activation="relu")(inp)
    hidden = tf.keras.layers.BatchNormalization()(hidden)
    model = tf.keras.Model(inp, tf.keras.layers.Dense(2)(hidden))
    model.save(str(root / "keras"))
    return {"module": str(root / "module"), "keras": str(root / "keras")}


def _unknown_paths(msg, path="SavedModel"):
    """Paths of sub-messages that hold fields the schema does not name."""
    found = []
    if len(unknown_fields.UnknownFieldSet(msg)):
        found.append(path)
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            if field.message_type.fields_by_name["value"].message_type is None:
                continue
            items = [(f"{path}.{field.name}[{k!r}]", v) for k, v in value.items()]
        elif field.is_repeated:
            items = [(f"{path}.{field.name}[{i}]", v) for i, v in enumerate(value)]
        else:
            items = [(f"{path}.{field.name}", value)]
        for sub_path, sub in items:
            found.extend(_unknown_paths(sub, sub_path))
    return found


@pytest.mark.parametrize("which", ["module", "keras"])
def test_saved_model_pb_round_trips(saved_dirs, which):
    with open(os.path.join(saved_dirs[which], "saved_model.pb"), "rb") as f:
        data = f.read()
    sm = tf_saved_model_pb2.SavedModel()
    sm.ParseFromString(data)
    assert sm.SerializeToString(deterministic=True) == data
    assert _unknown_paths(sm) == []
    (meta,) = sm.meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    assert "serving_default" in meta.signature_def
    nodes = meta.object_graph_def.nodes
    assert nodes[0].WhichOneof("kind") == "user_object"
    kinds = {n.WhichOneof("kind") for n in nodes}
    assert {"variable", "function"} <= kinds
    lib_names = {f.signature.name for f in meta.graph_def.library.function}
    for fn in meta.object_graph_def.concrete_functions:
        assert fn in lib_names


def test_module_structure_matches_tf(saved_dirs):
    with open(os.path.join(saved_dirs["module"], "saved_model.pb"), "rb") as f:
        sm = tf_saved_model_pb2.SavedModel.FromString(f.read())
    graph = sm.meta_graphs[0].object_graph_def
    root_children = {c.local_name: c.node_id for c in graph.nodes[0].children}
    assert {"w", "table", "f", "g"} <= set(root_children)
    w = graph.nodes[root_children["w"]].variable
    assert (w.dtype, [d.size for d in w.shape.dim], w.trainable) == (1, [2, 2], True)
    g = graph.nodes[root_children["g"]].function
    assert len(g.concrete_functions) == 2
    sig = sm.meta_graphs[0].signature_def["serving_default"]
    assert list(sig.inputs) == ["x"] and sig.inputs["x"].dtype == 1
    assert [d.size for d in sig.inputs["x"].tensor_shape.dim] == [-1, 2]


def test_keras_metadata_round_trips(saved_dirs):
    with open(os.path.join(saved_dirs["keras"], "keras_metadata.pb"), "rb") as f:
        data = f.read()
    meta = tf_saved_metadata_pb2.SavedMetadata.FromString(data)
    assert meta.SerializeToString() == data
    assert _unknown_paths(meta, "SavedMetadata") == []
    assert meta.nodes[0].node_path == "root"
    assert meta.nodes[0].identifier == "_tf_keras_network"
    assert '"class_name": "Functional"' in meta.nodes[0].metadata
