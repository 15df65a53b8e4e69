"""tf.data service throughput: a CPU-heavy pipeline locally and on 1, 2 (, 4) workers,
against real TF's tf.data service on the same pipeline.

Pipeline (per element: "decode + augment" as a chain of dense ops): from an index,
build a 128x128 float32 image, 6 rounds of ``tanh(x @ x / 128)``, flip, reduce to a
128-vector; ``batch(16)``. One element costs about a millisecond of CPU, so
throughput is bound by compute and should scale with workers until the cores run out.

Our workers are separate processes (``OMP_NUM_THREADS=1`` each: one core per worker);
the dispatcher and the consumer live in this process. TF's runs in a child process
with its dispatcher and workers in-process (TF's own runtime threads, one intra-op
thread per op). On a machine with fewer free cores than workers + 1 the figures show
contention, not scaling: quote them with the machine's load. Each contender
makes one warm-up pass, then the median of ``--repeat`` passes is reported as
elements per second, with the ratio to local processing and to TF at the same worker
count.

The row "(pickle)" runs the smallest worker count again with the dataset sent as a
signed pickle (what pipelines with no graph form use) instead of its GraphDef, which
the workers rebuild and run through the graph interpreter.

A last line times scalar elements (``range(20000)``), where the per-element cost of
the service itself (framing, calls, threads) is all there is.

    .venv/bin/python benchmarks/bench_data_service.py [--quick] [--no-tf] [--workers 1 2 4]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import textwrap
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import _common  # after OMP_NUM_THREADS, which torch reads at import

import torchflow as tf
from torchflow._src.data.service import _transport, data_service_ops, splits

_PIPELINE = textwrap.dedent("""
    def make_pipeline(mod, n):
        def heavy(i):
            x = mod.reshape(mod.cast(mod.range(128 * 128), mod.float32), [128, 128])
            x = mod.sin(x * (mod.cast(i, mod.float32) + 1.0) / 1000.0)
            for _ in range(6):
                x = mod.tanh(mod.matmul(x, x) / 128.0)
            x = mod.reverse(x, [1])
            return mod.reduce_mean(x, axis=0)
        return mod.data.Dataset.range(n).map(heavy).batch(16)


    def one_pass(ds):
        n = 0
        for b in ds:
            n += int(b.shape[0]) if b.shape.rank else 1
        return n


    SMALL = 20000  # scalar elements: what each element costs the service itself
""")
exec(_PIPELINE)  # the same source runs under TF in the child process

_WORKER = textwrap.dedent("""
    import sys
    import torchflow as tf
    svc = tf.data.experimental.service
    w = svc.WorkerServer(svc.WorkerConfig(sys.argv[1], heartbeat_interval_ms=500))
    print("UP", flush=True)
    w.join()
""")

_TF_CHILD = _PIPELINE + textwrap.dedent("""
    import json, statistics, sys, time
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)  # one core per op, as ours
    n, repeat, counts = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
    svc = tf.data.experimental.service

    def timed(make, n=n):
        one_pass(make())
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            got = one_pass(make())
            times.append(time.perf_counter() - t)
        assert got == n, got
        return n / statistics.median(times)

    out = {"local": timed(lambda: make_pipeline(tf, n))}
    d = svc.DispatchServer()
    workers = []
    for k in counts:
        while len(workers) < k:
            workers.append(svc.WorkerServer(svc.WorkerConfig(d.target.split("://")[1])))
        out[str(k)] = timed(lambda: make_pipeline(tf, n).apply(
            svc.distribute("distributed_epoch", d.target)))
    out["small"] = timed(lambda: tf.data.Dataset.range(SMALL).apply(
        svc.distribute("distributed_epoch", d.target)), SMALL)
    print("RESULT", json.dumps(out), flush=True)
""")


def timed(make, n: int, repeat: int) -> float:
    one_pass(make())  # noqa: F821 - defined by exec(_PIPELINE)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        got = one_pass(make())  # noqa: F821
        times.append(time.perf_counter() - t)
    assert got == n, got
    return n / statistics.median(times)


def _timed_as_pickle(make, n: int, repeat: int) -> float:
    """``timed`` with datasets sent to the workers as signed pickles."""
    real = data_service_ops.encode_dataset
    data_service_ops.encode_dataset = lambda ds: (
        _transport.PICKLE, data_service_ops._dumps(splits.portable(ds)))
    try:
        return timed(make, n, repeat)
    finally:
        data_service_ops.encode_dataset = real


def run_tf(n: int, repeat: int, counts: list) -> dict | None:
    if not _common.real_tf_available():
        return None
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    r = subprocess.run([sys.executable, "-c", _TF_CHILD, str(n), str(repeat),
                        json.dumps(counts)], capture_output=True, text=True, env=env,
                       timeout=1800)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    print("TF child failed:", r.stderr[-2000:])
    return None


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-tf", action="store_true")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = p.parse_args()
    n = 192 if args.quick else 1536
    svc = tf.data.experimental.service
    tf_result = None if args.no_tf else run_tf(n, args.repeat, args.workers)

    ours = {"local": timed(lambda: make_pipeline(tf, n), n, args.repeat)}  # noqa: F821
    d = svc.DispatchServer()
    procs = []
    try:
        for k in sorted(args.workers):
            while len(procs) < k:
                procs.append(subprocess.Popen([sys.executable, "-c", _WORKER, d._address],
                                              stdout=subprocess.PIPE, text=True))
                if procs[-1].stdout.readline().strip() != "UP":
                    raise RuntimeError("a worker did not start")
            end = time.monotonic() + 60
            while d._num_workers() < k and time.monotonic() < end:
                time.sleep(0.1)
            ours[str(k)] = timed(lambda: make_pipeline(tf, n).apply(  # noqa: F821
                svc.distribute("distributed_epoch", d.target)), n, args.repeat)
            if k == min(args.workers):
                ours[f"{k}p"] = _timed_as_pickle(lambda: make_pipeline(tf, n).apply(  # noqa: F821
                    svc.distribute("distributed_epoch", d.target)), n, args.repeat)
        ours["small"] = timed(lambda: tf.data.Dataset.range(SMALL).apply(  # noqa: F821
            svc.distribute("distributed_epoch", d.target)), SMALL, args.repeat)  # noqa: F821
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        d._stop()

    print(_common.describe_machine())
    print(f"CPU-heavy pipeline, {n} elements, batch 16; elements/s (median of "
          f"{args.repeat} passes)")
    print(f"{'':>17} {'torchflow':>10} {'TF':>10} {'vs local':>9} {'vs TF':>7}")
    keys = ["local"] + [str(k) for k in sorted(args.workers)]
    keys.insert(2, f"{min(args.workers)}p")
    for key in keys:
        mine = ours[key]
        theirs = tf_result.get(key.rstrip("p")) if tf_result else None
        name = "local" if key == "local" else f"{key.rstrip('p')} worker" + \
            ("s" if key.rstrip("p") != "1" else "") + (" (pickle)" if key.endswith("p") else "")
        vs_local = mine / ours["local"]
        vs_tf = f"{mine / theirs:6.2f}x" if theirs else "    n/a"
        print(f"{name:>17} {mine:10.1f} {theirs or float('nan'):10.1f} {vs_local:8.2f}x "
              f"{vs_tf}")
    small, theirs = ours["small"], tf_result.get("small") if tf_result else None
    k = max(args.workers)
    print(f"scalar elements (range({SMALL}), {k} worker{'s' if k > 1 else ''}): "  # noqa: F821
          f"torchflow {small:.0f}/s, TF {theirs or float('nan'):.0f}/s"
          + (f", {small / theirs:.2f}x TF" if theirs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
