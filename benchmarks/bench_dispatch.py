"""Dispatch cost of small eager ops: the Python time torchflow adds around a kernel.

Times the operators (``x + y``, ``x * 0.9``, ``0.9 * x``, ``x - 1``, ``-x``,
``x @ w``, ``x[0]``, ``x > 0``, ``x == y``, ``x + variable``) and ``tf.add``,
``tf.matmul``, ``tf.reduce_sum``, ``tf.reshape``, ``tf.cast`` over scalar, ``[4]``
and ``[256, 256]`` tensors of float32, float16, float64, int32, bool and string
(where the op takes the dtype), in CPU time (``time.process_time``: a loaded
machine's waiting is not counted), as the median over many timed batches, with
raw ``torch.add`` on 4x4 tensors as the floor.

``--against DIR`` compares two source trees (e.g. an older commit checked out
with ``git worktree add /tmp/old <commit>``) IN ONE PROCESS: both torchflows are
imported (each tree's modules are swapped into ``sys.modules`` before its
batches, so lazy imports resolve in the right tree), every case is timed
batch by batch alternately in A and B, and the table gives both medians and
their ratio. On a shared, loaded machine this interleaving is the only fair
comparison: a run-after-run comparison measures the load as much as the code.
Each case's result is also compared between the trees (value and dtype) once::

    python benchmarks/bench_dispatch.py                          # this tree
    python benchmarks/bench_dispatch.py --against /tmp/old       # A/B, all cases
    python benchmarks/bench_dispatch.py --against /tmp/old -k "float32 " -k int32 \
        --repeat 41 --target 0.001 --stat min                   # a loaded machine

How far to trust a ratio: run the tree against itself (``--against .``); on a
shared 2-core machine the same code reads 0.95-1.05 case by case even with
``--stat min`` over 41 batches, so a few percent either way is noise, while the
floor row (identical code in both trees) shows the drift of that run.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

_REPO = Path(__file__).resolve().parent.parent
_SIZES = {"s": (), "4": (4,), "256": (256, 256)}
_NUMERIC = ("float32", "float16", "float64", "int32")
_FLOATS = ("float32", "float16", "float64")


def _values(np_dtype, shape, seed):
    """Test values of a dtype and shape (no zeros: division and pow stay finite)."""
    rng = np.random.default_rng(seed)
    if np_dtype == "string":
        a = np.array([b"ab", b"cd", b"ef"], dtype=object)[rng.integers(0, 3, size=shape)]
        return a if shape else bytes(a)
    if np_dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    return (rng.integers(1, 5, size=shape) * (1 if np_dtype == "int32" else 0.5)).astype(
        np_dtype)


def cases(tf, torch) -> dict:
    """name -> zero-argument callable, built with one tree's torchflow."""
    tx, ty = torch.ones(4, 4), torch.ones(4, 4)
    out = {"torch.add (floor)": lambda: torch.add(tx, ty)}
    for size, shape in _SIZES.items():
        for dt in _NUMERIC + ("bool", "string"):
            d = getattr(tf, dt)
            x = tf.constant(_values(dt, shape, 1), dtype=d)
            y = tf.constant(_values(dt, shape, 2), dtype=d)
            w = None
            if dt != "bool" and dt != "string" and shape:
                w = tf.constant(_values(dt, (shape[-1], shape[-1]), 3), dtype=d)
                xm = x if len(shape) == 2 else tf.reshape(x, (1, shape[0]))
            tag = f" {dt} {size}"
            c = {}
            if dt != "bool":
                c["x + y"] = lambda x=x, y=y: x + y
                c["tf.add(x, y)"] = lambda x=x, y=y: tf.add(x, y)
            c["x == y"] = lambda x=x, y=y: x == y
            c["tf.reshape"] = lambda x=x: tf.reshape(x, (-1,))
            if shape:
                c["x[0]"] = lambda x=x: x[0]
            if dt in _NUMERIC:
                c["x - 1"] = lambda x=x: x - 1
                c["-x"] = lambda x=x: -x
                c["x > 0"] = lambda x=x: x > 0
                c["tf.reduce_sum"] = lambda x=x: tf.reduce_sum(x)
            if dt in _FLOATS:
                c["x * 0.9"] = lambda x=x: x * 0.9
                c["0.9 * x"] = lambda x=x: 0.9 * x
                c["tf.cast"] = lambda x=x: tf.cast(x, tf.int32)
            elif dt != "string":
                c["tf.cast"] = lambda x=x: tf.cast(x, tf.float32)
            if dt == "float32":
                v = tf.Variable(y)
                c["x + variable"] = lambda x=x, v=v: x + v
                c["tf.add(x, 2.0)"] = lambda x=x: tf.add(x, 2.0)
                c["x ** 2.0"] = lambda x=x: x ** 2.0
                c["tf.exp"] = lambda x=x: tf.exp(x)
            if dt in ("float32", "int32"):
                c["tf.less(x, y)"] = lambda x=x, y=y: tf.less(x, y)
            if dt == "int32":
                c["tf.bitwise.bitwise_and"] = lambda x=x, y=y: tf.bitwise.bitwise_and(x, y)
            if dt == "bool":
                c["tf.logical_and"] = lambda x=x, y=y: tf.logical_and(x, y)
            if w is not None:
                c["x @ w"] = lambda x=xm, w=w: x @ w
                c["tf.matmul"] = lambda x=xm, w=w: tf.matmul(x, w)
            for k, fn in c.items():
                out[k + tag] = fn
    return out


class _Tree:
    """One source tree's torchflow, importable side by side with another's."""

    def __init__(self, path: Path):
        self.path = path.resolve()
        self._drop()
        sys.path.insert(0, str(self.path))
        try:
            self.tf = importlib.import_module("torchflow")
        finally:
            sys.path.remove(str(self.path))
        if Path(self.tf.__file__).resolve().parent.parent != self.path:
            raise SystemExit(f"imported torchflow from {self.tf.__file__}, not {path}")
        self.mods = self._own()

    @staticmethod
    def _own() -> dict:
        return {k: v for k, v in sys.modules.items()
                if k == "torchflow" or k.startswith("torchflow.")}

    def _drop(self) -> None:
        for k in list(self._own()):
            del sys.modules[k]

    def activate(self) -> None:
        self._drop()
        sys.modules.update(self.mods)
        sys.path.insert(0, str(self.path))

    def deactivate(self) -> None:
        sys.path.remove(str(self.path))
        self.mods = self._own()  # keep what a lazy import added


def _number(fn, target_s: float) -> int:
    n = 1
    while True:
        t0 = time.process_time()
        for _ in range(n):
            fn()
        dt = time.process_time() - t0
        if dt >= 0.02 or n >= 1 << 16:
            return max(5, int(n * target_s / max(dt, 1e-9)))
        n *= 4


def _same(a, b) -> bool:
    if type(a) is bool or type(b) is bool:
        return a == b
    try:
        va, vb = np.asarray(a.numpy()), np.asarray(b.numpy())
    except Exception:  # noqa: BLE001 - a result that cannot be read differs
        return False
    return a.dtype.name == b.dtype.name and np.array_equal(va, vb, equal_nan=va.dtype.kind in "fc")


def run(trees: list, repeat: int, target_s: float, keys: list, stat=statistics.median
        ) -> tuple:
    """Per-call CPU ns of each case in each tree: median of ``repeat`` batches; the
    trees' batches alternate (A B, then B A ...) case by case."""
    import torch

    torch.set_num_threads(1)
    per_tree = []
    for tr in trees:
        tr.activate()
        try:
            c = cases(tr.tf, torch)
            per_tree.append({k: f for k, f in c.items()
                             if not keys or any(s in k for s in keys) or "floor" in k})
        finally:
            tr.deactivate()
    names = [k for k in per_tree[0] if all(k in c for c in per_tree[1:])]
    mismatch, failed = [], set()
    results: dict = {}
    for i, tr in enumerate(trees):
        tr.activate()
        try:
            for k in names:
                try:
                    results.setdefault(k, []).append(per_tree[i][k]())
                except Exception as e:  # noqa: BLE001 - reported, the case is left out
                    failed.add(f"{k}: {type(e).__name__} in {tr.path}")
        finally:
            tr.deactivate()
    names = [k for k in names if not any(f.startswith(k + ":") for f in failed)]
    for k in names:
        if "floor" not in k and len(trees) > 1 and not _same(*results[k]):
            mismatch.append(k)
    trees[0].activate()
    try:
        numbers = {k: _number(per_tree[0][k], target_s) for k in names}
    finally:
        trees[0].deactivate()
    samples = [{k: [] for k in names} for _ in trees]
    gc.collect()
    gc.disable()  # as timeit does: a collection would land in one tree's batch
    try:
        _time(trees, per_tree, names, numbers, samples, repeat)
    finally:
        gc.enable()
    med = [{k: stat(v) for k, v in s.items()} for s in samples]
    return names, med, mismatch, sorted(failed)


def _time(trees, per_tree, names, numbers, samples, repeat) -> None:
    timer = time.process_time
    for r in range(repeat):
        for k in names:
            n = numbers[k]
            order = range(len(trees)) if r % 2 == 0 else range(len(trees) - 1, -1, -1)
            for i in order:
                trees[i].activate()
                fn = per_tree[i][k]
                t0 = timer()
                for _ in range(n):
                    fn()
                samples[i][k].append((timer() - t0) / n * 1e9)
                trees[i].deactivate()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", type=Path, help="another source tree to compare with")
    p.add_argument("--repeat", type=int, default=15, help="timed batches per case and tree")
    p.add_argument("--target", type=float, default=0.002, help="seconds per timed batch")
    p.add_argument("--stat", choices=("median", "min"), default="median",
                   help="per-case statistic over the batches (min: the undisturbed cost)")
    p.add_argument("-k", action="append", default=[],
                   help="only cases whose name contains this (repeatable)")
    a = p.parse_args(argv)
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    trees = [_Tree(_REPO)] + ([_Tree(a.against)] if a.against else [])
    names, med, mismatch, failed = run(trees, a.repeat, a.target, a.k,
                                   min if a.stat == "min" else statistics.median)
    print(f"CPU ns per call, {a.stat} of {a.repeat} batches of ~{a.target * 1e3:.0f} ms"
          + (f"; A = {_REPO}, B = {a.against}, batches interleaved in one process"
             if a.against else ""))
    head = f"{'case':34s} {'A':>9s}"
    if a.against:
        head += f" {'B':>9s} {'A/B':>6s}"
    print(head)
    ratios = []
    for k in names:
        line = f"{k:34s} {med[0][k]:9.0f}"
        if a.against:
            ratio = med[0][k] / med[1][k]
            if "floor" not in k:
                ratios.append(ratio)
            line += f" {med[1][k]:9.0f} {ratio:6.3f}" + ("  <- slower" if ratio > 1.03 else "")
        print(line)
    if ratios:
        print(f"A/B over {len(ratios)} cases: geometric mean "
              f"{float(np.exp(np.mean(np.log(ratios)))):.3f}, worst {max(ratios):.3f}, "
              f"best {min(ratios):.3f}")
    for k in mismatch:
        print(f"RESULTS DIFFER between the trees: {k}")
    for f in failed:
        print(f"left out (raised): {f}")
    return 1 if mismatch else 0


if __name__ == "__main__":
    sys.exit(main())
