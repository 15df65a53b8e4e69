"""tf.io.write_graph against real TensorFlow: for the same GraphDef bytes the text and
binary files are identical to TF's; a function's graph written by torchflow parses in
TF to the same GraphDef; the directory is created and the path returned as TF's."""

from __future__ import annotations

import os

import pytest

import torchflow
from torchflow._src.core.proto import tf_graph_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _tf_graph_def():
    rtf = real_tf()

    @rtf.function
    def f(x, y):
        return rtf.reduce_sum(rtf.matmul(x, y) * 0.1) + rtf.constant([1.5, -2.25])

    return f.get_concrete_function(rtf.TensorSpec([2, 3], rtf.float32),
                                   rtf.TensorSpec([3, 2], rtf.float32)).graph.as_graph_def()


@pytest.mark.parametrize("as_text", [True, False])
def test_files_are_tfs_for_the_same_graph_def(tmp_path, as_text):
    theirs = _tf_graph_def()
    ours = tf_graph_pb2.GraphDef.FromString(theirs.SerializeToString())
    want = real_tf().io.write_graph(theirs, str(tmp_path / "tf" / "sub"), "g.pb", as_text)
    got = torchflow.io.write_graph(ours, str(tmp_path / "tflow" / "sub"), "g.pb", as_text)
    assert got == os.path.join(str(tmp_path / "tflow" / "sub"), "g.pb")
    assert os.path.basename(got) == os.path.basename(want)
    assert open(got, "rb").read() == open(want, "rb").read()
    assert os.listdir(os.path.dirname(got)) == ["g.pb"]


@pytest.mark.parametrize("as_text", [True, False])
def test_function_graph_parses_in_tf(tmp_path, as_text):
    rtf = real_tf()
    f = torchflow.function(lambda x: torchflow.nn.relu(x) * 2.0 + 1.0)
    graph = f.get_concrete_function(torchflow.TensorSpec([None, 4], torchflow.float32)).graph
    path = torchflow.io.write_graph(graph, str(tmp_path), "f.pbtxt", as_text=as_text)
    data = open(path, "rb").read()
    gd = rtf.compat.v1.GraphDef()
    if as_text:
        from google.protobuf import text_format
        text_format.Parse(data.decode(), gd)
    else:
        gd.ParseFromString(data)
    assert gd.SerializeToString(deterministic=True) == \
        graph.as_graph_def().SerializeToString(deterministic=True)
    assert {n.op for n in gd.node} >= {"Placeholder", "Relu", "Mul", "AddV2"}
