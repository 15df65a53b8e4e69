"""How CPU threading settings hold up when another process takes a core.

Runs three small workloads (a 4x4 add, an MLP training step with a 784x128 layer,
a 256x256 matmul), each setting in a fresh subprocess (OpenMP reads its
environment once, at start-up), first on an idle machine and then while a
CPU-burning subprocess competes for a core. Prints the medians and the slowdown.

Settings: torch's own default, threads 1/2 x OMP_WAIT_POLICY PASSIVE/ACTIVE,
two libgomp spin counts (how long a waiting OpenMP thread spins before sleeping),
torchflow's defaults (whatever ``import torchflow`` applies) and, when
installed, real TensorFlow for reference.

    .venv/bin/python benchmarks/bench_threading.py [--rounds 2] [--quick]

The choice torchflow makes from these figures is written up in docs/threading.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# name, worker kind, intra-op threads (None: the library's default), env overrides
SETTINGS = [
    ("torch default", "torch", None, {}),
    ("torch t=1 PASSIVE", "torch", 1, {"OMP_WAIT_POLICY": "PASSIVE"}),
    ("torch t=1 ACTIVE", "torch", 1, {"OMP_WAIT_POLICY": "ACTIVE"}),
    ("torch t=2 PASSIVE", "torch", 2, {"OMP_WAIT_POLICY": "PASSIVE"}),
    ("torch t=2 ACTIVE", "torch", 2, {"OMP_WAIT_POLICY": "ACTIVE"}),
    ("torch t=2 spin=1k", "torch", 2, {"GOMP_SPINCOUNT": "1000"}),
    ("torch t=2 spin=3k", "torch", 2, {"GOMP_SPINCOUNT": "3000"}),
    ("torch t=2 spin=10k", "torch", 2, {"GOMP_SPINCOUNT": "10000"}),
    ("torch t=2 spin=100k", "torch", 2, {"GOMP_SPINCOUNT": "100000"}),
    ("torchflow defaults", "torchflow", None, {}),
    ("tensorflow 2.x", "tf", None, {}),
]

WORKLOADS = ("add4", "mlp", "mm256")
UNITS = {"add4": ("us", 1e6), "mlp": ("ms", 1e3), "mm256": ("ms", 1e3)}


def _time(fn, iters: int, repeats: int) -> float:
    fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        samples.append((time.perf_counter() - t0) / iters)
    return statistics.median(samples)


def _torch_workloads(torch):
    torch.manual_seed(0)
    a = torch.rand(4, 4)
    x = torch.rand(128, 784)
    w1 = torch.rand(784, 128, requires_grad=True)
    w2 = torch.rand(128, 10, requires_grad=True)
    m = torch.rand(256, 256)

    def mlp():
        with torch.enable_grad():
            loss = torch.relu(x @ w1).matmul(w2).sum()
            torch.autograd.grad(loss, (w1, w2))

    return {"add4": lambda: torch.add(a, a), "mlp": mlp, "mm256": lambda: torch.matmul(m, m)}


def _tf_workloads(tf):
    a = tf.random.uniform((4, 4))
    x = tf.random.uniform((128, 784))
    w1 = tf.Variable(tf.random.uniform((784, 128)))
    w2 = tf.Variable(tf.random.uniform((128, 10)))
    m = tf.random.uniform((256, 256))

    def mlp():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2))
        tape.gradient(loss, [w1, w2])

    return {"add4": lambda: tf.add(a, a), "mlp": mlp, "mm256": lambda: tf.matmul(m, m)}


def worker(kind: str, threads: int | None, quick: bool) -> None:
    if kind == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        fns = _tf_workloads(tf)
        used = tf.config.threading.get_intra_op_parallelism_threads()
    else:
        if kind == "torchflow":
            import torchflow  # noqa: F401 - applies torchflow's threading defaults
        import torch

        if threads is not None:
            torch.set_num_threads(threads)
        fns = _torch_workloads(torch)
        used = torch.get_num_threads()
    scale = 0.2 if quick else 1.0
    iters = {"add4": int(4000 * scale) or 1, "mlp": int(100 * scale) or 1,
             "mm256": int(100 * scale) or 1}
    out = {w: _time(fns[w], iters[w], 7) for w in WORKLOADS}
    out["threads"] = used
    print(json.dumps(out))


def _run_setting(name, kind, threads, env_over, quick) -> dict | None:
    env = dict(os.environ)
    for k in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "GOMP_SPINCOUNT", "KMP_BLOCKTIME"):
        env.pop(k, None)
    env.update(env_over)
    cmd = [sys.executable, __file__, "--worker", kind]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    if quick:
        cmd.append("--quick")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        print(f"  {name}: failed: {r.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def _have_tf() -> bool:
    r = subprocess.run([sys.executable, "-c", "import tensorflow"], capture_output=True,
                       env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    return r.returncode == 0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--worker")
    p.add_argument("--threads", type=int)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--only", help="comma-separated substrings of the settings to run")
    args = p.parse_args()
    if args.worker:
        worker(args.worker, args.threads, args.quick)
        return
    settings = [s for s in SETTINGS if s[1] != "tf" or _have_tf()]
    if args.only:
        keys = args.only.split(",")
        settings = [s for s in settings if any(k in s[0] for k in keys)]
    results: dict = {(s[0], load): [] for s in settings for load in ("idle", "busy")}
    print(f"cpus={os.cpu_count()}; one busy-loop process competes in the 'busy' runs",
          flush=True)
    for _ in range(args.rounds):
        for load in ("idle", "busy"):
            burner = None
            if load == "busy":
                burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
                time.sleep(0.5)
            try:
                for name, kind, threads, env_over in settings:
                    r = _run_setting(name, kind, threads, env_over, args.quick)
                    if r is not None:
                        results[(name, load)].append(r)
                    print(f"  done: {name} ({load})", file=sys.stderr, flush=True)
            finally:
                if burner is not None:
                    burner.kill()
                    burner.wait()
    header = f"{'setting':<20} {'thr':>3}"
    for w in WORKLOADS:
        unit = UNITS[w][0]
        header += f" | {w + ' idle ' + unit:>15} {'busy':>8} {'x':>5}"
    print(header)
    print("-" * len(header))
    for name, *_ in settings:
        idle, busy = results[(name, "idle")], results[(name, "busy")]
        if not idle or not busy:
            continue
        line = f"{name:<20} {idle[0]['threads']:>3}"
        for w in WORKLOADS:
            mult = UNITS[w][1]
            i = statistics.median(r[w] for r in idle) * mult
            b = statistics.median(r[w] for r in busy) * mult
            line += f" | {i:>15.3f} {b:>8.3f} {b / i:>5.2f}"
        print(line)


if __name__ == "__main__":
    main()
