"""``tf.saved_model.SaveOptions`` / ``LoadOptions`` applied: each option's effect on the
files, compared with the files real TF writes for the same module and options."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_graph_debug_info_pb2, tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _adder(m):
    class Adder(m.Module):
        def __init__(self):
            super().__init__()
            self.v = m.Variable(2.0, name="v")

        @m.function
        def double(self, x):
            return x + x * self.v

        @m.function(input_signature=[m.TensorSpec([None], m.float32)])
        def serve(self, x):
            return {"y": x * self.v}

    a = Adder()
    a.double.get_concrete_function(m.TensorSpec([], m.float32, name="float_input"))
    a.double.get_concrete_function(m.TensorSpec([None], m.float32))
    return a


def _meta(path):
    sm = tf_saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    return sm.meta_graphs[0]


def _saved_function(meta, attr):
    """The concrete function names of the root's ``attr`` SavedFunction."""
    nodes = meta.object_graph_def.nodes
    for ref in nodes[0].children:
        if ref.local_name == attr:
            return list(nodes[ref.node_id].function.concrete_functions)
    raise KeyError(attr)


def test_function_aliases_written_as_tf_writes_them(tmp_path):
    rtf = real_tf()
    ours_dir, theirs_dir = str(tmp_path / "ours"), str(tmp_path / "theirs")
    ours, theirs = _adder(tf), _adder(rtf)
    tf.saved_model.save(ours, ours_dir, options=tf.saved_model.SaveOptions(
        function_aliases={"double": ours.double}))
    rtf.saved_model.save(theirs, theirs_dir, options=rtf.saved_model.SaveOptions(
        function_aliases={"double": theirs.double}))
    for path in (ours_dir, theirs_dir):
        meta = _meta(path)
        aliases = dict(meta.meta_info_def.function_aliases)
        assert set(aliases.values()) == {"double"}, path
        saved = _saved_function(meta, "double")
        assert len(saved) == 2
        # Every saved concrete function of `double` is aliased, and nothing of `serve`.
        assert all(aliases.get(name) == "double" for name in saved), path
        assert not set(_saved_function(meta, "serve")) & set(aliases), path
    library = {f.signature.name for f in _meta(ours_dir).graph_def.library.function}
    assert set(dict(_meta(ours_dir).meta_info_def.function_aliases)) <= library
    # Real TF reads the file (aliases and all) and runs it.
    loaded = rtf.saved_model.load(ours_dir)
    np.testing.assert_allclose(loaded.double(rtf.constant(3.0)), 9.0)


def test_function_alias_of_a_concrete_function_and_bad_alias(tmp_path):
    rtf = real_tf()
    ours = _adder(tf)
    concrete = ours.serve.get_concrete_function()
    tf.saved_model.save(ours, str(tmp_path / "c"), options=tf.saved_model.SaveOptions(
        function_aliases={"serving": concrete}))
    meta = _meta(str(tmp_path / "c"))
    assert dict(meta.meta_info_def.function_aliases) == {
        _saved_function(meta, "serve")[0]: "serving"}
    with pytest.raises(TypeError) as theirs:
        rtf.saved_model.save(_adder(rtf), str(tmp_path / "t"), options=rtf.saved_model.SaveOptions(
            function_aliases={"a": 3}))
    with pytest.raises(TypeError) as got:
        tf.saved_model.save(ours, str(tmp_path / "o"), options=tf.saved_model.SaveOptions(
            function_aliases={"a": 3}))
    assert str(got.value) == str(theirs.value)


def test_save_debug_info(tmp_path):
    rtf = real_tf()
    ours_dir, theirs_dir = str(tmp_path / "ours"), str(tmp_path / "theirs")
    tf.saved_model.save(_adder(tf), ours_dir,
                        options=tf.saved_model.SaveOptions(save_debug_info=True))
    rtf.saved_model.save(_adder(rtf), theirs_dir,
                         options=rtf.saved_model.SaveOptions(save_debug_info=True))
    infos = []
    for path in (ours_dir, theirs_dir):
        assert os.listdir(os.path.join(path, "debug")) == ["saved_model_debug_info.pb"]
        info = tf_graph_debug_info_pb2.GraphDebugInfo()
        with open(os.path.join(path, "debug", "saved_model_debug_info.pb"), "rb") as f:
            info.ParseFromString(f.read())
        infos.append(info)
        # Both point at this file, where the traced Python functions are.
        assert __file__ in list(info.files), path
    ours = infos[0]
    meta = _meta(ours_dir)
    traced = _saved_function(meta, "double") + _saved_function(meta, "serve")
    for fd in meta.graph_def.library.function:
        if fd.signature.name not in traced:
            continue
        for node in fd.node_def:
            trace = ours.traces[f"{node.name}@{fd.signature.name}"]
            frame = trace.file_line_cols[0]
            assert ours.files[frame.file_index] == __file__
            assert frame.func in ("double", "serve")
    # TF's loader reads the debug info with the SavedModel.
    loaded = rtf.saved_model.load(ours_dir)
    np.testing.assert_allclose(loaded.serve(rtf.constant([1.0]))["y"], [2.0])
    # Without the option there is no debug directory, as in TF.
    tf.saved_model.save(_adder(tf), str(tmp_path / "plain"))
    assert not os.path.exists(str(tmp_path / "plain" / "debug"))


def _namespaced_saved_model(tmp_path):
    """A torchflow SavedModel whose serving function holds an op of namespace ``Test``
    (written with its ``Mul`` renamed in the file), loaded back."""
    path = str(tmp_path / "ns")
    tf.saved_model.save(_adder(tf), path)
    sm = tf_saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    meta = sm.meta_graphs[0]
    for fd in meta.graph_def.library.function:
        if "serve" in fd.signature.name or "signature_wrapper" in fd.signature.name:
            for node in fd.node_def:
                if node.op == "Mul":
                    node.op = "Test>CustomOp"
    with open(os.path.join(path, "saved_model.pb"), "wb") as f:
        f.write(sm.SerializeToString())
    return tf.saved_model.load(path), meta.graph_def


def test_namespace_whitelist(tmp_path):
    rtf = real_tf()
    from tensorflow.python.saved_model import save as tf_save  # TF's own check

    loaded, graph_def = _namespaced_saved_model(tmp_path)
    with pytest.raises(ValueError) as got:
        tf.saved_model.save(loaded, str(tmp_path / "refused"))
    assert not os.path.exists(str(tmp_path / "refused" / "saved_model.pb"))
    theirs_gd = rtf.compat.v1.GraphDef.FromString(graph_def.SerializeToString())
    with pytest.raises(ValueError) as theirs:
        tf_save._verify_ops(theirs_gd, [])
    # TF 2.4's text says "please add"; TF 2.21 dropped the "please ".
    assert str(got.value) == str(theirs.value).replace(
        "confirmed this, add", "confirmed this, please add")
    assert "['Test>CustomOp']" in str(got.value) and "{'Test'}" in str(got.value)
    tf_save._verify_ops(theirs_gd, ["Test"])
    tf.saved_model.save(loaded, str(tmp_path / "allowed"),
                        options=tf.saved_model.SaveOptions(namespace_whitelist=["Test"]))
    assert os.path.exists(str(tmp_path / "allowed" / "saved_model.pb"))


def test_namespace_whitelist_values():
    rtf = real_tf()
    # TF 2.4: no whitelist is an empty one (TF 2.6+ keeps None, meaning "allow all").
    assert tf.saved_model.SaveOptions().namespace_whitelist == []
    with pytest.raises(ValueError) as got:
        tf.saved_model.SaveOptions(namespace_whitelist=[1])
    with pytest.raises(ValueError) as theirs:
        rtf.saved_model.SaveOptions(namespace_whitelist=[1])
    assert str(got.value) == str(theirs.value)
    for bad in ("Custom", ("Custom",)):
        with pytest.raises(TypeError):
            rtf.saved_model.SaveOptions(namespace_whitelist=bad)
        # TF 2.4's message (TF 2.21 echoes the value and its type).
        with pytest.raises(TypeError, match=r"^Namespace whitelist must be a list of strings\.$"):
            tf.saved_model.SaveOptions(namespace_whitelist=bad)


def _variables_and_handles(path):
    meta = _meta(path)
    saved = [n.variable for n in meta.object_graph_def.nodes if n.WhichOneof("kind") == "variable"]
    handles = {n.name: n.device for n in meta.graph_def.node if n.op == "VarHandleOp"}
    return saved, handles


@pytest.mark.parametrize("policy", [None, "save_variable_devices",
                                    "expand_distributed_variables"])
def test_variable_policy_devices(tmp_path, policy):
    rtf = real_tf()
    for lib, name in ((tf, "ours"), (rtf, "theirs")):
        m = lib.Module()
        m.v = lib.Variable(1.0, name="v")
        lib.saved_model.save(m, str(tmp_path / name), options=lib.saved_model.SaveOptions(
            experimental_variable_policy=policy))
    (ours,), ours_handles = _variables_and_handles(str(tmp_path / "ours"))
    (theirs,), theirs_handles = _variables_and_handles(str(tmp_path / "theirs"))
    want = "" if policy is None else tf.Variable(1.0).device
    assert ours.device == want and ours_handles == {"v": want}
    assert bool(theirs.device) == bool(want) and list(theirs_handles) == ["v"]
    assert not ours.experimental_distributed_variable_components  # not distributed
    assert not theirs.experimental_distributed_variable_components


def test_expand_distributed_variables_writes_components(tmp_path):
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        m = tf.Module()
        m.v = tf.Variable(3.0, name="v")
    for policy in ("save_variable_devices", "expand_distributed_variables"):
        path = str(tmp_path / policy)
        tf.saved_model.save(m, path, options=tf.saved_model.SaveOptions(
            experimental_variable_policy=policy))
        (saved,), handles = _variables_and_handles(path)
        components = [(c.name, c.device) for c in saved.experimental_distributed_variable_components]
        devices = [c.device for c in m.v.values]
        if policy == "save_variable_devices":  # still one variable, as in TF
            assert components == [] and list(handles) == ["v"]
        else:  # TF's names for the components and a handle for each
            assert components == [("v", devices[0]), ("v/replica_1", devices[1])]
            assert handles == {"v": devices[0], "v/replica_1": devices[1]}
        loaded = real_tf().saved_model.load(path)
        assert float(loaded.v.numpy()) == 3.0


def test_io_device(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "io")
    m = _adder(tf)
    tf.saved_model.save(m, path, options=tf.saved_model.SaveOptions(
        experimental_io_device="/job:localhost"))
    back = tf.saved_model.load(path, options=tf.saved_model.LoadOptions(
        experimental_io_device="/job:localhost"))
    assert float(back.double(tf.constant(3.0))) == 9.0
    for bad in ("nonsense", "/job:localhost/bogus:1"):
        with pytest.raises(ValueError) as theirs:
            rtf.saved_model.save(_adder(rtf), str(tmp_path / "t"),
                                 options=rtf.saved_model.SaveOptions(experimental_io_device=bad))
        with pytest.raises(ValueError) as got:
            tf.saved_model.save(m, str(tmp_path / "o"),
                                options=tf.saved_model.SaveOptions(experimental_io_device=bad))
        assert str(got.value) == str(theirs.value)
        assert not os.path.exists(str(tmp_path / "o"))
        with pytest.raises(ValueError) as theirs:
            rtf.saved_model.load(path, options=rtf.saved_model.LoadOptions(
                experimental_io_device=bad))
        with pytest.raises(ValueError) as got:
            tf.saved_model.load(path, options=tf.saved_model.LoadOptions(
                experimental_io_device=bad))
        assert str(got.value) == str(theirs.value)
