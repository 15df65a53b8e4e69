"""Steps read from their worker's snapshot (ps_values.prefetch): the values a step's
update answered are used by the worker's next step instead of a VarRead, unless the
program has seen a newer write on that ps task (its own assign, a fetched or joined
function). Same values as reading every step; every seen write is read; the new
path is authenticated. In-process clusters (the handlers are counted here)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core import rpc
from torchflow._src.distribute import ps_service, ps_values


def _cluster(workers):
    ports = [rpc.pick_unused_port() for _ in range(workers + 2)]
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{p}" for p in ports[:workers]],
                                 "ps": [f"localhost:{p}" for p in ports[workers:]]})
    servers = [tf.distribute.Server(spec, job_name="worker", task_index=i, protocol="grpc")
               for i in range(workers)]
    servers += [tf.distribute.Server(spec, job_name="ps", task_index=i, protocol="grpc")
                for i in range(2)]
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc")
    strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
    coord = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    return strategy, coord, servers


def _close(coord, servers):
    coord._stop()
    for s in servers:
        s._stop()


@pytest.fixture
def reads(monkeypatch):
    """Counts VarRead calls served."""
    count = [0]
    real = ps_service.TaskService._VarRead

    def counted(self, req, ctx):
        count[0] += 1
        return real(self, req, ctx)

    monkeypatch.setattr(ps_service.TaskService, "_VarRead", counted)
    return count


def _train(snapshots: bool, monkeypatch, reads, steps=15):
    """Linear least squares with SGD on 1 worker, w and b on different ps tasks."""
    monkeypatch.setenv(ps_values.SNAPSHOT_ENV, "1" if snapshots else "0")
    strategy, coord, servers = _cluster(1)
    try:
        rng = np.random.default_rng(0)
        x = rng.normal(size=(32, 3)).astype(np.float32)
        y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
        with strategy.scope():
            w = tf.Variable(tf.zeros([3, 1]), name="w")
            b = tf.Variable(tf.zeros([1]), name="b")
            opt = tf.keras.optimizers.SGD(0.1)

        @tf.function
        def step():
            def replica_fn():
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
                grads = tape.gradient(loss, [w, b])
                opt.apply_gradients(zip(grads, [w, b]))
                return loss
            return strategy.run(replica_fn)

        losses = []
        for i in range(steps):
            if i == 3:
                reads[0] = 0  # after the first steps (function sent, first reads)
            losses.append(float(coord.schedule(step).fetch()))
        coord.join()
        served = reads[0]  # (before the coordinator's own reads below)
        return w.numpy(), b.numpy(), losses, served, (x, y)
    finally:
        _close(coord, servers)


def test_snapshot_reads_give_the_values_of_reading_every_step(monkeypatch, reads):
    w1, b1, losses1, reads_on, (x, y) = _train(True, monkeypatch, reads)
    w0, b0, losses0, reads_off, _ = _train(False, monkeypatch, reads)
    # NumPy reference: the same SGD steps
    wr, br = np.zeros((3, 1), np.float32), np.zeros(1, np.float32)
    ref = []
    for _ in range(15):
        err = x @ wr + br - y
        ref.append(float(np.mean(err ** 2)))
        gw, gb = 2 * x.T @ err / err.size, 2 * err.sum(0) / err.size
        wr, br = wr - 0.1 * gw, br - 0.1 * gb
    np.testing.assert_allclose(losses1, ref, rtol=1e-5)
    np.testing.assert_allclose(losses0, ref, rtol=1e-5)
    np.testing.assert_allclose(w1, wr, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b1, br, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w1, w0)
    np.testing.assert_array_equal(b1, b0)
    # Each fetch is seen by the coordinator, but the writes it saw are the step's own
    # update, which the snapshot holds: no VarRead. Reading every step: 1 per ps.
    assert reads_on == 0
    assert reads_off == 12 * 2


def test_a_coordinator_write_between_steps_is_read(monkeypatch, reads):
    monkeypatch.setenv(ps_values.SNAPSHOT_ENV, "1")
    strategy, coord, servers = _cluster(1)
    try:
        with strategy.scope():
            v = tf.Variable(1.0, name="v")
            opt = tf.keras.optimizers.SGD(1.0)

        @tf.function
        def bump():  # v += 1 through the optimizer; returns the value it read first
            def replica_fn():
                before = tf.identity(v)
                opt.apply_gradients([(tf.constant(-1.0), v)])
                return before
            return strategy.run(replica_fn)

        got = [float(coord.schedule(bump).fetch()) for _ in range(3)]
        assert got == [1.0, 2.0, 3.0]
        v.assign(100.0)  # the coordinator's own write: the worker's snapshot is older
        assert float(coord.schedule(bump).fetch()) == 100.0
        v.assign_add(5.0)
        coord.join()
        assert float(coord.schedule(bump).fetch()) == 106.0
        assert float(v.numpy()) == 107.0
    finally:
        _close(coord, servers)


def test_a_finished_function_the_program_saw_is_read_by_every_worker(monkeypatch):
    monkeypatch.setenv(ps_values.SNAPSHOT_ENV, "1")
    strategy, coord, servers = _cluster(2)
    try:
        with strategy.scope():
            counter = tf.Variable(0.0, name="counter")
            opt = tf.keras.optimizers.SGD(1.0)

        @tf.function
        def inc():
            def replica_fn():
                opt.apply_gradients([(tf.constant(-1.0), counter)])
                return tf.identity(counter)
            return strategy.run(replica_fn)

        @tf.function
        def read():
            return strategy.run(lambda: tf.identity(counter))

        for i in range(12):  # the two workers take turns, each with its own snapshot
            coord.schedule(inc).fetch()
            if i % 3 == 2:
                coord.schedule(inc)
                coord.join()  # seen through join
            assert float(coord.schedule(read).fetch()) == float(counter.numpy())
        # no lost updates: every inc counted once
        assert float(counter.numpy()) == 16.0
    finally:
        _close(coord, servers)


def test_opt_apply_with_read_back_needs_the_token(monkeypatch):
    monkeypatch.setenv(ps_values.SNAPSHOT_ENV, "1")
    strategy, coord, servers = _cluster(1)
    try:
        with strategy.scope():
            v = tf.Variable(1.0, name="v")
        msg = rpc.encode({"opt": "x", "keys": [v._key], "grads": [tf.constant(1.0)],
                          "step": 0, "read": [v._key]})
        for token in ("", "wrong-token"):
            ch = rpc.Channel(v._address, token=token)
            with pytest.raises(tf.errors.UnauthenticatedError):
                ch.call("OptApply", msg, timeout=10.0)
            with pytest.raises(tf.errors.UnauthenticatedError):
                ch.call("FnRun", rpc.encode({"id": "f", "args": b"", "known": {}}),
                        timeout=10.0)
            ch.close()
        assert float(v.numpy()) == 1.0
    finally:
        _close(coord, servers)
