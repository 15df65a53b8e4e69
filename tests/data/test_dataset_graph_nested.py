"""``flat_map`` / ``interleave`` / ``window`` as TF graphs (``dataset_graph_fn``).

Each pipeline is built in real TensorFlow and torchflow: real TF runs the graph torchflow
writes (``tf.raw_ops.DatasetFromGraph``) with the elements of TF's own pipeline,
torchflow rebuilds its own graph and the one TF writes (``_as_serialized_graph()``) with
those elements too, and a tf.data service ships a ``list_files().interleave(TFRecordDataset)``
pipeline to its workers as the graph, not a pickle.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys

import numpy as np
import pytest

import torchflow as tf
from tests.data.test_dataset_graph import _elements, _run_in_tf, _spec_only
from torchflow._src.core.proto import tf_graph_pb2
from torchflow._src.data import dataset_graph, dataset_graph_read
from torchflow._src.data.service import data_service_ops
from torchflow._src.testing import real_tf


def _write_records(m, d) -> list:
    """Three TFRecord files of 2, 3 and 4 records ``b"f<j>-<r>"``."""
    names = []
    for j in range(3):
        p = os.path.join(str(d), f"part-{j}.tfrecord")
        with m.io.TFRecordWriter(p) as w:
            for r in range(j + 2):
                w.write(b"f%d-%d" % (j, r))
        names.append(p)
    return names


def _pipelines(files: list) -> dict:
    pattern = os.path.join(os.path.dirname(files[0]), "part-*.tfrecord")
    return {
        "flat_map_from_tensors_repeat": lambda m: m.data.Dataset.range(3).flat_map(
            lambda x: m.data.Dataset.from_tensors(x).repeat(2)),
        "flat_map_slices": lambda m: m.data.Dataset.from_tensor_slices(
            np.array([[1, 2], [3, 4]], np.int32)).flat_map(m.data.Dataset.from_tensor_slices),
        "flat_map_range_of_element": lambda m: m.data.Dataset.range(1, 5).flat_map(
            lambda x: m.data.Dataset.range(x)),
        "interleave_map_take": lambda m: m.data.Dataset.range(1, 5).interleave(
            lambda x: m.data.Dataset.range(10).map(lambda y: y * 2).take(x), cycle_length=2,
            block_length=2),
        # a count in a function: TF's noop_elimination reads it from int64_val
        "flat_map_skip_take": lambda m: m.data.Dataset.range(2).flat_map(
            lambda x: m.data.Dataset.range(6).skip(1).take(3)),
        # tensors computed from the element: the function's recorded graph, inlined
        "computed_bound": lambda m: m.data.Dataset.range(1, 4).flat_map(
            lambda x: m.data.Dataset.range(x * 2 - 1)),
        "cast_element": lambda m: m.data.Dataset.range(3).interleave(
            lambda x: m.data.Dataset.from_tensors(m.cast(x, m.float32) / 2.0).repeat(2),
            cycle_length=2),
        "range_two_computed_bounds": lambda m: m.data.Dataset.range(1, 4).flat_map(
            lambda x: m.data.Dataset.range(x, x * 3, 2)),
        "slices_of_computed_row": lambda m: m.data.Dataset.from_tensor_slices(
            np.arange(6).reshape(3, 2)).flat_map(
            lambda r: m.data.Dataset.from_tensor_slices(r * 10 + 1)),
        "parallel_interleave_batch": lambda m: m.data.Dataset.range(1, 6).interleave(
            lambda x: m.data.Dataset.range(x).batch(2), cycle_length=3, num_parallel_calls=2,
            deterministic=True),
        "interleave_tuple_elements": lambda m: m.data.Dataset.from_tensor_slices(
            (np.arange(4), np.arange(4) * 0.5)).interleave(
            lambda a, b: m.data.Dataset.from_tensors((a, b)).repeat(3), cycle_length=2),
        "interleave_tfrecord_files": lambda m: m.data.Dataset.from_tensor_slices(files)
        .interleave(m.data.TFRecordDataset, cycle_length=2, block_length=1),
        "list_files_interleave_text_map": lambda m: m.data.Dataset.list_files(
            pattern, shuffle=False).interleave(
            lambda f: m.data.TFRecordDataset(f).map(m.strings.length), cycle_length=3),
        "window_flat_map_batch": lambda m: m.data.Dataset.range(10).window(
            3, shift=2, stride=1, drop_remainder=True).flat_map(lambda w: w.batch(3)),
        "window_stride_keep_remainder": lambda m: m.data.Dataset.range(11).window(
            4, shift=3, stride=2).flat_map(lambda w: w.batch(4)),
        "window_of_tuples_zip": lambda m: m.data.Dataset.from_tensor_slices(
            (np.arange(7), np.arange(7) * 2.0)).window(3).flat_map(
            lambda a, b: m.data.Dataset.zip((a.batch(3), b.batch(3)))),
    }


@pytest.fixture(scope="module")
def pipelines(tmp_path_factory):
    return _pipelines(_write_records(tf, tmp_path_factory.mktemp("records")))


NAMES = sorted(_pipelines(["/x/part-0.tfrecord"]))


@pytest.mark.compat
@pytest.mark.parametrize("name", NAMES)
def test_real_tf_runs_torchflow_graph(name, pipelines):
    rtf = real_tf()
    make = pipelines[name]
    ds = make(tf)
    data = dataset_graph.serialize(ds)
    dataset_graph_read.release(ds)
    want = _elements(make(rtf))
    assert _elements(_run_in_tf(rtf, data, ds.element_spec)) == want
    assert _elements(dataset_graph_read.dataset_from_graph(data, ds.element_spec)) == want


# TF writes this (a map function with the element as other_arguments); torchflow
# rebuilds it but writes it as a pickle.
FROM_TF_ONLY = {
    "inner_map_captures_element": lambda m: m.data.Dataset.range(1, 4).flat_map(
        lambda x: m.data.Dataset.range(3).map(lambda y: y * 10 + x)),
}


@pytest.mark.compat
@pytest.mark.parametrize("name", NAMES + sorted(FROM_TF_ONLY))
def test_torchflow_rebuilds_tf_graph(name, pipelines):
    rtf = real_tf()
    make = pipelines.get(name) or FROM_TF_ONLY[name]
    tf_ds = make(rtf)
    ds = dataset_graph_read.dataset_from_graph(tf_ds._as_serialized_graph().numpy(),
                                               _spec_only(make))
    assert _elements(ds) == _elements(tf_ds)


RAGGED = {
    "slices_rank2": lambda m: m.data.Dataset.from_tensor_slices(
        m.ragged.constant([[1, 2], [3], [4, 5, 6]])),
    "slices_rank3_batch": lambda m: m.data.Dataset.from_tensor_slices(
        m.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]], [[7]]])).batch(2),
    "slices_strings_repeat_take": lambda m: m.data.Dataset.from_tensor_slices(
        m.ragged.constant([["a", "bc"], [], ["d"]])).repeat(2).take(5),
    "zip_ragged_dense_shuffle_free": lambda m: m.data.Dataset.zip((
        m.data.Dataset.from_tensor_slices(m.ragged.constant([[1.5], [2.5, 3.5]])),
        m.data.Dataset.range(2))).skip(1),
    "from_tensors_ragged_repeat": lambda m: m.data.Dataset.from_tensors(
        m.ragged.constant([[1, 2], [3]])).repeat(2),
    "flat_map_to_ragged_slices": lambda m: m.data.Dataset.range(2).flat_map(
        lambda x: m.data.Dataset.from_tensor_slices(m.ragged.constant([[1], [2, 3]]))),
}


def _ragged_py(e):
    if isinstance(e, tuple):
        return tuple(_ragged_py(x) for x in e)
    return ("ragged", e.to_list()) if hasattr(e, "to_list") else _elements([e])[0]


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(RAGGED))
def test_ragged_elements_both_ways(name):
    rtf = real_tf()
    make = RAGGED[name]
    want = [_ragged_py(e) for e in make(rtf)]
    ds = make(tf)
    assert [_ragged_py(e) for e in ds] == want
    data = dataset_graph.serialize(ds)
    assert [_ragged_py(e) for e in dataset_graph_read.dataset_from_graph(
        data, ds.element_spec)] == want
    tf_spec = make(rtf).element_spec
    variant = rtf.raw_ops.DatasetFromGraph(graph_def=data)
    assert [_ragged_py(e) for e in rtf.data.experimental.from_variant(
        variant, structure=tf_spec)] == want
    from_tf = dataset_graph_read.dataset_from_graph(make(rtf)._as_serialized_graph().numpy(),
                                                    ds.element_spec)
    assert [_ragged_py(e) for e in from_tf] == want


def test_ragged_element_functions_keep_the_pickle():
    # a map over ragged elements: its FunctionDef would take the components, where TF
    # passes one DT_VARIANT
    ds = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1], [2, 3]])).map(
        lambda r: r * 2)
    with pytest.raises(dataset_graph.UnserializableDatasetError):
        dataset_graph.serialize(ds)
    assert data_service_ops.encode_dataset(ds)[0] == "pickle"


def _ops(gd) -> dict:
    """The ops of the graph and, by function name, of each library function."""
    return {"": [n.op for n in gd.node],
            **{f.signature.name: [n.op for n in f.node_def] for f in gd.library.function}}


def test_graph_nodes_are_tfs():
    ds = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.range(x).map(lambda y: y + 1), cycle_length=2,
        num_parallel_calls=2, deterministic=False)
    gd = dataset_graph.dataset_graph_def(ds)
    node = next(n for n in gd.node if n.op == "ParallelInterleaveDatasetV4")
    assert node.attr["deterministic"].s == b"false"
    assert len(node.input) == 6  # input, cycle, block, buffer, prefetch, parallel calls
    fns = {f.signature.name: f for f in gd.library.function}
    body = fns[node.attr["f"].func.name]
    assert [a.type for a in body.signature.output_arg] == [21]  # DT_VARIANT
    assert [n.op for n in body.node_def if n.op != "Const"] == ["RangeDataset", "MapDataset"]
    assert body.ret["identity"].startswith("MapDataset") and body.ret["identity"].endswith(
        ":handle:0")
    # range(x): the element is the stop argument, not a constant
    rng = next(n for n in body.node_def if n.op == "RangeDataset")
    assert rng.input[1] == "args_0"
    flat = dataset_graph.dataset_graph_def(tf.data.Dataset.range(3).flat_map(
        lambda x: tf.data.Dataset.from_tensors(x)))
    assert "FlatMapDataset" in _ops(flat)[""]
    win = dataset_graph.dataset_graph_def(tf.data.Dataset.range(5).window(2))
    node = next(n for n in win.node if n.op == "WindowDataset")
    assert list(node.attr["output_types"].list.type) == [21]


def _without_graph():
    v = tf.Variable(3, dtype=tf.int64)
    return {
        # a file name computed from a string element (string ops are not recorded)
        "computed_file_name": tf.data.Dataset.from_tensor_slices(["a", "b"]).flat_map(
            lambda f: tf.data.Dataset.from_tensors(tf.strings.join([f, "x"]))),
        # an inner map function that captures the element
        "inner_capture": tf.data.Dataset.range(3).interleave(
            lambda x: tf.data.Dataset.range(4).map(lambda y: y + x), cycle_length=2),
        "inner_variable": tf.data.Dataset.range(3).flat_map(
            lambda x: tf.data.Dataset.from_tensors(x).map(lambda y: y + v)),
    }


@pytest.mark.parametrize("name", sorted(_without_graph()))
def test_functions_without_a_graph_form_keep_the_pickle(name):
    ds = _without_graph()[name]
    with pytest.raises(dataset_graph.UnserializableDatasetError):
        dataset_graph.serialize(ds)
    kind, _ = data_service_ops.encode_dataset(ds)
    assert kind == "pickle"
    assert _elements(ds)  # and the pipeline itself runs


@pytest.mark.multiprocess
def test_service_ships_list_files_interleave_as_graph(tmp_path):
    from tests.data.test_data_service import Cluster, _dataset_def

    _write_records(tf, tmp_path)
    marks = tmp_path / "called"

    def read(f):
        with open(marks, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        return tf.data.TFRecordDataset(f)

    old_token = os.environ.get("TORCHFLOW_CLUSTER_TOKEN")
    os.environ["TORCHFLOW_CLUSTER_TOKEN"] = "test-token-" + os.urandom(8).hex()
    c = Cluster(tmp_path / "dispatcher")
    try:
        c.start_dispatcher()
        c.start_worker(0)
        c.start_worker(1)
        c.wait_workers(2)
        ds = tf.data.Dataset.list_files(str(tmp_path / "part-*.tfrecord"), shuffle=False) \
            .interleave(read, cycle_length=2)
        dataset_id = tf.data.experimental.service.register_dataset(c.target, ds)
        d = _dataset_def(c, dataset_id)
        assert d["kind"] == "graph"
        gd = tf_graph_pb2.GraphDef()
        gd.ParseFromString(bytes(d["data"]))
        ops = _ops(gd)
        assert "InterleaveDataset" in ops[""]
        assert any("TFRecordDataset" in v for k, v in ops.items() if k)
        records = [b"f%d-%d" % (j, r) for j in range(3) for r in range(j + 2)]
        for mode, times in (("parallel_epochs", 2), ("distributed_epoch", 1)):
            got = tf.data.experimental.service.from_dataset_id(mode, c.target, dataset_id)
            assert collections.Counter(x.numpy() for x in got) == {r: times for r in records}
        # the function's Python ran here only (writing the graph), never in a worker
        assert set(marks.read_text().split()) == {str(os.getpid())}
    finally:
        c.close()
        if old_token is None:
            os.environ.pop("TORCHFLOW_CLUSTER_TOKEN", None)
        else:
            os.environ["TORCHFLOW_CLUSTER_TOKEN"] = old_token


_SAME_PIPELINE = """
import sys, torchflow as tf
from torchflow._src.data import dataset_graph
ds = tf.data.Dataset.range(1, 5).interleave(
    lambda x: tf.data.Dataset.range(x * 2).map(lambda y: y + 1).batch(2), cycle_length=2,
    num_parallel_calls=2).window(2).flat_map(lambda w: w.batch(2))
sys.stdout.write(dataset_graph.serialize(ds).hex())
"""


def test_same_nested_pipeline_same_bytes_in_another_process():
    # distribute() in two processes shares one dataset when the bytes agree
    def run(seed):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        return subprocess.run([sys.executable, "-c", _SAME_PIPELINE], env=env, timeout=120,
                              capture_output=True, text=True, check=True).stdout

    assert run("1") == run("2") != ""
