"""Malformed, truncated and inconsistent SavedModels: the errors TF gives, never a crash.

Real TF writes one small SavedModel; each test damages a copy and checks that
torchflow raises the exception type TF raises for the same damage (and TF's
message where users search for it).
"""

import shutil

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    ttf = real_tf()

    class Mod(ttf.Module):
        def __init__(self):
            super().__init__()
            self.w = ttf.Variable([[1.0, 2.0], [3.0, 4.0]])

        @ttf.function(input_signature=[ttf.TensorSpec([None, 2], ttf.float32)])
        def f(self, x):
            return ttf.nn.relu(ttf.matmul(x, self.w))

    path = tmp_path_factory.mktemp("sm_errors") / "good"
    ttf.saved_model.save(Mod(), str(path))
    return str(path)


@pytest.fixture
def copy(good, tmp_path):
    dst = tmp_path / "copy"
    shutil.copytree(good, dst)
    return dst


def _both_raise(path):
    """The exceptions real TF and torchflow raise loading ``path``."""
    with pytest.raises(Exception) as want:
        real_tf().saved_model.load(str(path))
    with pytest.raises(Exception) as got:
        tf.saved_model.load(str(path))
    return want.value, got.value


def test_good_model_loads(good):
    loaded = tf.saved_model.load(good)
    np.testing.assert_allclose(loaded.f(tf.constant([[1.0, -1.0]])).numpy(), [[0.0, 0.0]])


def test_missing_directory(tmp_path):
    want, got = _both_raise(tmp_path / "nothing")
    assert type(got) is type(want) is OSError
    assert str(got) == str(want)
    assert "SavedModel file does not exist at" in str(got)


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_corrupt_saved_model_pb(copy, damage):
    pb = copy / "saved_model.pb"
    data = pb.read_bytes()
    pb.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"\xff\xfe junk" * 9)
    want, got = _both_raise(copy)
    assert type(got) is type(want) is OSError
    assert str(got).startswith("Cannot parse file") and "Wire format was corrupt" in str(got)


def test_empty_saved_model_pb(copy):
    (copy / "saved_model.pb").write_bytes(b"")
    want, got = _both_raise(copy)
    assert type(got) is type(want) is ValueError
    assert "there are 0 MetaGraphs" in str(got)


def test_missing_variables(copy):
    shutil.rmtree(copy / "variables")
    want, got = _both_raise(copy)
    assert type(got) is type(want) is FileNotFoundError
    assert "Failed to find any matching files for" in str(got)


def test_truncated_variables_index(copy):
    index = copy / "variables" / "variables.index"
    index.write_bytes(index.read_bytes()[:20])
    want, got = _both_raise(copy)
    assert isinstance(got, tf.errors.OpError) and isinstance(want, real_tf().errors.OpError)
    assert got.error_code == want.error_code


def test_truncated_variables_data(copy):
    data = copy / "variables" / "variables.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[:5])
    want, got = _both_raise(copy)
    assert type(got) is type(want)


def test_wrong_tags(good):
    with pytest.raises(ValueError, match="incompatible argument to `tags`") as want:
        real_tf().saved_model.load(good, tags=["train"])
    with pytest.raises(ValueError) as got:
        tf.saved_model.load(good, tags=["train"])
    assert str(got.value) == str(want.value)
    assert tf.saved_model.load(good, tags=["serve"]).w.shape == (2, 2)


def _rewrite(path, edit):
    pb = path / "saved_model.pb"
    sm = tf_saved_model_pb2.SavedModel.FromString(pb.read_bytes())
    edit(sm.meta_graphs[0])
    pb.write_bytes(sm.SerializeToString(deterministic=True))


def test_unknown_op_names_the_op(copy):
    def rename(meta):
        for fdef in meta.graph_def.library.function:
            for node in fdef.node_def:
                if node.op == "Relu":
                    node.op = "NoSuchOpAnywhere"
    _rewrite(copy, rename)
    loaded = tf.saved_model.load(str(copy))
    with pytest.raises(tf.errors.NotFoundError, match="Op type not registered "
                                                      "'NoSuchOpAnywhere'"):
        loaded.f(tf.constant([[1.0, 2.0]]))


def test_child_out_of_range(copy):
    def dangle(meta):
        meta.object_graph_def.nodes[0].children.add(local_name="ghost", node_id=999)
    _rewrite(copy, dangle)
    with pytest.raises(tf.errors.InvalidArgumentError, match="node 999"):
        tf.saved_model.load(str(copy))


def test_missing_library_function(copy):
    def drop(meta):
        del meta.graph_def.library.function[:]
    _rewrite(copy, drop)
    with pytest.raises(tf.errors.NotFoundError, match="not defined in the SavedModel"):
        tf.saved_model.load(str(copy))


def test_bad_options(good):
    with pytest.raises(TypeError, match="LoadOptions"):
        tf.saved_model.load(good, options={"experimental_io_device": None})
    loaded = tf.saved_model.load(
        good, options=tf.saved_model.LoadOptions(experimental_skip_checkpoint=True))
    np.testing.assert_allclose(loaded.w.numpy(), np.zeros((2, 2)))



def test_graph_versions_are_not_checked_as_in_tf(copy):
    """TF 2's loader imports the function library and never runs the GraphDef, so a
    GraphDef asking for a newer consumer loads (an op torchflow lacks still fails, by
    name, when called)."""
    def bump(meta):
        meta.graph_def.versions.min_consumer = 100000
        meta.graph_def.versions.bad_consumers.append(561)  # TF 2.4's GraphDef version
    _rewrite(copy, bump)
    ref = real_tf().saved_model.load(str(copy))  # kept: its functions need its variables
    loaded = tf.saved_model.load(str(copy))
    x = np.array([[1.0, 1.0]], np.float32)
    np.testing.assert_allclose(loaded.f(x).numpy(), ref.f(x).numpy())
