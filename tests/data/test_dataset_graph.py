"""Datasets as TF ``GraphDef``\\ s of dataset ops (``dataset_graph`` / ``dataset_graph_read``).

Each pipeline is written once for a module ``m`` and built in both real TensorFlow and
torchflow: torchflow's graph rebuilds in torchflow with the same elements, real TF
runs torchflow's graph (``tf.raw_ops.DatasetFromGraph``) with the elements TF's own
pipeline gives, and torchflow rebuilds the graph TF wrote
(``dataset._as_serialized_graph()``) with those elements too.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_graph_pb2, tf_tensor_pb2
from torchflow._src.data import dataset_graph, dataset_graph_read
from torchflow._src.data.service import data_service_ops
from torchflow._src.ops.tensor_proto_ops import from_proto
from torchflow._src.testing import real_tf

_IMG = np.arange(6 * 2 * 3, dtype=np.uint8).reshape(6, 2, 3)
_LBL = np.array([3, 1, 4, 1, 5, 9], np.int64)

def _captured(m):
    c = m.constant([10.0, 20.0])
    return m.data.Dataset.range(4).map(lambda x: m.cast(x, m.float32) * c)


PIPELINES = {
    "map_filter_batch": lambda m: m.data.Dataset.range(10).map(
        lambda x: (x * 2, m.cast(x, m.float32) + 1.5)).filter(lambda a, b: a > 3).batch(3),
    "parallel_map_prefetch": lambda m: m.data.Dataset.from_tensor_slices((_IMG, _LBL)).map(
        lambda x, y: (m.cast(x, m.float32) / 255.0, y), num_parallel_calls=2
    ).batch(4, drop_remainder=True).prefetch(2),
    "dict_strings": lambda m: m.data.Dataset.from_tensor_slices(
        {"name": ["a", "bb", "ccc"], "v": np.array([1.5, 2.5, 3.5], np.float32)}).map(
        lambda d: {"n": m.strings.length(d["name"]), "v": d["v"] * 2.0}),
    "repeat_skip_take_shard": lambda m: m.data.Dataset.range(7).repeat(3).skip(2).take(15)
    .shard(3, 1),
    "zip_concatenate": lambda m: m.data.Dataset.zip((
        m.data.Dataset.range(3), m.data.Dataset.from_tensor_slices(["x", "y", "z"]))).concatenate(
        m.data.Dataset.zip((m.data.Dataset.range(7, 8), m.data.Dataset.from_tensors("w")))),
    "range_int32": lambda m: m.data.Dataset.range(2, 9, 2, output_type=m.int32).map(
        lambda x: x * x),
    "cache_repeat": lambda m: m.data.Dataset.range(5).map(lambda x: x + 1).cache().repeat(2),
    "captured_constant": lambda m: _captured(m),
    "padded_batch_unbatch": lambda m: m.data.Dataset.range(1, 6).map(
        lambda x: (m.stack([x, x + 1]), m.cast(x, m.float32))).padded_batch(
        2, padded_shapes=([4], []), padding_values=(m.constant(-1, m.int64), 0.5))
    .unbatch(),
    "enumerate": lambda m: m.data.Dataset.from_tensor_slices(["a", "b"]).enumerate(3),
    "from_tensors_unbatched": lambda m: m.data.Dataset.from_tensors(
        (np.arange(6, dtype=np.int32).reshape(2, 3), "s")).repeat(2),
}

# Functions returning datasets: torchflow rebuilds the graphs TF writes for them (the
# body's dataset ops built from the element's tensors; torchflow's own graphs of them:
# test_dataset_graph_nested.py).
FROM_TF_ONLY = {
    "map_and_batch": lambda m: m.data.Dataset.range(7).apply(
        m.data.experimental.map_and_batch(lambda x: x * 2, 3)),
    "flat_map_from_tensors": lambda m: m.data.Dataset.range(3).flat_map(
        lambda x: m.data.Dataset.from_tensors(x).repeat(2)),
    "flat_map_slices": lambda m: m.data.Dataset.from_tensor_slices(
        np.array([[1, 2], [3, 4]], np.int32)).flat_map(m.data.Dataset.from_tensor_slices),
    "interleave_nested_map": lambda m: m.data.Dataset.range(1, 4).interleave(
        lambda x: m.data.Dataset.range(x).map(lambda y: y + 10 * x), cycle_length=2,
        block_length=1),
    "parallel_interleave": lambda m: m.data.Dataset.range(1, 5).interleave(
        lambda x: m.data.Dataset.range(x).map(lambda y: y * 2), cycle_length=3,
        num_parallel_calls=2, deterministic=True),
}

# Order depends on the random stream, which is each runtime's own: multisets compared.
SHUFFLED = {"shuffle_seeded": lambda m: m.data.Dataset.range(20).shuffle(8, seed=3).map(
    lambda x: x * 3)}


def _py(e):
    if isinstance(e, dict):
        return {k: _py(v) for k, v in e.items()}
    if isinstance(e, tuple):
        return tuple(_py(v) for v in e)
    a = np.asarray(e.numpy())
    return ("bytes" if a.dtype.kind == "O" else a.dtype.name, a.tolist())


def _elements(ds) -> list:
    return [_py(e) for e in ds]


def _tf_spec(rtf, spec):
    """torchflow's element_spec as real TF's (the structure a variant dataset needs)."""
    if isinstance(spec, dict):
        return {k: _tf_spec(rtf, v) for k, v in spec.items()}
    if isinstance(spec, tuple):
        return tuple(_tf_spec(rtf, v) for v in spec)
    return rtf.TensorSpec(spec.shape.as_list() if spec.shape.rank is not None else None,
                          rtf.as_dtype(spec.dtype.name))


def _spec_only(make):
    """The element_spec of ``make(tf)``, a pipeline that is never iterated (its spec
    computation's threads stopped)."""
    ds = make(tf)
    spec = ds.element_spec
    dataset_graph_read.release(ds)
    return spec


def _run_in_tf(rtf, data: bytes, spec):
    variant = rtf.raw_ops.DatasetFromGraph(graph_def=data)
    return rtf.data.experimental.from_variant(variant, structure=_tf_spec(rtf, spec))


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_round_trip_in_torchflow(name):
    ds = PIPELINES[name](tf)
    data = dataset_graph.serialize(ds)
    back = dataset_graph_read.dataset_from_graph(data, ds.element_spec)
    assert back.element_spec == ds.element_spec
    assert _elements(back) == _elements(ds)


def test_as_serialized_graph_is_the_graph():
    ds = PIPELINES["map_filter_batch"](tf)
    g = ds._as_serialized_graph()
    assert g.dtype == tf.string and g.shape == []
    assert g.numpy() == dataset_graph.serialize(ds)
    with pytest.raises(tf.errors.UnimplementedError):
        tf.data.Dataset.range(3).map(lambda x: tf.py_function(lambda y: y, [x], tf.int64)
                                     )._as_serialized_graph()


def test_graph_holds_tf_ops_and_functions():
    gd = dataset_graph.dataset_graph_def(PIPELINES["map_filter_batch"](tf))
    ops = [n.op for n in gd.node if n.op != "Const"]
    assert ops == ["RangeDataset", "MapDataset", "FilterDataset", "BatchDatasetV2", "_Retval"]
    by_op = {n.op: n for n in gd.node}
    fname = by_op["MapDataset"].attr["f"].func.name
    fdef = {f.signature.name: f for f in gd.library.function}[fname]
    assert [a.type for a in fdef.signature.output_arg] == [tf.int64.as_datatype_enum,
                                                          tf.float32.as_datatype_enum]
    assert {n.op for n in fdef.node_def} >= {"Mul", "Cast", "AddV2"}
    assert list(by_op["MapDataset"].attr["output_types"].list.type) == [
        tf.int64.as_datatype_enum, tf.float32.as_datatype_enum]
    assert by_op["_Retval"].input == [by_op["BatchDatasetV2"].name]


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_real_tf_runs_torchflow_graph(name):
    rtf = real_tf()
    ds = PIPELINES[name](tf)
    data = dataset_graph.serialize(ds)
    dataset_graph_read.release(ds)  # never iterated here
    got = _elements(_run_in_tf(rtf, data, ds.element_spec))
    assert got == _elements(PIPELINES[name](rtf))


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_torchflow_rebuilds_tf_graph(name):
    rtf = real_tf()
    tf_ds = PIPELINES[name](rtf)
    data = tf_ds._as_serialized_graph().numpy()
    ds = dataset_graph_read.dataset_from_graph(data, _spec_only(PIPELINES[name]))
    assert _elements(ds) == _elements(tf_ds)


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(FROM_TF_ONLY))
def test_torchflow_rebuilds_tf_dataset_functions(name):
    rtf = real_tf()
    tf_ds = FROM_TF_ONLY[name](rtf)
    ds = dataset_graph_read.dataset_from_graph(tf_ds._as_serialized_graph().numpy(),
                                               _spec_only(FROM_TF_ONLY[name]))
    assert _elements(ds) == _elements(tf_ds)


@pytest.mark.compat
def test_shuffled_both_ways():
    rtf = real_tf()
    want = collections.Counter(x * 3 for x in range(20))
    ds = SHUFFLED["shuffle_seeded"](tf)
    data = dataset_graph.serialize(ds)
    back = dataset_graph_read.dataset_from_graph(data, ds.element_spec)
    # the graph keeps the seed pair: the rebuilt dataset shuffles as the original does
    assert [int(x) for x in back] == [int(x) for x in ds]
    assert collections.Counter(int(x) for x in _run_in_tf(rtf, data, ds.element_spec)) == want
    tf_data = SHUFFLED["shuffle_seeded"](rtf)._as_serialized_graph().numpy()
    from_tf = dataset_graph_read.dataset_from_graph(tf_data)
    assert collections.Counter(int(x) for x in from_tf) == want


def _files(m, tmp_path):
    text = tmp_path / "a.txt"
    text.write_bytes(b"one\ntwo\r\nthree")
    rec = str(tmp_path / "b.tfrecord")
    with m.io.TFRecordWriter(rec) as w:
        for r in (b"r0", b"r11", b""):
            w.write(r)
    return str(text), rec


@pytest.mark.compat
def test_file_readers_both_ways(tmp_path):
    rtf = real_tf()
    text, rec = _files(tf, tmp_path)
    for make in (lambda m: m.data.TextLineDataset([text, text]),
                 lambda m: m.data.TFRecordDataset(rec).map(m.strings.length)):
        ds = make(tf)
        want = _elements(make(rtf))
        data = dataset_graph.serialize(ds)
        assert _elements(dataset_graph_read.dataset_from_graph(data, ds.element_spec)) == want
        assert _elements(_run_in_tf(rtf, data, ds.element_spec)) == want
        # TF writes a file reader as flat_map over the file names, the reader in its body
        tf_data = make(rtf)._as_serialized_graph().numpy()
        got = dataset_graph_read.dataset_from_graph(tf_data, ds.element_spec)
        assert _elements(got) == want


def _unserializable():
    v = tf.Variable(2, dtype=tf.int64)
    return {
        "from_generator": tf.data.Dataset.from_generator(
            lambda: iter([1, 2]), output_signature=tf.TensorSpec([], tf.int64)),
        "py_function": tf.data.Dataset.range(3).map(
            lambda x: tf.py_function(lambda y: y + 1, [x], tf.int64)),
        "variable": tf.data.Dataset.range(3).map(lambda x: x + v),
        # a tensor computed from a string element (other flat_maps are written:
        # test_dataset_graph_nested.py)
        "flat_map": tf.data.Dataset.from_tensor_slices(["a", "b"]).flat_map(
            lambda f: tf.data.Dataset.from_tensors(tf.strings.join([f, "x"]))),
        "value_read": tf.data.Dataset.range(3).map(lambda x: tf.range(x)),
        # from_tensor_slices of a RaggedTensor is written (test_dataset_graph_nested.py)
        "sparse": tf.data.Dataset.from_tensor_slices(tf.sparse.SparseTensor(
            [[0, 0], [1, 2]], [1, 2], [2, 3])),
    }


@pytest.mark.parametrize("name", sorted(_unserializable()))
def test_pipelines_without_a_graph_form(name):
    ds = _unserializable()[name]
    with pytest.raises(dataset_graph.UnserializableDatasetError):
        dataset_graph.serialize(ds)
    kind, _ = data_service_ops.encode_dataset(ds)
    assert kind == "pickle"


def test_service_encoding_prefers_the_graph():
    ds = PIPELINES["map_filter_batch"](tf)
    kind, data = data_service_ops.encode_dataset(ds)
    assert kind == "graph"
    gd = tf_graph_pb2.GraphDef()
    gd.ParseFromString(data)
    assert gd.node[-1].op == "_Retval"


def test_reader_errors():
    with pytest.raises(tf.errors.InvalidArgumentError):
        dataset_graph_read.dataset_from_graph(b"\xff\xff garbage")
    gd = dataset_graph.dataset_graph_def(tf.data.Dataset.range(3))
    gd.node[-1].op = "NoOp"
    with pytest.raises(tf.errors.InvalidArgumentError, match="_Retval"):
        dataset_graph_read.dataset_from_graph(gd)
    gd = dataset_graph.dataset_graph_def(tf.data.Dataset.range(3))
    next(n for n in gd.node if n.op == "RangeDataset").op = "PyFuncDataset"
    with pytest.raises(tf.errors.UnimplementedError, match="PyFuncDataset"):
        dataset_graph_read.dataset_from_graph(gd)
    with pytest.raises(tf.errors.InvalidArgumentError, match="components"):
        dataset_graph_read.dataset_from_graph(dataset_graph.serialize(tf.data.Dataset.range(3)),
                                              (tf.TensorSpec([], tf.int64),) * 2)


def test_string_constants_as_tf_writes_them():
    # C++ TF writes string tensors of graphs in tensor_content (varint lengths, then bytes),
    # as in TF's GraphDef of from_tensor_slices(["x", "y", "z"]): "\001\001\001xyz".
    long = b"q" * 300  # a two-byte length
    p = tf_tensor_pb2.TensorProto(dtype=tf.string.as_datatype_enum,
                                  tensor_content=b"\x01\x02\x00\xac\x02" + b"xyz" + long)
    p.tensor_shape.dim.add(size=4)
    assert from_proto(p).numpy().tolist() == [b"x", b"yz", b"", long]
    p.tensor_content = b"\x05ab"
    p.tensor_shape.dim[0].size = 1
    with pytest.raises(tf.errors.InvalidArgumentError):
        from_proto(p)


_SAME_PIPELINE = """
import sys, torchflow as tf
from torchflow._src.data import dataset_graph
ds = tf.data.Dataset.range(10).map(lambda x: (x * 2, tf.cast(x, tf.float32) + 1.5)).filter(
    lambda a, b: a > 3).batch(3).shuffle(4, seed=1)
sys.stdout.write(dataset_graph.serialize(ds).hex())
"""


def test_same_pipeline_same_bytes_in_another_process():
    # distribute() in two processes registers one dataset when the bytes agree
    def run(seed):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        return subprocess.run([sys.executable, "-c", _SAME_PIPELINE], env=env, timeout=120,
                              capture_output=True, text=True, check=True).stdout

    assert run("1") == run("2") != ""
