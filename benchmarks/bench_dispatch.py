"""Dispatch cost of small eager ops: the Python time torchflow adds around a kernel.

Times ``tf.add``, ``tf.multiply``, ``tf.matmul``, ``tf.exp`` and the operators
(``x + y``, ``x + 2.0``, ``0.9 * x``, ``x + variable`` ...) on 4x4 float32 CPU
tensors (the kernel itself is ~1 us, so the differences are dispatch), in CPU
time (``time.process_time``: a loaded machine's waiting is not counted), as the
median over many timed batches, with raw torch as the floor ("over": the time
above raw torch measured in the same run).

``--against DIR`` compares two source trees (e.g. an older commit checked out
with ``git worktree add /tmp/old <commit>``): each round runs this script once in
each tree, alternately, in fresh interpreters, and the table gives the median
over rounds for both and their ratio::

    python benchmarks/bench_dispatch.py                       # this tree
    python benchmarks/bench_dispatch.py --against /tmp/old --rounds 8
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

_REPO = Path(__file__).resolve().parent.parent


def _cases(tf, torch):
    x = tf.constant([[1.0, 2.0, 3.0, 4.0]] * 4)
    y = tf.constant([[0.5, 1.5, 2.5, 3.5]] * 4)
    v = tf.Variable(y)
    tx = torch.ones(4, 4)
    ty = torch.ones(4, 4)
    return {
        "torch.add (floor)": lambda: torch.add(tx, ty),
        "tf.add(x, y)": lambda: tf.add(x, y),
        "tf.multiply(x, y)": lambda: tf.multiply(x, y),
        "tf.matmul(x, y)": lambda: tf.matmul(x, y),
        "x + y": lambda: x + y,
        "x * y": lambda: x * y,
        "x + 2.0": lambda: x + 2.0,
        "tf.add(x, 2.0)": lambda: tf.add(x, 2.0),
        "0.9 * x": lambda: 0.9 * x,
        "x ** 2.0": lambda: x ** 2.0,
        "x + variable": lambda: x + v,
        "-x": lambda: -x,
        "tf.exp(x)": lambda: tf.exp(x),
    }


def worker(repeat: int, number: int) -> dict:
    """Per-call CPU time (ns) of each case: median of ``repeat`` batches, interleaved."""
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    import torch

    import torchflow as tf

    torch.set_num_threads(1)
    cases = _cases(tf, torch)
    timers = {k: timeit.Timer(fn, timer=time.process_time) for k, fn in cases.items()}
    for t in timers.values():  # warm up
        t.timeit(number // 4 or 1)
    samples: dict = {k: [] for k in cases}
    for _ in range(repeat):
        for k, t in timers.items():
            samples[k].append(t.timeit(number) / number * 1e9)
    return {"tree": str(Path(tf.__file__).resolve().parent.parent),
            "ns": {k: statistics.median(v) for k, v in samples.items()}}


def _run_tree(tree: Path, repeat: int, number: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), CUDA_VISIBLE_DEVICES="")
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", "--repeat", str(repeat),
         "--number", str(number)],
        env=env, cwd=str(tree), check=True, capture_output=True, text=True,
    ).stdout
    res = json.loads(out.strip().splitlines()[-1])
    if Path(res["tree"]) != tree.resolve():
        raise SystemExit(f"imported torchflow from {res['tree']}, not {tree}")
    return res["ns"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", type=Path, help="another source tree to compare with")
    p.add_argument("--rounds", type=int, default=6, help="runs of each tree, alternating")
    p.add_argument("--repeat", type=int, default=25, help="timed batches per run")
    p.add_argument("--number", type=int, default=4000, help="calls per batch")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.repeat, a.number)))
        return 0
    trees = [_REPO] + ([a.against] if a.against else [])
    per_tree: dict = {t: [] for t in trees}
    for r in range(a.rounds):
        for t in trees if r % 2 == 0 else trees[::-1]:
            per_tree[t].append(_run_tree(t, a.repeat, a.number))
    names = list(per_tree[_REPO][0])
    floor = names[0]
    # Per run: the time, and the time over raw torch measured in the same process (the
    # dispatch overhead, less sensitive to how loaded the machine was during that run).
    med = {t: {k: statistics.median(run[k] for run in runs) for k in names}
           for t, runs in per_tree.items()}
    over = {t: {k: statistics.median(run[k] - run[floor] for run in runs) for k in names}
            for t, runs in per_tree.items()}
    head = f"{'case':20s} {'this':>7s} {'over':>6s}"
    if a.against:
        head += f" {'against':>8s} {'over':>6s} {'time ratio':>10s} {'over ratio':>10s}"
    print(f"CPU time per call, ns (median of {a.rounds} runs x {a.repeat} batches x "
          f"{a.number} calls); 'over': above {floor} in the same run")
    print(head)
    for k in names:
        line = f"{k:20s} {med[_REPO][k]:7.0f} {over[_REPO][k]:6.0f}"
        if a.against:
            t_old, o_old = med[a.against][k], over[a.against][k]
            ratio = over[_REPO][k] / o_old if o_old > 0 else float("nan")
            line += (f" {t_old:8.0f} {o_old:6.0f} {med[_REPO][k] / t_old:10.3f} "
                     f"{ratio:10.3f}")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
