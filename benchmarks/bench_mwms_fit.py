"""2-worker Keras ``fit`` under MultiWorkerMirroredStrategy: torchflow against real TF.

The model and data are the MWMS tutorial's (``tut-distribute-multi_worker_with_keras``:
a small CNN on 28x28 inputs, SGD, sparse categorical cross-entropy, accuracy),
on synthetic data, global batch 128 (64 per worker). Each framework runs its
2 workers as 2 processes on 127.0.0.1 (``TF_CONFIG``), one after the other; after
a warm-up epoch, steps/s = steps / wall time of a timed ``fit`` epoch, measured
on worker 0, median of the repeats (and of the alternating rounds); each
framework keeps its default thread counts (torchflow's MWMS splits the CPUs between
the workers of one machine, as torchrun does; TF's pools share them). Goal:
torchflow >= 1.5x TF.

    python benchmarks/bench_mwms_fit.py [--quick] [--strict]
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

WORKER = """
import importlib, json, os, sys, time
import numpy as np
tf = importlib.import_module(os.environ["TF_MODULE"])
steps, repeat = int(sys.argv[1]), int(sys.argv[2])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rng = np.random.default_rng(0)
x = rng.random((2048, 28, 28), dtype=np.float32)
y = rng.integers(0, 10, 2048).astype(np.int64)
ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(128)
with strategy.scope():
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(28, 28)),
        tf.keras.layers.Reshape(target_shape=(28, 28, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(10)])
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  optimizer=tf.keras.optimizers.SGD(learning_rate=0.001),
                  metrics=["accuracy"])
model.fit(ds, epochs=1, steps_per_epoch=max(3, steps // 4), verbose=0)
rates = []
for _ in range(repeat):
    t0 = time.perf_counter()
    model.fit(ds, epochs=1, steps_per_epoch=steps, verbose=0)
    rates.append(steps / (time.perf_counter() - t0))
print("RESULT " + json.dumps(rates), flush=True)
"""


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def run(module, steps, repeat, timeout=900):
    ports = _free_ports(2)
    procs = []
    try:
        for i in range(2):
            env = dict(os.environ, TF_MODULE=module, CUDA_VISIBLE_DEVICES="",
                       TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1",
                       PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                       TF_CONFIG=json.dumps({"cluster": {"worker": [f"127.0.0.1:{p}"
                                                                    for p in ports]},
                                             "task": {"type": "worker", "index": i}}))
            procs.append(subprocess.Popen([sys.executable, "-c", WORKER, str(steps),
                                           str(repeat)], env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
        outs = [p.communicate(timeout=timeout) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_out, err) in zip(procs, outs):
        if p.returncode != 0:
            raise RuntimeError(f"{module} worker failed:\n{err[-3000:]}")
    line = [x for x in outs[0][0].splitlines() if x.startswith("RESULT ")][-1]
    return statistics.median(json.loads(line[7:]))


def _load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main(argv):
    quick, strict = "--quick" in argv, "--strict" in argv
    steps, repeat = (10, 2) if quick else (30, 3)
    sys.path.insert(0, str(REPO / "benchmarks"))
    from _common import describe_machine, real_tf_available

    # The two frameworks' clusters alternate, round by round, so the shared
    # machine's load swings hit both alike; each figure is the median over rounds.
    rounds = 1 if quick else int(os.environ.get("BENCH_ROUNDS", "3"))
    tf_there = real_tf_available()
    mine, other = [], []
    for _ in range(rounds):
        mine.append(run("torchflow", steps, repeat))
        if tf_there:
            other.append(run("tensorflow", steps, repeat))
    ours = statistics.median(mine)
    theirs = statistics.median(other) if tf_there else None
    print(f"2-worker Keras fit (MWMS tutorial CNN, global batch 128, {steps} steps x "
          f"{repeat}, {rounds} alternating round(s)); {describe_machine()}; load average "
          f"{_load()}")
    print(f"  torchflow  {ours:7.2f} steps/s  (rounds: {', '.join(f'{x:.2f}' for x in mine)})")
    if theirs is None:
        print("  tensorflow not installed")
        return 0
    r = ours / theirs
    met = r >= 1.5
    print(f"  tensorflow {theirs:7.2f} steps/s  (rounds: {', '.join(f'{x:.2f}' for x in other)})")
    print(f"  torchflow/tf {r:.2f}x ({'goal >= 1.5x met' if met else 'goal >= 1.5x MISSED'})")
    return 1 if strict and not met else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
