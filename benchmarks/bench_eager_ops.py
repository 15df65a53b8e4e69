"""Eager op overhead and throughput: torchflow vs raw torch vs TF 2.21 eager.

* Dispatch: a 4x4 float32 add (``tf.add``, and the ``+`` operator). Targets:
  torchflow within 2.5x of raw torch, and at least 3x faster than TF eager.
* Throughput: 1e6 / 1e7-element float32 add, multiply, exp, and a 1024x1024
  float32 matmul. Target: torchflow within 10% of raw torch.

All contenders run in one process, interleaved, on the CPU (or the device
``DEVICE=gpu`` selects); medians of ``--repeat`` timed batches are printed with
ratios. ``python benchmarks/bench_eager_ops.py [--quick] [--no-tf] [--strict]``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def _public(module, dotted: str):
    """``module.a.b`` or None when torchflow does not have it (yet)."""
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: small sizes, short runs (numbers not meaningful)")
    parser.add_argument("--no-tf", action="store_true", help="skip real TensorFlow")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--stat", choices=["median", "min"], default="median",
                        help="per-case statistic over repeats (min resists a busy machine)")
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 9)
    target_s = 0.005 if args.quick else 0.1

    tf_real = None if args.no_tf else _common.real_tf()  # before torch: TF's own threads
    import torch

    import torchflow as tfw

    gpu = os.environ.get("DEVICE", "").lower() == "gpu" and torch.cuda.is_available()
    device = torch.device("cuda" if gpu else "cpu")
    sync = torch.cuda.synchronize if gpu else None
    print(f"bench_eager_ops: {_common.describe_machine()}; device {device}")
    if tf_real is not None:
        print(f"real TensorFlow {tf_real.__version__} (eager, CPU)")

    def make(shape, seed):
        a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        t = torch.from_numpy(a).to(device)
        with tfw.device("/GPU:0" if gpu else "/CPU:0") if hasattr(tfw, "device") else _null():
            w = tfw.constant(a)
        r = tf_real.constant(a) if tf_real is not None and not gpu else None
        return t, w, r

    rows = []
    # --- dispatch overhead ------------------------------------------------
    ta, wa, ra = make((4, 4), 0)
    tb, wb, rb = make((4, 4), 1)
    add = _public(tfw, "add")
    times = _common.compare({
        "torch": lambda: torch.add(ta, tb),
        "torchflow": (lambda: add(wa, wb)) if add else None,
        "TF": (lambda: tf_real.add(ra, rb)) if ra is not None else None,
    }, repeat=repeat, target_s=target_s, sync=sync,
        stat=args.stat)
    rows.append(_common.Row("4x4 f32 tf.add", times, [
        ("torchflow", "torch", 2.5, "max"), ("TF", "torchflow", 3.0, "min")]))
    try:
        wa + wb
        has_op = True
    except TypeError:
        has_op = False
    times = _common.compare({
        "torch": lambda: ta + tb,
        "torchflow": (lambda: wa + wb) if has_op else None,
        "TF": (lambda: ra + rb) if ra is not None else None,
    }, repeat=repeat, target_s=target_s, sync=sync,
        stat=args.stat)
    rows.append(_common.Row("4x4 f32 a + b", times, [
        ("torchflow", "torch", 2.5, "max"), ("TF", "torchflow", 3.0, "min")]))
    # One row per op helper: binary_op (maximum: the ordered TypeSet), unary_op (exp),
    # and a tf.experimental.numpy ufunc over the numpy engine kernels.
    tnp = _public(tfw, "experimental.numpy")
    for label, path, tfn, tf_path, unary in (
            ("tf.math.maximum", "math.maximum", torch.maximum, "math.maximum", False),
            ("tf.exp", "math.exp", torch.exp, "math.exp", True),
            ("tnp.multiply", None, torch.mul, "experimental.numpy.multiply", False)):
        fn = _public(tfw, path) if path else (tnp.multiply if tnp is not None else None)
        rf = _public(tf_real, tf_path) if ra is not None else None
        times = _common.compare({
            "torch": (lambda f=tfn: f(ta)) if unary else (lambda f=tfn: f(ta, tb)),
            "torchflow": None if fn is None else
            (lambda f=fn: f(wa)) if unary else (lambda f=fn: f(wa, wb)),
            "TF": None if rf is None else (lambda f=rf: f(ra)) if unary else (lambda f=rf: f(ra, rb)),
        }, repeat=repeat, target_s=target_s, sync=sync, stat=args.stat)
        rows.append(_common.Row(f"4x4 f32 {label}", times, [
            ("torchflow", "torch", 2.5, "max"), ("TF", "torchflow", 3.0, "min")]))
    small_ok = _common.print_table(f"Eager dispatch ({args.stat} per op)", rows,
                                   ["torch", "torchflow", "TF"],
                                   [("torchflow", "torch"), ("TF", "torchflow")])

    # --- throughput ---------------------------------------------------------
    rows = []
    sizes = [10**5] if args.quick else [10**6, 10**7]
    mm = 256 if args.quick else 1024
    ops = [("add", "math.add", torch.add, "add"),
           ("multiply", "math.multiply", torch.mul, "multiply"),
           ("exp", "math.exp", torch.exp, "exp")]
    for n in sizes:
        ta, wa, ra = make((n,), 2)
        tb, wb, rb = make((n,), 3)
        for label, path, tfn, tf_name in ops:
            fn = _public(tfw, path)
            unary = label == "exp"
            times = _common.compare({
                "torch": (lambda f=tfn: f(ta)) if unary else (lambda f=tfn: f(ta, tb)),
                "torchflow": None if fn is None else
                (lambda f=fn: f(wa)) if unary else (lambda f=fn: f(wa, wb)),
                "TF": None if ra is None else
                (lambda f=getattr(tf_real.math, tf_name): f(ra)) if unary else  # noqa: B008 (evaluated once, on purpose)
                (lambda f=getattr(tf_real.math, tf_name): f(ra, rb)),  # noqa: B008 (evaluated once, on purpose)
            }, repeat=repeat, target_s=target_s, sync=sync,
        stat=args.stat)
            rows.append(_common.Row(f"{n:.0e} f32 {label}", times,
                                    [("torchflow", "torch", 1.10, "max")]))
        del ta, wa, ra, tb, wb, rb
    ta, wa, ra = make((mm, mm), 4)
    tb, wb, rb = make((mm, mm), 5)
    matmul = _public(tfw, "linalg.matmul") or _public(tfw, "matmul")
    times = _common.compare({
        "torch": lambda: torch.matmul(ta, tb),
        "torchflow": (lambda: matmul(wa, wb)) if matmul else None,
        "TF": (lambda: tf_real.linalg.matmul(ra, rb)) if ra is not None else None,
    }, repeat=repeat, target_s=target_s, sync=sync,
        stat=args.stat)
    rows.append(_common.Row(f"{mm}^2 f32 matmul", times, [("torchflow", "torch", 1.10, "max")]))
    large_ok = _common.print_table(f"Large ops ({args.stat} per op)", rows,
                                   ["torch", "torchflow", "TF"],
                                   [("torchflow", "torch"), ("TF", "torch")])
    ok = small_ok and large_ok
    print(f"\nall measurable targets met: {ok}")
    return 1 if (args.strict and not ok) else 0


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
