"""Sampling mode on a real MultiWorkerMirroredStrategy job: each worker process runs
``server.start`` and a Keras ``fit``; ``client.trace`` here captures all of them at once.

Oracles: one file per worker over one window, gloo's all-reduce events in each, step
markers with the same step numbers across workers, XProf's pod viewer seeing every worker,
and the view page's communication time coming from those all-reduces. The library's own
collective events are TF's (``CollectiveReduceV2:CollectiveReduceV2`` with TF's
``instance_key``/``group_key``/``collective`` stats, plus ``group_size`` and ``bytes``):
the same instance keys with the same sizes on every worker (each one collective, paired),
the gradients' size in bytes, and XProf's op statistics counting them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from xprof_helpers import events, host_plane, load_space, xplane_files, xprof_op_stats, xprof_tool

import torchflow as tf
from torchflow._src.profiler import view

pytestmark = pytest.mark.multiprocess
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "distribute", "multiworker"))
from cluster_helpers import child_env, free_ports, tf_config  # noqa: E402 - needs the path


@pytest.mark.parametrize("n", [2, 3])
def test_mwms_fit_of_n_workers_captured_in_one_window(tmp_path, n):
    ports = free_ports(2 * n)
    cluster, prof_ports = ports[:n], ports[n:]
    procs = [subprocess.Popen(
        [sys.executable, os.path.join(HERE, "mwms_profiled_worker.py"), str(prof_ports[i]),
         "600"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=child_env({"TF_CONFIG": tf_config(n, i, cluster), "TF_CPP_MIN_LOG_LEVEL": "3"}))
        for i in range(n)]
    try:
        start = time.time()
        for proc in procs:
            assert proc.stdout.readline().strip() == "READY", f"worker {proc.pid} failed"
        assert time.time() - start < 120
        time.sleep(0.5)  # into the fit
        tf.profiler.experimental.client.trace(
            ",".join(f"grpc://127.0.0.1:{p}" for p in prof_ports), str(tmp_path), 1000)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)
    files = xplane_files(tmp_path)
    assert [os.path.basename(f) for f in files] == sorted(
        f"127.0.0.1_{p}.xplane.pb" for p in prof_ports)
    starts, step_sets, collectives = set(), [], []
    for f in files:
        plane = host_plane(load_space(f))
        starts.add(min(line.timestamp_ns for line in plane.lines))
        evs = events(plane)
        assert sum(1 for _, name, *_ in evs if name == "gloo.all_reduce:GlooAllReduce") >= 4
        step_sets.append({s["step_num"] for _, name, _, _, s in evs if name == "train"})
        collectives.append({s["instance_key"]: s for _, name, _, _, s in evs
                            if name == "CollectiveReduceV2:CollectiveReduceV2"})
    assert len(starts) == 1  # one window
    # Dense(8->16) + Dense(16->1): 161 float32 gradients, 644 bytes, in one pack
    grads = (8 * 16 + 16 + 16 + 1) * 4
    for stats in collectives:
        assert sum(1 for s in stats.values() if s["bytes"] == grads) >= 5
        assert {(s["group_size"], s["collective"]) for s in stats.values()} == {(n, 0)}
        assert len({s["group_key"] for s in stats.values()}) == 1
    paired = set.intersection(*(set(c) for c in collectives))
    assert len(paired) >= 5
    assert all(len({c[k]["bytes"] for c in collectives}) == 1 for k in paired)
    op_stats = xprof_op_stats(files)
    assert op_stats[("CollectiveReduceV2", "CollectiveReduceV2")] >= 10
    common = set.intersection(*step_sets)
    assert len(common) >= 5  # the workers ran the same steps in the window
    pod = xprof_tool(files, "pod_viewer")["podStatsSequence"]["podStatsMap"]
    assert pod and len(pod[0]["podStatsPerCore"]) == n
    (run,) = view.analyze(tmp_path).values()
    for worker in run["workers"].values():
        comm = sum(worker["steps"][str(s)]["communication_us"] for s in common)
        assert comm > 0
