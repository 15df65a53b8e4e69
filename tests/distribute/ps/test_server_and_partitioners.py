"""tf.distribute.Server (in-process) and the partitioners, against real TF."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core import rpc
from torchflow._src.testing import real_tf


def test_server_targets_and_arguments():
    server = tf.distribute.Server.create_local_server()
    try:
        assert server.target.startswith("grpc://localhost:")
        port = int(server.target.rsplit(":", 1)[1])
        assert port > 0
        assert rpc.Channel(f"localhost:{port}").ping(timeout=5.0)
    finally:
        server._stop()
    port = rpc.pick_unused_port()
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{port}"]})
    s = tf.distribute.Server(spec, start=False)  # one job, one task: both implied
    assert s.target == f"grpc://localhost:{port}"
    s.start()
    try:
        assert s.target == f"grpc://localhost:{port}"
    finally:
        s._stop()


@pytest.mark.parametrize("cluster, kwargs, message", [
    ({"worker": ["localhost:1"], "ps": ["localhost:2"]}, {}, "Must specify an explicit `job_name`."),
    ({"worker": ["localhost:1", "localhost:2"]}, {"job_name": "worker"},
     "Must specify an explicit `task_index`."),
])
def test_server_argument_errors_match_tf(cluster, kwargs, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        tf.distribute.Server(cluster, start=False, **kwargs)
    rtf = real_tf()
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        rtf.distribute.Server(rtf.train.ClusterSpec(cluster), start=False, **kwargs)


def test_server_refuses_other_protocols_and_busy_ports():
    with pytest.raises(tf.errors.UnimplementedError):
        tf.distribute.Server({"worker": ["localhost:1"]}, protocol="grpc+verbs", start=False)
    busy = tf.distribute.Server.create_local_server()
    try:
        port = busy.target.rsplit(":", 1)[1]
        with pytest.raises(tf.errors.UnknownError, match="Could not start gRPC server"):
            tf.distribute.Server({"worker": [f"localhost:{port}"]})
    finally:
        busy._stop()


def test_strategy_needs_ps_and_worker_tasks():
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver
    for cluster, message in (({"worker": ["localhost:1"]}, "There must be at least one ps."),
                             ({"ps": ["localhost:1"]}, "There must be at least one worker.")):
        with pytest.raises(ValueError, match=message.replace(".", r"\.")):
            tf.distribute.experimental.ParameterServerStrategy(
                resolver(tf.train.ClusterSpec(cluster)))
    with pytest.raises(ValueError, match="Only `tf.distribute.experimental.ParameterServer"):
        tf.distribute.experimental.coordinator.ClusterCoordinator(
            tf.distribute.get_strategy())


SHAPES = [(10,), (9, 20), (1000, 64), (3, 5, 7), (1, 4), (100000, 8)]
DTYPES = ["float32", "float64", "int8", "string"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_partitioners_agree_with_tf(shape, dtype):
    rtf = real_tf()
    ours = tf.distribute.experimental.partitioners
    theirs = rtf.distribute.experimental.partitioners
    cases = [("FixedShardsPartitioner", dict(num_shards=2)),
             ("FixedShardsPartitioner", dict(num_shards=7)),
             ("MinSizePartitioner", dict()),
             ("MinSizePartitioner", dict(min_shard_bytes=64, max_shards=4)),
             ("MinSizePartitioner", dict(min_shard_bytes=1000, max_shards=100,
                                         bytes_per_string=4)),
             ("MaxSizePartitioner", dict(max_shard_bytes=64)),
             ("MaxSizePartitioner", dict(max_shard_bytes=1000, max_shards=3)),
             ("MaxSizePartitioner", dict(max_shard_bytes=1 << 20))]
    for name, kw in cases:
        mine = getattr(ours, name)(**kw)(tf.TensorShape(shape), tf.as_dtype(dtype))
        ref = getattr(theirs, name)(**kw)(rtf.TensorShape(shape), rtf.as_dtype(dtype))
        assert list(mine) == [int(x) for x in ref], (name, kw)


def test_partitioner_argument_errors():
    p = tf.distribute.experimental.partitioners
    for bad in (lambda: p.MinSizePartitioner(min_shard_bytes=0),
                lambda: p.MinSizePartitioner(max_shards=0),
                lambda: p.MaxSizePartitioner(max_shard_bytes=0),
                lambda: p.MaxSizePartitioner(1, max_shards=-1)):
        with pytest.raises(ValueError, match="must be positive"):
            bad()


def test_sharded_variable_in_process_cluster():
    """TF's tutorial shape: servers of every task in this process, a partitioner."""
    ports = [rpc.pick_unused_port() for _ in range(3)]
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{ports[0]}"],
                                 "ps": [f"localhost:{p}" for p in ports[1:]]})
    servers = [tf.distribute.Server(spec, job_name="worker", task_index=0),
               *[tf.distribute.Server(spec, job_name="ps", task_index=i) for i in range(2)]]
    try:
        strategy = tf.distribute.experimental.ParameterServerStrategy(
            tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc"),
            variable_partitioner=tf.distribute.experimental.partitioners.MinSizePartitioner(
                min_shard_bytes=16, max_shards=2))
        with strategy.scope():
            v = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(6, 2), name="table")
        assert [tuple(s.shape) for s in v.variables] == [(3, 2), (3, 2)]
        coord = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
        try:
            @tf.function
            def rows(ids):
                return v.sparse_read(ids)

            got = coord.schedule(rows, args=(tf.constant([5, 0, 3]),)).fetch()
            np.testing.assert_array_equal(got, [[10, 11], [0, 1], [6, 7]])
        finally:
            coord._stop()
    finally:
        for s in servers:
            s._stop()
