"""The collective events torchflow records are TF's: the same kernel event names and the
stats TF puts on them, compared with real TF's own profile of the same collectives (one
task: group_size 1, which TF runs as a real collective), then read by XProf."""

from __future__ import annotations

import time

import numpy as np
import pytest
from xprof_helpers import events, host_plane, load_space, xplane_files, xprof_op_stats

import torchflow as tf
from torchflow._src.core import collective, rpc
from torchflow._src.profiler import session as session_lib
from torchflow._src.testing import real_tf

COLLECTIVES = ("CollectiveReduceV2", "CollectiveGatherV2", "CollectiveBcastSendV2")
TF_STATS = ("instance_key", "group_key", "collective")


@pytest.fixture(autouse=True)
def _no_session_left():
    if session_lib._current is not None:
        session_lib.end(session_lib._current, collect=False)
    session_lib._logdir = None
    yield
    if session_lib._current is not None:
        session_lib.end(session_lib._current, collect=False)
    session_lib._logdir = None


def _collective_events(logdir):
    (path,) = xplane_files(logdir)
    return [(name.partition(":")[0], stats) for _, name, _, _, stats in
            events(host_plane(load_space(path))) if name in {f"{c}:{c}" for c in COLLECTIVES}]


def _theirs(logdir, x):
    t = real_tf()
    v = t.constant(x)
    t.profiler.experimental.start(str(logdir))
    t.raw_ops.CollectiveReduceV2(input=v, group_size=1, group_key=7, instance_key=1,
                                 ordering_token=[], merge_op="Add", final_op="Id")
    t.raw_ops.CollectiveGatherV2(input=v, group_size=1, group_key=7, instance_key=2,
                                 ordering_token=[])
    t.raw_ops.CollectiveBcastSendV2(input=v, group_size=1, group_key=7, instance_key=3)
    time.sleep(0.3)  # TF's collective thread closes its event after the op has returned
    t.profiler.experimental.stop()
    return _collective_events(logdir)


def _ours(logdir, x):
    group = collective.CollectiveGroup(0, 1, ["/job:worker/replica:0/task:0"],
                                       master_addr="127.0.0.1",
                                       master_port=rpc.pick_unused_port(), timeout_seconds=30)
    try:
        v = tf.constant(x)
        tf.profiler.experimental.start(str(logdir))
        (reduced,) = group.all_reduce([v])
        gathered = group.all_gather(v)
        (sent,) = group.broadcast([v], 0)
        tf.profiler.experimental.stop()
    finally:
        group.shutdown()
    for out in (reduced, gathered, sent):
        np.testing.assert_array_equal(out.numpy(), x)
    return _collective_events(logdir)


def test_collective_events_have_tfs_names_and_stats(tmp_path):
    x = np.arange(6, dtype=np.float32)
    theirs = _theirs(tmp_path / "tf", x)
    ours = _ours(tmp_path / "ours", x)
    assert sorted(name for name, _ in theirs) == sorted(COLLECTIVES)  # on TF's own thread
    # all_gather first all-reduces the sizes (an int64 vector of group_size)
    assert [name for name, _ in ours] == ["CollectiveReduceV2", "CollectiveGatherV2",
                                          "CollectiveReduceV2", "CollectiveBcastSendV2"]
    ours_by_name = {}
    for name, stats in ours:
        ours_by_name.setdefault(name, stats)
    for name, stats in theirs:
        mine = ours_by_name[name]
        assert set(TF_STATS) <= set(stats) and set(TF_STATS) <= set(mine)
        assert mine["collective"] == stats["collective"]  # TF's kind: 0 reduce, 1 bcast, 2 gather
        assert mine["group_size"] == 1
        assert mine["bytes"] == x.nbytes
    keys = [s["instance_key"] for _, s in ours]
    assert keys == sorted(set(keys)) and len({s["group_key"] for _, s in ours}) == 1


def test_xprof_op_stats_count_the_collectives(tmp_path):
    x = np.ones(3, dtype=np.float32)
    _ours(tmp_path, x)
    stats = xprof_op_stats(xplane_files(tmp_path))
    assert stats[("CollectiveReduceV2", "CollectiveReduceV2")] == 2
    assert stats[("CollectiveGatherV2", "CollectiveGatherV2")] == 1
    assert stats[("CollectiveBcastSendV2", "CollectiveBcastSendV2")] == 1


def test_no_collective_event_without_a_capture(tmp_path):
    group = collective.CollectiveGroup(0, 1, ["/job:worker/replica:0/task:0"],
                                       master_addr="127.0.0.1",
                                       master_port=rpc.pick_unused_port(), timeout_seconds=30)
    try:
        group.all_reduce([tf.constant([1.0])])  # before the capture: not in it
        tf.profiler.experimental.start(str(tmp_path))
        tf.profiler.experimental.stop()
    finally:
        group.shutdown()
    assert _collective_events(tmp_path) == []
