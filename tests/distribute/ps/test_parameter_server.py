"""ParameterServerStrategy + ClusterCoordinator on a local cluster of real processes
(2 workers + 2 ps on 127.0.0.1): placement, sharding, convergence, no lost updates,
error semantics, a SIGKILLed worker, refused bad calls."""

import os
import time

import numpy as np
import pytest
from ps_cluster import MAX_BYTES, TOKEN, Cluster, Zygote

import torchflow as tf
from torchflow._src.core import rpc

pytestmark = pytest.mark.multiprocess


@pytest.fixture(scope="module")
def zygote():
    old = os.environ.get(rpc.TOKEN_ENV)
    os.environ[rpc.TOKEN_ENV] = TOKEN
    z = Zygote()
    try:
        yield z
    finally:
        z.close()
        if old is None:
            os.environ.pop(rpc.TOKEN_ENV, None)
        else:
            os.environ[rpc.TOKEN_ENV] = old


@pytest.fixture(scope="module")
def cluster(zygote):
    c = Cluster(zygote, workers=2, ps=2)
    try:
        yield c
    finally:
        c.close()


def _strategy(cluster, partitioner=None):
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(cluster.spec), rpc_layer="grpc")
    return tf.distribute.experimental.ParameterServerStrategy(resolver, partitioner)


@pytest.fixture
def coordinator(cluster):
    strategy = _strategy(cluster)
    coord = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    yield coord
    coord._stop()


def test_variables_are_placed_round_robin_on_ps_tasks(cluster):
    strategy = _strategy(cluster)
    with strategy.scope():
        vs = [tf.Variable(float(i), name=f"v{i}") for i in range(5)]
    assert [v.device for v in vs] == [f"/job:ps/replica:0/task:{i % 2}/device:CPU:0"
                                      for i in range(5)]
    assert [float(v.numpy()) for v in vs] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert vs[1].name == "v1:0"
    assert strategy.extended.variable_created_in_scope(vs[0])
    assert strategy.num_replicas_in_sync == 1
    vs[2].assign([7.0][0])
    vs[3].assign_add(0.5)
    vs[4].assign_sub(1.0)
    assert [float(v.numpy()) for v in vs[2:]] == [7.0, 3.5, 3.0]
    # Another strategy object (another program) sees its own variables only.
    with _strategy(cluster).scope():
        other = tf.Variable(0.0, name="v2")
    assert float(other.numpy()) == 0.0 and float(vs[2].numpy()) == 7.0


def test_fixed_shards_partitioner_makes_a_sharded_variable(cluster):
    part = tf.distribute.experimental.partitioners.FixedShardsPartitioner(num_shards=2)
    strategy = _strategy(cluster, part)
    init = np.arange(9 * 4, dtype=np.float32).reshape(9, 4)
    with strategy.scope():
        emb = tf.Variable(init, name="emb")
        small = tf.Variable([1.0], name="one_row")  # one row: one shard
    shards = emb.variables
    # TF's tutorial: 9 rows over 2 shards are (5, 4) and (4, 4), on ps 0 and ps 1.
    assert [tuple(s.shape) for s in shards] == [(5, 4), (4, 4)]
    assert [s.device for s in shards] == ["/job:ps/replica:0/task:0/device:CPU:0",
                                          "/job:ps/replica:0/task:1/device:CPU:0"]
    assert [s.name for s in shards] == ["emb/part_0:0", "emb/part_1:0"]
    assert isinstance(small, tf.Variable)
    np.testing.assert_array_equal(tf.convert_to_tensor(emb).numpy(), init)
    np.testing.assert_array_equal(emb.sparse_read([8, 0, 5, 4]).numpy(), init[[8, 0, 5, 4]])
    emb.assign_add(np.ones_like(init))
    np.testing.assert_array_equal(emb.numpy(), init + 1)
    np.testing.assert_array_equal(shards[1].numpy(), init[5:] + 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices = 9 is not in \[0, 9\)"):
        emb.sparse_read([9])


def test_no_lost_updates_under_concurrency(coordinator):
    strategy = coordinator.strategy
    with strategy.scope():
        counter = tf.Variable(0, dtype=tf.int64, name="counter")
        total = tf.Variable(0.0, name="total")

    @tf.function
    def bump(k):
        for _ in range(3):
            counter.assign_add(1)
        total.assign_add(tf.cast(k, tf.float32))
        return os.getpid()

    n = 120
    rvs = [coordinator.schedule(bump, args=(i,)) for i in range(n)]
    coordinator.join()
    pids = {rv.fetch() for rv in rvs}
    assert len(pids) == 2  # both workers ran functions, concurrently
    assert int(counter.numpy()) == 3 * n
    assert float(total.numpy()) == sum(range(n))


def test_training_converges_to_least_squares(coordinator):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 3)).astype(np.float32)
    y = (x @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.25).astype(np.float32)
    strategy = coordinator.strategy
    with strategy.scope():
        w = tf.Variable(np.zeros((3, 1), np.float32), name="w")
        b = tf.Variable(np.zeros((1,), np.float32), name="b")

    def dataset_fn():
        return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(256, seed=1).batch(32).repeat()

    per_worker = coordinator.create_per_worker_dataset(dataset_fn)
    iterator = iter(per_worker)

    @tf.function
    def train_step(it):
        xb, yb = next(it)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) + b - yb))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss

    for _ in range(150):
        coordinator.schedule(train_step, args=(iterator,))
    coordinator.join()
    expected, *_ = np.linalg.lstsq(np.c_[x, np.ones(256)], y, rcond=None)
    np.testing.assert_allclose(np.r_[w.numpy().ravel(), b.numpy()], expected.ravel(), atol=1e-2)
    last = coordinator.schedule(train_step, args=(iterator,))
    assert last.fetch() < 1e-3
    assert isinstance(last.get(), tf.Tensor)
    assert coordinator.fetch({"w": w, "r": [last]})["r"][0] == last.fetch()


def test_user_error_is_raised_once_and_queued_functions_are_cancelled(coordinator):
    strategy = coordinator.strategy
    with strategy.scope():
        v = tf.Variable(0.0, name="v")

    def slow():
        time.sleep(0.3)
        v.assign_add(1.0)

    def bad():
        raise ValueError("bad input here")

    first = [coordinator.schedule(slow) for _ in range(2)]
    failing = coordinator.schedule(bad)
    queued = [coordinator.schedule(slow) for _ in range(10)]
    with pytest.raises(ValueError, match="bad input here"):
        coordinator.join()
    with pytest.raises(ValueError, match="bad input here"):
        failing.fetch()
    cancelled = 0
    for rv in queued:
        try:
            rv.fetch()
        except tf.errors.CancelledError as e:
            assert "The corresponding function is cancelled" in str(e)
            cancelled += 1
    assert cancelled >= 8
    coordinator.join()  # raised once, then cleared
    assert coordinator.done()
    ok = coordinator.schedule(lambda: v.read_value())
    assert ok.fetch() >= 2.0
    assert [rv.fetch() for rv in first] == [None, None]


def test_sigkilled_worker_function_is_rescheduled_and_worker_rejoins(cluster, coordinator):
    strategy = coordinator.strategy
    with strategy.scope():
        runs = tf.Variable(0, dtype=tf.int64, name="runs")

    def work():
        time.sleep(0.05)
        runs.assign_add(1)
        return os.getpid()

    first = [coordinator.schedule(work) for _ in range(6)]
    coordinator.join()
    old_pids = {rv.fetch() for rv in first}
    assert old_pids <= {cluster.pids[("worker", 0)], cluster.pids[("worker", 1)]}
    n = 40
    rvs = [coordinator.schedule(work) for _ in range(n)]
    time.sleep(0.3)
    cluster.kill("worker", 0)
    cluster.start("worker", 0)  # back on the same address
    coordinator.join()
    pids = [rv.fetch() for rv in rvs]  # every function finished despite the kill
    assert len(pids) == n
    # At least once: a function killed after its update may have counted twice.
    assert 6 + n <= int(runs.numpy()) <= 6 + n + 1
    # The restarted worker takes functions again (both workers run this batch).
    later = [coordinator.schedule(work) for _ in range(40)]
    coordinator.join()
    new_pid = cluster.pids[("worker", 0)]
    assert new_pid in {rv.fetch() for rv in later} | set(pids)


def test_unauthenticated_malformed_and_oversized_calls_are_refused(cluster, coordinator):
    ps0 = cluster.address("ps", 0)
    worker0 = cluster.address("worker", 0)
    stranger = rpc.Channel(ps0, token="not-the-token")
    with pytest.raises(tf.errors.UnauthenticatedError):
        stranger.call("VarRead", rpc.encode({"keys": []}))
    evil = rpc.Channel(worker0, token="not-the-token")
    with pytest.raises(tf.errors.UnauthenticatedError):
        evil.call("FnRegister", rpc.encode({"id": "x", "blob": rpc.dumps_code(os.getpid)}))
    friend = rpc.Channel(ps0, token=TOKEN, max_message_bytes=4 * MAX_BYTES)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Malformed"):
        friend.call("VarRead", b"\x00garbage")
    with pytest.raises(tf.errors.ResourceExhaustedError):
        friend.call("VarUpdate", b"x" * (MAX_BYTES + 1024))
    with pytest.raises(tf.errors.NotFoundError):
        friend.call("VarRead", rpc.encode({"keys": ["no-such-variable"]}))
    for ch in (stranger, evil, friend):
        ch.close()
    # The tasks keep serving.
    with coordinator.strategy.scope():
        v = tf.Variable(1.0, name="after")
    assert coordinator.schedule(lambda: v.read_value() + 1.0).fetch() == 2.0


def test_killed_ps_raises_unavailable_within_10s_and_a_restart_resumes(zygote, tmp_path):
    c = Cluster(zygote, workers=1, ps=1)
    coords = []
    try:
        strategy = _strategy(c)
        coords.append(tf.distribute.experimental.coordinator.ClusterCoordinator(strategy))
        coord = coords[-1]
        with strategy.scope():
            v = tf.Variable(0.0, name="v")

        def step():
            time.sleep(0.02)
            v.assign_add(1.0)

        for _ in range(5):
            coord.schedule(step)
        coord.join()
        path = tf.train.Checkpoint(v=v).save(str(tmp_path / "ckpt"))
        for _ in range(200):
            coord.schedule(step)
        c.kill("ps", 0)
        t0 = time.monotonic()
        with pytest.raises(tf.errors.UnavailableError):
            coord.join()
        assert time.monotonic() - t0 < 10.0
        t0 = time.monotonic()
        with pytest.raises(tf.errors.UnavailableError):
            coord.schedule(step).fetch()
        assert time.monotonic() - t0 < 10.0
        coord._stop()
        # The program restarts (a new strategy and coordinator, as a restarted chief
        # makes) with the ps back, restores the checkpoint and finishes the job.
        c.start("ps", 0)
        strategy = _strategy(c)
        coords.append(tf.distribute.experimental.coordinator.ClusterCoordinator(strategy))
        coord = coords[-1]
        with strategy.scope():
            v = tf.Variable(0.0, name="v")
        tf.train.Checkpoint(v=v).restore(path)
        assert float(v.numpy()) == 5.0

        def step2():
            v.assign_add(1.0)

        for _ in range(10):
            coord.schedule(step2)
        coord.join()
        assert float(v.numpy()) == 15.0
    finally:
        for coord in coords:
            coord._stop()
        c.close()
