"""Shared helpers for the benchmark scripts: timing, real TF, result tables.

Timing: each contender is called ``number`` times per repeat (``number`` chosen so
one repeat takes about ``target_s``), contenders are interleaved repeat by
repeat so drift hits them alike, and the median per-call time is reported.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

# Make `import torchflow` work when a script runs from a source checkout.
_REPO = Path(__file__).resolve().parent.parent
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))


def real_tf():
    """Imports real TensorFlow quietly (legacy tf.keras, no C++ logs); None if absent."""
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return None
    try:
        import absl.logging

        absl.logging.set_verbosity(absl.logging.ERROR)
    except ImportError:
        pass
    tf.get_logger().setLevel("ERROR")
    return tf


def framework(lib_name: str):
    """``(module, optimizers)`` for a child process of a benchmark: real TF 2.21 with
    tf-keras' legacy (TF 2.4) optimizers for ``"tf"``, torchflow otherwise."""
    if lib_name == "tf":
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as lib

        return lib, lib.keras.optimizers.legacy
    import torchflow as lib

    return lib, lib.keras.optimizers


def real_tf_available() -> bool:
    """Whether real TensorFlow is installed (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("tensorflow") is not None


def _calls_for(fn: Callable[[], object], target_s: float) -> int:
    """How many calls of ``fn`` take about ``target_s`` seconds."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= target_s / 4 or number >= 1 << 22:
            return max(1, int(number * target_s / max(elapsed, 1e-9)))
        number *= 4


def compare(contenders: dict[str, Callable[[], object]], repeat: int = 7,
            target_s: float = 0.05, sync: Callable[[], None] | None = None,
            stat: str = "median") -> dict[str, float]:
    """Median (or ``stat="min"``) seconds per call of each contender, measured interleaved.

    The minimum estimates the undisturbed cost when other processes share the
    CPUs; the median is the typical cost.

    Args:
      contenders: name -> zero-argument callable (None values are skipped).
      repeat: number of timed repeats per contender (the median is taken).
      target_s: approximate length of one repeat.
      sync: called after each timed batch (e.g. ``torch.cuda.synchronize``).
    """
    live = {k: f for k, f in contenders.items() if f is not None}
    for f in live.values():  # warm-up: caches, lazy init, allocator
        f()
        f()
    numbers = {k: _calls_for(f, target_s) for k, f in live.items()}
    samples: dict[str, list[float]] = {k: [] for k in live}
    for _ in range(repeat):
        for k, f in live.items():
            n = numbers[k]
            start = time.perf_counter()
            for _ in range(n):
                f()
            if sync is not None:
                sync()
            samples[k].append((time.perf_counter() - start) / n)
    pick = min if stat == "min" else statistics.median
    return {k: pick(v) for k, v in samples.items()}


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds:.3f} s"


@dataclass
class Row:
    case: str
    times: dict[str, float | None]
    # (contender, baseline, max ratio contender/baseline) targets, e.g.
    # ("torchflow", "torch", 2.5) or ("TF", "torchflow", ...) via `min_ratio`.
    targets: list[tuple[str, str, float, str]] = field(default_factory=list)


def ratio(times: dict[str, float | None], a: str, b: str) -> float | None:
    ta, tb = times.get(a), times.get(b)
    if ta is None or tb is None or tb == 0:
        return None
    return ta / tb


def check(row: Row) -> list[tuple[str, bool | None]]:
    """[(description, met?)] for a row's targets; None when not measurable.

    Each target is ``(a, b, limit, kind)``: ``kind="max"`` means
    time(a)/time(b) <= limit, ``kind="min"`` means time(a)/time(b) >= limit.
    """
    out = []
    for a, b, limit, kind in row.targets:
        r = ratio(row.times, a, b)
        op = "<=" if kind == "max" else ">="
        desc = f"{a}/{b} {op} {limit:g}"
        if r is None:
            out.append((desc, None))
        else:
            out.append((desc, r <= limit if kind == "max" else r >= limit))
    return out


def print_table(title: str, rows: list[Row], columns: list[str],
                ratios: list[tuple[str, str]]) -> bool:
    """Prints times, ratios and target checks; returns True if all measurable targets are met."""
    head = ["case"] + columns + [f"{a}/{b}" for a, b in ratios] + ["targets"]
    body = []
    all_met = True
    for row in rows:
        cells = [row.case] + [fmt_time(row.times.get(c)) for c in columns]
        for a, b in ratios:
            r = ratio(row.times, a, b)
            cells.append("n/a" if r is None else f"{r:.2f}x")
        marks = []
        for desc, met in check(row):
            marks.append(f"{desc}: {'n/a' if met is None else 'OK' if met else 'MISSED'}")
            all_met &= met is not False
        cells.append("; ".join(marks) or "-")
        body.append(cells)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("  ".join("-" * w for w in widths))
    for r in body:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    return all_met


def describe_machine() -> str:
    import platform

    import torch

    return (f"python {platform.python_version()}, torch {torch.__version__}, "
            f"{os.cpu_count()} CPUs, torch threads {torch.get_num_threads()}, "
            f"cuda {'yes' if torch.cuda.is_available() else 'no'}")
