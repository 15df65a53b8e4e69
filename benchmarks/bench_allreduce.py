"""All-reduce bandwidth between 2 worker processes on this machine (127.0.0.1).

Contenders, each in its own pair of processes, for float32 tensors of 1, 16 and
64 MB:

* ``gloo``: raw ``torch.distributed.all_reduce`` on a Gloo process group;
* ``torchflow``: (in the same two processes, timed alternately with gloo)
  ``MultiWorkerMirroredStrategy`` and
  ``ReplicaContext.all_reduce`` inside ``strategy.run`` (the user's path:
  strategy, merge_call, the collective adapter, TF tensors);
* ``tf``: real TensorFlow's ``MultiWorkerMirroredStrategy`` (``TF_CONFIG``,
  RING), the same all-reduce inside a ``tf.function`` (skipped with --no-tf).

Both processes of a pair run the same fixed number of calls in lockstep (a
collective needs every rank), a few warm-up calls first. Gloo and torchflow
are timed in alternating rounds (which one goes first alternates too), so the
shared machine's load swings hit both alike; the figure is size / median time
per call over the rounds (GB/s, higher is better), with the best round's in
brackets. Goal: torchflow >= 0.9x raw Gloo (on the medians).

    python benchmarks/bench_allreduce.py [--quick] [--no-tf] [--strict]
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIZES_MB = (1, 16, 64)


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _calls(mb, quick):
    n = {1: 30, 16: 8, 64: 3}[mb]
    return max(2, n // 3) if quick else n


def _timed(step, mb, quick, repeat):
    """Per-call seconds of ``repeat`` rounds of ``_calls`` calls, after 2 warm-up calls."""
    for _ in range(2):
        step()
    n = _calls(mb, quick)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        times.append((time.perf_counter() - t0) / n)
    return times


def child_both(rank, port, quick, repeat):
    """Raw Gloo and torchflow in the same two processes, timed repeat by repeat
    alternately, so the machine's load hits both alike."""
    import torch
    import torch.distributed as dist

    sys.path.insert(0, str(REPO))
    import torchflow as tf

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    gloo, tflow = {}, {}
    for mb in SIZES_MB:
        raw = torch.ones(mb * (1 << 20) // 4)
        t = tf.ones([mb * (1 << 20) // 4])

        def step_tf(t=t):
            return strategy.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", t))

        g, f = [], []
        for r in range(repeat):
            order = [(g, lambda raw=raw: dist.all_reduce(raw)), (f, step_tf)]
            for out, step in order[::-1] if r % 2 else order:
                out.extend(_timed(step, mb, quick, 1))
        gloo[mb], tflow[mb] = g, f
    dist.destroy_process_group()
    return {"gloo": gloo, "torchflow": tflow}


def child_tf(rank, port, quick, repeat):
    sys.path.insert(0, str(REPO / "benchmarks"))
    from _common import real_tf

    tf = real_tf()
    comm = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=comm)
    out = {}
    for mb in SIZES_MB:
        t = tf.ones([mb * (1 << 20) // 4])

        @tf.function
        def step(t=t):
            return strategy.run(lambda: tf.distribute.get_replica_context().all_reduce(
                "SUM", tf.identity(t)))  # a captured eager tensor has no destinations

        out[mb] = _timed(lambda step=step: step().numpy(), mb, quick, repeat)
    return out


CHILDREN = {"both": child_both, "tf": child_tf}


def run_pair(kind, quick, repeat, timeout=600):
    ports = _free_ports(3)  # two for TF_CONFIG, one for the raw Gloo group
    procs = []
    try:
        for rank in range(2):
            env = dict(os.environ, OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="",
                       TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1",
                       TF_CONFIG=json.dumps({"cluster": {"worker": [f"127.0.0.1:{p}"
                                                                    for p in ports[:2]]},
                                             "task": {"type": "worker", "index": rank}}))
            procs.append(subprocess.Popen(
                [sys.executable, __file__, "--child", kind, str(rank), str(ports[2]),
                 str(int(quick)), str(repeat)], env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True))
        outs = [p.communicate(timeout=timeout) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_out, err) in zip(procs, outs):
        if p.returncode != 0:
            raise RuntimeError(f"{kind} worker failed:\n{err[-3000:]}")
    line = [x for x in outs[0][0].splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[7:])


def _load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main(argv):
    if argv and argv[0] == "--child":
        kind, rank, port, quick, repeat = argv[1], int(argv[2]), int(argv[3]), \
            bool(int(argv[4])), int(argv[5])
        print("RESULT " + json.dumps(CHILDREN[kind](rank, port, quick, repeat)), flush=True)
        return 0
    quick, strict = "--quick" in argv, "--strict" in argv
    sys.path.insert(0, str(REPO / "benchmarks"))
    from _common import describe_machine, real_tf_available

    repeat = 5 if quick else 11
    kinds = ["gloo", "torchflow"]
    both = run_pair("both", quick, repeat)
    results = {k: {int(mb): v for mb, v in both[k].items()} for k in kinds}
    if "--no-tf" not in argv and real_tf_available():
        kinds.append("tf")
        results["tf"] = {int(mb): v for mb, v in run_pair("tf", quick, repeat).items()}
    print(f"All-reduce between 2 processes on 127.0.0.1 (float32; GB/s = size / median "
          f"time per call over {repeat} alternating rounds [best round]); "
          f"{describe_machine()}; load average {_load()}")
    header = f"{'size':>6} " + " ".join(f"{k:>16}" for k in kinds) + "  torchflow/gloo"
    print(header)
    ok = True
    for mb in SIZES_MB:
        gbs = {k: (mb / 1024) / statistics.median(results[k][mb]) for k in kinds}
        best = {k: (mb / 1024) / min(results[k][mb]) for k in kinds}
        r = gbs["torchflow"] / gbs["gloo"]
        ok = ok and r >= 0.9
        print(f"{mb:>4}MB " + " ".join(f"{gbs[k]:>7.3f} [{best[k]:>6.3f}]" for k in kinds) +
              f"  {r:>6.2f}x {'(goal >= 0.9x met)' if r >= 0.9 else '(goal >= 0.9x MISSED)'}")
    return 1 if strict and not ok else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
