"""tf.profiler overhead on a training step (issue 17): profiling off vs on.

Workloads (``--steps`` steps per run, MLP 784-128-10 with ReLU, batch 64, Adam, sparse
categorical cross-entropy from logits):

* ``fit``: Keras ``model.fit`` (its traced train step), ``epochs=1``, ``verbose=0``.
* ``loop``: a custom loop: a ``tf.function`` step with a ``GradientTape`` and
  ``optimizer.apply_gradients``, each step inside TF's step marker
  ``tf.profiler.experimental.Trace("train", step_num=i, _r=1)``.

Contenders per workload, timed alternately, median of ``--repeat`` runs:

* ``off``: no profiler.
* ``on``: the steps inside a running capture (default ``ProfilerOptions``:
  host_tracer_level=2, python tracer off, device tracer on): what profiling costs each
  training step. Target: on/off <= 1.10 (the issue's goal). ``start`` and
  ``stop(save=False)`` are outside this time.
* ``on-L1``: the same with ``host_tracer_level=1`` (step markers and the library's
  ranges, no per-op events).
* ``run+save``: ``start``, the steps, ``stop()`` writing the ``.xplane.pb``: the whole
  profiled run, with the export of every captured op at ``stop``.

Real TF 2.21 (tf.keras, its own profiler) runs the same workloads in a child process
(``--impl tensorflow``), so its ratios are shown beside ours; ``--no-tf`` skips it.
The last table is what the library's hooks cost with no profiler running (the step
marker, ``host_range`` for checkpoints, ``function_call`` for tf.function, the
``active()`` check a tf.data iterator makes per element).

``python benchmarks/bench_profiler.py [--steps N] [--repeat R] [--stat median|min]
[--clock wall|thread] [--no-tf] [--strict]``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

BATCH = 64


def _model(tf):
    model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu",
                                                       input_shape=(784,)),
                                 tf.keras.layers.Dense(10)])
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _workloads(tf, steps: int) -> dict:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps * BATCH, 784)).astype(np.float32)
    y = rng.integers(0, 10, size=(steps * BATCH,)).astype(np.int32)
    fit_model = _model(tf)

    def fit():
        fit_model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)

    loop_model = _model(tf)
    opt = tf.keras.optimizers.Adam()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, loop_model(xb, training=True))
        grads = tape.gradient(loss, loop_model.trainable_variables)
        opt.apply_gradients(zip(grads, loop_model.trainable_variables))
        return loss

    batches = [(tf.constant(x[i * BATCH:(i + 1) * BATCH]),
                tf.constant(y[i * BATCH:(i + 1) * BATCH])) for i in range(steps)]

    def loop():
        for i, (xb, yb) in enumerate(batches):
            with tf.profiler.experimental.Trace("train", step_num=i, _r=1):
                train_step(xb, yb)

    return {"fit": fit, "loop": loop}


def _measure(tf, steps: int, repeat: int, stat: str = "median", clock: str = "wall") -> dict:
    """{workload: {contender: median (or min) seconds per run}} for one implementation."""
    now = time.thread_time if clock == "thread" else time.perf_counter
    logdir = tempfile.mkdtemp(prefix="bench_profiler_")
    exp = tf.profiler.experimental
    level1 = exp.ProfilerOptions(host_tracer_level=1)
    out = {}
    for name, run in _workloads(tf, steps).items():
        run()
        run()
        exp.start(logdir)  # the first capture of a process sets the profiler up
        run()
        exp.stop(save=False)

        def on(options=None, run=run):
            exp.start(logdir, options=options)
            try:
                t0 = now()
                run()
                return now() - t0
            finally:
                exp.stop(save=False)

        def off(run=run):
            t0 = now()
            run()
            return now() - t0

        def saved(run=run):
            t0 = now()
            exp.start(logdir)
            run()
            exp.stop()
            return now() - t0

        contenders = {"off": off, "on": on, "on-L1": lambda on=on: on(level1),
                      "run+save": saved}
        samples: dict[str, list[float]] = {k: [] for k in contenders}
        keys = list(contenders)
        for r in range(repeat):
            for k in keys[r % len(keys):] + keys[:r % len(keys)]:  # rotate the order
                samples[k].append(contenders[k]())
        pick = min if stat == "min" else statistics.median
        out[name] = {k: pick(v) for k, v in samples.items()}
    return out


def _hooks_idle():
    import torchflow as tf
    from torchflow._src.core import profiler_backend

    trace = tf.profiler.experimental.Trace
    null = contextlib.nullcontext()

    def count():
        return 0

    def marker():
        with trace("train", step_num=1, _r=1):
            pass

    def host_range():
        with profiler_backend.host_range("Iterator::Root"):
            pass

    def function_call():
        with profiler_backend.function_call("train_step", count):
            pass

    def get_next_check():  # what an iterator's next() adds
        with null:
            if profiler_backend.active():
                pass

    def empty():
        with null:
            pass

    return {"Trace": marker, "host_range": host_range, "function_call": function_call,
            "active()": get_next_check, "nullcontext": empty}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--no-tf", action="store_true", help="skip real TensorFlow")
    parser.add_argument("--impl", default="torchflow", choices=["torchflow", "tensorflow"])
    parser.add_argument("--stat", default="median", choices=["median", "min"],
                        help="min estimates the undisturbed cost on a shared machine")
    parser.add_argument("--clock", default="wall", choices=["wall", "thread"],
                        help="thread: the main thread's CPU time (steadier when the machine "
                             "is loaded; leaves out torch's worker threads)")
    args = parser.parse_args(argv)
    if args.impl == "tensorflow":  # the child: real TF's numbers as JSON
        print(json.dumps(_measure(_common.real_tf(), args.steps, args.repeat, args.stat,
                                  args.clock)))
        return 0
    import torchflow as tf

    print(_common.describe_machine())
    ours = _measure(tf, args.steps, args.repeat, args.stat, args.clock)
    hooks = _common.compare(_hooks_idle(), repeat=args.repeat, target_s=0.05, stat=args.stat)
    theirs = None
    if not args.no_tf and _common.real_tf_available():
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--impl",
                              "tensorflow", "--steps", str(args.steps), "--repeat",
                              str(args.repeat), "--stat", args.stat, "--clock", args.clock],
                             capture_output=True, text=True,
                             env=dict(os.environ, TF_USE_LEGACY_KERAS="1",
                                      TF_CPP_MIN_LOG_LEVEL="3"), check=False)
        lines = out.stdout.strip().splitlines()
        theirs = json.loads(lines[-1]) if out.returncode == 0 and lines else None
    rows = []
    for name in ours:
        rows.append(_common.Row(f"{name} (torchflow)", ours[name],
                                [("on", "off", 1.10, "max")]))
        if theirs:
            rows.append(_common.Row(f"{name} (TF 2.21)", theirs[name]))
    cols = ["off", "on", "on-L1", "run+save"]
    ok = _common.print_table(
        f"MLP 784-128-10, batch {BATCH}, {args.steps} steps per run ({args.stat} of "
        f"{args.repeat}, {args.clock} clock)", rows, cols, [("on", "off"), ("on-L1", "off"), ("run+save", "off")])
    _common.print_table(f"Hooks with no profiler running ({args.stat} per use)",
                        [_common.Row("idle", hooks)], list(hooks),
                        [(k, "nullcontext") for k in hooks if k != "nullcontext"])
    step_us = ours["fit"]["off"] / args.steps * 1e6
    worst = max(hooks[k] - hooks["nullcontext"] for k in hooks if k != "nullcontext") * 1e6
    print(f"\nIdle hooks: at most {worst:.2f} us each over an empty with; a fit step here "
          f"takes {step_us:.0f} us ({worst / step_us * 100:.3f}% per hook).")
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    raise SystemExit(main())
