"""tf.profiler overhead on a small Keras fit (issue 17): profiling off vs on.

Cases:

* ``fit``: an MLP 784-128-10 (ReLU), batch 64, Adam, sparse categorical cross-entropy,
  ``--steps`` steps per ``fit`` call (``epochs=1``, ``verbose=0``). Contenders: profiler
  off; on (``start`` with the default ``ProfilerOptions``: host_tracer_level=2, python
  tracer off) around the fit, stopped without saving; on and saved (``stop()`` writing
  the ``.xplane.pb``). Target: on/off <= 1.10 (the issue's goal for the capture).
* ``trace_off``: one ``with tf.profiler.experimental.Trace("train", step_num=i, _r=1)``
  with no profiler running, against an empty ``with`` of a no-op context manager: what
  fit's per-step marker costs when nobody profiles.

Medians of interleaved repeats (``_common.compare``). The first capture of a process
sets up torch's profiler (~1 s); the warm-up calls absorb it. Real TF 2.21 (tf.keras,
its own profiler) runs the same ``fit`` case in a child process (``--impl tensorflow``),
so its on/off ratio is shown beside ours; ``--no-tf`` skips it.

``python benchmarks/bench_profiler.py [--steps N] [--repeat R] [--no-tf]``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def _fit_case(tf, steps: int, batch: int = 64):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps * batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, size=(steps * batch,)).astype(np.int32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu",
                                                       input_shape=(784,)),
                                 tf.keras.layers.Dense(10)])
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    logdir = tempfile.mkdtemp(prefix="bench_profiler_")

    def off():
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)

    def on():
        tf.profiler.experimental.start(logdir)
        off()
        tf.profiler.experimental.stop(save=False)

    def on_saved():
        tf.profiler.experimental.start(logdir)
        off()
        tf.profiler.experimental.stop()

    return {"off": off, "on": on, "on+save": on_saved}


def _trace_case(tf):
    trace = tf.profiler.experimental.Trace
    null = contextlib.nullcontext()

    def marker():
        with trace("train", step_num=1, _r=1):
            pass

    def empty():
        with null:
            pass

    return {"Trace (profiler off)": marker, "nullcontext": empty}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--no-tf", action="store_true", help="skip real TensorFlow")
    parser.add_argument("--impl", default="torchflow", choices=["torchflow", "tensorflow"])
    args = parser.parse_args(argv)
    if args.impl == "tensorflow":  # the child: real TF's numbers as JSON
        fit = _common.compare(_fit_case(_common.real_tf(), args.steps), repeat=args.repeat,
                              target_s=0.2)
        print(json.dumps(fit))
        return 0
    import torchflow as tf

    print(_common.describe_machine())
    fit = _common.compare(_fit_case(tf, args.steps), repeat=args.repeat, target_s=0.2)
    marks = _common.compare(_trace_case(tf), repeat=args.repeat, target_s=0.05)
    tf_fit = None
    if not args.no_tf and _common.real_tf_available():
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--impl",
                              "tensorflow", "--steps", str(args.steps), "--repeat",
                              str(args.repeat)], capture_output=True, text=True,
                             env=dict(os.environ, TF_USE_LEGACY_KERAS="1",
                                      TF_CPP_MIN_LOG_LEVEL="3"), check=False)
        lines = out.stdout.strip().splitlines()
        tf_fit = json.loads(lines[-1]) if out.returncode == 0 and lines else None
    ok = _common.print_table(
        f"Keras fit, MLP 784-128-10, batch 64, {args.steps} steps per fit (median)",
        [_common.Row("fit (torchflow)", fit, [("on", "off", 1.10, "max")])]
        + ([_common.Row("fit (TF 2.21)", tf_fit)] if tf_fit else []),
        ["off", "on", "on+save"], [("on", "off"), ("on+save", "off")])
    _common.print_table("Per-step marker with no profiler running (median per use)",
                        [_common.Row("Trace", marks)],
                        ["Trace (profiler off)", "nullcontext"],
                        [("Trace (profiler off)", "nullcontext")])
    per_step_us = (marks["Trace (profiler off)"] - marks["nullcontext"]) * 1e6
    print(f"\nTrace with no profiler: {per_step_us:.2f} us per step over an empty with; "
          f"a fit step here takes {fit['off'] / args.steps * 1e6:.0f} us "
          f"({per_step_us / (fit['off'] / args.steps * 1e6) * 100:.3f}%).")
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    raise SystemExit(main())
