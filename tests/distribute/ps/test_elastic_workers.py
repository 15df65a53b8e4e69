"""Elastic workers (issue 14, beyond TF 2.4): a worker started after the coordinator,
its ``TF_CONFIG`` the cluster plus itself, takes scheduled functions — with the
per-worker datasets made before it came — without restarting anything.

Real processes on 127.0.0.1 (free ports, bounded waits, every child killed by PID).
"""

from __future__ import annotations

import os
import time

import pytest
from ps_cluster import TOKEN, Cluster, Zygote, _alive

import torchflow as tf
from torchflow._src.core import rpc


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


def test_a_worker_started_later_takes_functions(zygote):
    cluster = Cluster(zygote, workers=1, ps=1)
    late_pid = None
    coordinator = None
    try:
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
            tf.train.ClusterSpec(cluster.spec), rpc_layer="grpc")
        strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
        coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
        with strategy.scope():
            runs = tf.Variable(0, dtype=tf.int64, name="runs")

        def work():
            time.sleep(0.05)
            runs.assign_add(1)
            return os.getpid()

        def per_worker_dataset():
            return tf.data.Dataset.from_tensors(tf.constant(os.getpid(), tf.int64)).repeat()

        iterator = iter(coordinator.create_per_worker_dataset(per_worker_dataset))

        def own_element(it):
            time.sleep(0.05)  # both workers get a share of these too
            return next(it)

        first = [coordinator.schedule(work) for _ in range(8)]
        coordinator.join()
        old_pid = cluster.pids[("worker", 0)]
        assert {rv.fetch() for rv in first} == {old_pid}

        # a second worker, on a new port, whose cluster is the first one plus itself
        spec = {"worker": cluster.spec["worker"] + [f"127.0.0.1:{rpc.pick_unused_port()}"],
                "ps": cluster.spec["ps"]}
        late_pid = zygote.fork(spec, "worker", 1)
        end = time.monotonic() + 30
        while len(coordinator._workers) < 2 and time.monotonic() < end:
            assert _alive(late_pid)
            time.sleep(0.1)
        assert len(coordinator._workers) == 2, "the late worker was not picked up in 30 s"

        later = [coordinator.schedule(work) for _ in range(40)]
        elements = [coordinator.schedule(own_element, args=(iterator,)) for _ in range(40)]
        coordinator.join()
        pids = [rv.fetch() for rv in later]
        assert set(pids) <= {old_pid, late_pid}
        assert late_pid in pids  # the late worker ran functions
        # its per-worker dataset was made there when it joined
        assert {int(rv.fetch()) for rv in elements} <= {old_pid, late_pid}
        assert late_pid in {int(rv.fetch()) for rv in elements}
        # no update lost across the two workers
        assert int(coordinator.fetch(runs)) == 8 + 40
    finally:
        if coordinator is not None:
            coordinator._stop()
        if late_pid is not None and _alive(late_pid):
            os.kill(late_pid, 9)
        cluster.close()
